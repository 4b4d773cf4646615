//! The integration tests: one binary driving the real `rigel` through a small builder. They run in
//! parallel (`#[serial_test::parallel]`), except those that measure time, rates or latency (Little's
//! law, held loads, open-loop rates, searches, steady state, FUSE service times): those are
//! `#[serial_test::serial]`, one at a time and never beside a parallel one, so that no other test
//! loads the CPUs their targets and FUSE servers need (run side by side on a loaded host, one
//! open-loop test's thousand reads a second moved another's FUSE service p50 from 2.3 ms to 17 ms).
//! A new test takes one of the two attributes.

mod answers;
mod bounds;
mod builder;
mod burst;
mod burst_across;
mod burst_bucket;
mod capture;
mod check;
mod compare;
mod data_content;
mod devices;
mod drain;
mod durability;
mod ecosystem;
mod engines;
mod expect;
mod fallback;
mod faults;
mod files;
mod fio;
mod fio_agree;
mod fio_examples;
mod first_touch;
mod fleet;
mod flush_every;
mod guard;
mod handover;
mod hlog;
mod hostile;
mod impossible;
mod integrity;
mod journal;
mod junit;
mod killed;
mod lateness;
mod library;
mod littles_law;
mod luns;
mod metrics;
mod metrics_fleet;
mod names;
mod nvme_vm;
mod openloop;
mod openmetrics;
mod orion;
mod orion_run;
mod pause;
mod pinning;
mod placement;
mod plan;
mod precondition;
mod rate_cap;
mod reader;
mod refused;
mod replay;
mod replay_sends;
mod report;
mod resume;
mod run;
mod scenario;
mod search;
mod shipped_answers;
mod shipped_answers_rest;
mod size_mix;
mod skew;
mod sparse;
mod sqpoll;
mod sweep_report;
mod think;
mod trim;
mod unsteady;
mod untrusted;
mod workload_expect;

pub use builder::{Output, rigel};
