//! A trace made ready to replay: each request's send time (its issue on the trace's clock, from
//! the first request, divided by the speed) and its offset fitted onto the target, wrapped or
//! scaled and kept aligned. Discards are sent as trims of their range; other requests without
//! data (write-zeroes, zone commands) are left out and counted.

use crate::TraceError;
use crate::format::{Op, Trace, flag};
use rigel_plan::replay::{Replay, ReplayOp, Request};

/// How offsets of a trace from a device of another size land on the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Offset modulo the target's usable size: a smaller target folds the trace over itself, a
    /// larger one takes it unchanged.
    Wrap,
    /// Offset × target / traced device: the trace's layout stretched or shrunk to the target.
    Scale,
}

/// How to replay.
#[derive(Clone, Copy, Debug)]
pub struct ReplayOptions {
    /// Send times are the trace's divided by this (2.0: twice as fast).
    pub speed: f64,
    pub fit: Fit,
    /// The target's size, bytes.
    pub target_bytes: u64,
}

/// The requests of `trace` to send, in the trace's issue order.
pub fn prepare(trace: &Trace, opts: ReplayOptions) -> Result<Replay, TraceError> {
    if !(opts.speed.is_finite() && opts.speed > 0.0) {
        return Err(TraceError::Usage(format!(
            "the speed must be above 0, not {}",
            opts.speed
        )));
    }
    let mut r = Replay::default();
    let data = || trace.records.iter().filter(|x| x.is_data());
    let largest = data().map(|x| x.size).max().unwrap_or(0);
    r.align = if data().all(|x| x.offset % 4096 == 0 && x.size % 4096 == 0) {
        4096
    } else {
        512
    };
    // The traced device's extent: its size when known, else the furthest byte a request touched.
    let traced = trace
        .header
        .size
        .unwrap_or(0)
        .max(data().map(|x| x.offset + x.size as u64).max().unwrap_or(0));
    if opts.target_bytes < largest as u64 {
        return Err(TraceError::Usage(format!(
            "the target ({} bytes) is smaller than the trace's largest request ({largest} bytes)",
            opts.target_bytes
        )));
    }
    let align = r.align;
    let whole = opts.target_bytes / align * align;
    // A request that fits stays where it was (wrap), or moves in proportion (scale); one that
    // would cross the target's end is moved back to end at it.
    let fit = |offset: u64, len: u32| -> u64 {
        let o = match opts.fit {
            Fit::Wrap if offset + len as u64 <= opts.target_bytes => offset,
            Fit::Wrap => offset % whole.max(align),
            Fit::Scale => {
                (offset as u128 * opts.target_bytes as u128 / traced.max(1) as u128) as u64
            }
        };
        let last = (opts.target_bytes - len as u64) / align * align;
        (o / align * align).min(last)
    };
    let first = trace.records.first().map_or(0, |x| x.issue_ns);
    for x in &trace.records {
        let op = match x.op {
            Op::Read if x.size > 0 => ReplayOp::Read,
            Op::Write if x.size > 0 && x.has(flag::FUA) => ReplayOp::DsyncWrite,
            Op::Write if x.size > 0 => ReplayOp::Write,
            // A flush, or a write that carries nothing but its preflush.
            Op::Flush | Op::Write => ReplayOp::Flush,
            Op::Discard if x.size > 0 => ReplayOp::Trim,
            Op::Discard => {
                r.discards += 1;
                continue;
            }
            Op::Read | Op::Other => {
                r.others += 1;
                continue;
            }
        };
        let at_ns = (x.issue_ns.saturating_sub(first) as f64 / opts.speed) as u64;
        let (offset, len) = match op {
            ReplayOp::Flush => (0, 0),
            // A discard may be larger than any read or write (a filesystem's, of free space):
            // never past the target.
            ReplayOp::Trim => {
                let len = u64::from(x.size).min(whole) as u32;
                (fit(x.offset, len), len)
            }
            _ => (fit(x.offset, x.size), x.size),
        };
        match op {
            ReplayOp::Read => r.reads += 1,
            ReplayOp::Write => r.writes += 1,
            ReplayOp::DsyncWrite => {
                r.writes += 1;
                r.dsync += 1;
            }
            ReplayOp::Flush => r.flushes += 1,
            ReplayOp::Trim => r.trims += 1,
        }
        r.span_ns = r.span_ns.max(at_ns);
        r.requests.push(Request {
            at_ns,
            offset,
            len,
            op,
        });
    }
    r.largest = largest;
    r.max_in_flight = max_in_flight(trace);
    if r.requests.is_empty() {
        return Err(TraceError::Usage(
            "the trace holds no read, write, flush or discard: there is nothing to replay".into(),
        ));
    }
    // The trace is in issue order; a send time never goes back (an importer's ties kept).
    debug_assert!(r.requests.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
    Ok(r)
}

/// The most requests in flight at once (issued, completion not yet seen; one without a
/// completion counts from its issue to the trace's end).
fn max_in_flight(trace: &Trace) -> u32 {
    let mut events: Vec<(u64, i32)> = Vec::with_capacity(trace.records.len() * 2);
    for x in &trace.records {
        events.push((x.issue_ns, 1));
        events.push((x.complete_ns.unwrap_or(u64::MAX), -1));
    }
    // A completion at the instant of an issue goes first.
    events.sort_unstable();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in events {
        now += d;
        most = most.max(now);
    }
    most.max(0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Header, Record};

    fn rec(issue_ns: u64, offset: u64, size: u32, op: Op, flags: u8) -> Record {
        Record {
            issue_ns,
            complete_ns: Some(issue_ns + 100),
            offset,
            size,
            op,
            flags,
        }
    }

    fn trace(records: Vec<Record>, size: u64) -> Trace {
        Trace {
            header: Header {
                size: Some(size),
                records: records.len() as u64,
                ..Header::default()
            },
            records,
        }
    }

    fn opts(speed: f64, fit: Fit, target_bytes: u64) -> ReplayOptions {
        ReplayOptions {
            speed,
            fit,
            target_bytes,
        }
    }

    #[test]
    fn send_times_are_the_traces_divided_by_the_speed_from_the_first_request() {
        let t = trace(
            vec![
                rec(1_000_000, 0, 4096, Op::Read, 0),
                rec(3_000_000, 8192, 8192, Op::Write, flag::FUA),
                rec(3_500_000, 0, 0, Op::Flush, 0),
                rec(4_000_000, 0, 1 << 20, Op::Discard, 0),
                rec(5_000_000, 4096, 4096, Op::Write, 0),
            ],
            1 << 20,
        );
        let r = prepare(&t, opts(2.0, Fit::Wrap, 1 << 20)).expect("prepared");
        let at: Vec<u64> = r.requests.iter().map(|q| q.at_ns).collect();
        assert_eq!(at, [0, 1_000_000, 1_250_000, 1_500_000, 2_000_000]);
        let ops: Vec<ReplayOp> = r.requests.iter().map(|q| q.op).collect();
        assert_eq!(
            ops,
            [
                ReplayOp::Read,
                ReplayOp::DsyncWrite,
                ReplayOp::Flush,
                ReplayOp::Trim,
                ReplayOp::Write
            ]
        );
        // The discard is sent as a trim of its whole range.
        assert_eq!((r.requests[3].offset, r.requests[3].len), (0, 1 << 20));
        assert_eq!(
            (r.discards, r.trims, r.reads, r.writes, r.flushes, r.dsync),
            (0, 1, 1, 2, 1, 1)
        );
        assert_eq!((r.largest, r.align, r.span_ns), (8192, 4096, 2_000_000));
        // Each completes 100 ns after its issue: never two at once.
        assert_eq!(r.max_in_flight, 1);
        // The target as large as the device: offsets unchanged.
        let off: Vec<u64> = r.requests.iter().map(|q| q.offset).collect();
        assert_eq!(off, [0, 8192, 0, 0, 4096]);
    }

    #[test]
    fn offsets_wrap_or_scale_onto_a_smaller_target_aligned_and_inside_it() {
        let dev = 1u64 << 30;
        let recs: Vec<Record> = (0..1000u64)
            .map(|i| {
                rec(
                    i * 1000,
                    (i * 7919 * 4096) % (dev - 65536),
                    65536,
                    Op::Read,
                    0,
                )
            })
            .collect();
        let t = trace(recs, dev);
        for fit in [Fit::Wrap, Fit::Scale] {
            let target = (100 << 20) + 1536;
            let r = prepare(&t, opts(1.0, fit, target)).expect("prepared");
            for q in &r.requests {
                assert_eq!(q.offset % 4096, 0, "{fit:?}: {q:?}");
                assert!(q.offset + q.len as u64 <= target, "{fit:?}: {q:?}");
            }
        }
        // Scaling keeps the order of offsets; wrapping keeps them modulo the target.
        let r = prepare(&t, opts(1.0, Fit::Scale, dev / 4)).expect("prepared");
        let pairs = t.records.iter().zip(&r.requests);
        for ((a, qa), (b, qb)) in pairs.clone().zip(pairs.skip(1)) {
            if a.offset < b.offset {
                assert!(qa.offset <= qb.offset);
            }
        }
        let small = trace(vec![rec(0, 10 << 20, 4096, Op::Read, 0)], dev);
        let r = prepare(&small, opts(1.0, Fit::Wrap, 4 << 20)).expect("prepared");
        assert_eq!(r.requests[0].offset, (10 << 20) % (4 << 20));
    }

    #[test]
    fn a_target_smaller_than_a_request_or_a_bad_speed_is_refused() {
        let t = trace(vec![rec(0, 0, 1 << 20, Op::Write, 0)], 1 << 30);
        let e = prepare(&t, opts(1.0, Fit::Wrap, 4096)).expect_err("too small");
        assert!(e.to_string().contains("smaller than"), "{e}");
        let e = prepare(&t, opts(0.0, Fit::Wrap, 1 << 30)).expect_err("speed 0");
        assert!(e.to_string().contains("speed"), "{e}");
        // Empty discards carry nothing to send; a discard of a range is a trim to send.
        let only = trace(vec![rec(0, 0, 0, Op::Discard, 0)], 1 << 30);
        let e = prepare(&only, opts(1.0, Fit::Wrap, 1 << 30)).expect_err("nothing");
        assert!(e.to_string().contains("nothing to replay"), "{e}");
        let trims = trace(vec![rec(0, 0, 4096, Op::Discard, 0)], 1 << 30);
        let r = prepare(&trims, opts(1.0, Fit::Wrap, 1 << 30)).expect("a trim to send");
        assert_eq!((r.trims, r.requests[0].op), (1, ReplayOp::Trim));
    }
}
