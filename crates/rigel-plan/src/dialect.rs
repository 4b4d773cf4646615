//! ORION's releases whose file layouts rigel writes: chosen on ORION's command line (`-dialect`,
//! rigel-orion) and by `rigel report`, written by rigel-report. Here, below both, because it is
//! ORION's vocabulary like the matrix shapes and level rule this crate knows.

/// Which ORION release's file layout to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// 11.1: latency in milliseconds without a unit; no `_hist.txt`.
    V11,
    /// 12c to 19c: latency in microseconds (`usecs`), `Small Read/Write Latency:` lines, `_hist.txt`.
    /// The default: microseconds keep the precision that flash storage needs.
    #[default]
    V12,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::V11 => "11.1",
            Dialect::V12 => "12c",
        }
    }
    /// The release whose layout this is, for the summary's `ORION VERSION` line.
    pub fn orion_release(self) -> &'static str {
        match self {
            Dialect::V11 => "11.1.0.7.0",
            Dialect::V12 => "19.3.0.0.0",
        }
    }
}

impl std::str::FromStr for Dialect {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "11" | "11.1" | "11g" => Ok(Dialect::V11),
            "12" | "12c" | "18c" | "19" | "19c" => Ok(Dialect::V12),
            _ => Err(format!(
                "unknown ORION dialect {s:?}; expected 11.1 or 12c (12c covers 12c to 19c)"
            )),
        }
    }
}
