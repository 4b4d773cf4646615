//! `[run] cpus`: where the workers run, `"0-3"`, `"0,2,4-7"` (the kernel's cpulist format, which
//! sysfs writes too) or `"node:0"` (a NUMA node's CPUs, resolved on the host that runs).

use super::value::ExprError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The highest CPU number a list may name: the kernel's largest `CONFIG_NR_CPUS` (8192) less one.
pub const MAX_CPU: u32 = 8191;

/// A set of CPUs as a spec writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum CpuSet {
    /// These CPUs, ascending and distinct.
    List(Vec<u32>),
    /// The CPUs of this NUMA node (`/sys/devices/system/node/nodeN/cpulist` where the run is).
    Node(u32),
}

impl fmt::Display for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuSet::List(cpus) => f.write_str(&format_cpu_list(cpus)),
            CpuSet::Node(n) => write!(f, "node:{n}"),
        }
    }
}

impl From<CpuSet> for String {
    fn from(c: CpuSet) -> String {
        c.to_string()
    }
}

impl TryFrom<String> for CpuSet {
    type Error = String;
    fn try_from(s: String) -> Result<CpuSet, String> {
        parse_cpus(&s).map_err(|e| e.message)
    }
}

const FORMS: &str =
    "write CPUs as the kernel lists them, \"0-3\" or \"0,2,4-7\", or a NUMA node, \"node:0\"";

/// Parses a `cpus` value: a cpulist (`0-3,8`) or `node:N`.
pub fn parse_cpus(s: &str) -> Result<CpuSet, ExprError> {
    let lead = s.len() - s.trim_start().len();
    let text = s.trim();
    if let Some(rest) = text.strip_prefix("node:") {
        let at = lead + "node:".len();
        return match rest.trim().parse::<u32>() {
            Ok(n) if n <= MAX_CPU => Ok(CpuSet::Node(n)),
            _ => Err(ExprError::new(
                at..at + rest.len(),
                format!("`{rest}` is not a NUMA node number"),
            )
            .with_hint(FORMS)),
        };
    }
    parse_list_at(text, lead).map(CpuSet::List)
}

/// Parses the kernel's cpulist format (`0-3,8,10-11`), as sysfs writes it: ascending, distinct.
pub fn parse_cpu_list(s: &str) -> Result<Vec<u32>, ExprError> {
    let lead = s.len() - s.trim_start().len();
    parse_list_at(s.trim(), lead)
}

fn parse_list_at(text: &str, lead: usize) -> Result<Vec<u32>, ExprError> {
    if text.is_empty() {
        return Err(ExprError::new(lead..lead, "an empty CPU list").with_hint(FORMS));
    }
    let mut cpus = Vec::new();
    let mut at = lead;
    for part in text.split(',') {
        let span = at..at + part.len();
        at += part.len() + 1;
        let number = |w: &str| -> Result<u32, ExprError> {
            match w.trim().parse::<u32>() {
                Ok(n) if n <= MAX_CPU => Ok(n),
                Ok(_) => Err(ExprError::new(
                    span.clone(),
                    format!(
                        "CPU `{}` is beyond the kernel's limit ({MAX_CPU})",
                        w.trim()
                    ),
                )),
                Err(_) => Err(ExprError::new(
                    span.clone(),
                    format!("`{}` is not a CPU number or range", part.trim()),
                )
                .with_hint(FORMS)),
            }
        };
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(part)?;
                (n, n)
            }
        };
        if last < first {
            return Err(ExprError::new(
                span.clone(),
                format!("the range `{}` runs backwards", part.trim()),
            )
            .with_hint(format!("a range goes up: \"{last}-{first}\"")));
        }
        cpus.extend(first..=last);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// The kernel's cpulist form of ascending CPUs: runs of consecutive CPUs as ranges (`0-3,8`).
pub fn format_cpu_list(cpus: &[u32]) -> String {
    let parts: Vec<String> = consecutive_runs(cpus)
        .into_iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    parts.join(",")
}

/// The runs of consecutive numbers in ascending `sorted`, each as (first, last): `0,1,2,5` gives
/// (0, 2) and (5, 5).
pub fn consecutive_runs(sorted: &[u32]) -> Vec<(u32, u32)> {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &n in sorted {
        match runs.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(n) => *last = n,
            _ => runs.push((n, n)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_ranges_and_nodes_parse_and_print_back() {
        assert_eq!(parse_cpus("0-3").unwrap(), CpuSet::List(vec![0, 1, 2, 3]));
        assert_eq!(
            parse_cpus(" 0,2,4-7 ").unwrap(),
            CpuSet::List(vec![0, 2, 4, 5, 6, 7])
        );
        assert_eq!(parse_cpus("node:1").unwrap(), CpuSet::Node(1));
        assert_eq!(parse_cpus("0,2,4-7").unwrap().to_string(), "0,2,4-7");
        assert_eq!(parse_cpus("3,1,2").unwrap().to_string(), "1-3");
        assert_eq!(parse_cpu_list("0-1,8-9\n").unwrap(), vec![0, 1, 8, 9]);
    }

    #[test]
    fn mistakes_point_at_their_part() {
        let e = parse_cpus("0,x-3").unwrap_err();
        assert_eq!(e.span, 2..5, "{e:?}");
        assert!(e.message.contains("`x-3`"), "{e:?}");
        let e = parse_cpus("0,7-4").unwrap_err();
        assert!(e.message.contains("backwards"), "{e:?}");
        assert_eq!(e.span, 2..5);
        let e = parse_cpus("node:x").unwrap_err();
        assert_eq!(e.span, 5..6);
        assert!(parse_cpus("").is_err());
        assert!(parse_cpus("9000").unwrap_err().message.contains("limit"));
    }
}
