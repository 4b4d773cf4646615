//! What a run's writes carried, per writing class, recorded in the document when it is made: an
//! array compresses and deduplicates, so a write figure means little without it, and what the
//! default carries has changed between rigel versions (a buffer rewritten with a few words
//! changed, then fresh random units). A document without the record was written before rigel
//! kept it, and a report says so instead of guessing.

use rigel_plan::RunPlan;
use serde::{Deserialize, Serialize};

/// One writing class's data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WriteData {
    pub class: String,
    /// `fresh` (the default: every 4 KiB unit fresh random bytes, incompressible at any window,
    /// no duplicate unit), `shaped` (`compress` / `dedupe`), `verify` (verify's stamped blocks).
    pub kind: String,
    /// `compress` and `dedupe` in hundredths (`3:1` = 300; 100: none): shaped data only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compress: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedupe: Option<u32>,
    /// verify's block (and stamp) size, bytes: verified data only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<u64>,
    /// In words, as the report's method section shows it.
    pub text: String,
}

impl WriteData {
    /// Each class of `plan` that writes at any point: what rigel's executor puts in its writes
    /// (`rigel_exec::policy::data` and `verify::block` are the code this describes).
    pub fn of_plan(plan: &RunPlan) -> Vec<WriteData> {
        let verified = |name: &str| {
            let v = plan.run.verify.as_ref()?;
            v.classes.iter().any(|c| c == name).then_some(v.unit)
        };
        plan.classes
            .iter()
            .filter(|c| {
                c.mix.writes()
                    || plan.points.iter().any(|p| {
                        p.classes
                            .iter()
                            .any(|l| l.class == c.name && l.mix.writes())
                    })
            })
            .map(|c| {
                let mut d = WriteData {
                    class: c.name.clone(),
                    kind: "fresh".to_owned(),
                    compress: None,
                    dedupe: None,
                    unit: None,
                    text:
                        "fresh random bytes in every 4 KiB unit written (no unit repeats another \
                           or a shifted copy of one: incompressible at any compressor window, no \
                           duplicate for deduplication)"
                            .to_owned(),
                };
                if let Some(unit) = verified(&c.name) {
                    d.kind = "verify".to_owned();
                    d.unit = Some(unit);
                    d.text = format!(
                        "verify's stamped blocks of {unit} bytes: a 64-byte header and a tag per \
                         512-byte sector over a pattern from the seed that every block shares, so \
                         an array's compression and deduplication find most of it"
                    );
                } else if let Some(s) = c.pattern.data {
                    let ratio = |h: u32| format!("{}:1", f64::from(h) / 100.0);
                    d.kind = "shaped".to_owned();
                    d.compress = Some(s.compress);
                    d.dedupe = Some(s.dedupe);
                    d.text = format!(
                        "shaped 4 KiB units: compress {}, dedupe {} (fresh units random then \
                         zeros, duplicates copied from a small pool)",
                        ratio(s.compress),
                        ratio(s.dedupe)
                    );
                }
                d
            })
            .collect()
    }
}
