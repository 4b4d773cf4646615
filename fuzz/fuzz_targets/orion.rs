//! ORION's option parser: any command line (one argument per line of the input), and for a valid
//! one the spec it makes, which must load. An error is fine; a panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigel_orion::{self as orion, Lun, LunFile, Parsed};
use rigel_spec::{self as spec, SpecInput};

fuzz_target!(|text: &str| {
    let args: Vec<&str> = text.lines().collect();
    let _ = orion::orion_args(&args);
    let Ok(Parsed::Run(options)) = orion::parse(&args) else {
        return;
    };
    let luns = LunFile {
        name: "fuzz.lun".to_owned(),
        luns: (1..=2)
            .map(|line| Lun {
                path: format!("/dev/fuzz{line}"),
                line,
            })
            .collect(),
    };
    let toml = orion::to_spec(&options, &luns, text);
    if let Err(d) = spec::load(SpecInput::Text { name: "orion", text: &toml }, &[], 2) {
        let _ = d.render(false);
    }
});
