//! ORION's options as typed values, with ORION's defaults. What the user left out stays `None`, so
//! the rules (which options go with which run level and matrix) can tell "given" from "default".

/// `-run`: ORION's test levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunLevel {
    Simple,
    Normal,
    Advanced,
    Dss,
    Oltp,
}

impl RunLevel {
    pub const ALL: [RunLevel; 5] = [
        RunLevel::Simple,
        RunLevel::Normal,
        RunLevel::Advanced,
        RunLevel::Dss,
        RunLevel::Oltp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RunLevel::Simple => "simple",
            RunLevel::Normal => "normal",
            RunLevel::Advanced => "advanced",
            RunLevel::Dss => "dss",
            RunLevel::Oltp => "oltp",
        }
    }
}

/// `-matrix`: which cells of ORION's (small, large) load grid run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matrix {
    Basic,
    Detailed,
    Point,
    Col,
    Row,
    Max,
}

impl Matrix {
    pub const ALL: [Matrix; 6] = [
        Matrix::Basic,
        Matrix::Detailed,
        Matrix::Point,
        Matrix::Col,
        Matrix::Row,
        Matrix::Max,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Matrix::Basic => "basic",
            Matrix::Detailed => "detailed",
            Matrix::Point => "point",
            Matrix::Col => "col",
            Matrix::Row => "row",
            Matrix::Max => "max",
        }
    }

    /// ORION's help: `-num_small` is used only with point, col and max.
    pub fn uses_num_small(self) -> bool {
        matches!(self, Matrix::Point | Matrix::Col | Matrix::Max)
    }

    /// ORION's help: `-num_large` is used only with point, row and max.
    pub fn uses_num_large(self) -> bool {
        matches!(self, Matrix::Point | Matrix::Row | Matrix::Max)
    }
}

/// `-type`: random large I/Os, or sequential streams of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LargeType {
    Rand,
    Seq,
}

/// `-simulate`: how the LUNs form one virtual volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simulate {
    Concat,
    Raid0,
}

/// The options of one `rigel orion` invocation: ORION's own, then rigel's double-dash extensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrionOptions {
    pub run: RunLevel,
    pub testname: Option<String>,
    pub num_disks: Option<u32>,
    /// KiB.
    pub size_small: Option<u64>,
    /// KiB.
    pub size_large: Option<u64>,
    pub large_type: Option<LargeType>,
    pub num_stream_io: Option<u32>,
    pub simulate: Option<Simulate>,
    /// KiB.
    pub stripe: Option<u64>,
    /// Percent of writes.
    pub write: Option<u8>,
    /// MiB of unmeasured warm-up I/O before each point; 0 = none; unset = ORION's timed warm-up.
    pub cache_size: Option<u64>,
    /// Seconds per data point.
    pub duration: Option<u64>,
    pub matrix: Option<Matrix>,
    pub num_small: Option<u32>,
    pub num_large: Option<u32>,
    pub verbose: bool,
    /// Options ORION needs and rigel accepts without effect (`-hugenotneeded`, `-storax`).
    pub ignored: Vec<String>,
    pub ext: Extensions,
}

/// rigel's own options (double dash), which ORION does not have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    /// Consent to the writes `-write` asks for.
    pub allow_destructive: bool,
    /// With `--allow-destructive`: write even over a filesystem or partition-table signature.
    pub force: bool,
    /// Print the plan and ORION's estimate; no I/O.
    pub plan: bool,
    /// Print the equivalent spec (TOML); no I/O.
    pub to_spec: bool,
    /// ORION's file layout: `11.1` or `12c` (rigel's default).
    pub dialect: Option<rigel_plan::Dialect>,
    /// `--metrics HOST:PORT`: serve live metrics there for the run's life.
    pub metrics: Option<String>,
    /// `--metrics-push FILE`: append them to FILE once a second.
    pub metrics_push: Option<String>,
}

pub const DEFAULT_TESTNAME: &str = "orion";
pub const DEFAULT_SIZE_SMALL_KIB: u64 = 8;
pub const DEFAULT_SIZE_LARGE_KIB: u64 = 1024;
pub const DEFAULT_NUM_STREAM_IO: u32 = 4;
pub const DEFAULT_STRIPE_KIB: u64 = 1024;
pub const DEFAULT_DURATION_S: u64 = 60;

impl OrionOptions {
    /// The options of `-run LEVEL` alone.
    pub fn new(run: RunLevel) -> OrionOptions {
        OrionOptions {
            run,
            testname: None,
            num_disks: None,
            size_small: None,
            size_large: None,
            large_type: None,
            num_stream_io: None,
            simulate: None,
            stripe: None,
            write: None,
            cache_size: None,
            duration: None,
            matrix: None,
            num_small: None,
            num_large: None,
            verbose: false,
            ignored: Vec::new(),
            ext: Extensions::default(),
        }
    }

    pub fn testname(&self) -> &str {
        self.testname.as_deref().unwrap_or(DEFAULT_TESTNAME)
    }

    pub fn size_small_kib(&self) -> u64 {
        self.size_small.unwrap_or(DEFAULT_SIZE_SMALL_KIB)
    }

    pub fn size_large_kib(&self) -> u64 {
        self.size_large.unwrap_or(DEFAULT_SIZE_LARGE_KIB)
    }

    pub fn large_type(&self) -> LargeType {
        self.large_type.unwrap_or(LargeType::Rand)
    }

    pub fn num_stream_io(&self) -> u32 {
        self.num_stream_io.unwrap_or(DEFAULT_NUM_STREAM_IO)
    }

    pub fn simulate(&self) -> Simulate {
        self.simulate.unwrap_or(Simulate::Concat)
    }

    pub fn stripe_kib(&self) -> u64 {
        self.stripe.unwrap_or(DEFAULT_STRIPE_KIB)
    }

    pub fn write_percent(&self) -> u8 {
        self.write.unwrap_or(0)
    }

    pub fn duration_s(&self) -> u64 {
        self.duration.unwrap_or(DEFAULT_DURATION_S)
    }

    /// The matrix the run level implies (`-matrix` is only given with `-run advanced`).
    pub fn matrix(&self) -> Matrix {
        match self.run {
            RunLevel::Simple => Matrix::Basic,
            RunLevel::Normal => Matrix::Detailed,
            RunLevel::Oltp => Matrix::Row,
            RunLevel::Dss => Matrix::Col,
            RunLevel::Advanced => self.matrix.unwrap_or(Matrix::Basic),
        }
    }
}
