//! A class's written data content: `compress = "3:1"` (the data compresses to a third) and
//! `dedupe = "2:1"` (half the units written are copies). A ratio is `N:1` or `N`, from 1 to 100,
//! to a hundredth.

use super::value::ExprError;

/// The largest ratio a spec may ask.
pub const MAX_DATA_RATIO: f64 = 100.0;

/// Parses a ratio `3:1`, `2.5:1` or `3`, returned in hundredths (`3:1` → 300).
pub fn parse_data_ratio(s: &str) -> Result<u32, ExprError> {
    let text = s.trim();
    let lead = s.len() - s.trim_start().len();
    let span = lead..lead + text.len();
    let number = match text.split_once(':') {
        Some((n, one)) if one.trim() == "1" => n.trim(),
        Some(_) => {
            return Err(
                ExprError::new(span, format!("`{text}` is not a ratio to 1")).with_hint(
                    "write the ratio as N:1, e.g. \"3:1\" (the data shrinks to a third)",
                ),
            );
        }
        None => text,
    };
    let bad = || {
        ExprError::new(
            span.clone(),
            format!("`{text}` is not a ratio from 1:1 to 100:1"),
        )
        .with_hint("write e.g. \"3:1\" (1:1 is no reduction at all)")
    };
    let v: f64 = number.parse().map_err(|_| bad())?;
    if !(1.0..=MAX_DATA_RATIO).contains(&v) {
        return Err(bad());
    }
    let hundredths = v * 100.0;
    if (hundredths - hundredths.round()).abs() > 1e-6 {
        return Err(bad());
    }
    Ok(hundredths.round() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_parse_in_hundredths() {
        assert_eq!(parse_data_ratio("3:1"), Ok(300));
        assert_eq!(parse_data_ratio(" 2.5 : 1 "), Ok(250));
        assert_eq!(parse_data_ratio("2"), Ok(200));
        assert_eq!(parse_data_ratio("1:1"), Ok(100));
        assert!(parse_data_ratio("0.5:1").is_err());
        assert!(parse_data_ratio("3:2").is_err());
        assert!(parse_data_ratio("1000:1").is_err());
        assert!(parse_data_ratio("x").is_err());
        assert!(parse_data_ratio("2.555").is_err());
    }
}
