//! The spec checker: any TOML text in, a plan or diagnostics out, through `rigel_plan::check` (what
//! `rigel check` runs: load, the partial spec refused as `rigel run` refuses it, compile, the
//! requirements' selectors) and rendered as it prints them. An error is fine; a panic is not.
//! Texts that name `extends` are skipped: they read other files, which is the loader's file
//! handling, not its parsing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigel_spec::{Builtins, SpecInput};

fuzz_target!(|text: &str| {
    if text.contains("extends") {
        return;
    }
    let checked = rigel_plan::check(
        SpecInput::Text { name: "fuzz", text },
        &[],
        2,
        &Builtins::single(),
    );
    if let Err(d) = checked.and_then(rigel_plan::Checked::runnable) {
        let _ = d.render(false);
    }
});
