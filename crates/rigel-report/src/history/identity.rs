//! What a history series is: runs of the same thing. ORION's runs are the same when their command
//! lines are (`rigel orion -run simple -testname x`); a spec's when its name and the plan's shape
//! are (the classes as declared, the matrix, the sweep and the points' loads), never by the name
//! alone: seven different runs named `x` are seven series.

use rigel_results::ResultsDoc;

/// The series a run belongs to, as the history names it: `x (rigel orion -run simple …)` or
/// `oltp (shape 1a2b3c4d)`.
pub fn identity(doc: &ResultsDoc) -> String {
    let plan = doc.plan();
    let command = doc.command();
    if command.get(1).is_some_and(|c| c == "orion") {
        let args: Vec<&str> = command.iter().skip(1).map(String::as_str).collect();
        return format!("{} (rigel {})", plan.name, args.join(" "));
    }
    // The plan's shape, not its targets or timings: what runs at each point.
    let points: Vec<String> = plan.points.iter().map(|p| p.label()).collect();
    let shape = serde_json::json!({
        "classes": plan.classes,
        "matrix": plan.matrix,
        "points": points,
        "search": plan.search.is_some(),
    });
    format!(
        "{} (shape {:08x})",
        plan.name,
        fnv1a(shape.to_string().as_bytes())
    )
}

/// FNV-1a, 32 bits: stable across builds (unlike `DefaultHasher`), enough to tell shapes apart.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h: u32, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}
