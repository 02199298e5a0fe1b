//! Go to definition, find references and rename, from the symbol index: across the three
//! languages (a field of an Encoding or Mapping block is the IDL's field; a type is its
//! declaration; an IMPORT is its file).

use std::collections::HashMap;
use std::path::Path;

use lsp_types::{Location, Position, Range, TextEdit, Url, WorkspaceEdit};

use super::index::{Index, Occurrence, Symbol};
use crate::front::lexer::{Language, Token, tokens};

/// Where the name at `position` of `path` is declared: the IDL's declaration of a type, field,
/// CONST, PROTOCOL or RPC; the start of an IMPORT's file.
pub fn definition(index: &Index, path: &Path, position: Position) -> Vec<Location> {
    let Some(occurrence) = index.at(path, position) else {
        return Vec::new();
    };
    if let Symbol::File(file) = &occurrence.symbol {
        return location(file, Range::default())
            .filter(|_| file.is_file())
            .into_iter()
            .collect();
    }
    index
        .declarations(&occurrence.symbol)
        .filter_map(|declaration| location(&declaration.path, declaration.range))
        .collect()
}

/// Every place the name at `position` of `path` is written, in the three languages; its
/// declaration too when `declaration` says so.
pub fn references(
    index: &Index,
    path: &Path,
    position: Position,
    declaration: bool,
) -> Vec<Location> {
    let Some(occurrence) = index.at(path, position) else {
        return Vec::new();
    };
    index
        .of(&occurrence.symbol)
        .filter(|o| declaration || o.declares.is_none())
        .filter_map(|o| location(&o.path, o.range))
        .collect()
}

/// The range of the name at `position` that a rename would change: a type, field, CONST,
/// PROTOCOL or RPC (not an IMPORT's path).
pub fn prepare_rename(index: &Index, path: &Path, position: Position) -> Option<Range> {
    renamable(index, path, position).map(|o| o.range)
}

/// The edits that rename the name at `position` of `path` to `new_name` everywhere the project
/// writes it. An error when nothing renamable is there or `new_name` is not a name.
pub fn rename(
    index: &Index,
    path: &Path,
    position: Position,
    new_name: &str,
) -> Result<WorkspaceEdit, String> {
    let occurrence = renamable(index, path, position)
        .ok_or_else(|| "there is no type, field or name of the IDL here".to_string())?;
    if !is_name(new_name) {
        return Err(format!(
            "`{new_name}` is not a name of the three languages (a letter or `_`, then letters, digits or `_`, and no keyword)"
        ));
    }
    let mut changes: HashMap<Url, Vec<TextEdit>> = HashMap::new();
    for o in index.of(&occurrence.symbol) {
        if let Ok(uri) = Url::from_file_path(&o.path) {
            changes
                .entry(uri)
                .or_default()
                .push(TextEdit::new(o.range, new_name.to_string()));
        }
    }
    Ok(WorkspaceEdit::new(changes))
}

fn renamable<'a>(index: &'a Index, path: &Path, position: Position) -> Option<&'a Occurrence> {
    index
        .at(path, position)
        .filter(|o| !matches!(o.symbol, Symbol::File(_)))
}

/// Whether `name` reads as one identifier in each of the three languages.
fn is_name(name: &str) -> bool {
    [Language::Idl, Language::Encoding, Language::Mapping]
        .into_iter()
        .all(|language| {
            let mut read = tokens(name, language);
            matches!(
                (read.next(), read.next()),
                (Some(Ok((0, Token::Ident(_), end))), None) if end == name.len()
            )
        })
}

fn location(path: &Path, range: Range) -> Option<Location> {
    Url::from_file_path(path)
        .ok()
        .map(|uri| Location::new(uri, range))
}

#[cfg(test)]
mod tests {
    use super::is_name;

    #[test]
    fn names_are_identifiers_of_every_language() {
        assert!(is_name("rounds"));
        assert!(is_name("_x2"));
        assert!(!is_name("STRUCT"));
        assert!(!is_name("VLQ"));
        assert!(!is_name("two words"));
        assert!(!is_name("2x"));
        assert!(!is_name(""));
        assert!(!is_name("a;"));
    }
}
