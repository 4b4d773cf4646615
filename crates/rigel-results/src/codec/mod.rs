//! How the results keep a histogram (HDR V2, deflate-compressed, base64) and read figures from
//! one, and how encoded histograms are added without decoding each into a histogram of its own.
//! The document itself is JSON through serde, on the model's types.

mod hdr;
mod hdr_add;

pub use hdr::{
    HistogramError, MAX_PAYLOAD, checked_v2, decode_checked, decode_histogram, encode, latency_of,
};
pub use hdr_add::{HdrAdder, HdrSum};
