//! fio's number forms (HOWTO "Parameter types"): sizes with `kb_base`'s inverted prefixes (with the
//! default 1024, `4k` = `4KiB` = 4096 and `1mi` = 10^6), times with a per-option default unit,
//! percentages and ranges (`1k-4k`, `1k:4k`, swapped when reversed).

/// fio's `kb_base`: 1024 (the default: `k` is 1024, `ki` is 1000, as fio's old scripts expect) or
/// 1000 (SI and IEC as written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KbBase {
    Binary,
    Decimal,
}

/// A size in bytes as fio reads an `int` of data: an optional `0x` prefix, a number, an optional
/// unit prefix (k, m, g, t, p, each with an optional `i`) and an optional `b`, case-insensitive.
pub fn size(text: &str, base: KbBase) -> Result<u64, String> {
    let t = text.trim();
    let expected = || format!("`{t}` is not a size as fio writes one (4096, 4k, 1m, 2g, 1KiB)");
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map_err(|_| expected());
    }
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, suffix) = t.split_at(digits);
    if number.is_empty() {
        return Err(expected());
    }
    let mut s = suffix.to_ascii_lowercase();
    if s.ends_with('b') {
        s.pop();
    }
    let (letter, iec) = match s.strip_suffix('i') {
        Some(rest) => (rest, true),
        None => (s.as_str(), false),
    };
    let power = match letter {
        "" if !iec => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return Err(expected()),
    };
    // kb_base=1024 swaps the standards' meanings: `k` binary, `ki` decimal.
    let binary = match base {
        KbBase::Binary => !iec,
        KbBase::Decimal => iec,
    };
    let unit: u64 = if binary { 1024 } else { 1000 };
    let scale = unit.checked_pow(power).ok_or_else(expected)?;
    if number.contains('.') {
        let v: f64 = number.parse().map_err(|_| expected())?;
        let bytes = v * scale as f64;
        if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 || bytes.fract() != 0.0 {
            return Err(format!("`{t}` is not a whole number of bytes"));
        }
        return Ok(bytes as u64);
    }
    let n: u64 = number.parse().map_err(|_| expected())?;
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{t}` is too large"))
}

/// A plain integer (a count, a percentage): decimal or `0x` hexadecimal, no unit.
pub fn integer(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| format!("`{t}` is not a whole number"))
}

/// fio's booleans: `1`/`0`, and the words fio's parser also takes.
pub fn boolean(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "" | "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        t => Err(format!("`{t}` is not a boolean (1 or 0)")),
    }
}

/// A time in nanoseconds; a bare number is in `default_unit_ns` (seconds for `runtime`,
/// microseconds for `thinktime`).
pub fn time_ns(text: &str, default_unit_ns: u64) -> Result<u64, String> {
    let t = text.trim();
    let expected = || format!("`{t}` is not a time as fio writes one (30, 30s, 500ms, 100us, 2m)");
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, suffix) = t.split_at(digits);
    let unit = match suffix.to_ascii_lowercase().as_str() {
        "" => default_unit_ns,
        "d" => 86_400_000_000_000,
        "h" => 3_600_000_000_000,
        "m" => 60_000_000_000,
        "s" | "sec" => 1_000_000_000,
        "ms" | "msec" => 1_000_000,
        "us" | "usec" => 1_000,
        "ns" | "nsec" => 1,
        _ => return Err(expected()),
    };
    let v: f64 = number.parse().map_err(|_| expected())?;
    let ns = v * unit as f64;
    if !ns.is_finite() || ns > u64::MAX as f64 {
        return Err(expected());
    }
    Ok(ns.round() as u64)
}

/// A range `LOW-HIGH` or `LOW:HIGH` of sizes (a single size is a range of one), swapped when
/// written high first, as fio does.
pub fn size_range(text: &str, base: KbBase) -> Result<(u64, u64), String> {
    let t = text.trim();
    let (a, b) = match t.split_once(['-', ':']) {
        Some((a, b)) => (size(a, base)?, size(b, base)?),
        None => {
            let v = size(t, base)?;
            (v, v)
        }
    };
    Ok((a.min(b), a.max(b)))
}

/// A size or a percentage of the file (`size=50%`, `offset=10%`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Extent {
    Bytes(u64),
    Percent(f64),
}

pub fn extent(text: &str, base: KbBase) -> Result<Extent, String> {
    let t = text.trim();
    match t.strip_suffix('%') {
        Some(p) => {
            let v: f64 = p
                .trim()
                .parse()
                .map_err(|_| format!("`{t}` is not a percentage"))?;
            if !(0.0..=100.0).contains(&v) {
                return Err(format!("`{t}`: a percentage is 0 to 100"));
            }
            Ok(Extent::Percent(v))
        }
        None => size(t, base).map(Extent::Bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_howto_examples_with_kb_base_1024() {
        for t in ["4096", "4096b", "4096B", "4k", "4kb", "4kB", "4K", "4KB"] {
            assert_eq!(size(t, KbBase::Binary), Ok(4096), "{t}");
        }
        assert_eq!(size("1m", KbBase::Binary), Ok(1 << 20));
        assert_eq!(size("1024k", KbBase::Binary), Ok(1 << 20));
        assert_eq!(size("1mi", KbBase::Binary), Ok(1_000_000));
        assert_eq!(size("1000ki", KbBase::Binary), Ok(1_000_000));
        assert_eq!(size("1t", KbBase::Binary), Ok(1 << 40));
        assert_eq!(size("0x1000", KbBase::Binary), Ok(4096));
    }

    #[test]
    fn fio_howto_examples_with_kb_base_1000() {
        for t in ["4096", "4ki", "4kib", "4kiB", "4Ki", "4KiB"] {
            assert_eq!(size(t, KbBase::Decimal), Ok(4096), "{t}");
        }
        assert_eq!(size("1m", KbBase::Decimal), Ok(1_000_000));
        assert_eq!(size("1000k", KbBase::Decimal), Ok(1_000_000));
        assert_eq!(size("1mi", KbBase::Decimal), Ok(1 << 20));
    }

    #[test]
    fn bad_sizes_are_errors() {
        for t in ["", "k", "4x", "4kk", "-1", "1.5"] {
            assert!(size(t, KbBase::Binary).is_err(), "{t}");
        }
        assert_eq!(size("1.5k", KbBase::Binary), Ok(1536));
    }

    #[test]
    fn times_and_ranges() {
        assert_eq!(time_ns("30", 1_000_000_000), Ok(30_000_000_000));
        assert_eq!(time_ns("2m", 1_000_000_000), Ok(120_000_000_000));
        assert_eq!(time_ns("100", 1_000), Ok(100_000));
        assert_eq!(time_ns("5ms", 1_000), Ok(5_000_000));
        assert_eq!(size_range("16k-4k", KbBase::Binary), Ok((4096, 16384)));
        assert_eq!(size_range("4k:16k", KbBase::Binary), Ok((4096, 16384)));
        assert_eq!(extent("10%", KbBase::Binary), Ok(Extent::Percent(10.0)));
    }
}
