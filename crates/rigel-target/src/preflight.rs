//! What `rigel run` would refuse about the targets as they are now, told before any I/O and at
//! the spec's text: a declared size larger than the device (or foreign file) at the path, a write
//! without consent. `rigel plan` and `rigel run` both ask it before they start; opening the
//! volume checks the same again (the targets may change in between).

use super::create::marked_by_rigel;
use super::guard::{Consent, check_writable};
use super::kind::TargetKind;
use super::probe::{OpenMode, open_target, probe};
use rigel_expr::Size;
use rigel_plan::RunPlan;
use rigel_spec::{Spec, SpecError};
use std::path::Path;

/// Every refusal the targets that exist now would meet, one per target, at the spec's `size` or
/// `path` of that target. Targets that do not exist yet (rigel creates them) pass.
pub fn preflight_refusals(spec: &Spec, plan: &RunPlan, consent: Consent) -> Vec<SpecError> {
    let mut out = Vec::new();
    for (i, (planned, written)) in plan.targets.iter().zip(&spec.targets).enumerate() {
        let path = Path::new(&planned.path);
        if !path.exists() {
            continue;
        }
        let at_path = |msg: String, label: &str| SpecError::at(&written.path.loc, msg, label);
        let probed = match open_target(path, OpenMode::default()).and_then(|f| {
            let p = probe(path, &f)?;
            let ours = p.kind == TargetKind::File && marked_by_rigel(&f, path)?;
            Ok((p, ours))
        }) {
            Ok(p) => p,
            Err(e) => {
                out.push(at_path(e.to_string(), "this target"));
                continue;
            }
        };
        let (probed, ours) = probed;
        if let (Some(declared), Some(size)) = (planned.size, &written.size)
            && declared > probed.size
            && !ours
        {
            let (what, hint) = match probed.kind {
                TargetKind::Block => (
                    "the device",
                    "a run uses a device up to its target's declared size: remove the size to use \
                     the whole device, or lower it",
                ),
                TargetKind::File => (
                    "the file (not one rigel created)",
                    "rigel extends only files it created: lower the size, or use another path",
                ),
            };
            out.push(
                SpecError::at(
                    &size.loc,
                    format!(
                        "target {}: {what} `{}` holds {}, less than the declared {}",
                        written.name_or(i),
                        planned.path,
                        Size(probed.size),
                        Size(declared)
                    ),
                    "declared here",
                )
                .hint(format!(
                    "{hint} (--set target.{i}.size={})",
                    Size(probed.size)
                )),
            );
            continue;
        }
        if let Err(refusal) = check_writable(planned, &probed, ours, consent) {
            out.push(at_path(
                format!("target {}: {refusal}", written.name_or(i)),
                "written by this run",
            ));
        }
    }
    out
}
