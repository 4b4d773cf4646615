//! Exit codes, as the README documents them.

pub const OK: i32 = 0;
pub const RUNTIME: i32 = 1;
pub const BAD_SPEC: i32 = 2;
pub const REQUIREMENTS: i32 = 3;
