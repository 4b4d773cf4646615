//! The one place the served text is made: a [`Snapshot`] of the run (plain data) becomes an
//! OpenMetrics 1.0 text exposition (which Prometheus also reads), family by family, each with its
//! `# TYPE`, `# HELP` and samples, ending in `# EOF`.

use rigel_exec::LiveSecond;

/// The content type the exposition is served with.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The latency quantiles served for each class's last second.
pub const QUANTILES: [f64; 5] = [0.5, 0.9, 0.99, 0.999, 0.9999];

/// What the run is doing, as the watcher last saw it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// The spec's name and the sha256 of its text.
    pub spec: String,
    pub sha256: String,
    /// Points this run does, and how many of them have finished.
    pub points: usize,
    pub done: usize,
    /// The running point: its place among those to do (1-based), its id, and per class its
    /// name and the I/Os it keeps in flight.
    pub point: Option<PointNow>,
    /// The last second every worker finished.
    pub second: Option<SecondNow>,
    /// The run's progress (0 to 1) and the time left, from the plan's times per point.
    pub progress: f64,
    pub eta_s: f64,
    /// rigel's own CPU time so far (every thread, io_uring's workers included).
    pub cpu_user_s: f64,
    pub cpu_system_s: f64,
    /// When the snapshot was taken, seconds since the Unix epoch.
    pub time_s: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointNow {
    pub place: usize,
    pub id: u32,
    pub loads: Vec<(String, u32)>,
}

/// One second's figures, per class.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SecondNow {
    pub point: u32,
    /// The second's index in the point's measured window (0-based; `results.json`'s interval
    /// `index`, whose `t_s` is `index + 1` for a whole second).
    pub index: usize,
    pub classes: Vec<ClassSecond>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassSecond {
    pub class: String,
    pub iops: f64,
    /// MiB/s, as `results.json`'s `mbps`.
    pub mbps: f64,
    pub mean_s: f64,
    pub max_s: f64,
    /// (quantile, seconds), for [`QUANTILES`].
    pub quantiles: Vec<(f64, f64)>,
}

impl SecondNow {
    /// A finished second of the executor's, named by the point's classes; `length_s` is how
    /// much of it the window held (1, or less for a last partial second).
    pub fn of(second: &LiveSecond, names: &[String], length_s: f64) -> SecondNow {
        let len = if length_s > 0.0 { length_s } else { 1.0 };
        SecondNow {
            point: second.point,
            index: second.index,
            classes: second
                .classes
                .iter()
                .zip(names)
                .map(|(iv, name)| ClassSecond {
                    class: name.clone(),
                    iops: iv.ios() as f64 / len,
                    mbps: iv.bytes() as f64 / len / (1u64 << 20) as f64,
                    mean_s: iv.mean_ns() / 1e9,
                    max_s: iv.max_ns() as f64 / 1e9,
                    quantiles: QUANTILES
                        .iter()
                        .map(|&q| (q, iv.quantile_ns(q) as f64 / 1e9))
                        .collect(),
                })
                .collect(),
        }
    }
}

/// A sample's labels: (name, value).
type Labels = Vec<(&'static str, String)>;

/// A metric family: its name, type, help and samples (`(suffix, labels, value)`).
struct Family {
    name: &'static str,
    kind: &'static str,
    help: &'static str,
    samples: Vec<(&'static str, Labels, f64)>,
}

impl Family {
    fn new(name: &'static str, kind: &'static str, help: &'static str) -> Family {
        Family {
            name,
            kind,
            help,
            samples: Vec::new(),
        }
    }

    fn gauge(name: &'static str, help: &'static str, value: f64) -> Family {
        let mut f = Family::new(name, "gauge", help);
        f.samples.push(("", Vec::new(), value));
        f
    }

    fn sample(mut self, labels: Labels, value: f64) -> Family {
        self.samples.push(("", labels, value));
        self
    }
}

/// The families of `s`, in the order served.
fn families(s: &Snapshot) -> Vec<Family> {
    let mut out = vec![
        {
            let mut f = Family::new(
                "rigel_run",
                "info",
                "The run: its spec's name, the sha256 of the spec's text, rigel's version.",
            );
            f.samples.push((
                "_info",
                vec![
                    ("spec", s.spec.clone()),
                    ("sha256", s.sha256.clone()),
                    ("version", env!("CARGO_PKG_VERSION").to_owned()),
                ],
                1.0,
            ));
            f
        },
        Family::gauge("rigel_points", "Points this run does.", s.points as f64),
        Family::gauge(
            "rigel_points_done",
            "Points finished and on disk.",
            s.done as f64,
        ),
        Family::gauge(
            "rigel_progress_ratio",
            "The run's progress, 0 to 1, from the plan's time per point.",
            s.progress,
        ),
        Family::gauge(
            "rigel_eta_seconds",
            "Time left in the run, from the plan's time per point.",
            s.eta_s,
        ),
        {
            let mut f = Family::new(
                "rigel_cpu_seconds",
                "counter",
                "rigel's own CPU time (getrusage RUSAGE_SELF: every thread, io_uring's workers included).",
            );
            f.samples
                .push(("_total", vec![("mode", "user".into())], s.cpu_user_s));
            f.samples
                .push(("_total", vec![("mode", "system".into())], s.cpu_system_s));
            f
        },
        Family::gauge(
            "rigel_time_seconds",
            "When these figures were taken, seconds since the Unix epoch.",
            s.time_s,
        ),
    ];
    if let Some(p) = &s.point {
        out.push(Family::gauge(
            "rigel_point_index",
            "The running point's place among the points this run does (1-based).",
            p.place as f64,
        ));
        out.push(Family::gauge(
            "rigel_point_id",
            "The running point's id (results.json's point.id).",
            f64::from(p.id),
        ));
        let mut f = Family::new(
            "rigel_point_load",
            "gauge",
            "I/Os the running point keeps in flight, per class.",
        );
        for (class, load) in &p.loads {
            f = f.sample(vec![("class", class.clone())], f64::from(*load));
        }
        out.push(f);
    }
    if let Some(sec) = &s.second {
        out.extend(second_families(sec));
    }
    out
}

/// The last finished second's families.
fn second_families(sec: &SecondNow) -> Vec<Family> {
    let class = |c: &ClassSecond| vec![("class", c.class.clone())];
    let per_class = |name, help, value: &dyn Fn(&ClassSecond) -> f64| {
        sec.classes
            .iter()
            .fold(Family::new(name, "gauge", help), |f, c| {
                f.sample(class(c), value(c))
            })
    };
    let mut latency = Family::new(
        "rigel_latency_seconds",
        "gauge",
        "The last second's latency at each quantile, per class (from its interval histograms).",
    );
    for c in &sec.classes {
        for (q, v) in &c.quantiles {
            latency = latency.sample(
                vec![("class", c.class.clone()), ("quantile", format!("{q}"))],
                *v,
            );
        }
    }
    vec![
        Family::gauge(
            "rigel_second_point_id",
            "The point the per-second figures are of (its id).",
            f64::from(sec.point),
        ),
        Family::gauge(
            "rigel_second_index",
            "The second of that point's measured window the per-second figures are of (0-based).",
            sec.index as f64,
        ),
        per_class(
            "rigel_iops",
            "I/Os completed per second in the last finished second, per class.",
            &|c| c.iops,
        ),
        per_class(
            "rigel_mbps",
            "MiB (2^20 bytes) moved per second in the last finished second, per class.",
            &|c| c.mbps,
        ),
        latency,
        per_class(
            "rigel_latency_mean_seconds",
            "The last second's mean latency, per class.",
            &|c| c.mean_s,
        ),
        per_class(
            "rigel_latency_max_seconds",
            "The last second's slowest I/O, per class.",
            &|c| c.max_s,
        ),
    ]
}

/// The exposition of `s`.
pub fn render(s: &Snapshot) -> String {
    let mut out = String::new();
    for f in families(s) {
        out.push_str(&format!("# TYPE {} {}\n", f.name, f.kind));
        out.push_str(&format!("# HELP {} {}\n", f.name, escape_help(f.help)));
        for (suffix, labels, value) in &f.samples {
            out.push_str(f.name);
            out.push_str(suffix);
            if !labels.is_empty() {
                let body: Vec<String> = labels
                    .iter()
                    .map(|(k, v)| format!("{k}=\"{}\"", escape_label(v)))
                    .collect();
                out.push_str(&format!("{{{}}}", body.join(",")));
            }
            out.push_str(&format!(" {}\n", number(*value)));
        }
    }
    out.push_str("# EOF\n");
    out
}

/// A sample value as OpenMetrics writes numbers (`NaN`, `+Inf`, `-Inf` spelt so).
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{v}")
    }
}

/// A label value's escapes: backslash, double quote and line feed.
fn escape_label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A help text's escapes: backslash and line feed (OpenMetrics escapes `"` there too).
fn escape_help(v: &str) -> String {
    escape_label(v)
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
