//! The closed- and open-loop policy a worker runs over its engine: its slots (each in-flight
//! I/O's buffer and next request), where each I/O goes (`offsets`, `mix`, `skew`) and what it
//! carries (`data`), the turn of its loop (`turn`), think time and bursts, flush groups, the open
//! loop's send times (`turn::open_loop`) and `rigel replay`'s requests, the measured window, stalls
//! and pauses, and the drain at a point's end. It reaches the storage only through `engines`.

pub(crate) mod burst;
pub(crate) mod committers;
pub(crate) mod data;
pub(crate) mod drain;
pub(crate) mod failed;
pub(crate) mod flush;
pub(crate) mod mix;
pub(crate) mod next_io;
pub(crate) mod offsets;
pub(crate) mod pause;
pub(crate) mod replay_slots;
pub(crate) mod setup;
pub mod skew;
pub(crate) mod slots;
pub(crate) mod tag;
pub(crate) mod tick;
pub(crate) mod turn;
pub(crate) mod verified;
pub(crate) mod waits;
pub(crate) mod window;
pub mod zones;
