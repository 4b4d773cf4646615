//! `rows.csv`: every class at every finished point, one line per direction shown, with exact
//! figures (counts, bytes, latencies in ns). Written beside a report whose tables were summarized
//! (`template::summarize`): the rows a page leaves out are here, as figures, not as prose.

use crate::rows::{ClassRow, DirView, Point};
use std::fmt::Write;

pub const ROWS_CSV: &str = "rows.csv";

const HEADER: &str = "point,label,sweep,class,direction,load,outstanding,size,ios,bytes,iops,mbps,\
mean_ns,p50_ns,p90_ns,p99_ns,p99_9_ns,p99_99_ns,max_ns,cpu_per_io_us,depth_held,status,error";

/// The CSV of these points' class rows.
pub fn rows_csv(points: &[Point]) -> String {
    let mut out = String::with_capacity(points.len() * 200);
    out.push_str(HEADER);
    out.push('\n');
    for p in points {
        let sweep: Vec<String> = p
            .sweep
            .iter()
            .map(|b| format!("{}={}", b.key, b.value))
            .collect();
        let status = if p.ok { "ok" } else { "failed" };
        let depth = p.depth.as_ref().map(|d| d.held.to_string());
        for r in &p.classes {
            let whole = [DirView {
                direction: "total",
                ios: r.ios,
                bytes: r.bytes,
                iops: r.iops,
                mbps: r.mbps,
                latency: r.latency.clone(),
            }];
            let dirs: &[DirView] = if r.dirs.len() > 1 { &r.dirs } else { &whole };
            for d in dirs {
                line(&mut out, p.id, &p.label, &sweep.join(" "), r, d);
                let _ = writeln!(
                    out,
                    ",{},{status},{}",
                    depth.as_deref().unwrap_or(""),
                    quote(p.error.as_deref().unwrap_or(""))
                );
            }
        }
    }
    out
}

fn line(out: &mut String, id: u32, label: &str, sweep: &str, r: &ClassRow, d: &DirView) {
    let l = &d.latency;
    let _ = write!(
        out,
        "{id},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        quote(label),
        quote(sweep),
        quote(&r.class),
        d.direction,
        r.load,
        r.outstanding,
        r.size,
        d.ios,
        d.bytes,
        d.iops,
        d.mbps,
        l.mean_ns,
        l.p50_ns,
        l.p90_ns,
        l.p99_ns,
        l.p99_9_ns,
        l.p99_99_ns,
        l.max_ns,
        r.cpu_per_io_us,
    );
}

/// A field quoted when it holds a comma, a quote or a line break (RFC 4180).
fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn fields_with_commas_or_quotes_are_quoted() {
        assert_eq!(quote("small=4"), "small=4");
        assert_eq!(quote("small=4, large=1"), "\"small=4, large=1\"");
        assert_eq!(quote("a \"b\""), "\"a \"\"b\"\"\"");
    }
}
