//! The plan as people read it: a header with the totals and safety facts, then one aligned row per
//! data point.

use rigel_expr::{Access, Size};
use rigel_plan::{ClassLoad, LISTED_IDLE_CLASSES, Layout, RunPlan};
use std::io::{self, Write};

pub fn write(out: &mut impl Write, plan: &RunPlan) -> io::Result<()> {
    write_header(out, plan)?;
    let mut headers = vec!["point".to_owned()];
    // A column per class while the classes are few; beyond, one column naming the classes that
    // run (a table of thousands of idle columns would grow with the square of the classes).
    let columns = plan.classes.len() <= LISTED_IDLE_CLASSES;
    if columns {
        headers.extend(plan.classes.iter().map(|c| c.name.clone()));
    } else {
        headers.push("running".to_owned());
    }
    // A search's row is the point its trials run, with the searched value set per trial.
    let points = plan
        .search
        .as_ref()
        .map_or(&plan.points[..], |s| std::slice::from_ref(&s.template));
    let sweep_keys: Vec<String> = points.first().map_or(Vec::new(), |p| {
        p.sweep.iter().map(|b| b.key.clone()).collect()
    });
    headers.extend(sweep_keys.iter().cloned());
    let rows: Vec<Vec<String>> = points
        .iter()
        .map(|p| {
            let mut row = vec![p.id.to_string()];
            if columns {
                row.extend(plan.classes.iter().map(|c| {
                    let load = p.classes.iter().find(|l| l.class == c.name);
                    load.map_or_else(|| "-".to_owned(), describe_load)
                }));
            } else {
                let running: Vec<String> = p
                    .active()
                    .map(|c| format!("{}: {}", c.class, describe_load(c)))
                    .collect();
                row.push(running.join(", "));
            }
            row.extend(p.sweep.iter().map(|b| b.value.clone()));
            row
        })
        .collect();
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([headers[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    writeln!(out)?;
    write_row(out, &headers, &widths)?;
    for row in &rows {
        write_row(out, row, &widths)?;
    }
    Ok(())
}

fn write_header(out: &mut impl Write, plan: &RunPlan) -> io::Result<()> {
    writeln!(out, "{}", plan.name)?;
    if !plan.description.is_empty() {
        writeln!(out, "  {}", plan.description)?;
    }
    let layout = match plan.volume.layout {
        Layout::Concat => "concat".to_owned(),
        Layout::Raid0 => format!("raid0, stripe {}", Size(plan.volume.stripe)),
    };
    writeln!(
        out,
        "  volume     {layout} over {} target(s)",
        plan.targets.len()
    )?;
    for t in &plan.targets {
        let size = t.size.map_or(String::new(), |s| {
            format!(", {} file created by rigel if absent", Size(s))
        });
        let access = match (t.written, t.destructive) {
            (false, _) => "read only",
            (true, _) if t.named_on_command_line => {
                "WRITTEN (named on the command line; needs --allow-destructive unless rigel created it)"
            }
            (true, true) => {
                "WRITTEN (spec consents; needs --allow-destructive unless rigel created it)"
            }
            (true, false) => {
                "WRITTEN (only if rigel created it; otherwise needs destructive = true)"
            }
        };
        let name = if t.name.is_empty() {
            String::new()
        } else {
            format!(" ({})", t.name)
        };
        writeln!(out, "  target     {}{name}: {access}{size}", t.path)?;
    }
    // Classes placed on their own targets or region: their volume and region, in bytes.
    for c in plan.classes.iter().filter(|c| !c.pattern.is_whole()) {
        writeln!(
            out,
            "  class      {} on {}",
            c.name,
            c.pattern.describe(&plan.targets, plan.volume)
        )?;
    }
    let run = &plan.run;
    let warmup = match run.warmup_ms {
        0 => "no warmup".to_owned(),
        ms => format!("{} warmup", human_ms(ms)),
    };
    writeln!(
        out,
        "  per point  {} measured, {warmup}; {} I/O, seed {}, {} worker(s)",
        human_ms(run.duration_ms),
        if run.direct { "direct" } else { "buffered" },
        run.seed,
        run.workers
    )?;
    // What the classes ask for; what they get on this host is `rigel plan`'s `engine:` line.
    let engines = plan.engines();
    let engine = match engines.as_slice() {
        [one] => one.to_string(),
        _ => plan
            .classes
            .iter()
            .map(|c| format!("{} ({})", c.engine, c.name))
            .collect::<Vec<_>>()
            .join(", "),
    };
    let mut options = Vec::new();
    if run.polled {
        options.push("polled (completions polled from the devices' poll queues)".to_owned());
    }
    if let Some(sq) = &run.sqpoll {
        options.push(sq.describe());
    }
    if run.zones {
        options.push(
            "zones sequential (each writing I/O writes its own zone from its write pointer)"
                .to_owned(),
        );
    }
    if options.is_empty() {
        writeln!(out, "  engine     {engine}")?;
    } else {
        writeln!(out, "  engine     {engine}, {}", options.join(", "))?;
    }
    if let Some(cpus) = &plan.cpus {
        writeln!(out, "  cpus       {cpus} (workers pinned round-robin)")?;
    }
    if plan.orion_shaped() {
        writeln!(
            out,
            "  points     {} (ORION's Total Data Points: {})",
            plan.points.len(),
            plan.orion_total_points
        )?;
    } else {
        writeln!(out, "  points     {}", plan.points.len())?;
    }
    if let Some(s) = &plan.search {
        writeln!(out, "  search     {}", s.describe())?;
        writeln!(
            out,
            "  trials     at most {} (worst case), each the point above with the searched value",
            s.worst_trials
        )?;
    }
    if let Some(p) = &plan.precondition {
        writeln!(out, "  fill       precondition: {}", p.describe())?;
    }
    if let Some(d) = &plan.drain {
        writeln!(
            out,
            "  drain      {}",
            d.describe(plan.points.first(), &plan.points)
        )?;
    }
    if let Some(s) = &plan.steady {
        writeln!(out, "  steady     {}", s.describe())?;
    }
    if let Some(v) = &plan.run.verify {
        writeln!(out, "  verify     {}", v.describe())?;
    }
    // The drain's time is not known before it runs: its limit, as an upper bound beside the total.
    let drain = plan.drain.as_ref().map_or(String::new(), |d| {
        format!(" + a drain of at most {}", human_ms(d.limit_ms))
    });
    writeln!(
        out,
        "  estimated  {}{drain}{}",
        human_ms(plan.estimated_seconds * 1000),
        match (
            plan.search.is_some() || plan.steady.is_some(),
            &plan.precondition
        ) {
            (false, None) => "",
            (true, None) => " (worst case)",
            (false, Some(_)) => " (the precondition not included)",
            (true, Some(_)) => " (worst case; the precondition not included)",
        }
    )
}

/// `4 × 8KiB random read`, `2 streams × 4 × 1MiB sequential 70% read`, or `-` when idle.
fn describe_load(c: &ClassLoad) -> String {
    if c.outstanding == 0 {
        return "-".to_owned();
    }
    // `read`, `write`, `70% read`, `90% read, 10% trim`: the mix's canonical text.
    let mix = c.mix.to_string();
    // A size mix: its smallest to its largest (the shares are on the class's line).
    let size = match &c.pattern.sizes {
        Some(m) => format!("{}..{}", Size(m.smallest()), Size(m.largest())),
        None => Size(c.size).to_string(),
    };
    let base = match c.access {
        Access::Random => format!("{} × {size} random {mix}", c.load),
        Access::Sequential => format!(
            "{} stream{} × {} × {size} sequential {mix}",
            c.load,
            if c.load == 1 { "" } else { "s" },
            c.per_stream,
        ),
    };
    // Open loop: the load is the cap on outstanding I/Os, the rate what is asked.
    match c.rate {
        Some(r) => format!(
            "{r} {} (≤ {base})",
            format!("{:?}", c.arrival).to_lowercase()
        ),
        None => base,
    }
}

fn write_row(out: &mut impl Write, cells: &[String], widths: &[usize]) -> io::Result<()> {
    let mut line = String::new();
    // Padded by hand: `format!`'s width is a u16 and panics past 65,535 (a point of thousands of
    // classes makes a cell that wide).
    for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
        let pad = " ".repeat(w.saturating_sub(cell.chars().count()));
        if i == 0 {
            line.push_str(&pad);
            line.push_str(cell);
        } else {
            line.push_str("  ");
            line.push_str(cell);
            line.push_str(&pad);
        }
    }
    writeln!(out, "{}", line.trim_end())
}

/// A span of milliseconds, spelled as everywhere (`rigel_expr::units::duration`).
pub fn human_ms(ms: u64) -> String {
    rigel_expr::units::duration(std::time::Duration::from_millis(ms))
}
