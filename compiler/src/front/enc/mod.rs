//! The Encoding front end: how it is sent.

pub mod ast;

/// lalrpop's parser of grammar.lalrpop, checked in (tests/parsers.rs checks it is up to date).
#[rustfmt::skip]
#[allow(
    clippy::all,
    missing_docs,
    unused_qualifications,
    unused_parens,
    unused_imports
)]
mod grammar;

use crate::diagnostics::{Diagnostic, FileId};
use crate::front::lexer::Language;
use crate::front::parse_error;

/// Parses an Encoding file. Returns what could be parsed (broken items and members are left
/// out) and a diagnostic for every syntax error.
pub fn parse(file: FileId, source: &str) -> (ast::EncFile, Vec<Diagnostic>) {
    parse_error::parse_with(file, source, Language::Encoding, |recovered, tokens| {
        grammar::FileParser::new().parse(recovered, tokens)
    })
}
