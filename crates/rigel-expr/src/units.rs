//! How rigel writes figures for people: one spelling for sizes, counts, rates, latencies, durations
//! and changes, used by the terminal, reports, requirements and comparisons alike. A leaf module
//! (it imports nothing of rigel), so every stage may use it. ORION's own files keep ORION's printf
//! formats; the spec language's values are written back by `expr` in its own syntax.

use std::time::Duration;

const IEC: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/// `8192` → `8 KiB`, `1610612736` → `1.5 GiB`, `512` → `512 B`: IEC units, whole when exact, else
/// one decimal.
pub fn size(bytes: f64) -> String {
    let mut v = bytes;
    let mut unit = 0;
    while v.abs() >= 1024.0 && unit + 1 < IEC.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", IEC[unit])
    } else {
        format!("{v:.1} {}", IEC[unit])
    }
}

/// `58778.4` → `58,778`, `-1234567` → `-1,234,567`: a whole number with thousands separators.
pub fn thousands(v: f64) -> String {
    let n = v.round() as i128;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// A measured quantity to about four significant digits: whole (with separators) from 1000 up,
/// decimals below: `41,235`, `512.3`, `88.82`, `4.250`.
pub fn number(v: f64) -> String {
    let a = v.abs();
    if a >= 1000.0 || a == a.trunc() {
        thousands(v)
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A queue depth (a time-average of I/Os in flight): one decimal, `31.8`.
pub fn depth(v: f64) -> String {
    format!("{v:.1}")
}

/// `41,235 IOPS`.
pub fn iops(v: f64) -> String {
    format!("{} IOPS", number(v))
}

/// `512.3 MiB/s` (the figure is MiB/s, as every `mbps` in rigel).
pub fn mibps(v: f64) -> String {
    format!("{} MiB/s", number(v))
}

/// Bytes in a MiB over bytes in a (decimal) MB.
const MIB_PER_MB: f64 = 1_048_576.0 / 1_000_000.0;

/// A rate in MiB/s (as rigel measures) as decimal MB/s (10^6 bytes per second).
pub fn decimal_mbps(mibps: f64) -> f64 {
    mibps * MIB_PER_MB
}

/// `--units si`: a MiB/s figure written as decimal MB/s, `1,000 MiB/s` → `1,049`.
pub fn si_mbps(mibps: f64) -> String {
    number(decimal_mbps(mibps))
}

/// A latency in ns, three significant digits in the unit that suits it: `412 ns`, `97.7 µs`,
/// `1.35 ms`, `2.10 s`.
pub fn latency(ns: f64) -> String {
    let a = ns.abs();
    let (v, unit) = if a < 1e3 {
        (ns, "ns")
    } else if a < 1e6 {
        (ns / 1e3, "µs")
    } else if a < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let decimals = if v.abs() >= 99.95 {
        0
    } else if v.abs() >= 9.995 {
        1
    } else {
        2
    };
    // Below a microsecond, nanoseconds are whole.
    let decimals = if unit == "ns" { 0 } else { decimals };
    format!("{v:.decimals$} {unit}")
}

/// A span of time: `200 ms`, `1.5 s`, `45 s`, `1 min 15 s`, `9 min`, `1 h 30 min`.
pub fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms} ms");
    }
    if ms < 60_000 {
        let s = ms as f64 / 1000.0;
        return if ms % 1000 == 0 {
            format!("{s:.0} s")
        } else {
            format!("{} s", trim_zeros(&format!("{s:.3}")))
        };
    }
    let s = (ms + 500) / 1000;
    match s {
        _ if s < 3600 && s % 60 == 0 => format!("{} min", s / 60),
        _ if s < 3600 => format!("{} min {} s", s / 60, s % 60),
        _ if s % 3600 == 0 => format!("{} h", s / 3600),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// A span given in seconds (as reports hold them): see [`duration`].
pub fn seconds(s: f64) -> String {
    duration(Duration::from_secs_f64(s.max(0.0)))
}

fn trim_zeros(s: &str) -> &str {
    s.trim_end_matches('0').trim_end_matches('.')
}

/// A relative change: `+3.1%`, `-22.4%`, `0.0%`.
pub fn change(percent: f64) -> String {
    if percent.abs() < 0.05 {
        "0.0%".to_owned()
    } else {
        format!("{percent:+.1}%")
    }
}

/// A share (1.0 = all) as a percentage: `0%`, `<0.1%`, `4.2%`, `97%`, `131%` (one decimal
/// below 10%; a share that is not nothing never reads as nothing).
pub fn share(share: f64) -> String {
    let pct = share * 100.0;
    if pct > 0.0 && pct < 0.05 {
        "<0.1%".to_owned()
    } else if pct != 0.0 && pct.abs() < 9.95 {
        format!("{pct:.1}%")
    } else {
        format!("{pct:.0}%")
    }
}

/// A share (1.0 = all) as a percentage with one decimal, for shares read against each other
/// (asked beside achieved): `30.0%`, `31.2%`, `0.6%`.
pub fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// An English ordinal: `1st`, `2nd`, `3rd`, `4th`, `11th`, `22nd`.
pub fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `1 point`, `3 points`: a count with its noun in the number it takes (`noun` singular, made
/// plural with an `s`).
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_spelling_each() {
        assert_eq!(size(8192.0), "8 KiB");
        assert_eq!(size(21474836480.0), "20 GiB");
        assert_eq!(size(1536.0 * 1024.0 * 1024.0), "1.5 GiB");
        assert_eq!(size(512.0), "512 B");
        assert_eq!(thousands(58778.4), "58,778");
        assert_eq!(thousands(-1234567.0), "-1,234,567");
        assert_eq!(number(41234.6), "41,235");
        assert_eq!(number(512.34), "512.3");
        assert_eq!(percent(0.3), "30.0%");
        assert_eq!(percent(0.31204), "31.2%");
        assert_eq!(number(12.25), "12.25");
        assert_eq!(number(4.25), "4.250");
        assert_eq!(number(7.0), "7");
        assert_eq!(iops(41234.6), "41,235 IOPS");
        assert_eq!(mibps(2048.0), "2,048 MiB/s");
        assert_eq!(si_mbps(1000.0), "1,049");
        assert_eq!(si_mbps(1.0), "1.049");
        assert_eq!(latency(412.0), "412 ns");
        assert_eq!(latency(97677.0), "97.7 µs");
        assert_eq!(latency(4_250.0), "4.25 µs");
        assert_eq!(latency(420_000.0), "420 µs");
        assert_eq!(latency(1_350_000.0), "1.35 ms");
        assert_eq!(latency(2.1e9), "2.10 s");
        // Rounding up to the next decade keeps three digits, not four.
        assert_eq!(latency(99_960.0), "100 µs");
        assert_eq!(duration(Duration::from_millis(200)), "200 ms");
        assert_eq!(duration(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(duration(Duration::from_secs(45)), "45 s");
        assert_eq!(seconds(75.0), "1 min 15 s");
        assert_eq!(seconds(540.0), "9 min");
        assert_eq!(seconds(5400.0), "1 h 30 min");
        assert_eq!(seconds(7200.0), "2 h");
        assert_eq!(change(3.12), "+3.1%");
        assert_eq!(change(-22.44), "-22.4%");
        assert_eq!(change(0.01), "0.0%");
        assert_eq!(share(0.0), "0%");
        assert_eq!(share(0.0421), "4.2%");
        assert_eq!(share(0.00002), "<0.1%");
        assert_eq!(share(0.974), "97%");
        assert_eq!(share(1.31), "131%");
    }

    #[test]
    fn ordinals_and_counts_read_as_english() {
        let o: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 103, 111]
            .map(ordinal)
            .into();
        assert_eq!(
            o,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "103rd",
                "111th"
            ]
        );
        assert_eq!(count(1, "point"), "1 point");
        assert_eq!(count(0, "point"), "0 points");
        assert_eq!(count(1200, "point"), "1,200 points");
    }
}
