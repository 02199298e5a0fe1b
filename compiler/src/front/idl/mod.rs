//! The IDL front end: what is sent.

pub mod ast;

#[allow(
    clippy::all,
    missing_docs,
    unused_qualifications,
    unused_parens,
    unused_imports
)]
mod grammar {
    lalrpop_util::lalrpop_mod!(pub grammar, "/front/idl/grammar.rs");
    pub use grammar::*;
}

use crate::diagnostics::{Diagnostic, FileId};
use crate::front::lexer::{Language, tokens};
use crate::front::parse_error;

/// Parses an IDL file. Returns what could be parsed (broken items are left out) and a
/// diagnostic for every syntax error.
pub fn parse(file: FileId, source: &str) -> (ast::IdlFile, Vec<Diagnostic>) {
    if let Some(too_deep) = parse_error::nesting_too_deep(file, source, Language::Idl) {
        return (ast::IdlFile::default(), vec![too_deep]);
    }
    let mut recovered = Vec::new();
    let result = grammar::FileParser::new().parse(&mut recovered, tokens(source, Language::Idl));
    let (tree, fatal) = match result {
        Ok(tree) => (tree, None),
        Err(error) => (ast::IdlFile::default(), Some(error)),
    };
    (
        tree,
        parse_error::diagnostics(file, source, recovered, fatal),
    )
}
