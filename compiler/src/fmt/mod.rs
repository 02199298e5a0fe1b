//! `idlc fmt`: the one canonical layout of each language.
//!
//! A file is parsed by its own front end; the syntax tree says where lines begin (`hints`, one
//! module per language), and the `printer` reprints the file's tokens and comments (the
//! lexer keeps comments as trivia) in that layout: 2-space indentation, one member per line,
//! comments where they stand, trailing comments of consecutive lines aligned. Only whitespace
//! and optional punctuation change, so the result is checked to parse to the same syntax tree
//! (spans aside) before it is returned. Formatting is idempotent. Nothing here knows the
//! keywords of a language: a new type or rule needs no change.

mod enc;
mod hints;
mod idl;
mod lines;
mod map;
mod printer;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::diagnostics::{Diagnostic, FileId, codes, has_errors};
use crate::front::lexer::Language;

pub use printer::MAX_WIDTH;

/// The language of a file, by its extension (`.idl`, `.enc`, `.map`, as in `client.cpp.map`).
pub fn language_of(path: &Path) -> Option<Language> {
    match path.extension()?.to_str()? {
        "idl" => Some(Language::Idl),
        "enc" => Some(Language::Encoding),
        "map" => Some(Language::Mapping),
        _ => None,
    }
}

/// `source` (file `file` of `language`) in the canonical layout. A file with syntax errors is
/// not formatted: its diagnostics are returned.
pub fn format(file: FileId, source: &str, language: Language) -> Result<String, Vec<Diagnostic>> {
    let (tree, hints) = parsed(file, source, language)?;
    let formatted = lines::render(&printer::print(source, language, &hints));
    // The formatter must not change what the file says: the same tree, spans aside.
    match parsed(file, &formatted, language) {
        Ok((again, _)) if again == tree => Ok(formatted),
        _ => Err(vec![
            Diagnostic::bug()
                .with_code(codes::FORMAT_CHANGES_MEANING)
                .with_message(
                    "the formatted text would not mean what the file says (a bug of idlc): \
                     the file is left as it is",
                )
                .with_labels(vec![crate::diagnostics::primary(
                    file,
                    crate::front::span::Span::new(0, 0),
                )]),
        ]),
    }
}

/// The syntax tree of `source` (as JSON, spans removed) and its layout hints, or its syntax
/// errors.
fn parsed(
    file: FileId,
    source: &str,
    language: Language,
) -> Result<(Value, hints::Hints), Vec<Diagnostic>> {
    let (tree, hints, diagnostics) = match language {
        Language::Idl => {
            let (tree, diagnostics) = crate::front::idl::parse(file, source);
            (without_spans(&tree), idl::hints(&tree), diagnostics)
        }
        Language::Encoding => {
            let (tree, diagnostics) = crate::front::enc::parse(file, source);
            (without_spans(&tree), enc::hints(&tree), diagnostics)
        }
        Language::Mapping => {
            let (tree, diagnostics) = crate::front::map::parse(file, source);
            (without_spans(&tree), map::hints(&tree), diagnostics)
        }
    };
    if has_errors(&diagnostics) {
        return Err(diagnostics);
    }
    Ok((tree, hints))
}

/// A syntax tree as JSON with every span (an object of just `start` and `end`) replaced by null:
/// what two layouts of one file have in common.
pub fn without_spans(tree: &impl Serialize) -> Value {
    let mut value = serde_json::to_value(tree).unwrap_or(Value::Null);
    strip(&mut value);
    value
}

fn strip(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let is_span = map.len() == 2 && map.contains_key("start") && map.contains_key("end");
            if is_span {
                *value = Value::Null;
            } else {
                map.values_mut().for_each(strip);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}
