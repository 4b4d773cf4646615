//! A class's region: the part of its volume it addresses (`"0%..10%"`, `"0..64GiB"`, `"1GiB..50%"`),
//! a half-open byte range of the volume resolved once the volume's size is known.

use super::size::parse_size;
use super::value::ExprError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Parts per million of the volume in one percent.
const PPM_PER_PERCENT: u64 = 10_000;
const WHOLE_PPM: u64 = 100 * PPM_PER_PERCENT;

/// One end of a region: a byte offset of the volume, or a share of its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegionBound {
    Bytes(u64),
    /// Parts per million of the volume (`10%` = 100 000): exact for every percentage written
    /// with up to four decimals.
    Ppm(u32),
}

impl RegionBound {
    /// The byte offset in a volume of `volume` bytes.
    pub fn resolve(self, volume: u64) -> u64 {
        match self {
            RegionBound::Bytes(b) => b,
            RegionBound::Ppm(p) => ((volume as u128 * p as u128) / WHOLE_PPM as u128) as u64,
        }
    }
}

/// `start..end` of a class's volume, end excluded; serialized as written (`"0%..10%"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Region {
    pub start: RegionBound,
    pub end: RegionBound,
}

impl Region {
    /// The byte range `[start, end)` in a volume of `volume` bytes, clamped to the volume.
    pub fn bytes(&self, volume: u64) -> (u64, u64) {
        let end = self.end.resolve(volume).min(volume);
        (self.start.resolve(volume).min(end), end)
    }

    /// The region's length when the volume's size is known.
    pub fn len(&self, volume: u64) -> u64 {
        let (a, b) = self.bytes(volume);
        b - a
    }

    /// Whether the region is the whole volume whatever its size (`0%..100%`).
    pub fn is_whole(&self) -> bool {
        matches!(
            (self.start, self.end),
            (RegionBound::Bytes(0) | RegionBound::Ppm(0), RegionBound::Ppm(p)) if u64::from(p) == WHOLE_PPM
        )
    }
}

impl fmt::Display for RegionBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RegionBound::Bytes(b) => write!(f, "{}", super::Size(b)),
            RegionBound::Ppm(p) => {
                let whole = u64::from(p) / PPM_PER_PERCENT;
                let frac = u64::from(p) % PPM_PER_PERCENT;
                if frac == 0 {
                    write!(f, "{whole}%")
                } else {
                    let digits = format!("{frac:04}");
                    write!(f, "{whole}.{}%", digits.trim_end_matches('0'))
                }
            }
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

impl From<Region> for String {
    fn from(r: Region) -> String {
        r.to_string()
    }
}

impl TryFrom<String> for Region {
    type Error = String;
    fn try_from(s: String) -> Result<Region, String> {
        parse_region(&s).map_err(|e| e.message)
    }
}

const EXAMPLE: &str = "write a region as \"0%..10%\", \"0..64GiB\" or \"1GiB..50%\" (end excluded)";

/// Parses `START..END`, each end a size (`64GiB`, `0`) or a percentage of the volume (`10%`).
pub fn parse_region(s: &str) -> Result<Region, ExprError> {
    let Some(dots) = s.find("..") else {
        return Err(ExprError::new(0..s.len(), "a region is START..END").with_hint(EXAMPLE));
    };
    if s[dots + 2..].starts_with('=') {
        return Err(ExprError::new(
            dots..dots + 3,
            "a region's end is always excluded: write `..`, not `..=`",
        )
        .with_hint(EXAMPLE));
    }
    let start = bound(s, 0..dots)?;
    let end = bound(s, dots + 2..s.len())?;
    let region = Region { start, end };
    let comparable = match (start, end) {
        (RegionBound::Bytes(a), RegionBound::Bytes(b)) => Some(a < b),
        (RegionBound::Ppm(a), RegionBound::Ppm(b)) => Some(a < b),
        _ => None,
    };
    if comparable == Some(false) {
        return Err(ExprError::new(
            0..s.len(),
            "the region is empty: its end is not past its start",
        )
        .with_hint(EXAMPLE));
    }
    Ok(region)
}

fn bound(s: &str, range: std::ops::Range<usize>) -> Result<RegionBound, ExprError> {
    let raw = &s[range.clone()];
    let text = raw.trim();
    let lead = raw.len() - raw.trim_start().len();
    let span = range.start + lead..range.start + lead + text.len();
    if text.is_empty() {
        return Err(ExprError::new(range, "a region needs both ends").with_hint(EXAMPLE));
    }
    if let Some(number) = text.strip_suffix('%') {
        let percent: f64 = number.trim().parse().map_err(|_| {
            ExprError::new(span.clone(), format!("`{text}` is not a percentage")).with_hint(EXAMPLE)
        })?;
        if !(0.0..=100.0).contains(&percent) {
            return Err(ExprError::new(
                span,
                format!("{text} is outside the volume: a share is 0% to 100%"),
            )
            .with_hint(EXAMPLE));
        }
        let ppm = (percent * PPM_PER_PERCENT as f64).round() as u32;
        return Ok(RegionBound::Ppm(ppm));
    }
    match parse_size(text) {
        Ok(size) => Ok(RegionBound::Bytes(size.0)),
        Err(e) => Err(ExprError::new(
            span.start + e.span.start.min(text.len())..span.start + e.span.end.min(text.len()),
            e.message,
        )
        .with_hint(e.hint.unwrap_or_else(|| EXAMPLE.to_owned()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_and_sizes_resolve_against_the_volume() {
        let r = parse_region("0%..10%").expect("parses");
        assert_eq!(r.bytes(1000 << 20), (0, 100 << 20));
        assert_eq!(r.to_string(), "0%..10%");
        let r = parse_region(" 1GiB .. 50% ").expect("parses");
        assert_eq!(r.bytes(8 << 30), (1 << 30, 4 << 30));
        let r = parse_region("0..64GiB").expect("parses");
        assert_eq!(r.bytes(16 << 30), (0, 16 << 30), "clamped to the volume");
        assert_eq!(
            parse_region("2.5%..12.125%").expect("parses").to_string(),
            "2.5%..12.125%"
        );
        assert!(parse_region("0%..100%").expect("parses").is_whole());
        let back = Region::try_from("0%..10%".to_owned()).expect("converts");
        assert_eq!(String::from(back), "0%..10%");
    }

    #[test]
    fn bad_regions_point_at_the_bad_part() {
        let e = parse_region("0%..110%").expect_err("over 100%");
        assert_eq!(e.span, 4..8);
        let e = parse_region("10%..5%").expect_err("empty");
        assert!(e.message.contains("empty"), "{}", e.message);
        let e = parse_region("0..=5GiB").expect_err("inclusive");
        assert_eq!(e.span, 1..4);
        let e = parse_region("0..5 apples").expect_err("not a size");
        assert!(e.span.start >= 3, "{:?}", e.span);
        assert!(parse_region("5GiB").is_err());
        assert!(parse_region("..5GiB").is_err());
    }
}
