//! `rigel report`: renders a run folder's results again, without touching storage.

use super::args::ReportArgs;
use super::exit;
use super::style::outln;
use rigel_report::{self as report, Format, ReportOptions};

pub fn run(a: &ReportArgs) -> i32 {
    let doc = match rigel_record::load(&a.dir) {
        Ok(folder) => {
            folder.notes.iter().for_each(super::style::note);
            // Shared, so that the templates read it without a copy (1 GB at 100,000 points).
            std::sync::Arc::new(folder.doc)
        }
        Err(e) => {
            eprintln!("rigel report: {e}");
            return exit::RUNTIME;
        }
    };
    let formats = match (a.formats.is_empty(), &a.template) {
        (false, _) => a.formats.iter().map(|f| f.0).collect(),
        (true, Some(_)) => Vec::new(),
        (true, None) => Format::DEFAULT.to_vec(),
    };
    let opts = ReportOptions {
        formats,
        template: a.template.clone(),
        dialect: a.dialect,
        testname: a.testname.clone(),
        orion_version: None,
        out_dir: a.out.clone().unwrap_or_else(|| a.dir.clone()),
        past_runs: rigel_record::past_runs(&a.dir),
        si_units: a.units == "si",
        exclusive: false,
        paper: a.paper,
    };
    match report::render_shared(&doc, &opts) {
        Ok(files) => {
            files.iter().for_each(|f| outln!("{}", f.display()));
            // The verdicts the reports show, judged again; stdout stays the list of files.
            let verdicts = rigel_judge::expect::evaluate(&doc);
            if !verdicts.is_empty() {
                eprint!("{}", rigel_judge::expect::table(&verdicts));
            }
            exit::OK
        }
        Err(e) => {
            eprintln!("rigel report: {e}");
            exit::RUNTIME
        }
    }
}
