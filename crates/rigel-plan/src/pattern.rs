//! Where and how a class's I/Os fall beyond ORION's box: the targets forming its own volume and
//! the region of that volume it addresses. Checked here against the spec's targets.

use rigel_expr::{Access, Distribution, Durability, Region, Size, SizeMix};
use rigel_spec::{ClassSpec, Layout, Spec, SpecError};
use serde::{Deserialize, Serialize};

/// A class's placement, in the plan beside its size and mix (absent keys: today's behaviour).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pattern {
    /// Indices into the plan's targets forming the class's own volume, in the order named
    /// (empty: every target, the spec's volume).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<u32>,
    /// The part of the class's volume it addresses (absent: all of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
    /// The skew of a random class's draws (absent: uniform).
    #[serde(default, skip_serializing_if = "Distribution::is_uniform")]
    pub distribution: Distribution,
    /// Hot blocks from the region's start (true) or scattered by a seeded permutation (absent).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contiguous: bool,
    /// `durability = "dsync"`: every write carries RWF_DSYNC.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dsync: bool,
    /// `size` written as a mix: the sizes and their shares by count (absent: every I/O is the
    /// class's `size`, which is otherwise the mix's largest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<SizeMix>,
    /// `durability = "fdatasync:N"` or `"fsync:N"`: a flush after every N writes of the class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush: Option<Flush>,
    /// `compress` / `dedupe`: what the class's writes carry (absent: incompressible, unique).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataContent>,
    /// `think`: each slot's wait after a completion before its next I/O, ns (closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_ns: Option<u64>,
    /// `burst`: bursts of I/Os apart by an idle time (closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<super::burst::Burst>,
}

/// The unit `compress` and `dedupe` shape written data in: every I/O size is a multiple of it.
pub const DATA_UNIT: u64 = 4096;

/// Written data's ratios, in hundredths (`3:1` = 300; 100 = no reduction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataContent {
    pub compress: u32,
    pub dedupe: u32,
}

/// A flush after every `every` writes of a class, `fdatasync` (data only) or `fsync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flush {
    pub every: u32,
    /// `fsync:N`: metadata too (IORING_OP_FSYNC without IORING_FSYNC_DATASYNC).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fsync: bool,
}

impl Flush {
    /// As the spec writes it: `fdatasync:8`.
    pub fn durability(&self) -> Durability {
        if self.fsync {
            Durability::Fsync(self.every)
        } else {
            Durability::Fdatasync(self.every)
        }
    }
}

impl Pattern {
    /// Whether the class uses target `t` (of the plan's targets).
    pub fn uses(&self, t: usize) -> bool {
        self.targets.is_empty() || self.targets.iter().any(|&i| i as usize == t)
    }

    /// Every size the class's I/Os take, `size` when it has no mix.
    pub fn io_sizes(&self, size: u64) -> Vec<u64> {
        match &self.sizes {
            Some(m) => m.items().iter().map(|s| s.size).collect(),
            None => vec![size],
        }
    }

    /// The size most of the class's I/Os take (`size` when it has no mix): the size it is read as
    /// (ORION's role, the report's headline), never its mean or largest.
    pub fn common_size(&self, size: u64) -> u64 {
        self.sizes.as_ref().map_or(size, |m| m.most_common())
    }

    /// The mean I/O size by count (`size` when it has no mix): what a `MiB/s` rate is divided by.
    pub fn mean_size(&self, size: u64) -> u64 {
        self.sizes
            .as_ref()
            .map_or(size, |m| m.mean().round() as u64)
    }

    /// The indices of the class's targets among `all`.
    pub fn target_indices(&self, all: usize) -> Vec<usize> {
        if self.targets.is_empty() {
            (0..all).collect()
        } else {
            self.targets.iter().map(|&i| i as usize).collect()
        }
    }
}

/// The bytes a volume of targets of `sizes` addresses with `layout` (as `rigel_target::Volume`).
pub fn volume_bytes(layout: Layout, stripe: u64, sizes: &[u64]) -> u64 {
    match layout {
        Layout::Concat => sizes.iter().sum(),
        Layout::Raid0 => {
            let stripe = stripe.max(1);
            sizes.iter().copied().min().unwrap_or(0) / stripe * stripe * sizes.len() as u64
        }
    }
}

/// Target names must be distinct: classes name them.
pub(crate) fn check_names(spec: &Spec, errors: &mut Vec<SpecError>) {
    for (i, t) in spec.targets.iter().enumerate() {
        let name = t.name_or(i);
        let clash = spec.targets[..i]
            .iter()
            .enumerate()
            .any(|(j, o)| o.name_or(j) == name);
        if clash {
            let loc = t.name.as_ref().map_or(&t.path.loc, |n| &n.loc);
            errors.push(
                SpecError::at(
                    loc,
                    format!("two targets are named `{name}`"),
                    "a second time here",
                )
                .hint(
                    "give each [[target]] its own name (an unnamed target is called by its index)",
                ),
            );
        }
    }
}

/// A class's pattern, its target names resolved and its region checked against the declared
/// sizes of its targets (when every one is declared; otherwise at open).
pub(crate) fn compile(
    spec: &Spec,
    class: &ClassSpec,
    (layout, stripe): (Layout, u64),
    errors: &mut Vec<SpecError>,
) -> Pattern {
    let names: Vec<String> = spec
        .targets
        .iter()
        .enumerate()
        .map(|(i, t)| t.name_or(i))
        .collect();
    let mut targets = Vec::new();
    for n in class.targets.iter().flatten() {
        let Some(i) = names.iter().position(|t| *t == n.value.trim()) else {
            let hint =
                rigel_expr::suggest::did_you_mean(&n.value, names.iter().map(String::as_str))
                    .unwrap_or_else(|| format!("the targets are called {}", names.join(", ")));
            errors.push(
                SpecError::at(
                    &n.loc,
                    format!("class `{}` names no target `{}`", class.name.value, n.value),
                    "no [[target]] of this name",
                )
                .hint(hint),
            );
            continue;
        };
        if targets.contains(&(i as u32)) {
            errors.push(
                SpecError::at(
                    &n.loc,
                    format!("target `{}` is named twice", n.value),
                    "again",
                )
                .hint("each target appears once in a class's volume"),
            );
            continue;
        }
        targets.push(i as u32);
    }
    // Every target named: the spec's own volume, written as such.
    if targets.len() == names.len() && targets.iter().enumerate().all(|(k, &i)| i as usize == k) {
        targets.clear();
    }
    let region = class.region.as_ref().map(|r| r.value);
    let distribution = class
        .distribution
        .as_ref()
        .map_or(Distribution::Uniform, |d| d.value.clone());
    if let Some(d) = &class.distribution
        && !d.value.is_uniform()
        && class.access.value == Access::Sequential
    {
        errors.push(
            SpecError::at(
                &d.loc,
                format!("class `{}` is sequential: it has no skew", class.name.value),
                "on a sequential class",
            )
            .hint("a distribution chooses random offsets: set access = \"random\", or remove it"),
        );
    }
    let contiguous = class.contiguous.as_ref().is_some_and(|c| c.value);
    let durability = class
        .durability
        .as_ref()
        .map_or(Durability::None, |d| d.value);
    let dsync = durability == Durability::Dsync;
    let flush = durability.flush_every().map(|(every, data_only)| Flush {
        every,
        fsync: !data_only,
    });
    let sizes = class.sizes.as_ref().map(|m| m.value.clone());
    if let Some(m) = &class.sizes
        && class.access.value == Access::Sequential
    {
        // A stream moves on by each size it draws, in steps of the smallest: every size must be
        // a whole number of them, or the stream would leave gaps.
        let smallest = m.value.items().iter().map(|s| s.size).min().unwrap_or(1);
        if let Some(odd) = m.value.items().iter().find(|s| s.size % smallest != 0) {
            errors.push(
                SpecError::at(
                    &m.loc,
                    format!(
                        "class `{}` is sequential: {} is not a multiple of the mix's smallest size, {}",
                        class.name.value,
                        rigel_expr::Size(odd.size),
                        rigel_expr::Size(smallest)
                    ),
                    "in this sequential mix",
                )
                .hint("a stream advances in steps of the smallest size: make every size a multiple of it"),
            );
        }
    }
    let data = data_content(class, errors);
    if let Some(d) = &class.durability
        && flush.is_some()
        && spec.targets.len() > 64
    {
        errors.push(
            SpecError::at(
                &d.loc,
                format!(
                    "class `{}`: grouped flushes track at most 64 targets",
                    class.name.value
                ),
                "here",
            )
            .hint("use durability = \"dsync\" here, or a class on fewer targets"),
        );
    }
    if let Some(d) = &class.durability
        && d.value != Durability::None
        && !class.mix.value.writes()
    {
        errors.push(
            SpecError::at(
                &d.loc,
                format!(
                    "class `{}` never writes: durability has nothing to make durable",
                    class.name.value
                ),
                "on a read-only class",
            )
            .hint("give the class writes (mix = \"write\" or \"70/30\"), or remove durability"),
        );
    }
    let think_ns = think(class, errors);
    let burst = super::burst::burst(spec, class, errors);
    let pattern = Pattern {
        think_ns,
        burst,
        targets,
        region,
        distribution,
        contiguous,
        dsync,
        sizes: sizes.filter(|m| !m.is_fixed()),
        flush,
        data,
    };
    if let Some(r) = &class.region {
        let sizes: Option<Vec<u64>> = pattern
            .target_indices(spec.targets.len())
            .iter()
            .map(|&i| {
                spec.targets
                    .get(i)
                    .and_then(|t| t.size.as_ref())
                    .map(|s| s.value.0)
            })
            .collect();
        if let Some(sizes) = sizes {
            let bytes = volume_bytes(layout, stripe, &sizes);
            check_region(&class.name.value, r, bytes, class.size.value.0, errors);
        }
    }
    pattern
}

/// `think`, checked: closed-loop classes only (an open loop's send times are its own).
fn think(class: &ClassSpec, errors: &mut Vec<SpecError>) -> Option<u64> {
    let t = class.think.as_ref()?;
    if class.rate.is_some() {
        errors.push(
            SpecError::at(
                &t.loc,
                format!(
                    "class `{}` has a rate: `think` is for closed-loop classes",
                    class.name.value
                ),
                "on an open-loop class",
            )
            .hint("a rate class sends at its own times: lower the rate, or remove `rate`"),
        );
        return None;
    }
    Some(t.value.as_nanos() as u64)
}

/// `compress` / `dedupe`, checked: a class that writes, without `verify` (which writes its own
/// blocks), every I/O size a whole number of 4 KiB units.
fn data_content(class: &ClassSpec, errors: &mut Vec<SpecError>) -> Option<DataContent> {
    let loc = class
        .compress
        .as_ref()
        .or(class.dedupe.as_ref())?
        .loc
        .clone();
    let ratio = |r: &Option<rigel_spec::Sp<u32>>| r.as_ref().map_or(100, |r| r.value);
    let sizes: Vec<u64> = match &class.sizes {
        Some(m) => m.value.items().iter().map(|s| s.size).collect(),
        None => vec![class.size.value.0],
    };
    let why = if !class.mix.value.writes() {
        Some("never writes: compress and dedupe shape written data".to_owned())
    } else if class
        .verify
        .as_ref()
        .is_some_and(|v| v.value != rigel_spec::Verify::Off)
    {
        Some("verifies: its blocks carry verify's stamps, not shaped data".to_owned())
    } else {
        sizes.iter().find(|&&s| s % DATA_UNIT != 0).map(|&s| {
            format!(
                "does {} I/Os: compress and dedupe shape whole 4 KiB units",
                Size(s)
            )
        })
    };
    if let Some(why) = why {
        errors.push(
            SpecError::at(&loc, format!("class `{}` {why}", class.name.value), "here")
                .hint("use I/O sizes that are multiples of 4KiB on a writing class without verify, or remove compress/dedupe"),
        );
        return None;
    }
    Some(DataContent {
        compress: ratio(&class.compress),
        dedupe: ratio(&class.dedupe),
    })
}

/// A region must start inside the class's volume and hold at least one I/O.
pub fn check_region(
    class: &str,
    region: &rigel_spec::Sp<Region>,
    volume: u64,
    io_size: u64,
    errors: &mut Vec<SpecError>,
) {
    let start = region.value.start.resolve(volume);
    let end = region.value.end.resolve(volume);
    let message = if start >= volume || end > volume {
        format!(
            "the region {} of class `{class}` reaches outside its volume ({})",
            region.value,
            Size(volume)
        )
    } else if region.value.len(volume) < io_size {
        format!(
            "the region {} of class `{class}` is {}: it holds no whole {} I/O",
            region.value,
            Size(region.value.len(volume)),
            Size(io_size)
        )
    } else {
        return;
    };
    errors.push(
        SpecError::at(&region.loc, message, "this region")
            .hint("write the region within the class's targets, e.g. \"0%..10%\""),
    );
}

impl Pattern {
    /// Whether the class runs as ORION's box: every target, the whole volume, one I/O after the
    /// other with no pause.
    pub fn is_whole(&self) -> bool {
        self.targets.is_empty()
            && self.region.is_none_or(|r| r.is_whole())
            && self.distribution.is_uniform()
            && !self.dsync
            && self.sizes.is_none()
            && self.flush.is_none()
            && self.data.is_none()
            && self.think_ns.is_none()
            && self.burst.is_none()
    }
}
