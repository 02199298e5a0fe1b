//! Shared by the integration tests (and, for `harness.rs`, by the cargo-fuzz target).
#![allow(dead_code)]

pub mod harness;
pub mod ops;
pub mod random;
