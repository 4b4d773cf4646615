//! Exact decimal numbers (`1.5`, `1_000`) as written in values, so that `1.5GiB` or `1.5ms` are
//! computed without floating-point rounding and a fraction that gives no whole byte is caught.

use super::ExprError;
use std::ops::Range;

/// `digits / 10^scale`, exactly as written (`1.50` = 150 / 10^2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    pub digits: u128,
    pub scale: u32,
}

/// Result of scaling a decimal by a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scaled {
    Exact(u128),
    /// The product is not a whole number of the base unit.
    Fraction,
    Overflow,
}

impl Decimal {
    /// Parses the text of a `number` or `int` rule (digits, `_` separators, an optional `.` part).
    pub fn parse(text: &str, span: Range<usize>) -> Result<Decimal, ExprError> {
        let mut digits: u128 = 0;
        let mut scale = 0u32;
        let mut after_point = false;
        // Trailing zeros after the point change nothing but the scale; dropping them keeps
        // `1.500000` from needing a wider integer than `1.5`.
        let significant = if text.contains('.') {
            text.trim_end_matches(['0', '_']).trim_end_matches('.')
        } else {
            text
        };
        for c in significant.chars() {
            match c {
                '_' => {}
                '.' => after_point = true,
                _ => {
                    let d = c
                        .to_digit(10)
                        .ok_or_else(|| not_a_number(text, span.clone()))?;
                    digits = digits
                        .checked_mul(10)
                        .and_then(|v| v.checked_add(u128::from(d)))
                        .ok_or_else(|| too_many_digits(text, span.clone()))?;
                    if after_point {
                        scale += 1;
                    }
                }
            }
        }
        Ok(Decimal { digits, scale })
    }

    /// `self × unit`, as a whole number of the base unit (bytes, nanoseconds) if it is one.
    pub fn times(&self, unit: u128) -> Scaled {
        let Some(product) = self.digits.checked_mul(unit) else {
            return Scaled::Overflow;
        };
        let Some(divisor) = 10u128.checked_pow(self.scale) else {
            return if product == 0 {
                Scaled::Exact(0)
            } else {
                Scaled::Fraction
            };
        };
        if product % divisor == 0 {
            Scaled::Exact(product / divisor)
        } else {
            Scaled::Fraction
        }
    }

    /// The value as the nearest `f64` (for rates and plain numbers in requirements).
    pub fn to_f64(self) -> f64 {
        // 10^scale overflows f64 only for absurd scales, where the value is ~0 anyway.
        self.digits as f64 / 10f64.powi(self.scale.min(i32::MAX as u32) as i32)
    }
}

/// Parses an `int` rule into a `u64`.
pub(crate) fn parse_u64(text: &str, span: Range<usize>) -> Result<u64, ExprError> {
    let d = Decimal::parse(text, span.clone())?;
    u64::try_from(d.digits).map_err(|_| too_large(text, span))
}

fn too_large(text: &str, span: Range<usize>) -> ExprError {
    ExprError::new(span, format!("the number `{text}` is too large"))
        .with_hint(format!("numbers must be at most {}", u64::MAX))
}

fn too_many_digits(text: &str, span: Range<usize>) -> ExprError {
    ExprError::new(span, format!("the number `{text}` has too many digits"))
        .with_hint("write at most 38 significant digits")
}

fn not_a_number(text: &str, span: Range<usize>) -> ExprError {
    ExprError::new(span, format!("`{text}` is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(text: &str) -> Decimal {
        Decimal::parse(text, 0..text.len()).unwrap()
    }

    #[test]
    fn parses_digits_separators_and_fractions() {
        assert_eq!(
            dec("1_000"),
            Decimal {
                digits: 1000,
                scale: 0
            }
        );
        assert_eq!(
            dec("1.50"),
            Decimal {
                digits: 15,
                scale: 1
            }
        );
        assert_eq!(
            dec("2.000"),
            Decimal {
                digits: 2,
                scale: 0
            }
        );
        assert_eq!(
            dec("0.0"),
            Decimal {
                digits: 0,
                scale: 0
            }
        );
        assert_eq!(
            dec("10"),
            Decimal {
                digits: 10,
                scale: 0
            }
        );
        assert_eq!(dec("0.5").to_f64(), 0.5);
    }

    #[test]
    fn scaling_is_exact_or_says_why_not() {
        assert_eq!(dec("1.5").times(1024), Scaled::Exact(1536));
        assert_eq!(dec("1.1").times(1), Scaled::Fraction);
        assert_eq!(dec("0.000").times(7), Scaled::Exact(0));
        assert_eq!(
            dec("340282366920938463463374607431768211455").times(2),
            Scaled::Overflow
        );
        let many_zeros = format!("1.{}", "0".repeat(60));
        assert_eq!(dec(&many_zeros).times(1), Scaled::Exact(1));
        let tiny = Decimal {
            digits: 5,
            scale: 60,
        };
        assert_eq!(tiny.times(1024), Scaled::Fraction);
    }

    #[test]
    fn too_many_digits_is_an_error_not_a_panic() {
        let text = "9".repeat(60);
        let err = Decimal::parse(&text, 3..63).unwrap_err();
        assert_eq!(err.span, 3..63);
        assert!(err.message.contains("too many digits"));
        assert!(parse_u64("18446744073709551616", 0..20).is_err());
        assert_eq!(parse_u64("18446744073709551615", 0..20).unwrap(), u64::MAX);
    }
}
