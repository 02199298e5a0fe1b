//! The compiler's diagnostics as LSP's: one per diagnostic, in the file of its primary label,
//! with its other labels (in any file) as related information.

use std::collections::BTreeMap;

use codespan_reporting::diagnostic::{LabelStyle, Severity};
use lsp_types::{
    Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Url,
};

use super::text::LineIndex;
use crate::diagnostics::{Diagnostic, FileId, SourceMap};

/// The diagnostics of every file of `sources`, by file (files without any included, with an
/// empty list, so that an editor clears what it showed).
pub fn by_file(
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
) -> BTreeMap<Url, Vec<LspDiagnostic>> {
    let mut files: BTreeMap<Url, Vec<LspDiagnostic>> = (0..sources.len())
        .filter_map(|file| uri(sources, file))
        .map(|uri| (uri, Vec::new()))
        .collect();
    for diagnostic in diagnostics {
        let Some(primary) = diagnostic
            .labels
            .iter()
            .find(|label| label.style == LabelStyle::Primary)
            .or(diagnostic.labels.first())
        else {
            continue;
        };
        let Some(file_uri) = uri(sources, primary.file_id) else {
            continue;
        };
        let index = LineIndex::new(sources.source(primary.file_id));
        let mut message = diagnostic.message.clone();
        if !primary.message.is_empty() {
            message = format!("{message}: {}", primary.message);
        }
        for note in &diagnostic.notes {
            message.push('\n');
            message.push_str(note);
        }
        let related: Vec<DiagnosticRelatedInformation> = diagnostic
            .labels
            .iter()
            .filter(|label| !std::ptr::eq(*label, primary))
            .filter_map(|label| {
                let uri = uri(sources, label.file_id)?;
                let index = LineIndex::new(sources.source(label.file_id));
                Some(DiagnosticRelatedInformation {
                    location: Location::new(uri, index.range(label.range.start, label.range.end)),
                    message: if label.message.is_empty() {
                        "here".to_string()
                    } else {
                        label.message.clone()
                    },
                })
            })
            .collect();
        files.entry(file_uri).or_default().push(LspDiagnostic {
            range: index.range(primary.range.start, primary.range.end),
            severity: Some(severity(diagnostic.severity)),
            code: diagnostic.code.clone().map(NumberOrString::String),
            source: Some("idlc".to_string()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            ..LspDiagnostic::default()
        });
    }
    files
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Bug | Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
        Severity::Help => DiagnosticSeverity::HINT,
    }
}

/// The `file://` URI of a file of `sources`.
pub fn uri(sources: &SourceMap, file: FileId) -> Option<Url> {
    let path = sources.path(file);
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    Url::from_file_path(absolute).ok()
}
