//! `summarize`: a per-point table or list held to [`TABLE_ROWS`] rows. A report of 100,000 points
//! cannot show every row (a template that builds a table row by row spends the square of its
//! length, and nobody reads 100,000 lines): beyond that many, evenly spaced rows are shown, the
//! first and the last among them, each a real row (nothing averaged), and the page says so and
//! names where every row is (`rows.csv`, `results.json`).

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind};

/// The most rows a table shows.
pub const TABLE_ROWS: usize = 1000;

/// `rows | summarize` (or `rows | summarize(n)`): `{rows, total, shown, summarized}`. `rows` is
/// the input itself when it holds at most `n` rows, else `n` of them evenly spaced.
pub fn summarize(rows: Value, n: Option<usize>) -> Result<Value, Error> {
    if !matches!(rows.kind(), ValueKind::Seq | ValueKind::Iterable) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("summarize takes a list, not {}", rows.kind()),
        ));
    }
    let n = n.unwrap_or(TABLE_ROWS).max(2);
    let total = match rows.len() {
        Some(len) => len,
        None => rows.try_iter()?.count(),
    };
    if total <= n {
        return Ok(minijinja::context! { rows, total, shown => total, summarized => false });
    }
    let shown: Vec<Value> = picks(total, n)
        .map(|i| rows.get_item_by_index(i))
        .collect::<Result<_, _>>()?;
    Ok(minijinja::context! {
        rows => shown,
        total,
        shown => n,
        summarized => true,
    })
}

/// `n` indexes of `0..total`, evenly spaced, the first and the last included.
fn picks(total: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |k| k * (total - 1) / (n - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_are_evenly_spaced_distinct_and_reach_both_ends() {
        let p: Vec<usize> = picks(100_000, 1000).collect();
        assert_eq!(p.len(), 1000);
        assert_eq!((p[0], p[999]), (0, 99_999));
        assert!(p.windows(2).all(|w| w[1] > w[0] && w[1] - w[0] <= 101));
    }

    #[test]
    fn short_lists_are_kept_whole() {
        let v = summarize(Value::from(vec![1, 2, 3]), Some(5)).expect("a list");
        assert_eq!(v.get_attr("summarized").expect("field"), Value::from(false));
        let v = summarize(Value::from((0..10).collect::<Vec<_>>()), Some(4)).expect("a list");
        assert_eq!(v.get_attr("total").expect("field"), Value::from(10));
        let rows: Vec<i64> = v
            .get_attr("rows")
            .expect("field")
            .try_iter()
            .expect("a list")
            .map(|v| i64::try_from(v).expect("a number"))
            .collect();
        assert_eq!(rows, [0, 3, 6, 9]);
    }
}
