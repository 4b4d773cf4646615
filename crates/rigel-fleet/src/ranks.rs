//! The fleet's size, checked before anything is sized by it: `fleet/ranks.json` (written by every
//! rank as it joins) is read within a few bytes and held to [`MAX_RANKS`], and every `rank-NNNN`
//! folder must lie within it. A corrupted count (4,000,000,000) or a stray `rank-1000000` folder
//! is refused naming the file, instead of sizing the merge by it (a 16 GB allocation, or a
//! results.json of a million ranks that never existed).

use super::{FleetError, meta_dir, rank_dir};
use std::path::Path;

/// The most ranks a fleet may have: far beyond any cluster a storage test spans, small enough that
/// the merge's per-rank rows stay a few MB per point.
pub const MAX_RANKS: u32 = 100_000;

/// `ranks.json` holds one number: a few bytes.
const RANKS_FILE_LIMIT: u64 = 64;

/// The fleet's size as `fleet/ranks.json` records it (`None` when the file is absent).
pub(crate) fn read_ranks(fleet: &Path) -> Result<Option<u32>, FleetError> {
    let path = meta_dir(fleet).join("ranks.json");
    let text = match rigel_fs::read_no_follow(&path, RANKS_FILE_LIMIT) {
        Ok(text) => text,
        Err(e)
            if e.raw_os_error()
                .map(std::io::Error::from_raw_os_error)
                .map(|e| e.kind())
                == Some(std::io::ErrorKind::NotFound) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    let invalid = |message: String| FleetError::Invalid {
        path: path.clone(),
        message,
    };
    let ranks: u64 = text
        .trim()
        .parse()
        .map_err(|_| invalid("the fleet's size (ranks) is not a whole number of ranks".into()))?;
    if ranks == 0 || ranks > u64::from(MAX_RANKS) {
        return Err(invalid(format!(
            "the fleet's size (ranks) is {ranks}: a fleet has 1 to {MAX_RANKS} ranks"
        )));
    }
    Ok(Some(ranks as u32))
}

/// The ranks to merge, given the rank folders `found` (sorted): `ranks.json`'s count, which every
/// folder must lie within; without it, the folders must be `rank-0000` up to one less than their
/// number (a gap means a stray or a renamed folder, which would make the merge count every rank in
/// between as missing).
pub(crate) fn fleet_size(fleet: &Path, found: &[u32]) -> Result<u32, FleetError> {
    let recorded = read_ranks(fleet)?;
    let stray = match recorded {
        Some(ranks) => found.iter().find(|&&r| r >= ranks),
        None => found
            .iter()
            .enumerate()
            .find(|&(i, &r)| r as usize != i)
            .map(|(_, r)| r),
    };
    if let Some(&rank) = stray {
        let why = match recorded {
            Some(ranks) => format!(
                "`{}` gives the fleet {ranks} ranks (0 to {})",
                meta_dir(fleet).join("ranks.json").display(),
                ranks - 1
            ),
            None => format!(
                "`{}` is missing and the other rank folders run from rank-0000 without a gap",
                meta_dir(fleet).join("ranks.json").display()
            ),
        };
        return Err(FleetError::StrayRank {
            dir: rank_dir(fleet, rank),
            rank,
            why,
        });
    }
    Ok(recorded.unwrap_or(found.len() as u32))
}
