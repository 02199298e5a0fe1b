//! Structs that contain themselves without a SEQUENCE or OPTIONAL in between have no finite
//! encoding: found here, after all types resolve.

use std::collections::HashMap;

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;

use crate::diagnostics::{Diagnostic, codes, primary, secondary};
use crate::ir::{Field, Schema, Type};

/// How deep the search follows direct containment; a cycle longer than this goes unreported
/// here (and no real schema nests structs that deep).
const MAX_DEPTH: usize = 256;

#[derive(Clone, Copy, PartialEq)]
enum Mark {
    InProgress,
    Done,
}

/// Reports every cycle of direct containment (a field, or an ARRAY of it) once.
pub(super) fn check(schema: &Schema, diagnostics: &mut Vec<Diagnostic>) {
    let mut marks: HashMap<&str, Mark> = HashMap::new();
    let mut path: Vec<(&str, &Field)> = Vec::new();
    for name in schema.structs.keys() {
        visit(schema, name, &mut marks, &mut path, diagnostics);
    }
}

fn visit<'s>(
    schema: &'s Schema,
    name: &'s str,
    marks: &mut HashMap<&'s str, Mark>,
    path: &mut Vec<(&'s str, &'s Field)>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if marks.contains_key(name) {
        return;
    }
    let Some(def) = schema.structs.get(name) else {
        return;
    };
    marks.insert(name, Mark::InProgress);
    for field in def.fields() {
        let Some(target) = directly_contained(&field.ty) else {
            continue;
        };
        match marks.get(target) {
            Some(Mark::InProgress) => {
                let start = path
                    .iter()
                    .position(|(s, _)| *s == target)
                    .unwrap_or(path.len());
                let mut chain: Vec<&(&str, &Field)> = path[start..].iter().collect();
                let closing = (name, field);
                chain.push(&closing);
                report(schema, target, &chain, diagnostics);
            }
            Some(Mark::Done) => {}
            None if path.len() >= MAX_DEPTH => {}
            None => {
                path.push((name, field));
                visit(schema, target, marks, path, diagnostics);
                path.pop();
            }
        }
    }
    marks.insert(name, Mark::Done);
}

fn directly_contained(ty: &Type) -> Option<&str> {
    match ty {
        Type::Struct(name) => Some(name),
        Type::Array { element, .. } => directly_contained(element),
        _ => None,
    }
}

fn report(
    schema: &Schema,
    target: &str,
    chain: &[&(&str, &Field)],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(&&(_, closing)) = chain.last() else {
        return;
    };
    let description: Vec<String> = chain
        .iter()
        .map(|(owner, field)| format!("{owner}.{}", field.name))
        .collect();
    let mut labels = vec![
        primary(closing.loc.file, closing.loc.span)
            .with_message(format!("`{target}` contains itself through this field")),
    ];
    if let Some(def) = schema.structs.get(target) {
        labels.push(
            secondary(def.loc.file, def.loc.span)
                .with_message(format!("`{target}` is declared here")),
        );
    }
    diagnostics.push(
        CodespanDiagnostic::error()
            .with_code(codes::INFINITE_RECURSION)
            .with_message(format!(
                "`{target}` contains itself: it would be infinitely large"
            ))
            .with_labels(labels)
            .with_notes(vec![
                format!("the chain: {}", description.join(" -> ")),
                "break the cycle with OPTIONAL<...> or SEQUENCE<...>".into(),
            ]),
    );
}
