//! `idlc check-compat`, the command run for real (the binary): on the corpus of version pairs
//! under compiler/tests/compat/ (compiler/tests/compat.rs says what a case holds), on the
//! design source's pair, on git revisions (`--against`) and with `--prove`.

use std::path::Path;

use assert_cmd::Command;

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use common::*;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../compiler/tests/compat");

// ---- The command

fn idlc() -> Command {
    Command::cargo_bin("idlc").expect("the idlc binary is built")
}

/// Runs `idlc check-compat args...` in `dir`; returns (exit code, stdout, stderr).
fn run(dir: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let mut command = idlc();
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let output = command
        .arg("check-compat")
        .args(args)
        .output()
        .expect("run idlc");
    let stdout = String::from_utf8(output.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
    assert!(!stderr.contains('\x1b'), "colour on a pipe:\n{stderr}");
    (
        output.status.code().expect("exited, not killed"),
        stdout,
        stderr,
    )
}

fn case_file(case: &str, file: &str) -> String {
    format!("{CORPUS}/{case}/{file}")
}

#[test]
fn the_design_sources_pair_is_compatible() {
    let (code, stdout, stderr) = run(
        None,
        &[
            &seed("character.idl"),
            &schema("character_v2.idl"),
            "--with",
            &schema("item.idl"),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "");
    assert!(
        stderr.starts_with("note: compatible: 1 field added, 1 field widened\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("widened Character.character_id from UINT16 to UINT32"),
        "{stderr}"
    );
    // With the design source's encodings too: the old fields keep their rules.
    let (code, _, stderr) = run(
        None,
        &[
            &seed("character.idl"),
            &schema("character_v2.idl"),
            "--with",
            &schema("item.idl"),
            "--encoding",
            &seed("myencodinga.enc"),
            &seed("myencodinga_extended.enc"),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn an_incompatible_pair_exits_1_with_diagnostics() {
    let case = "fail/11_field_appended_without_fence";
    let (code, stdout, stderr) = run(
        None,
        &[&case_file(case, "old.idl"), &case_file(case, "new.idl")],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("error[E0606]: missing-fence"), "{stderr}");
    assert!(
        stderr.contains("help: add FENCE before `some_data`"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("error: NEW is not a compatible extension of OLD: 1 violation\n"),
        "{stderr}"
    );
}

#[test]
fn inputs_with_errors_exit_1_and_usage_errors_exit_2() {
    let dir = TempDir::new();
    let good = dir.file("good.idl", "STRUCT A { UINT8 x; }\n");
    let broken = dir.file("broken.idl", "STRUCT A { UINT8 ; }\n");
    let (code, _, stderr) = run(None, &[&good, &broken]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[E0102]"), "{stderr}");
    assert!(stderr.contains("could not check compatibility"), "{stderr}");
    // A CI tool reading JSON learns why there is no verdict: one object per input error.
    let (code, stdout, _) = run(None, &[&good, &broken, "--format", "json"]);
    assert_eq!(code, 1);
    let objects: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    assert_eq!(objects.len(), 1, "{stdout}");
    assert_eq!(
        (
            &objects[0]["rule"],
            &objects[0]["code"],
            &objects[0]["line"]
        ),
        (&"input".into(), &"E0102".into(), &1.into())
    );

    let missing = dir.path().join("missing.idl");
    let (code, _, stderr) = run(None, &[&good, &missing.to_string_lossy()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot read"), "{stderr}");

    let (code, _, stderr) = run(Some(dir.path()), &[&good]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("OLD.idl and NEW.idl"), "{stderr}");

    let (code, _, _) = run(None, &[&good, &good, &good]);
    assert_eq!(code, 2);
    let (code, _, _) = run(None, &[&good, &good, "--format", "xml"]);
    assert_eq!(code, 2);
    let (code, _, stderr) = run(None, &[&good, &good, "--encoding", "only-one.enc"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn json_prints_one_object_per_violation() {
    let case = "fail/41_many_breaks_at_once";
    let (code, stdout, stderr) = run(
        None,
        &[
            &case_file(case, "old.idl"),
            &case_file(case, "new.idl"),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON object per line"))
        .collect();
    assert!(lines.len() >= 6, "{stdout}");
    for line in &lines {
        for key in [
            "rule",
            "code",
            "file",
            "line",
            "column",
            "message",
            "acknowledged",
        ] {
            assert!(line.get(key).is_some(), "{key} missing in {line}");
        }
        assert_eq!(line["acknowledged"], false);
    }
    let fence = lines
        .iter()
        .find(|l| l["rule"] == "missing-fence")
        .expect("a missing-fence");
    assert!(
        fence["file"].as_str().unwrap().ends_with("new.idl"),
        "{fence}"
    );
    assert_eq!(fence["line"], 3);
    assert_eq!(fence["column"], 37);
    let removed = lines
        .iter()
        .find(|l| l["rule"] == "removed-item")
        .expect("a removed-item");
    assert!(removed["file"].as_str().unwrap().ends_with("old.idl"));
    assert_eq!(removed["line"], 9, "{removed}");
    assert!(
        stderr.starts_with("error: NEW is not a compatible extension"),
        "{stderr}"
    );
}

#[test]
fn github_prints_workflow_commands() {
    let case = "fail/21_fixed_point_resolution_changed";
    let (code, stdout, stderr) = run(
        None,
        &[
            &case_file(case, "old.idl"),
            &case_file(case, "new.idl"),
            "--encoding",
            &case_file(case, "old.enc"),
            &case_file(case, "new.enc"),
            "--format",
            "github",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    let line = stdout.lines().next().expect("an annotation");
    assert!(line.starts_with("::error file="), "{line}");
    assert!(
        line.contains("new.idl,line=2,col=33,title=idlc wire-rule-changed::"),
        "{line}"
    );
    assert!(line.contains("FIXED_POINT(0.02)"), "{line}");
    assert!(!line.contains('\n'));
}

#[test]
fn an_acknowledged_break_passes() {
    let dir = TempDir::new();
    let old = dir.file(
        "old.idl",
        "STRUCT Player {\n  UINT32 id;\n  INT[0,200] health;\n}\n",
    );
    let new = dir.file(
        "new.idl",
        "STRUCT Player {\n  UINT32 id;\n  // idlc:allow(changed-member): only the name changes, every peer updates\n  INT[0,200] hp;\n}\n",
    );
    let (code, stdout, stderr) = run(None, &[&old, &new, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one violation");
    assert_eq!(line["rule"], "changed-member");
    assert_eq!(line["acknowledged"], true);
    assert_eq!(line["reason"], "only the name changes, every peer updates");
    assert!(
        stderr.contains("compatible: no changes (1 break acknowledged)"),
        "{stderr}"
    );
    let (code, _, stderr) = run(None, &[&old, &new]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("note[E0604]: acknowledged changed-member"),
        "{stderr}"
    );
    // Without the comment, the same change fails.
    let bare = dir.file(
        "bare.idl",
        "STRUCT Player {\n  UINT32 id;\n  INT[0,200] hp;\n}\n",
    );
    let (code, _, _) = run(None, &[&old, &bare]);
    assert_eq!(code, 1);
}

#[test]
fn diff_shows_the_normalized_versions() {
    let case = "pass/02_uint16_to_uint32";
    let (code, stdout, stderr) = run(
        None,
        &[
            &case_file(case, "old.idl"),
            &case_file(case, "new.idl"),
            "--diff",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("--- OLD "), "{stdout}");
    assert!(stdout.contains("+++ NEW "), "{stdout}");
    assert!(
        stdout.contains("+  EXTEND client_id TO UINT32;"),
        "{stdout}"
    );
}

/// Runs git in `dir`; false when git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> bool {
    std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=idlc tests",
            "-c",
            "user.email=tests@idlc.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn against_reads_old_from_git() {
    let repo = TempDir::new();
    if !git(repo.path(), &["init", "-q"]) {
        eprintln!("git is not available: skipped");
        return;
    }
    repo.file(
        "schemas/item.idl",
        "STRUCT Item { UINT32 item_id; FENCE }\n",
    );
    repo.file(
        "schemas/game.idl",
        "IMPORT \"item.idl\";\nSTRUCT Player {\n  UINT32 id;\n  SEQUENCE<Item> items;\n}\n",
    );
    repo.file("idlc.toml", "idl = [\"schemas/game.idl\"]\n");
    assert!(git(repo.path(), &["add", "."]));
    assert!(git(repo.path(), &["commit", "-q", "-m", "v1"]));

    // Nothing changed yet.
    let (code, _, stderr) = run(
        Some(repo.path()),
        &["--against", "HEAD", "schemas/game.idl"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("compatible: no changes"), "{stderr}");

    // A compatible version 2, also through idlc.toml, also with the import given as --with.
    repo.file(
        "schemas/game.idl",
        "IMPORT \"item.idl\";\nSTRUCT Player {\n  UINT32 id;\n  SEQUENCE<Item> items;\n  FENCE\n  BOOL ready DEFAULT = false;\n}\n",
    );
    repo.file(
        "schemas/item.idl",
        "STRUCT Item { UINT32 item_id; FENCE UINT8 count DEFAULT = 1; }\n",
    );
    let (code, _, stderr) = run(
        Some(repo.path()),
        &["--against", "HEAD", "schemas/game.idl"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("added field Player.ready (BOOL)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("added field Item.count (UINT8)"),
        "{stderr}"
    );
    let (code, _, stderr) = run(Some(repo.path()), &["--against", "HEAD"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(
        Some(repo.path()),
        &[
            "--against",
            "HEAD",
            "schemas/game.idl",
            "--with",
            "schemas/item.idl",
        ],
    );
    assert_eq!(code, 0, "{stderr}");

    // An incompatible one: OLD's lines are shown as they are at the revision.
    repo.file(
        "schemas/game.idl",
        "IMPORT \"item.idl\";\nSTRUCT Player {\n  UINT64 id;\n  SEQUENCE<Item> items;\n}\n",
    );
    let (code, stdout, stderr) = run(
        Some(repo.path()),
        &[
            "--against",
            "HEAD",
            "--format",
            "github",
            "schemas/game.idl",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout
            .starts_with("::error file=schemas/game.idl,line=3,col=10,title=idlc changed-member::"),
        "{stdout}"
    );
    let (code, _, stderr) = run(
        Some(repo.path()),
        &["--against", "HEAD", "schemas/game.idl"],
    );
    assert_eq!(code, 1);
    assert!(stderr.contains("HEAD:/schemas/game.idl:3:"), "{stderr}");

    // A file added since the revision: OLD has nothing of it.
    repo.file("schemas/new.idl", "STRUCT Fresh { UINT8 x; }\n");
    let (code, _, stderr) = run(Some(repo.path()), &["--against", "HEAD", "schemas/new.idl"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("does not exist at HEAD"), "{stderr}");

    // A revision git does not know, and two files with --against: usage errors.
    let (code, _, stderr) = run(
        Some(repo.path()),
        &["--against", "no-such-ref", "schemas/game.idl"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no-such-ref"), "{stderr}");
    let (code, _, _) = run(
        Some(repo.path()),
        &["--against", "HEAD", "schemas/game.idl", "schemas/item.idl"],
    );
    assert_eq!(code, 2);
}

/// schemas/versions/: a chain of three versions whose nested struct grows in each (the
/// integration tests cross their generated code both ways): every step, and the jump from the
/// first to the last, is compatible; no step backwards is.
#[test]
fn the_squad_chain_is_compatible_forwards_only() {
    let version = |v: u8| schema(&format!("versions/squad_v{v}.idl"));
    for (old, new) in [(1, 2), (2, 3), (1, 3)] {
        let (code, _, stderr) = run(None, &[&version(old), &version(new)]);
        assert_eq!(code, 0, "v{old} -> v{new}: {stderr}");
    }
    for (old, new) in [(2, 1), (3, 2), (3, 1)] {
        let (code, _, stderr) = run(None, &[&version(old), &version(new)]);
        assert_eq!(code, 1, "v{old} -> v{new}: {stderr}");
    }
}

/// `--prove N` crosses random values both ways through the interpreter after a compatible
/// verdict: the seed pair and the squad chain pass, and say how much they crossed.
#[test]
fn prove_crosses_random_values_of_a_compatible_pair() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let squad = |v: &str| {
        root.join(format!("schemas/versions/squad_{v}.idl"))
            .display()
            .to_string()
    };
    let enc = root
        .join("schemas/versions/squad.enc")
        .display()
        .to_string();
    let (code, _, stderr) = run(
        None,
        &[
            &squad("v1"),
            &squad("v3"),
            "--encoding",
            &enc,
            &enc,
            "--prove",
            "30",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("proved: 240 values crossed both ways"),
        "{stderr}"
    );
    // A DELTA SEQUENCE of a struct that grows: its deltas cross both ways too.
    let pair = |file: &str| {
        root.join("compiler/tests/compat/pass/23_delta_sequence_of_open_struct_grows")
            .join(file)
            .display()
            .to_string()
    };
    let (code, _, stderr) = run(
        None,
        &[
            &pair("old.idl"),
            &pair("new.idl"),
            "--encoding",
            &pair("old.enc"),
            &pair("new.enc"),
            "--prove",
            "20",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("2 structs x encodings, 40 deltas"),
        "{stderr}"
    );
}
