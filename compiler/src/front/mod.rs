//! The three front ends (IDL, Encoding, Mapping): lexing, grammars and syntax trees.
//!
//! Parsing a file knows nothing of the other files; resolution joins them.

pub mod common;
pub mod enc;
pub mod idl;
pub mod lexer;
pub mod map;
pub mod parse_error;
pub mod span;
