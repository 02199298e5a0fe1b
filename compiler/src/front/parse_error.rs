//! Turns lalrpop's parse errors into diagnostics, the same way for all three languages.

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;
use lalrpop_util::{ErrorRecovery, ParseError};

use super::lexer::{Language, LexError, Token, tokens};
use super::span::Span;
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Diagnostic, FileId, codes, primary, secondary};

/// A parse error as the generated parsers report it.
pub type RawParseError<'a> = ParseError<usize, Token<'a>, LexError>;

/// Converts every recovered error and the final error (if any) into diagnostics.
pub fn diagnostics<'a>(
    file: FileId,
    source: &str,
    recovered: Vec<ErrorRecovery<usize, Token<'a>, LexError>>,
    fatal: Option<RawParseError<'a>>,
) -> Vec<Diagnostic> {
    recovered
        .into_iter()
        .map(|recovery| recovery.error)
        .chain(fatal)
        .map(|error| diagnostic(file, source, error))
        .collect()
}

/// One lalrpop error as a diagnostic: "expected one of ..." with the span of what was found.
pub fn diagnostic(file: FileId, source: &str, error: RawParseError<'_>) -> Diagnostic {
    match error {
        ParseError::UnrecognizedToken {
            token: (start, Token::Error(lex), end),
            ..
        }
        | ParseError::ExtraToken {
            token: (start, Token::Error(lex), end),
        } => lex_error(file, Span::new(start, end), lex),
        ParseError::User { error } => {
            let at = Span::new(source.len(), source.len());
            lex_error(file, at, error)
        }
        ParseError::InvalidToken { location } => lex_error(
            file,
            Span::new(location, location + 1),
            LexError::UnexpectedCharacter,
        ),
        ParseError::UnrecognizedEof { expected, .. } => {
            let end = source.trim_end().len();
            CodespanDiagnostic::error()
                .with_code(codes::UNEXPECTED_EOF)
                .with_message("unexpected end of file")
                .with_labels(vec![
                    primary(file, Span::new(end, end)).with_message(expected_message(&expected)),
                ])
        }
        ParseError::UnrecognizedToken {
            token: (start, _, end),
            expected,
        } => {
            let found = source.get(start..end).unwrap_or("?");
            let keywords = expected
                .iter()
                .map(|name| name.trim_matches('"'))
                .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            let hint = closest(found, keywords).map(|k| format!("did you mean `{k}`?"));
            // A missing `;` (or other separator) shows after what precedes it, not at the
            // next line's first token.
            let before = source.get(..start).unwrap_or("").trim_end().len();
            let missing_separator = expected.len() <= 3
                && expected.iter().any(|e| e == "\";\"")
                && source
                    .get(before..start)
                    .is_some_and(|gap| gap.contains('\n'));
            let mut labels = vec![
                primary(file, Span::new(start, end)).with_message(expected_message(&expected)),
            ];
            if missing_separator {
                labels = vec![
                    primary(file, Span::new(before, before))
                        .with_message(format!("{} here", expected_message(&expected))),
                    secondary(file, Span::new(start, end)).with_message("the next token"),
                ];
            }
            CodespanDiagnostic::error()
                .with_code(codes::UNEXPECTED_TOKEN)
                .with_message(format!("unexpected `{found}`"))
                .with_labels(labels)
                .with_notes(hint.into_iter().collect())
        }
        ParseError::ExtraToken {
            token: (start, _, end),
        } => {
            let found = source.get(start..end).unwrap_or("?");
            CodespanDiagnostic::error()
                .with_code(codes::UNEXPECTED_TOKEN)
                .with_message(format!(
                    "unexpected `{found}` after the end of the file's items"
                ))
                .with_labels(vec![primary(file, Span::new(start, end))])
        }
    }
}

fn lex_error(file: FileId, span: Span, error: LexError) -> Diagnostic {
    let note = match error {
        LexError::UnexpectedCharacter => {
            "identifiers are [A-Za-z_][A-Za-z0-9_]*; comments are // and /* */"
        }
        LexError::IntegerTooLarge => "integers must fit in INT64 or UINT64",
        LexError::BadEscape => "a string may use the escapes \\\" \\\\ \\n \\t",
        LexError::UnterminatedString => "add the closing `\"` on the same line",
        LexError::UnterminatedComment => "add the closing `*/`",
    };
    CodespanDiagnostic::error()
        .with_code(codes::LEX_ERROR)
        .with_message(error.to_string())
        .with_labels(vec![primary(file, span)])
        .with_notes(vec![note.to_string()])
}

/// "expected one of `;`, `}`", with lalrpop's terminal names made readable and the many type
/// keywords folded into "a type".
fn expected_message(expected: &[String]) -> String {
    let is_type = |name: &str| TYPE_KEYWORDS.contains(&name.trim_matches('"'));
    let types = expected.iter().filter(|name| is_type(name)).count();
    let mut names: Vec<String> = Vec::new();
    if types >= 5 {
        names.push("a type".to_string());
    }
    for name in expected {
        if types < 5 || !is_type(name) {
            names.push(readable(name));
        }
    }
    names.dedup();
    match names.as_slice() {
        [] => "unexpected here".to_string(),
        [one] => format!("expected {one}"),
        many => format!("expected one of {}", many.join(", ")),
    }
}

// One line per kind of type, as the IDL's type grammar lists them.
#[rustfmt::skip]
const TYPE_KEYWORDS: &[&str] = &[
    "BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64",
    "FLOAT32", "FLOAT64", "INT", "NUMERIC", "STRING", "BYTES", "SEQUENCE", "ARRAY", "OPTIONAL",
    "QUATERNION",
];

fn readable(terminal: &str) -> String {
    match terminal {
        "Word" => "identifier".to_string(),
        "IntLit" => "integer".to_string(),
        "RealLit" => "number".to_string(),
        "StrLit" => "string".to_string(),
        quoted => format!("`{}`", quoted.trim_matches('"')),
    }
}

/// How deeply brackets may nest. Deeper input is refused before parsing: syntax trees, their
/// resolution and their drop all recurse once per level, and no schema needs more.
pub const MAX_NESTING: usize = 64;

/// A diagnostic for the first bracket nested deeper than [`MAX_NESTING`], if any.
pub fn nesting_too_deep(file: FileId, source: &str, language: Language) -> Option<Diagnostic> {
    let mut depth = 0usize;
    for (start, token, end) in tokens(source, language).flatten() {
        match token {
            Token::LBrace | Token::LParen | Token::LBracket | Token::Lt => depth += 1,
            Token::RBrace | Token::RParen | Token::RBracket | Token::Gt => {
                depth = depth.saturating_sub(1)
            }
            _ => {}
        }
        if depth > MAX_NESTING {
            return Some(
                CodespanDiagnostic::error()
                    .with_code(codes::NESTING_TOO_DEEP)
                    .with_message(format!("brackets nested more than {MAX_NESTING} deep"))
                    .with_labels(vec![
                        primary(file, Span::new(start, end)).with_message("too deep"),
                    ])
                    .with_notes(vec![
                        "flatten the type with a TYPEDEF or a named struct".into(),
                    ]),
            );
        }
    }
    None
}

/// Runs a generated parser on `source`: refuses too-deep nesting first, then parses with error
/// recovery; returns what could be parsed (the default tree after a fatal error) and a
/// diagnostic for every syntax error.
pub fn parse_with<'a, T: Default>(
    file: FileId,
    source: &'a str,
    language: Language,
    parse: impl FnOnce(
        &mut Vec<ErrorRecovery<usize, Token<'a>, LexError>>,
        Box<dyn Iterator<Item = super::lexer::Spanned<'a>> + 'a>,
    ) -> Result<T, RawParseError<'a>>,
) -> (T, Vec<Diagnostic>) {
    if let Some(too_deep) = nesting_too_deep(file, source, language) {
        return (T::default(), vec![too_deep]);
    }
    let mut recovered = Vec::new();
    let (tree, fatal) = match parse(&mut recovered, Box::new(tokens(source, language))) {
        Ok(tree) => (tree, None),
        Err(error) => (T::default(), Some(error)),
    };
    (tree, diagnostics(file, source, recovered, fatal))
}
