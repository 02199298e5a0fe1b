//! Acknowledged breaks: `// idlc:allow(rule-name): reason` in NEW.
//!
//! The lexers drop comments, so the comments are found in the text of NEW's files, line by
//! line. A comment acknowledges a violation of its rule whose [`Anchor::At`] place is on the
//! comment's line, or right below the run of comment lines the comment belongs to:
//!
//! ```text
//! // idlc:allow(changed-member): the bits are the same, only the name changes
//! UINT16 player_id;
//! UINT8 flags; // idlc:allow(changed-member): widened on purpose, every peer is updated
//! ```
//!
//! What has no place in NEW ([`Anchor::Named`]: a removed top-level item or encoding) is
//! acknowledged by a comment that names it, anywhere in NEW's files:
//! `// idlc:allow(removed-item OldMessage): retired in 2.0`.

use codespan_reporting::diagnostic::Severity;

use super::{Anchor, Rule, Violation};
use crate::diagnostics::{Diagnostic, FileId, SourceMap, codes, primary};
use crate::front::span::Span;

/// One `// idlc:allow(rule): reason` comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowComment {
    /// The file it is in.
    pub file: FileId,
    /// Its line, from 0.
    pub line: usize,
    /// The comment's text, from `//`.
    pub span: Span,
    /// The rule's name as written (it may name no rule).
    pub rule: String,
    /// The item it names (`removed-item Name`), if any.
    pub target: Option<String>,
    /// The reason after the `:`, trimmed (empty when none is given).
    pub reason: String,
}

/// Every allow comment in `files`.
pub fn allow_comments(sources: &SourceMap, files: &[FileId]) -> Vec<AllowComment> {
    let mut out = Vec::new();
    for &file in files {
        let text = sources.source(file);
        let mut offset = 0;
        for (line, content) in text.split('\n').enumerate() {
            if let Some(comment) = line_comment(content) {
                if let Some(mut allow) = parse_allow(&content[comment..]) {
                    allow.file = file;
                    allow.line = line;
                    let start = offset + comment;
                    allow.span = Span::new(start, offset + content.trim_end().len());
                    out.push(allow);
                }
            }
            offset += content.len() + 1;
        }
    }
    out
}

/// Where the `//` comment of a line starts, outside string literals.
fn line_comment(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Parses `// idlc:allow(rule [target])[: reason]`.
fn parse_allow(comment: &str) -> Option<AllowComment> {
    let body = comment.strip_prefix("//")?.trim_start();
    let rest = body.strip_prefix("idlc:allow(")?;
    let close = rest.find(')')?;
    let mut words = rest[..close].split_whitespace();
    let rule = words.next()?.to_string();
    let target = words.next().map(str::to_string);
    let after = rest[close + 1..].trim();
    let reason = after.strip_prefix(':').unwrap_or(after).trim().to_string();
    Some(AllowComment {
        file: 0,
        line: 0,
        span: Span::default(),
        rule,
        target,
        reason,
    })
}

/// The line (from 0) of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Whether `comment` belongs to the place on `line` of its file: on that line, or in the run
/// of comment lines right above it.
fn covers(text: &str, comment: &AllowComment, line: usize) -> bool {
    if comment.line == line {
        return true;
    }
    if comment.line > line {
        return false;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    (comment.line..line).all(|l| {
        lines
            .get(l)
            .is_some_and(|s| s.trim_start().starts_with("//"))
    })
}

/// Turns every violation that an allow comment in `files` (NEW's) acknowledges into a note.
/// Returns warnings about allow comments that name no rule, or acknowledge nothing.
pub fn acknowledge(
    violations: &mut [Violation],
    sources: &SourceMap,
    files: &[FileId],
) -> Vec<Diagnostic> {
    let comments = allow_comments(sources, files);
    let mut used = vec![false; comments.len()];
    for violation in violations.iter_mut() {
        let found = comments.iter().position(|comment| {
            comment.rule == violation.rule.name()
                && match &violation.anchor {
                    Anchor::At(loc) => {
                        comment.file == loc.file && {
                            let text = sources.source(loc.file);
                            covers(text, comment, line_of(text, loc.span.start))
                        }
                    }
                    Anchor::Named(name) => comment.target.as_deref() == Some(name.as_str()),
                }
        });
        if let Some(index) = found {
            used[index] = true;
            let comment = &comments[index];
            let reason = if comment.reason.is_empty() {
                "no reason given".to_string()
            } else {
                comment.reason.clone()
            };
            let diagnostic = &mut violation.diagnostic;
            diagnostic.severity = Severity::Note;
            diagnostic.message = format!("acknowledged {}", diagnostic.message);
            diagnostic.notes.push(format!(
                "acknowledged by `idlc:allow({})` in {}:{}: {reason}",
                comment.rule,
                sources
                    .files()
                    .get(comment.file)
                    .map_or("NEW", |f| f.name()),
                comment.line + 1
            ));
            violation.acknowledged = Some(comment.clone());
        }
    }
    let mut warnings = Vec::new();
    for (comment, used) in comments.iter().zip(used) {
        if Rule::from_name(&comment.rule).is_none() {
            let names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
            warnings.push(
                Diagnostic::warning()
                    .with_code(codes::COMPAT_UNKNOWN_ALLOW)
                    .with_message(format!("`idlc:allow({})` names no rule", comment.rule))
                    .with_labels(vec![primary(comment.file, comment.span)])
                    .with_notes(vec![format!("the rules: {}", names.join(", "))]),
            );
        } else if !used {
            warnings.push(
                Diagnostic::warning()
                    .with_code(codes::COMPAT_UNUSED_ALLOW)
                    .with_message(format!(
                        "`idlc:allow({})` acknowledges no violation",
                        comment.rule
                    ))
                    .with_labels(vec![primary(comment.file, comment.span)])
                    .with_notes(vec![
                        "an allow comment acknowledges a violation on its line or on the line below its comment lines; remove it once the break is released".into(),
                    ]),
            );
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rule_target_and_reason() {
        let allow = parse_allow("// idlc:allow(removed-item Foo): retired").unwrap();
        assert_eq!(allow.rule, "removed-item");
        assert_eq!(allow.target.as_deref(), Some("Foo"));
        assert_eq!(allow.reason, "retired");
        let allow = parse_allow("//idlc:allow(missing-fence)").unwrap();
        assert_eq!(allow.rule, "missing-fence");
        assert_eq!(allow.reason, "");
        assert!(parse_allow("// see idlc:allow(x)").is_none());
        assert!(parse_allow("// idlc:allow(").is_none());
        assert!(parse_allow("// idlc:allow()").is_none());
    }

    #[test]
    fn comments_outside_strings_only() {
        assert_eq!(line_comment(r#"STRING s DEFAULT = "a//b"; // x"#), Some(27));
        assert_eq!(line_comment(r#"STRING s DEFAULT = "a\"//b";"#), None);
        assert_eq!(line_comment("UINT8 x;"), None);
    }

    #[test]
    fn finds_comments_with_lines_and_spans() {
        let mut sources = SourceMap::new();
        let text = "STRUCT A {\n  // idlc:allow(changed-member): why\n  UINT8 x; // idlc:allow(missing-fence)\n}\n";
        let file = sources.add("a.idl", text);
        let found = allow_comments(&sources, &[file]);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].line, 1);
        assert_eq!(
            &text[found[0].span.range()],
            "// idlc:allow(changed-member): why"
        );
        assert_eq!(found[1].line, 2);
        assert!(covers(text, &found[0], 2));
        assert!(!covers(text, &found[0], 3));
        assert!(covers(text, &found[1], 2));
        assert!(!covers(text, &found[1], 1));
    }
}
