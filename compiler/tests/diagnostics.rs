//! Snapshot tests of rendered diagnostics: one `.case` file per error kind under
//! `tests/diagnostics/`.
//!
//! A case file holds several source files, each introduced by a line `=== name.ext` (the
//! extension picks the language); an optional first line `// side: S` picks the mapping side.
//! The snapshot is the plain rendering of every diagnostic, as `idlc check` prints it.

use std::path::PathBuf;

use idlc::Inputs;
use idlc::load::MemoryFs;

/// Splits a case into its files and the side.
fn split_case(text: &str) -> (Vec<(String, String)>, Option<String>) {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut side = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("=== ") {
            files.push((name.trim().to_string(), String::new()));
        } else if let Some((_, body)) = files.last_mut() {
            body.push_str(line);
            body.push('\n');
        } else if let Some(s) = line.strip_prefix("// side:") {
            side = Some(s.trim().to_string());
        }
    }
    (files, side)
}

/// Compiles a case and renders its diagnostics.
fn render_case(text: &str) -> String {
    let (files, side) = split_case(text);
    let mut fs = MemoryFs::new();
    let mut inputs = Inputs {
        side,
        ..Inputs::default()
    };
    for (name, body) in &files {
        fs.insert(name, body.as_bytes());
        let path = PathBuf::from(name);
        match path.extension().and_then(|e| e.to_str()) {
            Some("enc") => inputs.encodings.push(path),
            Some("map") => inputs.mappings.push(path),
            _ => inputs.idl.push(path),
        }
    }
    // Files that another file IMPORTs are read through the import, not named twice.
    let imported: Vec<String> = files
        .iter()
        .flat_map(|(_, body)| body.lines())
        .filter_map(|line| line.trim().strip_prefix("IMPORT"))
        .filter_map(|rest| rest.split('"').nth(1).map(str::to_string))
        .collect();
    inputs
        .idl
        .retain(|p| !imported.iter().any(|i| p.as_os_str() == i.as_str()));
    let compilation = idlc::compile_with(&inputs, &fs).expect("every file of a case is readable");
    compilation.sources.render_plain(&compilation.diagnostics)
}

#[test]
fn every_case_renders_its_diagnostics() {
    insta::glob!("diagnostics/*.case", |path| {
        let text = std::fs::read_to_string(path).expect("case file");
        let rendered = render_case(&text);
        assert!(
            rendered.contains("error") || rendered.contains("warning"),
            "{} produced no diagnostic:\n{text}",
            path.display()
        );
        insta::assert_snapshot!(rendered);
    });
}

#[test]
fn at_least_forty_distinct_error_codes_are_covered() {
    let mut codes = std::collections::BTreeSet::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/diagnostics");
    for entry in std::fs::read_dir(dir).expect("case dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "case") {
            let rendered = render_case(&std::fs::read_to_string(&path).expect("case"));
            for line in rendered.lines() {
                if let Some(rest) = line.strip_prefix("error[") {
                    codes.insert(rest.split(']').next().unwrap_or("").to_string());
                }
            }
        }
    }
    assert!(
        codes.len() >= 40,
        "only {} distinct error codes: {codes:?}",
        codes.len()
    );
}

#[test]
fn every_code_is_documented() {
    let codes = include_str!("../src/diagnostics/codes.rs");
    let docs = include_str!("../../docs/DIAGNOSTICS.md");
    for line in codes
        .lines()
        .filter(|l| l.trim_start().starts_with("pub const"))
    {
        let code = line.split('"').nth(1).unwrap_or_default();
        assert!(
            docs.contains(&format!("| {code} |")),
            "{code} is missing from docs/DIAGNOSTICS.md"
        );
    }
}
