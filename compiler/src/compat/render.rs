//! Verdicts as CI tools want them: one JSON document (`--format json`), or GitHub workflow
//! commands (`--format github`) that GitHub shows as annotations on the pull request. Only
//! values and text are built here; the CLI prints them.

use codespan_reporting::diagnostic::{Label, LabelStyle, Severity};
use codespan_reporting::files::Files as _;
use serde_json::{Map, Value, json};

use super::{Anchor, Change, Outcome, Violation};
use crate::diagnostics::{Diagnostic, FileId, SourceMap};

/// Where a violation's primary label is: the file's name, line and column (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// The file as diagnostics name it.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
}

/// The position of `violation`'s primary label, if it has one inside its file.
pub fn position(sources: &SourceMap, violation: &Violation) -> Option<Position> {
    diagnostic_position(sources, &violation.diagnostic)
}

/// The position of a diagnostic's first primary label, if it has one inside its file.
pub fn diagnostic_position(sources: &SourceMap, diagnostic: &Diagnostic) -> Option<Position> {
    let label = diagnostic
        .labels
        .iter()
        .find(|label| label.style == LabelStyle::Primary)?;
    location(sources, label.file_id, label.range.start)
}

/// The help notes of a violation, without their `help: ` head.
fn helps(violation: &Violation) -> impl Iterator<Item = &str> {
    violation
        .diagnostic
        .notes
        .iter()
        .filter_map(|note| note.strip_prefix("help: "))
}

/// The `file`, `line` and `column` of a JSON object (`null` without a place).
fn json_place(object: &mut Map<String, Value>, position: Option<Position>) {
    object.insert("file".into(), json!(position.as_ref().map(|p| &p.file)));
    object.insert("line".into(), json!(position.as_ref().map(|p| p.line)));
    object.insert("column".into(), json!(position.as_ref().map(|p| p.column)));
}

/// A violation as a JSON object: `{"rule", "code", "file", "line", "column", "message",
/// "help", "acknowledged", "reason"}`, the place being its primary label (`null` for a
/// violation without a place).
pub fn json_violation(sources: &SourceMap, violation: &Violation) -> Value {
    let mut object = Map::new();
    object.insert("rule".into(), json!(violation.rule.name()));
    object.insert("code".into(), json!(violation.rule.code()));
    json_place(&mut object, position(sources, violation));
    object.insert("message".into(), json!(violation.message));
    object.insert("help".into(), json!(helps(violation).collect::<Vec<_>>()));
    object.insert(
        "acknowledged".into(),
        json!(violation.acknowledged.is_some()),
    );
    object.insert(
        "reason".into(),
        json!(violation.acknowledged.as_ref().map(|a| &a.reason)),
    );
    Value::Object(object)
}

/// [`json_violation`] as text, on one line.
pub fn json_line(sources: &SourceMap, violation: &Violation) -> String {
    json_violation(sources, violation).to_string()
}

/// A diagnostic of the inputs (a syntax error, an unknown type, ...) as a JSON object of the
/// same shape as [`json_violation`], with `"rule": "input"`: a CI tool that reads violations
/// reads why no verdict could be given too. Its notes are the `help`.
pub fn json_input(sources: &SourceMap, diagnostic: &Diagnostic) -> Value {
    let mut object = Map::new();
    object.insert("rule".into(), json!("input"));
    object.insert("code".into(), json!(diagnostic.code));
    json_place(&mut object, diagnostic_position(sources, diagnostic));
    object.insert("message".into(), json!(diagnostic.message));
    object.insert("help".into(), json!(diagnostic.notes));
    object.insert("acknowledged".into(), json!(false));
    object.insert("reason".into(), Value::Null);
    Value::Object(object)
}

/// A compatible change as a JSON object: `{"kind", "item", "file", "line", "column",
/// "message"}`, the place in NEW, the message as the human summary says it.
pub fn json_change(sources: &SourceMap, change: &Change) -> Value {
    let mut object = Map::new();
    object.insert("kind".into(), json!(change.name()));
    object.insert("item".into(), json!(change.item()));
    let position = change
        .loc
        .and_then(|loc| location(sources, loc.file, loc.span.start));
    json_place(&mut object, position);
    object.insert("message".into(), json!(change.to_string()));
    Value::Object(object)
}

/// The JSON document of a comparison: `{"verdict", "changes", "violations"}`, every change
/// NEW makes and every violation, acknowledged or not. The verdict is the outcome's
/// ([`Outcome::is_compatible`]); the CLI adds what it learns after (`--prove`).
pub fn json_document(sources: &SourceMap, outcome: &Outcome) -> Map<String, Value> {
    let verdict = if outcome.is_compatible() {
        "compatible"
    } else {
        "incompatible"
    };
    let mut document = Map::new();
    document.insert("verdict".into(), json!(verdict));
    document.insert(
        "changes".into(),
        outcome
            .changes
            .iter()
            .map(|c| json_change(sources, c))
            .collect(),
    );
    document.insert(
        "violations".into(),
        outcome
            .violations
            .iter()
            .map(|v| json_violation(sources, v))
            .collect(),
    );
    document
}

/// The JSON document when the inputs have errors and nothing could be compared:
/// `"incompatible"`, no changes, one `"input"` violation per error (warnings are left out:
/// they would read as violations).
pub fn json_input_document(sources: &SourceMap, diagnostics: &[Diagnostic]) -> Map<String, Value> {
    let mut document = Map::new();
    document.insert("verdict".into(), json!("incompatible"));
    document.insert("changes".into(), json!([]));
    document.insert(
        "violations".into(),
        diagnostics
            .iter()
            .filter(|d| d.severity >= Severity::Error)
            .map(|d| json_input(sources, d))
            .collect(),
    );
    document
}

/// The JSON document of a check that could not run (a file that cannot be read, git failing,
/// a command line that names no versions): incompatible, as nothing was shown compatible, with
/// the reason as its one violation (`"rule": "input"`, no place).
pub fn json_failure_document(message: &str) -> Map<String, Value> {
    let mut violation = Map::new();
    violation.insert("rule".into(), json!("input"));
    violation.insert("code".into(), Value::Null);
    json_place(&mut violation, None);
    violation.insert("message".into(), json!(message));
    violation.insert("help".into(), json!([]));
    violation.insert("acknowledged".into(), json!(false));
    violation.insert("reason".into(), Value::Null);
    let mut document = Map::new();
    document.insert("verdict".into(), json!("incompatible"));
    document.insert("changes".into(), json!([]));
    document.insert("violations".into(), json!([Value::Object(violation)]));
    document
}

/// One GitHub workflow command: `::error file=F,line=L,col=C,title=idlc rule::message` (a
/// `::notice` once acknowledged). GitHub annotates the files of the pull request, so the place
/// is in NEW (`new_files`) when the violation has one there: the primary label, else a
/// secondary label, else where it is acknowledged; a place in OLD is named in the message.
pub fn github_line(sources: &SourceMap, violation: &Violation, new_files: &[FileId]) -> String {
    let command = if violation.acknowledged.is_some() {
        "notice"
    } else {
        "error"
    };
    let mut message = violation.message.clone();
    for help in helps(violation) {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    if let Some(allow) = &violation.acknowledged {
        message.push_str("\nacknowledged: ");
        message.push_str(&allow.reason);
    }
    let primary = position(sources, violation);
    let in_new = |file: FileId| new_files.contains(&file);
    let mut labels: Vec<&Label<FileId>> = violation.diagnostic.labels.iter().collect();
    labels.sort_by_key(|label| label.style != LabelStyle::Primary);
    let place = labels
        .iter()
        .find(|label| in_new(label.file_id))
        .map(|label| (label.file_id, label.range.start))
        .or(match &violation.anchor {
            Anchor::At(loc) if in_new(loc.file) => Some((loc.file, loc.span.start)),
            _ => None,
        })
        .and_then(|(file, at)| location(sources, file, at));
    let shown = match (place, primary) {
        (Some(place), Some(primary)) if place != primary => {
            message.push_str(&format!(
                "\n(in OLD: {}:{}:{})",
                primary.file, primary.line, primary.column
            ));
            Some(place)
        }
        (place, primary) => place.or(primary),
    };
    workflow_command(
        command,
        shown,
        &format!("idlc {}", violation.rule.name()),
        &message,
    )
}

fn location(sources: &SourceMap, file: FileId, at: usize) -> Option<Position> {
    let files = sources.files();
    let name = files.get(file).ok()?.name().clone();
    let location = files.location(file, at).ok()?;
    Some(Position {
        file: name,
        line: location.line_number,
        column: location.column_number,
    })
}

/// A diagnostic of the inputs (a syntax error, an unknown type, ...) as a GitHub workflow
/// command: `::error` for errors, `::warning` for warnings, `::notice` otherwise.
pub fn github_diagnostic(sources: &SourceMap, diagnostic: &Diagnostic) -> String {
    let command = match diagnostic.severity {
        Severity::Bug | Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note | Severity::Help => "notice",
    };
    let title = match &diagnostic.code {
        Some(code) => format!("idlc {code}"),
        None => "idlc".to_string(),
    };
    let mut message = diagnostic.message.clone();
    for note in &diagnostic.notes {
        message.push('\n');
        message.push_str(note);
    }
    workflow_command(
        command,
        diagnostic_position(sources, diagnostic),
        &title,
        &message,
    )
}

fn workflow_command(
    command: &str,
    position: Option<Position>,
    title: &str,
    message: &str,
) -> String {
    let mut properties = Vec::new();
    if let Some(p) = position {
        properties.push(format!("file={}", escape_property(&p.file)));
        properties.push(format!("line={}", p.line));
        properties.push(format!("col={}", p.column));
    }
    properties.push(format!("title={}", escape_property(title)));
    format!(
        "::{command} {}::{}",
        properties.join(","),
        escape_data(message)
    )
}

/// Escapes the message of a workflow command.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a workflow command.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compat::{Anchor, Rule};
    use crate::front::span::Span;
    use crate::ir::Loc;

    #[test]
    fn json_and_github_lines() {
        let mut sources = SourceMap::new();
        let file = sources.add("dir/new.idl", "STRUCT A {\n  UINT8 x;\n}\n");
        let loc = Loc::new(file, Span::new(19, 20));
        let violation = Violation::new(
            Rule::MissingFence,
            "`x` is added, 100% sure",
            Anchor::At(loc),
        )
        .primary(loc, "here")
        .help("add FENCE before `x`");
        let json: serde_json::Value =
            serde_json::from_str(&json_line(&sources, &violation)).unwrap();
        assert_eq!(json["rule"], "missing-fence");
        assert_eq!(json["code"], "E0606");
        assert_eq!(json["file"], "dir/new.idl");
        assert_eq!(json["line"], 2);
        assert_eq!(json["column"], 9);
        assert_eq!(json["acknowledged"], false);
        assert_eq!(json["help"][0], "add FENCE before `x`");
        assert_eq!(
            github_line(&sources, &violation, &[file]),
            "::error file=dir/new.idl,line=2,col=9,title=idlc missing-fence::`x` is added, 100%25 sure%0Ahelp: add FENCE before `x`"
        );
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");

        // A violation at its place in OLD is annotated in NEW, where it is acknowledged.
        let old = sources.add("old.idl", "STRUCT A {\n  UINT8 x;\n  UINT8 y;\n}\n");
        let gone = Violation::new(
            Rule::RemovedMember,
            "`y` is gone",
            Anchor::At(Loc::new(file, Span::new(7, 8))),
        )
        .primary(Loc::new(old, Span::new(30, 31)), "OLD has it")
        .help("keep it");
        assert_eq!(
            github_line(&sources, &gone, &[file]),
            "::error file=dir/new.idl,line=1,col=8,title=idlc removed-member::`y` is gone%0Ahelp: keep it%0A(in OLD: old.idl:3:9)"
        );
    }
}
