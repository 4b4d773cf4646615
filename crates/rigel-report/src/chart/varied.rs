//! What varied across a class's points, so that each chart is drawn against it: the class's own
//! load when it was swept, else the load of the class that was (a stream held at 1 beside a small
//! class swept 1..32 is drawn against the small class's load). A class that ran under one condition
//! only has nothing to draw a line along: it gets a table row, not a one-x chart.

use crate::rows::{ClassRow, Row};

/// The rows of one series: everything but the x parameter the same.
pub(super) struct Series<'r> {
    /// What else held still along it (`large=1 small.size=4KiB`); empty when nothing did.
    pub key: String,
    pub rows: Vec<&'r ClassRow>,
}

/// A class's finished rows, split into series along the parameter that varied.
pub(super) struct Varied<'r> {
    /// The class whose load is the x axis.
    pub x_class: String,
    /// `x_class` is the class itself.
    pub own: bool,
    /// The class's own load when another's varied (the stream's 1).
    pub held_at: Option<u32>,
    pub series: Vec<Series<'r>>,
}

impl Varied<'_> {
    /// The x value of a row: the load of [`Varied::x_class`] at its point.
    pub fn x(&self, r: &ClassRow) -> u32 {
        load_of(r, &self.x_class)
    }

    /// `load`, or `small load` when the x axis is another class's.
    pub fn x_name(&self) -> String {
        if self.own {
            "load".into()
        } else {
            format!("{} load", self.x_class)
        }
    }

    /// `` or ` (held at 1)`: what the title says of a held class.
    pub fn held_text(&self) -> String {
        match self.held_at {
            Some(l) => format!(" (held at {l})"),
            None => String::new(),
        }
    }
}

fn load_of(r: &ClassRow, class: &str) -> u32 {
    if r.class == class {
        return r.load;
    }
    r.loads
        .iter()
        .find(|l| l.class == class)
        .map_or(0, |l| l.load)
}

fn distinct(rows: &[&ClassRow], class: &str) -> usize {
    let mut seen: Vec<u32> = rows.iter().map(|r| load_of(r, class)).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

/// The rows of `class` split along what varied, series of two points or more; none when no load
/// varied (one condition, or only `[sweep]` values: those are compared in tables, not along a line).
pub(super) fn varied<'r>(class: &str, rows: &'r [Row]) -> Option<Varied<'r>> {
    let ok: Vec<&ClassRow> = rows
        .iter()
        .map(|r| &**r)
        .filter(|r| r.ok && r.load > 0)
        .collect();
    let first: &'r ClassRow = ok.first()?;
    let x_class = if distinct(&ok, class) > 1 {
        class.to_string()
    } else {
        first
            .loads
            .iter()
            .map(|l| l.class.as_str())
            .filter(|c| *c != class)
            .find(|c| distinct(&ok, c) > 1)?
            .to_string()
    };
    let own = x_class == class;
    let mut series: Vec<Series<'r>> = Vec::new();
    // Where the class that varied was idle, this one ran alone: the first point of its line (at
    // 0, which a log₂ load axis draws in a slot of its own).
    for r in ok {
        let mut parts: Vec<String> = r
            .loads
            .iter()
            .filter(|l| l.class != class && l.class != x_class)
            .map(|l| format!("{}={}", l.class, l.load))
            .collect();
        parts.extend(r.sweep.iter().map(|b| format!("{}={}", b.key, b.value)));
        let key = parts.join(" ");
        match series.iter_mut().find(|s| s.key == key) {
            Some(s) => s.rows.push(r),
            None => series.push(Series { key, rows: vec![r] }),
        }
    }
    let x = |r: &ClassRow| load_of(r, &x_class);
    for s in &mut series {
        s.rows.sort_by_key(|r| x(r));
    }
    // A series of one point has no line to draw (a point that failed beside it, a level only one
    // condition reached): it is a table row.
    series.retain(|s| s.rows.len() > 1);
    if series.is_empty() {
        return None;
    }
    let held_at = (!own).then_some(first.load);
    Some(Varied {
        x_class,
        own,
        held_at,
        series,
    })
}

/// Series split into figures of at most `most` each, as evenly as possible (11 → 6 + 5).
pub(super) fn chunks<T>(items: Vec<T>, most: usize) -> Vec<Vec<T>> {
    let n = items.len();
    if n == 0 {
        return Vec::new();
    }
    let parts = n.div_ceil(most.max(1));
    let size = n.div_ceil(parts);
    let mut out: Vec<Vec<T>> = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        if i % size == 0 {
            out.push(Vec::new());
        }
        if let Some(last) = out.last_mut() {
            last.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_even_and_never_above_the_limit() {
        let sizes = |n: usize| {
            chunks((0..n).collect::<Vec<_>>(), 8)
                .iter()
                .map(Vec::len)
                .collect::<Vec<_>>()
        };
        assert_eq!(sizes(0), Vec::<usize>::new());
        assert_eq!(sizes(8), [8]);
        assert_eq!(sizes(9), [5, 4]);
        assert_eq!(sizes(28), [7, 7, 7, 7]);
    }
}
