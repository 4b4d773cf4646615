//! A steady-state round's figure: the class figure `run.steady.metric` names, read from one
//! round's result through the results model, as `[expect]` reads it.

use rigel_expr::{Metric, parse_requirement_key};
use rigel_results::view::PointRead;
use rigel_results::{PointResult, PointStatus};

/// `41,200 IOPS`, `420 µs`: a round's figure in the metric's unit (`-` when it has none).
pub fn round_text(metric: &str, value: Option<f64>) -> String {
    let stat = match parse_requirement_key(metric).map(|k| k.metric) {
        Ok(Metric::Class { stat, .. }) => stat,
        _ => return "-".to_owned(),
    };
    value.map_or_else(|| "-".to_owned(), |v| super::format_stat(stat, v))
}

/// The value of `metric` (`small.iops`) in `round`; None when the round failed or the class did
/// not run in that direction.
pub fn round_figure(metric: &str, round: &PointResult) -> Option<f64> {
    if !matches!(round.status, PointStatus::Ok) {
        return None;
    }
    let key = parse_requirement_key(metric).ok()?;
    let Metric::Class {
        class,
        direction,
        stat,
    } = key.metric
    else {
        return None;
    };
    PointRead::new(round)
        .class(&class.name)?
        .value(direction, stat)
}
