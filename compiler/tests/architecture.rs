//! The architecture's invariants that the compiler cannot check (docs/ARCHITECTURE.md):
//!
//! - only `ir/` decides the wire: the helpers that used to decide it twice (in codegen and in
//!   the interpreter) are defined in `ir/` alone;
//! - no import cycle among the files of one directory of the compiler (`codegen/`, `cli/`,
//!   `interpret/`, ...): a file names a sibling through `super::sibling`, and those references
//!   form no cycle;
//! - no import cycle among the modules of the runtime (runtime/src): they name each other through
//!   `crate::module`, and those references form no cycle;
//! - no backend (`codegen/`, `cppgen/`) reaches back into `resolve/`: what both need (the C++
//!   reserved words, `ir::naming`) is in `ir/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the source tree is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Definitions that decide the wire format, and so belong in `ir/` alone (issue 28: each was
/// written twice or three times, in codegen/ and interpret/).
const WIRE_DECISIONS: &[&str] = &[
    "fn is_recursive",
    "fn split_widening",
    "struct FieldView",
    "fn packable_run",
    "fn packed_runs",
    "fn length_type",
    "enum Plan",
    "fn is_delta_sequence",
    "fn publishable_element",
    "fn link_version_ids",
    "struct Link<",
];

#[test]
fn only_ir_decides_the_wire() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut found = Vec::new();
    for file in &files {
        if file.starts_with(root.join("ir")) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_start();
            for name in WIRE_DECISIONS {
                let defines = line
                    .strip_prefix("pub ")
                    .or_else(|| line.strip_prefix("pub(crate) "))
                    .or_else(|| line.strip_prefix("pub(super) "))
                    .unwrap_or(line)
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['(', '<', ' ', '{']));
                if defines {
                    found.push(format!("{}:{}: {line}", file.display(), number + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the wire is decided in ir/ (ir/plan.rs), not here:\n{}",
        found.join("\n")
    );
}

/// The siblings a file names: `super::x` where `x.rs` is a file of the same directory, also
/// inside `use super::{x, y::z}` groups. A bare `x` that the parent module also defines as a
/// function (`fn x`, which lives beside `mod x` in the value namespace) is that function.
fn sibling_references(
    text: &str,
    siblings: &BTreeSet<String>,
    parent_fns: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("super::") {
        rest = &rest[at + "super::".len()..];
        // Each name with whether a path continues after it (`x::y`: x is a module).
        let names: Vec<(&str, bool)> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end]
                .split(',')
                .map(|part| {
                    let part = part.trim();
                    let name = part.split("::").next().unwrap_or("");
                    (name, part.len() > name.len())
                })
                .collect()
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            vec![(&rest[..end], rest[end..].starts_with("::"))]
        };
        out.extend(
            names
                .into_iter()
                .filter(|(name, path)| {
                    siblings.contains(*name) && (*path || !parent_fns.contains(*name))
                })
                .map(|(name, _)| name.to_string()),
        );
    }
    out
}

/// A cycle in `graph`, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_backend_reaches_back_into_resolve() {
    let root = src();
    let mut found = Vec::new();
    for backend in ["codegen", "cppgen"] {
        let mut files = Vec::new();
        rust_files(&root.join(backend), &mut files);
        for file in &files {
            let text = std::fs::read_to_string(file).expect("a readable source file");
            for (number, line) in text.lines().enumerate() {
                if line.contains("crate::resolve") {
                    found.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "a backend names resolve/ (move what it needs into ir/):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_import_cycle_among_the_files_of_a_directory() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut dirs: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for file in files {
        let dir = file.parent().expect("a file in a directory").to_path_buf();
        dirs.entry(dir).or_default().push(file);
    }
    let mut cycles = Vec::new();
    for (dir, files) in &dirs {
        let stem = |f: &PathBuf| {
            f.file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string()
        };
        let siblings: BTreeSet<String> = files
            .iter()
            .map(stem)
            .filter(|s| s != "mod" && s != "lib" && s != "main")
            .collect();
        let parent = std::fs::read_to_string(dir.join("mod.rs")).unwrap_or_default();
        let parent_fns: BTreeSet<String> = siblings
            .iter()
            .filter(|name| {
                parent.contains(&format!("fn {name}(")) || parent.contains(&format!("fn {name}<"))
            })
            .cloned()
            .collect();
        let mut graph = BTreeMap::new();
        for file in files {
            let name = stem(file);
            if !siblings.contains(&name) {
                continue;
            }
            let text = std::fs::read_to_string(file).expect("a readable source file");
            graph.insert(name, sibling_references(&text, &siblings, &parent_fns));
        }
        if let Some(cycle) = find_cycle(&graph) {
            cycles.push(format!("{}: {}", dir.display(), cycle.join(" -> ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The top-level modules of the runtime a file's code (not its comments, not its tests) names
/// through `crate::module`.
fn crate_references(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut out = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if modules.contains(&rest[..end]) {
                out.insert(rest[..end].to_string());
            }
        }
    }
    out
}

#[test]
fn no_import_cycle_among_the_runtime_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    // A file's module: its stem at the top, its directory's name below (rule/vlq.rs is `rule`).
    let module = |f: &PathBuf| -> String {
        let relative = f.strip_prefix(&root).expect("under runtime/src");
        let first = relative.components().next().expect("a path");
        let first = first.as_os_str().to_str().unwrap_or_default();
        first.strip_suffix(".rs").unwrap_or(first).to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(module).filter(|m| m != "lib").collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let name = module(file);
        if name == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let mut names = crate_references(&text, &modules);
        names.remove(&name);
        graph.entry(name).or_default().extend(names);
    }
    assert!(graph.len() > 10, "the runtime's modules: {graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("an import cycle in runtime/src: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let siblings: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let none = BTreeSet::new();
    assert_eq!(
        sibling_references("use super::{a::X, b};\nsuper::c::f();", &siblings, &none),
        siblings
    );
    let b_is_a_fn: BTreeSet<String> = ["b".to_string()].into();
    assert_eq!(
        sibling_references("use super::{a::X, b};", &siblings, &b_is_a_fn),
        ["a".to_string()].into()
    );
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), ["b".to_string()].into()),
        ("b".to_string(), ["c".to_string()].into()),
        ("c".to_string(), ["a".to_string()].into()),
    ]
    .into();
    assert_eq!(
        find_cycle(&graph),
        Some(
            vec!["a", "b", "c", "a"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    let acyclic: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), ["b".to_string()].into()),
        ("b".to_string(), BTreeSet::new()),
    ]
    .into();
    assert_eq!(find_cycle(&acyclic), None);
}
