//! TOML spec files → a typed, spanned model: `extends` and `[vars]` resolved, `--set` applied, every
//! error pointing at the text the user wrote.
