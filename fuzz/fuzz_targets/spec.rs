//! The spec loader: any TOML text in, a plan or diagnostics out (rendered, as `rigel check` prints
//! them). An error is fine; a panic is not. Texts that name `extends` are skipped: they read other
//! files, which is the loader's file handling, not its parsing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigel_spec::{self as spec, SpecInput};

fuzz_target!(|text: &str| {
    if text.contains("extends") {
        return;
    }
    match spec::load(SpecInput::Text { name: "fuzz", text }, &[], 2) {
        Ok(loaded) => {
            if let Err(errors) = rigel_plan::compile(&loaded.spec, 2) {
                let d = spec::Diagnostics {
                    sources: loaded.sources,
                    errors,
                };
                let _ = d.render(false);
            }
        }
        Err(d) => {
            let _ = d.render(false);
        }
    }
});
