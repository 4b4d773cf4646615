//! The results model: the plain types a point's measurement is written into (by `target`'s probes
//! and `exec`'s recorders) and the versioned document the run folder holds.

mod answer;
mod device;
mod doc;
mod doc_access;
mod drain_record;
mod engine;
mod host_load;
mod integrity;
mod journal_check;
mod point;
mod provenance;
mod rank_rows;
mod steady_record;
mod touch;
mod wall_window;
mod write_data;

pub use answer::Answer;
pub use device::DeviceWindow;
pub use doc::{
    FleetHost, FleetInfo, HostInfo, ResultsDoc, RunHeader, SearchRecord, SearchTrial, TargetEnv,
    TargetInfo,
};
pub use drain_record::{DrainRecord, DrainStep};
pub use engine::{DeviceQueues, EngineRecord, Placement};
pub use host_load::HostLoad;
pub use integrity::{
    Corruption, CorruptionCounts, CorruptionKind, FIRST_CORRUPTIONS, FoundHeader, IntegrityResult,
};
pub use journal_check::JournalCheck;
pub use point::*;
pub use provenance::{GitOrigin, Provenance, SpecOrigin};
pub use rank_rows::{RankClass, RankPoint, RankRows, SpillError};
pub use steady_record::SteadyRecord;
pub use touch::{TouchReads, TouchResult};
pub use wall_window::WallWindow;
pub use write_data::WriteData;
