//! The io_uring executor: runs one data point against an open volume. All `unsafe` lives here.
