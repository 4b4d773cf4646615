//! Which rank this process is, and how many there are: from the launcher's environment (Slurm,
//! Open MPI, MPICH/Intel MPI's PMI, PMIx, a Kubernetes Indexed Job) or from `--rank`/`--ranks`.

use super::FleetError;

/// This process's place in the fleet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rank {
    /// 0-based.
    pub rank: u32,
    pub ranks: u32,
    /// Where the rank came from (`SLURM_PROCID`, `--rank`), for messages.
    pub source: &'static str,
}

/// Launchers' (rank, size) variables, in the order they are tried. A size of `None` needs `--ranks`.
const LAUNCHERS: [(&str, Option<&str>); 5] = [
    ("SLURM_PROCID", Some("SLURM_NTASKS")),
    ("OMPI_COMM_WORLD_RANK", Some("OMPI_COMM_WORLD_SIZE")),
    ("PMI_RANK", Some("PMI_SIZE")),
    ("PMIX_RANK", None),
    ("JOB_COMPLETION_INDEX", None),
];

/// The rank from `--rank`/`--ranks`, else from the first launcher variable set in `env`.
pub fn detect(
    env: &dyn Fn(&str) -> Option<String>,
    rank: Option<u32>,
    ranks: Option<u32>,
) -> Result<Rank, FleetError> {
    let number = |name: &str| -> Result<Option<u32>, FleetError> {
        match env(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| FleetError::Launcher {
                    message: format!("{name}=`{v}` is not a number"),
                }),
        }
    };
    let found = match rank {
        Some(r) => Some((r, ranks, "--rank")),
        None => {
            let mut found = None;
            for (rank_var, size_var) in LAUNCHERS {
                if let Some(r) = number(rank_var)? {
                    let size = match (ranks, size_var) {
                        (Some(n), _) => Some(n),
                        (None, Some(v)) => number(v)?,
                        (None, None) => None,
                    };
                    found = Some((r, size, rank_var));
                    break;
                }
            }
            found
        }
    };
    let Some((rank, ranks, source)) = found else {
        return Err(FleetError::Launcher {
            message: "no launcher told this process its rank (SLURM_PROCID, OMPI_COMM_WORLD_RANK, \
                      PMI_RANK, PMIX_RANK or JOB_COMPLETION_INDEX): run it under srun or mpirun, \
                      or give --rank I --ranks N"
                .into(),
        });
    };
    let Some(ranks) = ranks else {
        return Err(FleetError::Launcher {
            message: format!(
                "{source} gives the rank but not how many ranks there are: add --ranks N"
            ),
        });
    };
    if ranks == 0 || rank >= ranks {
        return Err(FleetError::Launcher {
            message: format!("rank {rank} (from {source}) is not below the {ranks} ranks"),
        });
    }
    if ranks > super::MAX_RANKS {
        return Err(FleetError::Launcher {
            message: format!(
                "{ranks} ranks (from {source}): a fleet has at most {} ranks",
                super::MAX_RANKS
            ),
        });
    }
    Ok(Rank {
        rank,
        ranks,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    type Vars<'a> = &'a [(&'a str, &'a str)];

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn each_launcher_gives_rank_and_size() {
        let cases: [(Vars, u32, u32); 3] = [
            (&[("SLURM_PROCID", "3"), ("SLURM_NTASKS", "4")], 3, 4),
            (
                &[("OMPI_COMM_WORLD_RANK", "1"), ("OMPI_COMM_WORLD_SIZE", "2")],
                1,
                2,
            ),
            (&[("PMI_RANK", "0"), ("PMI_SIZE", "8")], 0, 8),
        ];
        for (vars, rank, ranks) in cases {
            let r = detect(&env(vars), None, None).expect("detected");
            assert_eq!((r.rank, r.ranks), (rank, ranks), "{vars:?}");
        }
    }

    #[test]
    fn an_index_without_a_size_needs_ranks() {
        let vars = [("JOB_COMPLETION_INDEX", "5")];
        let e = detect(&env(&vars), None, None).expect_err("no size");
        assert!(e.to_string().contains("--ranks"), "{e}");
        let r = detect(&env(&vars), None, Some(6)).expect("with --ranks");
        assert_eq!((r.rank, r.ranks, r.source), (5, 6, "JOB_COMPLETION_INDEX"));
        let r = detect(&env(&[("PMIX_RANK", "2")]), None, Some(3)).expect("pmix");
        assert_eq!(r.rank, 2);
    }

    #[test]
    fn the_command_line_wins_and_is_checked() {
        let vars = [("SLURM_PROCID", "3"), ("SLURM_NTASKS", "4")];
        let r = detect(&env(&vars), Some(1), Some(2)).expect("by hand");
        assert_eq!((r.rank, r.ranks, r.source), (1, 2, "--rank"));
        assert!(detect(&env(&[]), Some(2), Some(2)).is_err());
        assert!(detect(&env(&[]), None, None).is_err());
        assert!(detect(&env(&[("SLURM_PROCID", "x")]), None, None).is_err());
    }
}
