//! How the other stages build and read a [`ResultsDoc`]: one constructor from the run's parts,
//! read-only accessors for every field, and setters for what a writer fills in later (a fleet's
//! hosts, a search's record). Figures are read through `read::view`.

use super::doc::{FleetInfo, HostInfo, ResultsDoc, RunHeader, SearchRecord, TargetInfo};
use super::point::PointResult;
use super::provenance::Provenance;
use rigel_plan::RunPlan;

impl ResultsDoc {
    /// The whole document from its parts (no fleet, no search: a writer sets those).
    pub fn new(
        header: RunHeader,
        spec_toml: String,
        plan: RunPlan,
        points: Vec<PointResult>,
        finished: String,
    ) -> ResultsDoc {
        ResultsDoc {
            write_data: header.write_data,
            schema_version: header.schema_version,
            rigel_version: header.rigel_version,
            command: header.command,
            started: header.started,
            finished,
            host: header.host,
            targets: header.targets,
            spec_toml,
            plan,
            points,
            fleet: None,
            search: None,
            provenance: header.provenance,
        }
    }

    /// The same run under another plan (a test's or a tool's edited copy).
    pub fn with_plan(mut self, plan: RunPlan) -> ResultsDoc {
        self.plan = plan;
        self
    }

    /// What the run knew when it started (`run.json`).
    pub fn header(&self) -> RunHeader {
        RunHeader {
            schema_version: self.schema_version,
            rigel_version: self.rigel_version.clone(),
            command: self.command.clone(),
            started: self.started.clone(),
            host: self.host.clone(),
            targets: self.targets.clone(),
            provenance: self.provenance.clone(),
            write_data: self.write_data.clone(),
        }
    }

    /// What each writing class's writes carried (empty: none wrote, or a document written
    /// before rigel recorded it).
    pub fn write_data(&self) -> &[super::WriteData] {
        &self.write_data
    }

    pub fn schema_version(&self) -> u32 {
        self.schema_version
    }

    pub fn rigel_version(&self) -> &str {
        &self.rigel_version
    }

    /// The command line that made the run, as typed.
    pub fn command(&self) -> &[String] {
        &self.command
    }

    /// RFC 3339 start time.
    pub fn started(&self) -> &str {
        &self.started
    }

    /// RFC 3339 end time; empty while the run is incomplete.
    pub fn finished(&self) -> &str {
        &self.finished
    }

    pub fn host(&self) -> &HostInfo {
        &self.host
    }

    pub fn targets(&self) -> &[TargetInfo] {
        &self.targets
    }

    /// The resolved spec (extends, vars and --set applied), as TOML text.
    pub fn spec_toml(&self) -> &str {
        &self.spec_toml
    }

    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// Finished points in run order.
    pub fn points(&self) -> &[PointResult] {
        &self.points
    }

    /// A fleet's merged run: the ranks it merges (none for one host's run).
    pub fn fleet(&self) -> Option<&FleetInfo> {
        self.fleet.as_ref()
    }

    /// `[search]`: every trial and the answer (none for runs without a search).
    pub fn search(&self) -> Option<&SearchRecord> {
        self.search.as_ref()
    }

    /// Where the run came from: the spec's digest and commit, who ran it (none in older documents).
    pub fn provenance(&self) -> Option<&Provenance> {
        self.provenance.as_ref()
    }

    pub fn set_fleet(&mut self, fleet: Option<FleetInfo>) {
        self.fleet = fleet;
    }

    pub fn set_search(&mut self, search: Option<SearchRecord>) {
        self.search = search;
    }

    /// The points, for a writer that amends them (a search's trials, a test's hand-set figures).
    pub fn points_mut(&mut self) -> &mut Vec<PointResult> {
        &mut self.points
    }
}
