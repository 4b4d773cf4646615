//! C `printf`-style formatting for template filters: ORION's files are defined by their printf formats
//! (`%11s`, `,%7d`, `,%7.2f`), so templates state those formats verbatim and this module applies them.

use std::fmt::Write as _;

/// The widest field or longest precision accepted: enough for any report, small enough that a
/// stray `%999999999d` cannot exhaust memory.
pub const MAX_FIELD: usize = 1000;

/// One argument of a format: what a template value turns into.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Int(i128),
    Float(f64),
    Str(String),
    /// An absent value: rendered as an empty string padded to the conversion's width.
    Missing,
}

/// A format string that printf would not accept, or too few arguments for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrintfError {
    #[error("format {format:?}: unknown conversion {conv:?} at byte {at}")]
    UnknownConversion {
        format: String,
        conv: char,
        at: usize,
    },
    #[error("format {format:?} ends inside a conversion")]
    Truncated { format: String },
    #[error("format {format:?} needs more than the {given} argument(s) given")]
    TooFewArgs { format: String, given: usize },
    #[error("format {format:?}: a width or precision above {MAX_FIELD} is not a cell format")]
    TooWide { format: String },
    #[error("format {format:?}: {value:?} is not a number for %{conv}")]
    NotANumber {
        format: String,
        conv: char,
        value: String,
    },
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
}

/// Formats `args` by the C format string `format`; every conversion consumes one argument.
pub fn sprintf(format: &str, args: &[Arg]) -> Result<String, PrintfError> {
    let mut out = String::with_capacity(format.len() + 16);
    let mut chars = format.char_indices().peekable();
    let mut next_arg = 0;
    while let Some((at, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&(_, f)) = chars.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '0' => spec.zero = true,
                '#' => spec.alt = true,
                _ => break,
            }
            chars.next();
        }
        spec.width = read_number(&mut chars).unwrap_or(0);
        if chars.peek().map(|&(_, c)| c) == Some('.') {
            chars.next();
            spec.precision = Some(read_number(&mut chars).unwrap_or(0));
        }
        // Length modifiers mean nothing for Rust values; accept them as C would.
        while matches!(chars.peek(), Some(&(_, 'l' | 'h' | 'z' | 'j' | 'L'))) {
            chars.next();
        }
        if spec.width > MAX_FIELD || spec.precision.is_some_and(|p| p > MAX_FIELD) {
            return Err(PrintfError::TooWide {
                format: format.to_string(),
            });
        }
        let Some((_, conv)) = chars.next() else {
            return Err(PrintfError::Truncated {
                format: format.to_string(),
            });
        };
        if conv == '%' {
            out.push('%');
            continue;
        }
        let arg = args.get(next_arg).ok_or_else(|| PrintfError::TooFewArgs {
            format: format.to_string(),
            given: args.len(),
        })?;
        next_arg += 1;
        let body = convert(format, conv, at, &spec, arg)?;
        pad_into(&mut out, &body, &spec, conv);
    }
    Ok(out)
}

fn read_number(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) -> Option<usize> {
    let mut n: Option<usize> = None;
    while let Some(&(_, d)) = chars.peek() {
        let Some(v) = d.to_digit(10) else { break };
        n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(v as usize));
        chars.next();
    }
    n
}

/// The converted text before padding; numbers carry their sign.
fn convert(
    format: &str,
    conv: char,
    at: usize,
    spec: &Spec,
    arg: &Arg,
) -> Result<String, PrintfError> {
    if matches!(arg, Arg::Missing) {
        return match conv {
            'd' | 'i' | 'u' | 'f' | 'F' | 'e' | 'E' | 'x' | 'X' | 's' => Ok(String::new()),
            _ => Err(unknown(format, conv, at)),
        };
    }
    let not_number = || PrintfError::NotANumber {
        format: format.to_string(),
        conv,
        value: match arg {
            Arg::Str(s) => s.clone(),
            other => format!("{other:?}"),
        },
    };
    let text = match conv {
        'd' | 'i' | 'u' => {
            let v = as_int(arg).ok_or_else(not_number)?;
            let digits = v.unsigned_abs().to_string();
            let digits = match spec.precision {
                Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
                _ => digits,
            };
            signed(v < 0, digits, spec)
        }
        'f' | 'F' => {
            let v = as_float(arg).ok_or_else(not_number)?;
            let p = spec.precision.unwrap_or(6);
            let mut s = format!("{:.*}", p, v.abs());
            if spec.alt && p == 0 {
                s.push('.');
            }
            signed(v.is_sign_negative() && v != 0.0, s, spec)
        }
        'e' | 'E' => {
            let v = as_float(arg).ok_or_else(not_number)?;
            let s = c_exponent(v.abs(), spec.precision.unwrap_or(6));
            let s = if conv == 'E' { s.to_uppercase() } else { s };
            signed(v.is_sign_negative() && v != 0.0, s, spec)
        }
        'x' | 'X' => {
            let v = as_int(arg).ok_or_else(not_number)?;
            let s = if conv == 'x' {
                format!("{v:x}")
            } else {
                format!("{v:X}")
            };
            signed(false, s, spec)
        }
        's' => {
            let s = match arg {
                Arg::Str(s) => s.clone(),
                Arg::Int(i) => i.to_string(),
                Arg::Float(f) => f.to_string(),
                Arg::Missing => String::new(),
            };
            match spec.precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            }
        }
        _ => return Err(unknown(format, conv, at)),
    };
    Ok(text)
}

fn unknown(format: &str, conv: char, at: usize) -> PrintfError {
    PrintfError::UnknownConversion {
        format: format.to_string(),
        conv,
        at,
    }
}

fn signed(negative: bool, digits: String, spec: &Spec) -> String {
    let sign = if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    format!("{sign}{digits}")
}

/// C's `%e`: mantissa with `p` decimals and an exponent of at least two digits (`1.50e+03`).
fn c_exponent(v: f64, p: usize) -> String {
    let rust = format!("{:.*e}", p, v);
    let (mantissa, exp) = rust.split_once('e').unwrap_or((rust.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

fn as_int(arg: &Arg) -> Option<i128> {
    match arg {
        Arg::Int(i) => Some(*i),
        // printf("%d") of a measured rate: round to the nearest whole number.
        Arg::Float(f) if f.is_finite() => Some(f.round() as i128),
        Arg::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn as_float(arg: &Arg) -> Option<f64> {
    match arg {
        Arg::Int(i) => Some(*i as f64),
        Arg::Float(f) => Some(*f),
        Arg::Str(s) => s.trim().parse().ok(),
        Arg::Missing => None,
    }
}

fn pad_into(out: &mut String, body: &str, spec: &Spec, conv: char) {
    let len = body.chars().count();
    if len >= spec.width {
        out.push_str(body);
        return;
    }
    let fill = spec.width - len;
    let numeric = conv != 's' && !body.is_empty();
    if spec.left {
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if spec.zero && numeric && (spec.precision.is_none() || !matches!(conv, 'd' | 'i' | 'u'))
    {
        let sign_len = usize::from(body.starts_with(['-', '+', ' ']));
        out.push_str(&body[..sign_len]);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(&body[sign_len..]);
    } else {
        let _ = write!(out, "{:fill$}{body}", "");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(format: &str, arg: Arg) -> String {
        sprintf(format, &[arg]).unwrap()
    }

    #[test]
    fn orion_cell_formats() {
        assert_eq!(f("%11s", Arg::Str("Large/Small".into())), "Large/Small");
        assert_eq!(f(",%7d", Arg::Int(5)), ",      5");
        assert_eq!(f("%11d", Arg::Int(0)), "          0");
        assert_eq!(f(",%7.2f", Arg::Float(271.58)), ", 271.58");
        assert_eq!(f(",%7d", Arg::Float(2301.6)), ",   2302");
        assert_eq!(f(",%7d", Arg::Missing), ",       ");
    }

    #[test]
    fn histogram_line_format() {
        let args = [
            Arg::Int(64),
            Arg::Int(128),
            Arg::Int(1112243),
            Arg::Float(91.12),
            Arg::Int(0),
            Arg::Float(0.0),
        ];
        assert_eq!(
            sprintf("%9d - %-10d us: %15d (%6.2f%%) %14d (%6.2f%%)", &args).unwrap(),
            "       64 - 128        us:         1112243 ( 91.12%)              0 (  0.00%)"
        );
    }

    #[test]
    fn flags_and_conversions() {
        assert_eq!(f("%05d", Arg::Int(-42)), "-0042");
        assert_eq!(f("%+d", Arg::Int(7)), "+7");
        assert_eq!(f("%-6s|", Arg::Str("ab".into())), "ab    |");
        assert_eq!(f("%.3s", Arg::Str("abcdef".into())), "abc");
        assert_eq!(f("%.3f", Arg::Float(97.6774)), "97.677");
        assert_eq!(f("%e", Arg::Float(1500.0)), "1.500000e+03");
        assert_eq!(f("%.2E", Arg::Float(0.00012)), "1.20E-04");
        assert_eq!(f("%x", Arg::Int(255)), "ff");
        assert_eq!(f("%.0f", Arg::Float(0.5)), "0");
        assert_eq!(sprintf("100%%", &[]).unwrap(), "100%");
        assert_eq!(f("%ld", Arg::Int(3)), "3");
    }

    proptest::proptest! {
        /// A user's format string never panics, whatever it holds and whatever the value.
        #[test]
        fn any_format_string_is_an_answer_not_a_panic(format in "[%0-9.+ #-]{0,3}[a-zA-Z%]?.{0,6}", i in proptest::num::i64::ANY, f in proptest::num::f64::ANY, s in ".{0,8}") {
            for arg in [Arg::Int(i128::from(i)), Arg::Float(f), Arg::Str(s.clone()), Arg::Missing] {
                let _ = sprintf(&format, &[arg.clone(), arg]);
            }
        }
    }

    #[test]
    fn errors_are_reported_not_panicked() {
        assert!(matches!(
            sprintf("%q", &[Arg::Int(1)]),
            Err(PrintfError::UnknownConversion { conv: 'q', .. })
        ));
        assert!(matches!(
            sprintf("%7", &[Arg::Int(1)]),
            Err(PrintfError::Truncated { .. })
        ));
        assert!(matches!(
            sprintf("%d %d", &[Arg::Int(1)]),
            Err(PrintfError::TooFewArgs { .. })
        ));
        assert!(matches!(
            sprintf("%999999999999d", &[Arg::Int(1)]),
            Err(PrintfError::TooWide { .. })
        ));
        assert!(matches!(
            sprintf("%d", &[Arg::Str("x".into())]),
            Err(PrintfError::NotANumber { .. })
        ));
    }
}
