//! The functions generated code calls to write and read one value by its wire rule, one module
//! per rule family, each generic over the stream ([`crate::WireWrite`], [`crate::WireRead`])
//! and, for integers, over the field's Rust type ([`crate::WireInt`]).

pub(crate) mod boolean;
pub(crate) mod bytes;
pub(crate) mod enums;
pub(crate) mod float;
pub(crate) mod huffman;
pub(crate) mod ranged;
pub(crate) mod seq;
pub(crate) mod vlq;
