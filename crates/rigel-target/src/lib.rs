//! Storage targets: opening files and block devices, probing them, creating test files, the
//! destructive-write guard, environment capture, and the virtual volume over them.

#![forbid(unsafe_code)]

mod blkid;
mod create;
mod env_facts;
mod error;
mod filetype;
mod foresee;
mod guard;
mod holes;
mod host_load;
mod in_use;
mod kind;

#[cfg(test)]
mod loopdev;
mod marker;
mod open;
mod passthru;
mod placement;
mod polling;
mod preflight;
mod probe;
mod provenance;
mod refusal;
mod signature;
mod sysfs;
mod volume;
mod zoned;

pub use create::{
    FILL_CHUNK, FillProgress, OnProgress, Preparation, clean, created_by_rigel, ensure_file,
};
pub use error::TargetError;
pub use foresee::{cold_buffered, foresee};
pub use guard::{Consent, check_writable};
pub use holes::{Holes, holes};
pub use host_load::HostClock;
pub use kind::TargetKind;
pub use marker::XATTR_NAME;
pub use open::{OpenTarget, OpenVolume, open_volume, remark_written};
pub use passthru::{Namespace, is_nvme_namespace, namespace_at, passthru_refusals};
pub use placement::{Host, Placed, PlacementError, place};
pub use polling::polled_refusals;
pub use preflight::{Depth, Preflight, preflight_refusals};
pub use probe::{OpenMode, Probe, holding_device, open_target, probe, reopen_target};
pub use provenance::{SpecRead, provenance, sha256_hex};
pub use refusal::{Reason, Refusal};
pub use sysfs::{DeviceFacts, Sysfs, host_info};
pub use volume::*;
pub use zoned::{ZoneModel, Zones, zoned_refusals};
