//! `rigel report`: renders a run folder's results again, without touching storage.

use super::args::ReportArgs;
use super::exit;
use super::outln;
use crate::report::{self, Format, ReportOptions};

pub fn run(a: &ReportArgs) -> i32 {
    let doc = match report::load_run_folder_status(&a.dir) {
        Ok(folder) => {
            folder.notes.iter().for_each(super::style::note);
            folder.doc
        }
        Err(e) => {
            eprintln!("rigel report: {e}");
            return exit::RUNTIME;
        }
    };
    let formats = match (a.formats.is_empty(), &a.template) {
        (false, _) => a.formats.clone(),
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
        past_runs: crate::record::past_runs(&a.dir),
        si_units: a.units == "si",
    };
    match report::render(&doc, &opts) {
        Ok(files) => {
            files.iter().for_each(|f| outln!("{}", f.display()));
            // The verdicts the reports show, judged again; stdout stays the list of files.
            let verdicts = crate::expect::evaluate(&doc);
            if !verdicts.is_empty() {
                eprint!("{}", crate::expect::table(&verdicts));
            }
            exit::OK
        }
        Err(e) => {
            eprintln!("rigel report: {e}");
            exit::RUNTIME
        }
    }
}
