//! `idlc check-compat`, the command run for real (the binary): on the corpus of version pairs
//! under compiler/tests/compat/ (compiler/tests/compat.rs says what a case holds), on the
//! design source's pair, on git revisions (`--against`) and with `--prove`.

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

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

/// Runs `idlc check-compat args... --format json`; returns (exit code, the one JSON document on
/// stdout, stderr).
fn run_json(args: &[&str]) -> (i32, Value, String) {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    let (code, stdout, stderr) = run(None, &args);
    assert_eq!(
        stdout.lines().count(),
        1,
        "one document on one line:\n{stdout}"
    );
    let document: Value = serde_json::from_str(&stdout).expect("a JSON document");
    for key in ["verdict", "changes", "violations"] {
        assert!(document.get(key).is_some(), "{key} missing in {document}");
    }
    (code, document, stderr)
}

/// A change of a JSON document as (kind, item, file name, line, column).
fn change_of(change: &Value) -> (&str, &str, &str, u64, u64) {
    let file = change["file"].as_str().expect("a file");
    (
        change["kind"].as_str().expect("a kind"),
        change["item"].as_str().expect("an item"),
        Path::new(file)
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a file name"),
        change["line"].as_u64().expect("a line"),
        change["column"].as_u64().expect("a column"),
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

/// `--format json` prints one document whatever the verdict; for a compatible pair, the changes
/// the human summary lists, each at its place in NEW.
#[test]
fn json_documents_the_changes_of_a_compatible_pair() {
    let (code, document, stderr) = run_json(&[
        &seed("character.idl"),
        &schema("character_v2.idl"),
        "--with",
        &schema("item.idl"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(document["verdict"], "compatible");
    assert_eq!(document["violations"], json!([]));
    let changes = document["changes"].as_array().expect("changes");
    assert_eq!(
        changes.iter().map(change_of).collect::<Vec<_>>(),
        [
            (
                "field-widened",
                "Character.character_id",
                "character_v2.idl",
                28,
                3
            ),
            (
                "field-added",
                "Character.some_data",
                "character_v2.idl",
                29,
                10
            ),
        ]
    );
    assert_eq!(
        changes[0]["message"],
        "widened Character.character_id from UINT16 to UINT32"
    );
    assert_eq!(
        changes[1]["message"],
        "added field Character.some_data (UINT32)"
    );
    // stderr says the verdict as in the human format.
    assert!(
        stderr.starts_with("note: compatible: 1 field added, 1 field widened\n"),
        "{stderr}"
    );

    // A version against itself: compatible, nothing changed, and nothing else said.
    let same = schema("character_v2.idl");
    let (code, document, _) = run_json(&[&same, &same, "--with", &schema("item.idl")]);
    assert_eq!(code, 0);
    assert_eq!(
        document,
        json!({"verdict": "compatible", "changes": [], "violations": []})
    );
}

/// `--format json` prints its one document when the check cannot run too (CI reads stdout
/// whatever happened): a file that cannot be read, a command line without NEW. Exit 2, the
/// reason as the one violation, and on stderr as in the human format.
#[test]
fn json_documents_a_check_that_cannot_run() {
    let missing = "/nonexistent/new.idl";
    let (code, document, stderr) = run_json(&[&seed("character.idl"), missing]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(document["verdict"], "incompatible");
    assert_eq!(document["changes"], json!([]));
    let violations = document["violations"].as_array().expect("violations");
    assert_eq!(violations.len(), 1, "{document}");
    assert_eq!(violations[0]["rule"], "input");
    let message = violations[0]["message"].as_str().expect("a message");
    assert!(message.contains(missing), "{message}");
    assert!(stderr.contains(missing), "{stderr}");

    let (code, document, _) = run_json(&[&seed("character.idl")]);
    assert_eq!(code, 2);
    assert_eq!(document["verdict"], "incompatible");
    assert!(
        document["violations"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("NEW.idl")),
        "{document}"
    );
}

/// Every kind of change check-compat recognises, in the JSON document.
#[test]
fn json_names_every_kind_of_change() {
    let dir = TempDir::new();
    let old = dir.file(
        "old.idl",
        "STRUCT Pos { UINT16 id; }\nPROTOCOL Lobby {\n  MESSAGE Join { UINT8 team; }\n}\n",
    );
    let new = dir.file(
        "new.idl",
        "STRUCT Pos {\n  UINT16 id;\n  FENCE\n  EXTEND id TO UINT32;\n  BOOL ready DEFAULT = false;\n  FENCE\n}\nENUM Weather { Sunny, Rain }\nPROTOCOL Lobby {\n  MESSAGE Join { UINT8 team; }\n  FENCE\n  MESSAGE Chat { STRING<200> text; }\n}\n",
    );
    let old_enc = dir.file("old.enc", "ENCODING(S2C) STRUCT Pos { UINT16 id; }\n");
    let new_enc = dir.file(
        "new.enc",
        "ENCODING(S2C) STRUCT Pos { UINT16 id; }\nENCODING(Debug) BITSTREAM;\n",
    );
    let (code, document, stderr) = run_json(&[&old, &new, "--encoding", &old_enc, &new_enc]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(document["verdict"], "compatible");
    let changes = document["changes"].as_array().expect("changes");
    assert_eq!(
        changes.iter().map(change_of).collect::<Vec<_>>(),
        [
            ("field-widened", "Pos.id", "new.idl", 4, 3),
            ("field-added", "Pos.ready", "new.idl", 5, 8),
            ("open-end-added", "Pos", "new.idl", 6, 3),
            ("entry-added", "Lobby.Chat", "new.idl", 12, 11),
            ("item-added", "Weather", "new.idl", 8, 6),
            ("encoding-added", "Debug", "new.enc", 2, 10),
        ],
        "{document}"
    );
    for change in changes {
        let mut keys: Vec<&String> = change.as_object().expect("an object").keys().collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["column", "file", "item", "kind", "line", "message"],
            "{change}"
        );
    }
}

/// With `--prove`, the document says what crossing found; with `--diff`, it holds the diff
/// (stdout stays one document).
#[test]
fn json_holds_the_proof_and_the_diff() {
    let case = "pass/19_encoding_extend_and_delta";
    let args = [
        &case_file(case, "old.idl"),
        &case_file(case, "new.idl"),
        "--encoding",
        &case_file(case, "old.enc"),
        &case_file(case, "new.enc"),
    ];
    let (_, plain, _) = run_json(&args);
    assert!(plain.get("proof").is_none() && plain.get("diff").is_none());

    let mut proving = args.to_vec();
    proving.extend(["--prove", "10", "--diff"]);
    let (code, document, stderr) = run_json(&proving);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(document["verdict"], "compatible");
    let proof = &document["proof"];
    assert_eq!(proof["failures"], json!([]), "{proof}");
    assert_eq!(proof["structs_x_encodings"], 2, "{proof}");
    assert_eq!(proof["values"], 20, "{proof}");
    assert_eq!(proof["deltas"], 20, "{proof}");
    assert!(proof["skipped"].is_u64(), "{proof}");
    let diff = document["diff"].as_str().expect("the diff");
    assert!(diff.contains("+  EXTEND id TO UINT32;"), "{diff}");

    // No proof is made of an incompatible pair: `proof` is null.
    let case = "fail/11_field_appended_without_fence";
    let (code, document, _) = run_json(&[
        &case_file(case, "old.idl"),
        &case_file(case, "new.idl"),
        "--prove",
        "10",
    ]);
    assert_eq!(code, 1);
    assert_eq!(document["verdict"], "incompatible");
    assert_eq!(document["proof"], Value::Null);
}

/// Version 1 and 2 of a kart's encoding: the resolution of `x` (written on line 8) and the
/// DEFAULTS of NUMERIC (line 2, giving `y`, named on line 9, and `angle`, not named).
fn kart_encoding(x: &str, numeric: &str) -> String {
    format!(
        "ENCODING(S2C) DEFAULTS {{\n  NUMERIC: FIXED_POINT({numeric});\n}}\n\nENCODING(S2C) PUBLISHABLE_STRUCT Kart {{\n  UINT8 id;\n  DELTA {{\n    FIXED_POINT({x}) x;\n    y;\n  }}\n}}\n"
    )
}

/// A wire rule changed in an Encoding file is reported at the line of NEW's file that changed,
/// the IDL field as a second place, in the human output and in JSON alike.
#[test]
fn a_changed_wire_rule_points_at_the_new_encoding_line() {
    let dir = TempDir::new();
    let idl = dir.file(
        "kart.idl",
        "// A kart.\nPUBLISHABLE_STRUCT Kart {\n  UINT8 id;\n  NUMERIC[-500,500] x;\n  NUMERIC[-500,500] y;\n  NUMERIC[0,360] angle;\n}\n",
    );
    let old = dir.file("old.enc", kart_encoding("0.01", "0.01"));
    let new = dir.file("new.enc", kart_encoding("0.02", "0.01"));
    let args = [&idl, &idl, "--encoding", &old, &new];
    let (code, _, stderr) = run(None, &args);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("error[E0613]: wire-rule-changed: `Kart.x`"),
        "{stderr}"
    );
    let at = |file: &str, line: usize, column: usize| {
        format!("{}:{line}:{column}", dir.path().join(file).display())
    };
    // NEW's line first, then the IDL field, then OLD's line.
    let places: Vec<usize> = [
        at("new.enc", 8, 5),
        at("kart.idl", 4, 21),
        at("old.enc", 8, 5),
    ]
    .iter()
    .map(|place| {
        stderr
            .find(&format!("┌─ {place}\n"))
            .unwrap_or_else(|| panic!("{place} in\n{stderr}"))
    })
    .collect();
    assert!(places.is_sorted(), "{stderr}");
    assert!(
        stderr.contains("FIXED_POINT(0.02) in 16 bits in NEW's `S2C`"),
        "{stderr}"
    );
    let (code, document, _) = run_json(&args);
    assert_eq!(code, 1);
    let violations = document["violations"].as_array().expect("violations");
    assert_eq!(violations.len(), 1, "{document}");
    assert_eq!(
        (
            &violations[0]["code"],
            &violations[0]["file"],
            &violations[0]["line"],
            &violations[0]["column"]
        ),
        (&json!("E0613"), &json!(new), &json!(8), &json!(5))
    );

    // A DEFAULTS rule changed: every field it gives a rule, named in a block or not, points at
    // NEW's DEFAULTS line.
    let defaults = dir.file("defaults.enc", kart_encoding("0.01", "0.1"));
    let (code, document, _) = run_json(&[&idl, &idl, "--encoding", &old, &defaults]);
    assert_eq!(code, 1);
    let places: Vec<(&Value, &Value, &Value)> = document["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| (&v["message"], &v["line"], &v["column"]))
        .collect();
    assert_eq!(places.len(), 2, "{document}");
    for (message, line, column) in places {
        assert_eq!((line, column), (&json!(2), &json!(12)), "{message}");
    }

    // The break is acknowledged where it points, in NEW's Encoding file.
    let allowed = dir.file(
        "allowed.enc",
        kart_encoding("0.02", "0.01").replace(
            "    FIXED_POINT(0.02) x;",
            "    // idlc:allow(wire-rule-changed): every peer updates together\n    FIXED_POINT(0.02) x;",
        ),
    );
    let (code, _, stderr) = run(None, &[&idl, &idl, "--encoding", &old, &allowed]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("1 break acknowledged"), "{stderr}");
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
    // A CI tool reading JSON learns why there is no verdict: one violation per input error.
    let (code, document, _) = run_json(&[&good, &broken]);
    assert_eq!(code, 1);
    assert_eq!(document["verdict"], "incompatible");
    assert_eq!(document["changes"], json!([]));
    let objects = document["violations"].as_array().expect("violations");
    assert_eq!(objects.len(), 1, "{document}");
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
fn json_lists_every_violation_of_an_incompatible_pair() {
    let case = "fail/41_many_breaks_at_once";
    let (code, document, stderr) =
        run_json(&[&case_file(case, "old.idl"), &case_file(case, "new.idl")]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(document["verdict"], "incompatible");
    assert!(document["changes"].is_array(), "{document}");
    let lines = document["violations"].as_array().expect("violations");
    assert!(lines.len() >= 6, "{document}");
    for line in lines {
        for key in [
            "rule",
            "code",
            "file",
            "line",
            "column",
            "message",
            "help",
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

/// A member NEW no longer has points at the item in NEW that lost it (DESIGN.md: "each violation
/// is one diagnostic pointing into NEW"), in every format; only a removed top-level item points
/// into OLD.
#[test]
fn a_removed_member_points_into_new_in_every_format() {
    let case = "fail/02_removed_field";
    let (old, new) = (case_file(case, "old.idl"), case_file(case, "new.idl"));
    let (code, document, stderr) = run_json(&[&old, &new]);
    assert_eq!(code, 1, "{stderr}");
    let removed = &document["violations"][0];
    assert_eq!(removed["rule"], "removed-member", "{document}");
    assert!(
        removed["file"].as_str().unwrap().ends_with("new.idl"),
        "{removed}"
    );
    assert_eq!(
        (&removed["line"], &removed["column"]),
        (&json!(2), &json!(8))
    );
    let (_, stdout, _) = run(None, &[&old, &new, "--format", "github"]);
    assert!(stdout.contains("new.idl,line=2,col=8,"), "{stdout}");
    let (_, _, human) = run(None, &[&old, &new]);
    let first_place = human.lines().find(|l| l.contains("┌─")).unwrap_or_default();
    assert!(first_place.contains("new.idl:2:8"), "{human}");
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
    // At the rule that changed, in NEW's Encoding file.
    assert!(
        line.contains("new.enc,line=1,col=29,title=idlc wire-rule-changed::"),
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
    let (code, document, stderr) = run_json(&[&old, &new]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(document["verdict"], "compatible");
    let violations = document["violations"].as_array().expect("violations");
    assert_eq!(violations.len(), 1, "{document}");
    let line = &violations[0];
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

/// A compatible change to a struct nested deeper than the interpreter goes (a chain of 260
/// structs) is proven on what the interpreter can hold: the values too deep for it are skipped
/// and counted, not disagreements.
#[test]
fn prove_skips_values_too_deep_for_the_interpreter() {
    let dir = TempDir::new();
    let chain: String = (1..260)
        .map(|i| format!("STRUCT S{i} {{\n  S{} inner;\n  UINT8 v;\n}}\n", i - 1))
        .collect();
    let old = format!("STRUCT S0 {{\n  UINT8 v;\n}}\n{chain}MESSAGE Top {{\n  S259 root;\n}}\n");
    let new = old.replace(
        "  S259 root;\n",
        "  S259 root;\n  FENCE;\n  UINT8 extra DEFAULT = 0;\n",
    );
    let (old_path, new_path) = (dir.path().join("old.idl"), dir.path().join("new.idl"));
    std::fs::write(&old_path, old).unwrap();
    std::fs::write(&new_path, new).unwrap();
    let (code, _, stderr) = run(
        None,
        &[
            &old_path.display().to_string(),
            &new_path.display().to_string(),
            "--prove",
            "1",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("proved: 256 values crossed"), "{stderr}");
    assert!(
        stderr.contains("(5 random values their own version could not send were skipped)"),
        "{stderr}"
    );
}
