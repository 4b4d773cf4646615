//! Exit codes, as the README documents them.

pub const OK: i32 = 0;
pub const RUNTIME: i32 = 1;
pub const BAD_SPEC: i32 = 2;
pub const REQUIREMENTS: i32 = 3;
/// `rigel compare --fail-inconclusive`: no regression, but some line too noisy to judge.
pub const INCONCLUSIVE: i32 = 4;
/// `rigel run` with `[search]`: the search ended with no answer (the target failed already at
/// `low`, or its trials contradict each other).
pub const NO_ANSWER: i32 = 5;
/// `verify`: some block read back was not what the storage had acknowledged (a lost, misdirected
/// or torn write, zeros or garbage).
pub const INTEGRITY: i32 = 6;
