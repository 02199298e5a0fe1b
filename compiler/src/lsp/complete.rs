//! Completion: in an Encoding or Mapping block, the fields of its target that it has not listed
//! yet (and in an Encoding, the rules); in DEFAULTS, the categories and rules; elsewhere, the
//! types (and after `STRUCT`, `RPC`, ... in an Encoding or Mapping, the items of that kind).
//!
//! Where the cursor stands is read from the compiler's lexer, not from a syntax tree: a file
//! being typed seldom parses, and the lexer reads any text.

use lsp_types::{CompletionItem, CompletionItemKind};

use super::index::{Index, Kind};
use crate::Compilation;
use crate::front::lexer::{Keyword, Language, Token, tokens};
use crate::resolve::encoding::CATEGORY_NAMES;

/// The wire rules of an Encoding that are not a type's name.
const RULES: &[&str] = &[
    "VLQ",
    "BIT",
    "FIXED_POINT",
    "HUFFMAN",
    "SMALLEST_THREE",
    "DIFF",
];

/// The built-in types that are no rule.
const NOT_RULES: &[&str] = &[
    "INT",
    "NUMERIC",
    "STRING",
    "BYTES",
    "ARRAY",
    "OPTIONAL",
    "QUATERNION",
];

/// What else a member of an Encoding block may start with.
const ENCODING_MEMBERS: &[&str] = &[
    "DELTA",
    "DEAD_RECKONING",
    "FENCE",
    "EXTEND",
    "ALIGN",
    "CHECK",
];

/// The rules an Encoding may give a field: `VLQ`, `BIT`, ..., the fixed widths and `SEQUENCE`.
fn rules() -> impl Iterator<Item = &'static str> {
    let types = Language::type_keywords().filter(|word| !NOT_RULES.contains(word));
    RULES.iter().copied().chain(types)
}

/// Where the cursor is.
#[derive(Debug, PartialEq)]
enum Context {
    /// In the block of an Encoding or Mapping item on `target`; the names it lists already.
    Block { target: String, listed: Vec<String> },
    /// In an Encoding's DEFAULTS block.
    Defaults,
    /// Right after a keyword that names an item of the IDL (`STRUCT`, `RPC`, `PROTOCOL`, ...).
    ItemName(Keyword),
    /// Anywhere else.
    Other,
}

/// The completions at byte `offset` of `text`, a file of `language`, from the project's `index`
/// and `compilation` (for the fields' types).
pub fn complete(
    index: &Index,
    compilation: Option<&Compilation>,
    text: &str,
    language: Language,
    offset: usize,
) -> Vec<CompletionItem> {
    let mut items = Vec::new();
    match context(text, language, offset) {
        Context::Block { target, listed } if language != Language::Idl => {
            let def = compilation.and_then(|c| c.ir.schema.structs.get(&target));
            for field in index.fields(&target) {
                if listed.iter().any(|l| l == field) {
                    continue;
                }
                let detail = def
                    .and_then(|def| def.field(field))
                    .map(|(_, f)| f.ty.describe());
                items.push(item(field, CompletionItemKind::FIELD, detail));
            }
            if language == Language::Encoding {
                keywords(&mut items, rules().chain(ENCODING_MEMBERS.iter().copied()));
            }
        }
        Context::Defaults => keywords(&mut items, CATEGORY_NAMES.iter().copied().chain(rules())),
        Context::ItemName(keyword) => {
            for (name, kind) in index.items() {
                let fits = match keyword {
                    Keyword::Struct => kind == Kind::Struct,
                    Keyword::PublishableStruct => kind == Kind::Publishable,
                    Keyword::Message => kind == Kind::Message,
                    Keyword::Rpc => kind == Kind::Rpc,
                    Keyword::Protocol => kind == Kind::Protocol,
                    Keyword::Enum => kind == Kind::Enum,
                    _ => kind.is_type(),
                };
                if fits {
                    items.push(item(name, symbol_kind(kind), Some(kind.keyword().into())));
                }
            }
        }
        Context::Block { .. } | Context::Other => {
            if language != Language::Mapping {
                for (name, kind) in index.items() {
                    if kind.is_type() || kind == Kind::Const {
                        items.push(item(name, symbol_kind(kind), Some(kind.keyword().into())));
                    }
                }
                keywords(&mut items, Language::type_keywords());
            }
        }
    }
    items
}

fn item(label: &str, kind: CompletionItemKind, detail: Option<String>) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..CompletionItem::default()
    }
}

fn keywords<'a>(items: &mut Vec<CompletionItem>, words: impl Iterator<Item = &'a str>) {
    for word in words {
        if !items.iter().any(|i| i.label == word) {
            items.push(item(word, CompletionItemKind::KEYWORD, None));
        }
    }
}

fn symbol_kind(kind: Kind) -> CompletionItemKind {
    match kind {
        Kind::Struct | Kind::Publishable | Kind::Message => CompletionItemKind::STRUCT,
        Kind::Rpc => CompletionItemKind::METHOD,
        Kind::Enum => CompletionItemKind::ENUM,
        Kind::Typedef => CompletionItemKind::TYPE_PARAMETER,
        Kind::Const => CompletionItemKind::CONSTANT,
        Kind::Protocol => CompletionItemKind::INTERFACE,
        Kind::Field => CompletionItemKind::FIELD,
    }
}

/// Where byte `offset` of `text` stands, from its tokens.
fn context(text: &str, language: Language, offset: usize) -> Context {
    let all: Vec<(usize, Token<'_>, usize)> = tokens(text, language).flatten().collect();
    // The word being typed (the cursor at its end or inside it) is not listed yet.
    let typing = |start: usize, end: usize| start < offset && offset <= end;
    let before = all.partition_point(|(start, _, _)| *start < offset);
    let mut open: Vec<usize> = Vec::new();
    for (i, (_, token, _)) in all[..before].iter().enumerate() {
        match token {
            Token::LBrace => open.push(i),
            Token::RBrace => {
                open.pop();
            }
            _ => {}
        }
    }
    let Some(&block) = open.first() else {
        // At top level: after an item keyword, its name.
        let previous = all[..before]
            .iter()
            .rev()
            .find(|(start, _, end)| !typing(*start, *end));
        return match previous {
            Some((_, Token::Keyword(keyword), _)) if language != Language::Idl => {
                Context::ItemName(*keyword)
            }
            _ => Context::Other,
        };
    };
    // The block's head: the name after the last item keyword before its `{`.
    let head = all[..block]
        .iter()
        .rposition(|(_, token, _)| matches!(token, Token::Semi | Token::RBrace))
        .map_or(0, |i| i + 1);
    let mut target = None;
    for (i, (_, token, _)) in all[head..block].iter().enumerate() {
        match token {
            Token::Keyword(Keyword::Defaults) => return Context::Defaults,
            Token::Keyword(
                Keyword::Struct
                | Keyword::PublishableStruct
                | Keyword::Message
                | Keyword::Rpc
                | Keyword::Protocol
                | Keyword::Enum,
            ) => {
                if let Some((_, Token::Ident(name), _)) = all.get(head + i + 1) {
                    target = Some(name.to_string());
                }
            }
            _ => {}
        }
    }
    let Some(target) = target else {
        return Context::Other;
    };
    // The names the block lists: a name before `;`, `=>` or `DEFAULT` (in nested blocks too),
    // not the Rust field after a `=>`.
    let mut depth = 0usize;
    let mut listed = Vec::new();
    for (i, (start, token, end)) in all.iter().enumerate().skip(block) {
        match token {
            Token::LBrace => depth += 1,
            Token::RBrace => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Token::Ident(name) if !typing(*start, *end) => {
                let next = all.get(i + 1).map(|(_, token, _)| token);
                let renamed = matches!(all.get(i.wrapping_sub(1)), Some((_, Token::FatArrow, _)));
                if !renamed
                    && matches!(
                        next,
                        Some(Token::Semi | Token::FatArrow | Token::Keyword(Keyword::Default))
                    )
                {
                    listed.push(name.to_string());
                }
            }
            _ => {}
        }
    }
    Context::Block { target, listed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_lists_what_it_names() {
        let text = "ENCODING(A) STRUCT S {\n  BIT(3) a;\n  DELTA { b DEFAULT = 1; }\n  c\n}\n";
        let at = text.find("c\n").unwrap() + 1;
        assert_eq!(
            context(text, Language::Encoding, at),
            Context::Block {
                target: "S".into(),
                listed: vec!["a".into(), "b".into()]
            }
        );
        let text = "MAPPING(\"Rust\", \"Client\") STRUCT V = glam::Vec3 { x => x; f32 y; }";
        let at = text.find("f32").unwrap();
        assert_eq!(
            context(text, Language::Mapping, at),
            Context::Block {
                target: "V".into(),
                listed: vec!["x".into(), "y".into()]
            }
        );
    }

    #[test]
    fn outside_blocks() {
        let text = "ENCODING(A) DEFAULTS {\n  \n}\nENCODING(A) STRUCT ";
        assert_eq!(
            context(text, Language::Encoding, text.find("  \n").unwrap()),
            Context::Defaults
        );
        assert_eq!(
            context(text, Language::Encoding, text.len()),
            Context::ItemName(Keyword::Struct)
        );
        assert_eq!(context("", Language::Idl, 0), Context::Other);
        // An unmatched `}` is no block.
        assert_eq!(context("} }", Language::Encoding, 3), Context::Other);
    }
}
