//! The value grammar: every parser of spec strings, on any text. An error is fine; a panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigel_expr as expr;

fuzz_target!(|text: &str| {
    let _ = expr::parse_size(text);
    let _ = expr::parse_size_list(text);
    let _ = expr::parse_duration(text);
    let _ = expr::parse_mix(text);
    let _ = expr::parse_mix_list(text);
    let _ = expr::parse_comparison(text);
    let _ = expr::parse_requirement_key(text);
    if let Ok(count) = expr::parse_count(text) {
        let _ = count.eval(&expr::Names { targets: 3, cores: 2 });
    }
    if let Ok(sweep) = expr::parse_sweep(text) {
        let _ = sweep.eval(&expr::Names { targets: 3, cores: 2 });
    }
    if let Ok(d) = expr::parse_duration(text) {
        let _ = expr::format_duration(d);
    }
});
