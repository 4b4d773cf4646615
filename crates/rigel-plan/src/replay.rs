//! A replay's timed requests (`rigel replay`): what the executor sends and when. Made by
//! rigel-trace from a block trace (`rigel_trace::replay::prepare`), sent by rigel-exec; kept here,
//! where both read it, so neither depends on the other.

/// What a replayed request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayOp {
    Read,
    Write,
    /// A FUA write: sent with RWF_DSYNC.
    DsyncWrite,
    /// A cache flush: sent as an fdatasync (data only).
    Flush,
    /// A discard: sent as a trim of its range.
    Trim,
}

/// One request to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Its send time, ns from the replay's start.
    pub at_ns: u64,
    pub offset: u64,
    /// Bytes (0 for a flush).
    pub len: u32,
    pub op: ReplayOp,
}

/// A trace's requests as the replay sends them.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    pub requests: Vec<Request>,
    /// Discards left out (none of data: a zero-length discard).
    pub discards: u64,
    /// Discards sent, as trims of their range.
    pub trims: u64,
    /// Other requests without data left out (write-zeroes, zone commands).
    pub others: u64,
    /// The largest request, bytes.
    pub largest: u32,
    /// The last send time, ns.
    pub span_ns: u64,
    pub reads: u64,
    pub writes: u64,
    pub flushes: u64,
    /// Writes sent with RWF_DSYNC (FUA in the trace).
    pub dsync: u64,
    /// The most requests the traced device had in flight at once.
    pub max_in_flight: u32,
    /// The alignment kept, bytes: 4096 when every traced offset and size was a multiple of it,
    /// else 512.
    pub align: u64,
}
