//! check-compat: the corpus of version pairs under `tests/compat/` and snapshots of what it
//! reports (the `idlc check-compat` command runs for real in cli/tests/check_compat.rs).
//!
//! A case is a directory with `old.idl` and `new.idl`, and optionally `old.enc` + `new.enc`
//! (one encoding file per version) and `with.idl` (a file both versions need, given as
//! `--with`). Under `pass/`, NEW is a compatible extension of OLD: no violation. Under
//! `fail/`, the first line of `new.idl` says what is expected, `// expect: rule-name`: at
//! least one violation, one of them of that rule; or `// expect: E0211`: NEW does not compile,
//! with a diagnostic of that code.

use std::path::{Path, PathBuf};

use idlc::Inputs;
use idlc::compat::{self, Outcome, Pair, Rule};
use idlc::load::MemoryFs;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/compat");

/// The case directories under `kind` (`pass` or `fail`), sorted.
fn cases(kind: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(Path::new(CORPUS).join(kind))
        .expect("the corpus directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Compiles a case from memory, its files named `<case>/old.idl` and so on; checks it when
/// both versions compile.
fn run_case(dir: &Path) -> (Pair, Option<Outcome>) {
    let name = dir.file_name().and_then(|n| n.to_str()).expect("a name");
    let mut fs = MemoryFs::new();
    let mut present = |file: &str| {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).ok()?;
        let virtual_path = PathBuf::from(format!("{name}/{file}"));
        fs.insert(&virtual_path, text);
        Some(virtual_path)
    };
    let old_idl = present("old.idl").expect("old.idl");
    let new_idl = present("new.idl").expect("new.idl");
    let old_enc = present("old.enc");
    let new_enc = present("new.enc");
    let with = present("with.idl");
    let inputs = |idl: PathBuf, encoding: Option<PathBuf>| Inputs {
        idl: std::iter::once(idl).chain(with.clone()).collect(),
        encodings: encoding.into_iter().collect(),
        ..Inputs::default()
    };
    let pair = compat::compile_pair(
        &inputs(old_idl, old_enc),
        &fs,
        &inputs(new_idl, new_enc),
        &fs,
    )
    .expect("every file of a case is readable");
    if pair.has_errors() {
        return (pair, None);
    }
    let mut outcome = compat::check(&pair.old, &pair.new);
    let warnings = compat::acknowledge(&mut outcome.violations, &pair.sources, &pair.new_files);
    assert!(warnings.is_empty(), "{name}: allow comments in the corpus");
    (pair, Some(outcome))
}

/// The `// expect: ...` of a failing case.
fn expected(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("new.idl")).expect("new.idl");
    text.lines()
        .next()
        .and_then(|line| line.strip_prefix("// expect:"))
        .map(|rule| rule.trim().to_string())
        .unwrap_or_else(|| panic!("{}: new.idl lacks `// expect: rule`", dir.display()))
}

/// What `idlc check-compat` prints for a case: the diagnostics of the inputs, then the
/// violations.
fn rendered(pair: &Pair, outcome: Option<&Outcome>) -> String {
    let mut text = pair.sources.render_plain(&pair.diagnostics);
    if let Some(outcome) = outcome {
        text.push_str(&pair.sources.render_plain(&outcome.diagnostics()));
    }
    text
}

#[test]
fn the_corpus_is_large_enough() {
    assert!(cases("pass").len() >= 15, "at least 15 compatible pairs");
    assert!(cases("fail").len() >= 25, "at least 25 incompatible pairs");
}

#[test]
fn every_compatible_pair_passes() {
    for dir in cases("pass") {
        let (pair, outcome) = run_case(&dir);
        let Some(outcome) = outcome else {
            panic!(
                "{}: does not compile\n{}",
                dir.display(),
                pair.sources.render_plain(&pair.diagnostics)
            );
        };
        assert!(
            outcome.violations.is_empty(),
            "{}: expected compatible\n{}",
            dir.display(),
            rendered(&pair, Some(&outcome))
        );
        assert!(outcome.is_compatible());
        // Each version is a compatible extension of itself, with nothing added.
        for ir in [&pair.old, &pair.new] {
            let same = compat::check(ir, ir);
            assert!(same.violations.is_empty() && same.changes.is_empty());
        }
    }
}

#[test]
fn every_incompatible_pair_reports_its_rule() {
    let mut seen = std::collections::BTreeSet::new();
    for dir in cases("fail") {
        let expect = expected(&dir);
        let (pair, outcome) = run_case(&dir);
        let text = rendered(&pair, outcome.as_ref());
        match outcome {
            None => {
                assert!(
                    expect.starts_with('E'),
                    "{}: does not compile\n{text}",
                    dir.display()
                );
                assert!(
                    text.contains(&format!("error[{expect}]")),
                    "{}: expected {expect}\n{text}",
                    dir.display()
                );
            }
            Some(outcome) => {
                let rule = Rule::from_name(&expect)
                    .unwrap_or_else(|| panic!("{}: no rule `{expect}`", dir.display()));
                assert!(!outcome.is_compatible(), "{}: accepted", dir.display());
                assert!(
                    outcome.violations.iter().any(|v| v.rule == rule),
                    "{}: expected {expect}\n{text}",
                    dir.display()
                );
                seen.extend(outcome.violations.iter().map(|v| v.rule));
                // Every violation names its rule and points somewhere, never at line 1 of a
                // file (where nothing of these cases is declared).
                for violation in &outcome.violations {
                    let position = compat::render::position(&pair.sources, violation)
                        .unwrap_or_else(|| panic!("{}: {violation:?}", dir.display()));
                    assert!(
                        position.line > 1 || !position.file.ends_with("new.idl"),
                        "{}: {violation:?}",
                        dir.display()
                    );
                    assert!(
                        violation
                            .diagnostic
                            .message
                            .starts_with(violation.rule.name())
                    );
                    assert!(
                        violation
                            .diagnostic
                            .notes
                            .iter()
                            .any(|n| n.starts_with("help: ")),
                        "{}: no help in {violation:?}",
                        dir.display()
                    );
                }
            }
        }
    }
    // The corpus breaks every rule but one: a DEFAULT outside its type never compiles (E0211),
    // so `default-out-of-range` is tested on a hand-made IR (src/compat/tests.rs).
    let missing: Vec<&str> = Rule::ALL
        .iter()
        .filter(|r| **r != Rule::DefaultOutOfRange && !seen.contains(r))
        .map(|r| r.name())
        .collect();
    assert!(missing.is_empty(), "rules no case breaks: {missing:?}");
}

#[test]
fn many_breaks_at_once_are_all_reported() {
    let (_, outcome) = run_case(&Path::new(CORPUS).join("fail/41_many_breaks_at_once"));
    let mut rules: Vec<&str> = outcome
        .expect("compiles")
        .violations
        .iter()
        .map(|v| v.rule.name())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    assert_eq!(
        rules,
        [
            "changed-member",
            "enum-changed",
            "missing-default",
            "missing-fence",
            "nested-not-open",
            "removed-item",
        ]
    );
}

#[test]
fn incompatible_pairs_render_their_diagnostics() {
    insta::glob!("compat/fail/*/new.idl", |path| {
        let dir = path.parent().expect("the case directory");
        let (pair, outcome) = run_case(dir);
        insta::assert_snapshot!(rendered(&pair, outcome.as_ref()));
    });
}

#[test]
fn compatible_pairs_diff_what_they_add() {
    let (pair, _) = run_case(&Path::new(CORPUS).join("pass/08_chain_v1_to_v3"));
    let diff = compat::normalize::diff(&pair.old, &pair.new, "OLD", "NEW");
    insta::assert_snapshot!(diff);
}

/// What `--prove` reports of a pair that does not cross (its check-compat verdict would fail
/// first; `prove` itself is asked directly here).
#[test]
fn prove_reports_values_that_do_not_cross() {
    let compile = |idl: &str| {
        let fs = MemoryFs::new().with("v.idl", idl);
        let inputs = Inputs {
            idl: vec!["v.idl".into()],
            ..Default::default()
        };
        idlc::compile_with(&inputs, &fs).expect("compiles").ir
    };
    let old = compile("STRUCT S { UINT16 a; BOOL b; }\n");
    let new = compile("STRUCT S { UINT8 a; BOOL b; }\n");
    let proof = idlc::compat::prove::prove(&old, &new, 20);
    assert_eq!(proof.cases, 1);
    assert!(!proof.failures.is_empty());
    assert!(
        proof.failures[0].contains("`S` in `Default`, OLD to NEW"),
        "{:?}",
        proof.failures
    );
}
