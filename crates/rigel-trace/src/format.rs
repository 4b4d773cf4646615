//! The trace file (`trace.rtr`): a 4 KiB header, then one 32-byte record per request, in issue
//! order. The header is the line `rigel-trace 1`, a JSON object ([`Header`]) and spaces up to 4096
//! bytes, so `head -c 4096 trace.rtr` shows it and the capture can rewrite it in place when it
//! ends (record count, drops, cost). Nothing of the data is kept.
//!
//! A record, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | issue time, ns since the trace's start (`u64`) |
//! | 8..16 | completion time, ns since the start; `u64::MAX` when no completion was seen |
//! | 16..24 | offset on the device, bytes (`u64`) |
//! | 24..28 | size, bytes (`u32`; 0 for a flush) |
//! | 28 | operation: 0 read, 1 write, 2 flush (no data), 3 discard, 4 other |
//! | 29 | flags: 1 sync, 2 FUA, 4 preflush (a flush before this write), 8 metadata, 16 readahead |
//! | 30..32 | zero (reserved) |

use crate::TraceError;
use rigel_fs::limits::TRACE_SPAN_NS;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};

/// The first line of every trace file.
pub const MAGIC: &str = "rigel-trace 1\n";
/// The header's fixed size: records start here.
pub const HEADER_BYTES: usize = 4096;
/// One record's size.
pub const RECORD_BYTES: usize = 32;
/// A completion time meaning "never seen".
const NO_COMPLETION: u64 = u64::MAX;

/// What a request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
    /// A cache flush without data.
    Flush,
    Discard,
    /// Anything else the block layer sends (write-zeroes, secure erase, zone commands).
    Other,
}

impl Op {
    fn code(self) -> u8 {
        match self {
            Op::Read => 0,
            Op::Write => 1,
            Op::Flush => 2,
            Op::Discard => 3,
            Op::Other => 4,
        }
    }

    fn from_code(c: u8) -> Option<Op> {
        Some(match c {
            0 => Op::Read,
            1 => Op::Write,
            2 => Op::Flush,
            3 => Op::Discard,
            4 => Op::Other,
            _ => return None,
        })
    }
}

/// The request flags a record keeps (bits of the record's flag byte).
pub mod flag {
    pub const SYNC: u8 = 1;
    pub const FUA: u8 = 2;
    pub const PREFLUSH: u8 = 4;
    pub const META: u8 = 8;
    pub const READAHEAD: u8 = 16;
}

/// One request as the device was sent it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Nanoseconds from the trace's start to the request's issue to the device.
    pub issue_ns: u64,
    /// Nanoseconds from the start to its completion, when one was seen.
    pub complete_ns: Option<u64>,
    pub offset: u64,
    pub size: u32,
    pub op: Op,
    pub flags: u8,
}

impl Record {
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }

    /// A read or a write that moves data.
    pub fn is_data(&self) -> bool {
        matches!(self.op, Op::Read | Op::Write) && self.size > 0
    }

    fn encode(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[0..8].copy_from_slice(&self.issue_ns.to_le_bytes());
        b[8..16].copy_from_slice(&self.complete_ns.unwrap_or(NO_COMPLETION).to_le_bytes());
        b[16..24].copy_from_slice(&self.offset.to_le_bytes());
        b[24..28].copy_from_slice(&self.size.to_le_bytes());
        b[28] = self.op.code();
        b[29] = self.flags;
        b
    }

    fn decode(b: &[u8; RECORD_BYTES]) -> Option<Record> {
        let u64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(a)
        };
        let complete = u64_at(8);
        Some(Record {
            issue_ns: u64_at(0),
            complete_ns: (complete != NO_COMPLETION).then_some(complete),
            offset: u64_at(16),
            size: u32::from_le_bytes([b[24], b[25], b[26], b[27]]),
            op: Op::from_code(b[28])?,
            flags: b[29],
        })
    }
}

/// What the trace is of, where it came from and how complete it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// `/dev/sdb`, or the file imported.
    pub device: String,
    /// The device's model (sysfs), when known.
    pub model: Option<String>,
    /// The device's size in bytes, when known.
    pub size: Option<u64>,
    pub host: String,
    pub kernel: String,
    /// The wall-clock time of the trace's time 0, RFC 3339 (UTC).
    pub start: String,
    /// `tracefs` (rigel capture), `blkparse` or `fio-iolog` (imported).
    pub source: String,
    /// The clock the record times count on, and its resolution: `mono, 1us` for tracefs text.
    pub clock: String,
    /// Records in the file.
    pub records: u64,
    /// Events the kernel's trace buffer lost (it overflowed): the trace has holes when > 0.
    pub dropped: u64,
    /// Requests issued without a completion in the trace (still in flight at its end).
    pub incomplete: u64,
    /// Issues of a request already issued (the driver requeued it): recorded once.
    #[serde(default)]
    pub reissued: u64,
    /// Nanoseconds the capture ran.
    pub duration_ns: u64,
    /// False while a capture is writing it (or when it was cut off).
    pub complete: bool,
    /// The capture's own cost, when rigel captured it.
    pub cost: Option<Cost>,
}

/// What capturing cost the host.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// CPU seconds (user + system) rigel's capture spent reading and writing the trace.
    pub cpu_seconds: f64,
    /// That as a share of one CPU over the capture's duration.
    pub cpu_share: f64,
    /// Trace events read (an issue and a completion per request).
    pub events: u64,
    /// The per-CPU buffer given to the kernel, KiB.
    pub buffer_kib: u64,
}

impl Header {
    /// The header block: magic, JSON, newline, spaces up to [`HEADER_BYTES`].
    pub fn encode(&self) -> Result<Vec<u8>, TraceError> {
        let json = serde_json::to_string(self).map_err(|e| TraceError::Format(e.to_string()))?;
        let mut b = format!("{MAGIC}{json}\n").into_bytes();
        if b.len() > HEADER_BYTES {
            return Err(TraceError::Format(format!(
                "the header is {} bytes, more than {HEADER_BYTES} (a very long device model or host name?)",
                b.len()
            )));
        }
        b.resize(HEADER_BYTES, b' ');
        Ok(b)
    }

    fn decode(b: &[u8]) -> Result<Header, TraceError> {
        let text = std::str::from_utf8(b)
            .map_err(|_| TraceError::Format("the header is not UTF-8".into()))?;
        let json = text.strip_prefix(MAGIC).ok_or_else(|| {
            TraceError::Format(format!(
                "not a rigel trace (it does not start with {:?})",
                MAGIC.trim_end()
            ))
        })?;
        serde_json::from_str(json.trim_end())
            .map_err(|e| TraceError::Format(format!("the header's JSON: {e}")))
    }
}

/// Writes records after a header block (the header is rewritten by the caller when it ends).
pub fn write_records(w: &mut impl Write, records: &[Record]) -> std::io::Result<()> {
    for r in records {
        w.write_all(&r.encode())?;
    }
    Ok(())
}

/// A whole trace in memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub header: Header,
    pub records: Vec<Record>,
}

impl Trace {
    /// The file's bytes: header then records.
    pub fn encode(&self) -> Result<Vec<u8>, TraceError> {
        let mut b = self.header.encode()?;
        b.reserve(self.records.len() * RECORD_BYTES);
        for r in &self.records {
            b.extend_from_slice(&r.encode());
        }
        Ok(b)
    }

    /// Reads a trace; a header count that disagrees with the records present is an error (a
    /// file cut short), as is an unknown operation code.
    pub fn read(r: &mut impl Read) -> Result<Trace, TraceError> {
        let mut head = vec![0u8; HEADER_BYTES];
        r.read_exact(&mut head)
            .map_err(|e| TraceError::Format(format!("the header (4096 bytes): {e}")))?;
        let header = Header::decode(&head)?;
        let mut rest = Vec::new();
        r.read_to_end(&mut rest)
            .map_err(|e| TraceError::Format(format!("the records: {e}")))?;
        if rest.len() % RECORD_BYTES != 0 {
            return Err(TraceError::Format(format!(
                "{} bytes of records is not a whole number of {RECORD_BYTES}-byte records (a file cut short?)",
                rest.len()
            )));
        }
        // The count is checked before a record is decoded: a header that says 100 records does
        // not get a file of millions decoded first.
        let held = rest.len() / RECORD_BYTES;
        if header.complete && header.records != held as u64 {
            return Err(TraceError::Format(format!(
                "the header counts {} records, the file holds {held}",
                header.records
            )));
        }
        let mut records = Vec::with_capacity(held);
        for (i, chunk) in rest.chunks_exact(RECORD_BYTES).enumerate() {
            let mut a = [0u8; RECORD_BYTES];
            a.copy_from_slice(chunk);
            records.push(Record::decode(&a).ok_or_else(|| {
                TraceError::Format(format!("record {i}: unknown operation code {}", a[28]))
            })?);
        }
        let trace = Trace { header, records };
        trace.check_span()?;
        Ok(trace)
    }

    /// Every time within [`TRACE_SPAN_NS`] of the trace's time 0 (what its statistics can hold).
    pub fn check_span(&self) -> Result<(), TraceError> {
        let last = self
            .records
            .iter()
            .map(|r| r.complete_ns.unwrap_or(r.issue_ns).max(r.issue_ns))
            .max()
            .unwrap_or(0);
        if last > TRACE_SPAN_NS {
            return Err(TraceError::Format(format!(
                "a request at {:.0} s from the trace's start, past the {} s rigel reads (a time that large is damage, or not a trace)",
                last as f64 / 1e9,
                TRACE_SPAN_NS / 1_000_000_000
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_reads_back_as_written() {
        let trace = Trace {
            header: Header {
                device: "/dev/loop3".into(),
                model: Some("QEMU HARDDISK".into()),
                size: Some(1 << 30),
                host: "h".into(),
                kernel: "6.18".into(),
                start: "2026-12-03T09:00:00Z".into(),
                source: "tracefs".into(),
                clock: "mono, 1us".into(),
                records: 2,
                complete: true,
                ..Header::default()
            },
            records: vec![
                Record {
                    issue_ns: 5,
                    complete_ns: Some(900),
                    offset: 4096,
                    size: 8192,
                    op: Op::Write,
                    flags: flag::SYNC | flag::FUA,
                },
                Record {
                    issue_ns: 7,
                    complete_ns: None,
                    offset: 0,
                    size: 0,
                    op: Op::Flush,
                    flags: 0,
                },
            ],
        };
        let bytes = trace.encode().expect("encodes");
        assert_eq!(bytes.len(), HEADER_BYTES + 2 * RECORD_BYTES);
        assert!(bytes.starts_with(b"rigel-trace 1\n{"));
        let back = Trace::read(&mut bytes.as_slice()).expect("reads");
        assert_eq!(back, trace);
        let cut = &bytes[..bytes.len() - 3];
        let err = Trace::read(&mut &cut[..]).expect_err("cut short");
        assert!(err.to_string().contains("cut short"), "{err}");
        let mut not = bytes.clone();
        not[0] = b'x';
        assert!(Trace::read(&mut not.as_slice()).is_err());
    }

    /// A time past any trace's (the per-second statistics would be a table of its size, 147 GB
    /// for a 96-byte file) is refused when the trace is read.
    #[test]
    fn a_forged_time_is_refused_before_statistics_are_sized_by_it() {
        let trace = Trace {
            header: Header {
                device: "/dev/x".into(),
                records: 1,
                complete: true,
                ..Header::default()
            },
            records: vec![Record {
                issue_ns: 1 << 60,
                complete_ns: None,
                offset: 0,
                size: 4096,
                op: Op::Read,
                flags: 0,
            }],
        };
        let bytes = trace.encode().expect("encodes");
        let err = Trace::read(&mut bytes.as_slice()).expect_err("refused");
        assert!(err.to_string().contains("past the"), "{err}");
    }
}
