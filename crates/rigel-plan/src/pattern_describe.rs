//! How `rigel plan` words a class's placement and skew: its targets, their layout and size, the
//! region in exact bytes, the distribution.

use super::model::{Layout, PlannedTarget, VolumeLayout};
use super::pattern::{Pattern, volume_bytes};
use rigel_expr::{Size, units};

impl Pattern {
    /// `targets redo1, redo2 (concat, 2 GiB); region 0%..10% = bytes 0..214748364 (204.8 MiB)`: the
    /// class's volume and region, in bytes where every target's size is declared.
    pub fn describe(&self, targets: &[PlannedTarget], volume: VolumeLayout) -> String {
        let own = self.target_indices(targets.len());
        let names: Vec<String> = own
            .iter()
            .map(|&i| match targets.get(i) {
                Some(t) if !t.name.is_empty() => t.name.clone(),
                Some(t) => t.path.clone(),
                None => i.to_string(),
            })
            .collect();
        let layout = match (volume.layout, own.len()) {
            (_, 1) | (Layout::Concat, _) => "concat".to_owned(),
            (Layout::Raid0, _) => format!("raid0, stripe {}", Size(volume.stripe)),
        };
        let sizes: Option<Vec<u64>> = own
            .iter()
            .map(|&i| targets.get(i).and_then(|t| t.size))
            .collect();
        let bytes = sizes.map(|s| volume_bytes(volume.layout, volume.stripe, &s));
        let mut out = match (self.targets.is_empty(), bytes) {
            (true, Some(b)) => format!("every target ({layout}, {})", units::size(b as f64)),
            (true, None) => format!("every target ({layout})"),
            (false, Some(b)) => format!(
                "targets {} ({layout}, {})",
                names.join(", "),
                units::size(b as f64)
            ),
            (false, None) => format!("targets {} ({layout})", names.join(", ")),
        };
        if let Some(r) = self.region {
            out.push_str(&format!("; region {r}"));
            if let Some(b) = bytes {
                let (from, to) = r.bytes(b);
                let human = units::size((to - from) as f64);
                out.push_str(&format!(" = bytes {from}..{to} ({human})"));
            }
        }
        if !self.distribution.is_uniform() {
            let layout = if self.contiguous {
                "contiguous"
            } else {
                "scattered"
            };
            out.push_str(&format!("; {} ({layout})", self.distribution));
        }
        if let Some(m) = &self.sizes {
            let mean = units::size(m.mean());
            out.push_str(&format!("; sizes {m} (mean {mean} by count)"));
        }
        if let Some(d) = self.data {
            let ratio = |h: u32| format!("{}:1", f64::from(h) / 100.0);
            out.push_str(&format!(
                "; data compress {}, dedupe {} (4 KiB units)",
                ratio(d.compress),
                ratio(d.dedupe)
            ));
        }
        if self.dsync {
            out.push_str("; durable writes (dsync)");
        }
        if let Some(t) = self.think_ns {
            out.push_str(&format!(
                "; think {} after each I/O",
                rigel_expr::units::latency(t as f64)
            ));
        }
        if let Some(b) = self.burst {
            out.push_str(&format!(
                "; bursts of {} I/Os, idle {} after each burst's last completion",
                b.ios,
                rigel_expr::units::latency(b.idle_ns as f64)
            ));
        }

        if let Some(f) = self.flush {
            let call = if f.fsync { "an fsync" } else { "an fdatasync" };
            let writes = match f.every {
                1 => "every write".to_owned(),
                n => format!("every {n} writes"),
            };
            out.push_str(&format!("; durable writes ({call} after {writes})"));
        }
        out
    }
}
