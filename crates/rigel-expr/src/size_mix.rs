//! A class's size mix (`size = "8KiB:60%, 64KiB:30%, 1MiB:10%"`): the sizes its I/Os take and the
//! share of the I/Os (by count, as fio's `bssplit`) each gets; or sizes without shares, equally
//! likely (`"4KiB..=64KiB x2"`, `"8KiB, 1MiB"`). Shares are exact hundredths of a percent.

use super::grammar::{Expected, Node, Rule, parse_entry};
use super::number::{Decimal, Scaled};
use super::size::{size_from, span_of, trimmed_span};
use super::size_list::size_range;
use super::{ExprError, Size};
use serde::{Deserialize, Serialize};
use std::fmt;

/// At most this many sizes in a mix.
pub const MAX_MIX_SIZES: usize = 64;

/// Shares are counted in hundredths of a percent: a weighted mix's weights add up to this.
pub const SHARE_SCALE: u32 = 10_000;

const EXPECT_MIX: Expected = Expected {
    noun: "a size or a size mix",
    examples: "8KiB, 8KiB:60%, 64KiB:40% or 4KiB..=64KiB x2",
};

/// One size of a mix and its weight: hundredths of a percent in a weighted mix, 1 in an
/// unweighted one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeShare {
    pub size: u64,
    pub weight: u32,
}

/// The sizes of a class's I/Os, in the order written, each with its weight (distinct sizes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct SizeMix(Vec<SizeShare>);

impl SizeMix {
    pub fn items(&self) -> &[SizeShare] {
        &self.0
    }

    /// The sum of the weights.
    pub fn total_weight(&self) -> u64 {
        self.0.iter().map(|s| u64::from(s.weight)).sum()
    }

    /// The share of the I/Os (0 to 1) size `i` gets.
    pub fn share(&self, i: usize) -> f64 {
        self.0.get(i).map_or(0.0, |s| {
            f64::from(s.weight) / self.total_weight().max(1) as f64
        })
    }

    /// The smallest size.
    pub fn smallest(&self) -> u64 {
        self.0.iter().map(|s| s.size).min().unwrap_or(0)
    }

    /// The largest size (the I/O buffers' size).
    pub fn largest(&self) -> u64 {
        self.0.iter().map(|s| s.size).max().unwrap_or(0)
    }

    /// The mean size, weighted by count: what a `MiB/s` rate is divided by.
    pub fn mean(&self) -> f64 {
        let total = self.total_weight().max(1) as f64;
        self.0
            .iter()
            .map(|s| s.size as f64 * f64::from(s.weight))
            .sum::<f64>()
            / total
    }

    /// The size most I/Os take (the first written of equal shares): what the class *is* by count,
    /// `8KiB` for `8KiB:95%, 1MiB:5%`, where its mean (60 KiB) and largest (1 MiB) are not.
    pub fn most_common(&self) -> u64 {
        let mut best: Option<&SizeShare> = None;
        for s in &self.0 {
            if best.is_none_or(|b| s.weight > b.weight) {
                best = Some(s);
            }
        }
        best.map_or(0, |s| s.size)
    }

    /// One size only.
    pub fn is_fixed(&self) -> bool {
        self.0.len() == 1
    }
}

/// A share as written: `33.33` for 3333 hundredths.
fn percent(hundredths: u64) -> String {
    if hundredths % 100 == 0 {
        format!("{}", hundredths / 100)
    } else if hundredths % 10 == 0 {
        format!("{}.{}", hundredths / 100, hundredths % 100 / 10)
    } else {
        format!("{}.{:02}", hundredths / 100, hundredths % 100)
    }
}

impl fmt::Display for SizeMix {
    /// Text that parses back to the same mix: `8KiB:60%, 64KiB:40%`, or `4KiB, 8KiB` when every
    /// size is equally likely.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let even = self.0.windows(2).all(|w| w[0].weight == w[1].weight);
        let total = self.total_weight().max(1);
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|s| {
                if even {
                    Size(s.size).to_string()
                } else {
                    // Weighted mixes add up to SHARE_SCALE: the weight is the share.
                    let hundredths = u64::from(s.weight) * u64::from(SHARE_SCALE) / total;
                    format!("{}:{}%", Size(s.size), percent(hundredths))
                }
            })
            .collect();
        f.write_str(&parts.join(", "))
    }
}

impl From<SizeMix> for String {
    fn from(m: SizeMix) -> String {
        m.to_string()
    }
}

impl TryFrom<String> for SizeMix {
    type Error = String;
    fn try_from(s: String) -> Result<SizeMix, String> {
        parse_size_mix(&s).map_err(|e| e.message)
    }
}

/// Whether a `size` value is written as a mix (a list, a range or shares) rather than one size.
pub fn is_size_mix(s: &str) -> bool {
    s.contains([',', ':']) || s.contains("..")
}

/// Parses a size mix: `8KiB:60%, 64KiB:30%, 1MiB:10%` (shares adding up to 100%), or sizes
/// without shares (`4KiB..=64KiB x2`, `8KiB, 1MiB`), equally likely.
pub fn parse_size_mix(s: &str) -> Result<SizeMix, ExprError> {
    let items = parse_entry(Rule::size_mix_value, s, EXPECT_MIX)?;
    let mut out: Vec<SizeShare> = Vec::new();
    let mut spans = Vec::new();
    let (mut weighted, mut plain) = (None, None);
    for node in items {
        let span = trimmed_span(&node);
        match node.as_rule() {
            Rule::size => {
                plain.get_or_insert(span.clone());
                out.push(SizeShare {
                    size: size_from(node)?.0,
                    weight: 1,
                });
                spans.push(span);
            }
            Rule::size_range => {
                plain.get_or_insert(span.clone());
                for size in size_range(node)? {
                    out.push(SizeShare {
                        size: size.0,
                        weight: 1,
                    });
                    spans.push(span.clone());
                }
            }
            Rule::size_share => {
                weighted.get_or_insert(span.clone());
                let mut parts = node.into_inner();
                let missing =
                    || ExprError::new(span.clone(), "expected SIZE:SHARE% such as 8KiB:60%");
                let size = size_from(parts.next().ok_or_else(missing)?)?;
                let share = parts.next().ok_or_else(missing)?;
                out.push(SizeShare {
                    size: size.0,
                    weight: share_from(share)?,
                });
                spans.push(span);
            }
            _ => {}
        }
    }
    if let (Some(_), Some(p)) = (&weighted, &plain) {
        return Err(ExprError::new(
            p.clone(),
            "some sizes of the mix have a share and this one has none",
        )
        .with_hint("give every size a share (8KiB:60%, 64KiB:40%), or none (all equally likely)"));
    }
    if out.len() > MAX_MIX_SIZES {
        return Err(ExprError::new(
            0..s.len(),
            format!("{} sizes: a mix holds at most {MAX_MIX_SIZES}", out.len()),
        ));
    }
    for (i, item) in out.iter().enumerate() {
        if out[..i].iter().any(|o| o.size == item.size) {
            return Err(ExprError::new(
                spans[i].clone(),
                format!("{} is in the mix twice", Size(item.size)),
            )
            .with_hint("write each size once, with its whole share"));
        }
    }
    if weighted.is_some() {
        let total: u64 = out.iter().map(|o| u64::from(o.weight)).sum();
        if total != u64::from(SHARE_SCALE) {
            return Err(ExprError::new(
                0..s.len(),
                format!("the shares add up to {}%, not 100%", percent(total)),
            )
            .with_hint("shares are of the I/Os, by count: make them add up to 100%"));
        }
    }
    Ok(SizeMix(out))
}

/// A share's weight in hundredths of a percent (`60%` → 6000), above 0 and at most 100%.
fn share_from(node: Node<'_>) -> Result<u32, ExprError> {
    let span = trimmed_span(&node);
    let text = node.as_str().trim();
    let mut parts = node.into_inner();
    let number = parts
        .next()
        .ok_or_else(|| ExprError::new(span.clone(), "expected a share such as 60%"))?;
    if parts.next().is_none() {
        return Err(
            ExprError::new(span, format!("the share `{text}` has no `%`"))
                .with_hint(format!("shares are percentages of the I/Os: write {text}%")),
        );
    }
    let value = Decimal::parse(number.as_str(), span_of(&number))?;
    match value.times(100) {
        Scaled::Exact(h) if h > 0 && h <= u128::from(SHARE_SCALE) => Ok(h as u32),
        Scaled::Exact(_) | Scaled::Overflow => Err(ExprError::new(
            span,
            format!("the share {text} is not above 0% and at most 100%"),
        )),
        Scaled::Fraction => Err(ExprError::new(
            span,
            format!("the share {text} has more than two decimals"),
        )
        .with_hint("write shares to a hundredth of a percent at most, e.g. 33.33%")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(s: &str) -> SizeMix {
        parse_size_mix(s).unwrap_or_else(|e| panic!("{s:?}: {e} {:?}", e.hint))
    }

    #[test]
    fn weighted_mixes_keep_their_shares() {
        let m = mix("8KiB:60%, 64KiB:30%, 1MiB:10%");
        assert_eq!(
            m.items(),
            [
                SizeShare {
                    size: 8192,
                    weight: 6000
                },
                SizeShare {
                    size: 65536,
                    weight: 3000
                },
                SizeShare {
                    size: 1 << 20,
                    weight: 1000
                },
            ]
        );
        assert_eq!(m.to_string(), "8KiB:60%, 64KiB:30%, 1MiB:10%");
        assert_eq!(m.largest(), 1 << 20);
        assert!((m.mean() - (0.6 * 8192.0 + 0.3 * 65536.0 + 0.1 * 1048576.0)).abs() < 1e-6);
        assert!((m.share(1) - 0.3).abs() < 1e-12);
        assert_eq!(
            mix("4k:33.33%, 8k:33.33%, 16k:33.34%").to_string(),
            "4KiB:33.33%, 8KiB:33.33%, 16KiB:33.34%"
        );
        assert_eq!(mix("512 : 50% , 1KiB:50%").items().len(), 2);
        assert!(mix("8KiB:100%").is_fixed());
    }

    #[test]
    fn plain_lists_and_ranges_are_equally_likely() {
        let m = mix("4KiB..=64KiB x2");
        assert_eq!(m.items().len(), 5);
        assert!((m.share(4) - 0.2).abs() < 1e-12);
        assert_eq!(m.to_string(), "4KiB, 8KiB, 16KiB, 32KiB, 64KiB");
        assert_eq!(mix("8KiB, 1MiB").items().len(), 2);
        // Display parses back.
        for s in [
            "8KiB:60%, 64KiB:40%",
            "4KiB, 8KiB",
            "8KiB:12.5%, 16KiB:87.5%",
        ] {
            assert_eq!(mix(&mix(s).to_string()), mix(s));
        }
    }

    #[test]
    fn bad_mixes_are_refused_with_a_span() {
        let err = parse_size_mix("8KiB:60%, 64KiB:30%").unwrap_err();
        assert_eq!(err.message, "the shares add up to 90%, not 100%");
        let err = parse_size_mix("8KiB:60, 64KiB:40%").unwrap_err();
        assert!(err.message.contains("no `%`"), "{}", err.message);
        assert_eq!(err.span, 5..7);
        let err = parse_size_mix("8KiB:60%, 64KiB").unwrap_err();
        assert!(err.message.contains("has none"));
        assert_eq!(err.span, 10..15);
        let err = parse_size_mix("8KiB:50%, 8k:50%").unwrap_err();
        assert_eq!(err.message, "8KiB is in the mix twice");
        assert_eq!(err.span, 10..16);
        assert!(parse_size_mix("8KiB:0%, 16KiB:100%").is_err());
        assert!(parse_size_mix("8KiB:150%").is_err());
        assert!(
            parse_size_mix("8KiB:33.333%, 16KiB:66.667%")
                .unwrap_err()
                .message
                .contains("two decimals")
        );
        assert!(
            parse_size_mix("8kB:50%, 16KiB:50%")
                .unwrap_err()
                .message
                .contains("ambiguous")
        );
        assert!(parse_size_mix("512..=1TiB step 512").is_err());
    }

    #[test]
    fn what_counts_as_a_mix() {
        assert!(is_size_mix("8KiB:60%, 64KiB:40%"));
        assert!(is_size_mix("4KiB..=64KiB x2"));
        assert!(!is_size_mix("8KiB"));
    }
}
