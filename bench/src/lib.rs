//! idlc against the serializers Rust games use, measured side by side in one process:
//!
//! - [`mk48`]: the public Rust serialization benchmark's mk48 data set (1,000 world updates) in
//!   idlc's MK48, MK48_PLAIN and MK48_LOSSY encodings, bitcode, postcard, prost, bincode 2 and
//!   serde_json;
//! - [`character`]: the design source's Character in MYENCODING1, generated against a
//!   hand-written bitpacker of the identical wire layout, bitcode and prost;
//! - [`delta`]: delta encoding of a replication simulation, idlc's MYENCODING1 and MYENCODING2
//!   against delta-pack;
//! - [`cpp`]: the generated C++ code against the generated Rust code on mk48 and the Character
//!   (`bench-table cpp`).
//!
//! The `bench-table` binary prints every table ([`report`]); the criterion benches in
//! `benches/` time the same operations.

pub mod character;
pub mod cpp;
pub mod cubes;
pub mod delta;
pub mod error;
pub mod format;
pub mod measure;
pub mod mk48;
pub mod report;

pub use error::{BenchError, or_exit};
