//! The `idlc` binary, run for real: exit codes, what goes to stderr, colour only on a terminal.

use assert_cmd::Command;

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use common::*;
use std::path::Path;

/// A file of our own that declares the `Item` character.idl uses.
const ITEM: &str = "PUBLISHABLE_STRUCT Item { UINT32 item_id; FENCE }\n";

fn idlc() -> Command {
    Command::cargo_bin("idlc").expect("the idlc binary is built")
}

/// Runs `idlc args...`; returns (exit code, stderr).
fn run(args: &[&str]) -> (i32, String) {
    run_in(None, args)
}

fn run_in(dir: Option<&Path>, args: &[&str]) -> (i32, String) {
    let mut command = idlc();
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let output = command.args(args).output().expect("run idlc");
    let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
    assert!(
        !stderr.contains('\x1b'),
        "colour codes on a pipe:\n{stderr}"
    );
    (output.status.code().expect("exited, not killed"), stderr)
}

#[test]
fn clean_input_exits_0_with_a_summary_line() {
    let dir = TempDir::new();
    let item = dir.file("item.idl", ITEM);
    let (code, stderr) = run(&["check", &item]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "checked 1 file: 1 type, 1 encoding, 0 errors, 0 warnings\n"
    );
    let (code, stderr) = run(&["check", "--quiet", &item]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "");
}

/// `check` without `--side` checks the mapping items of every side (DESIGN.md's `idlc check` has
/// no side); `gen` and `ir` without one refuse mapping files (E0422).
#[test]
fn check_without_a_side_checks_every_side() {
    let dir = TempDir::new();
    let idl = dir.file(
        "game.idl",
        "STRUCT P { INT[-5,5] dx; ARRAY<BOOL, 40> flags; }\n",
    );
    let client = dir.file(
        "client.map",
        "MAPPING(\"Rust\",\"Client\") STRUCT P { i16 dx; }\n",
    );
    let server = dir.file(
        "server.map",
        "MAPPING(\"Rust\",\"Server\") STRUCT P { i32 dx; }\n",
    );
    let (code, stderr) = run(&["check", &idl, "-m", &client, "-m", &server]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.ends_with("0 errors, 0 warnings\n"), "{stderr}");
    // A side-specific error of the second side: its DERIVE cannot hold the 40 BOOLs.
    let derive = dir.file(
        "derive.map",
        "MAPPING(\"Rust\",\"Server\") DERIVE(serde::Serialize);\n",
    );
    let (code, stderr) = run(&["check", &idl, "-m", &client, "-m", &server, "-m", &derive]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stderr.matches("error[E0423]").count(), 1, "{stderr}");
    assert!(!stderr.contains("E0422"), "{stderr}");
    // With a side, that side only.
    let (code, stderr) = run(&[
        "check", &idl, "-m", &client, "-m", &derive, "--side", "Client",
    ]);
    assert_eq!(code, 0, "{stderr}");
    for command in ["gen", "ir"] {
        let (code, stderr) = run(&[command, &idl, "-m", &client]);
        assert_eq!(code, 1, "{command}: {stderr}");
        assert!(stderr.contains("error[E0422]"), "{command}: {stderr}");
    }
}

#[test]
fn gen_says_what_it_wrote() {
    let dir = TempDir::new();
    let item = dir.file("item.idl", ITEM);
    let out = dir.path().join("item.rs").display().to_string();
    let (code, stderr) = run(&["gen", &item, "-o", &out]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, format!("wrote {out}\n"));
    let (code, stderr) = run(&["gen", &item, "-o", &out]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, format!("up to date: {out}\n"));
    let (code, stderr) = run(&["gen", "-q", &item, "-o", &out]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "");
}

/// A file that never ends (or is far larger than any schema) is an error, not a read until memory
/// runs out: on the command line (exit 2) and as an IMPORT (a diagnostic, exit 1).
#[cfg(unix)]
#[test]
fn an_endless_file_is_refused_not_read_forever() {
    let (code, stderr) = run(&["check", "/dev/zero"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr,
        "error: cannot read `/dev/zero`: larger than 64 MiB\n"
    );
    let dir = TempDir::new();
    let idl = dir.file("a.idl", "IMPORT \"/dev/zero\";\nSTRUCT A { UINT8 a; }\n");
    let (code, stderr) = run(&["check", &idl]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("cannot read imported file `/dev/zero`"),
        "{stderr}"
    );
    assert!(stderr.contains("larger than 64 MiB"), "{stderr}");
}

#[test]
fn character_with_an_item_checks_clean() {
    let dir = TempDir::new();
    let item = dir.file("item.idl", ITEM);
    let (code, stderr) = run(&["check", &seed("character.idl"), &item]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn character_alone_reports_item_undeclared() {
    let (code, stderr) = run(&["check", &seed("character.idl")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("Item"), "{stderr}");
    assert!(stderr.contains("character.idl:16:12"), "{stderr}");
    assert!(
        stderr.ends_with("error: could not check: 1 error emitted\n"),
        "{stderr}"
    );
}

#[test]
fn myencoding1_checks_with_one_warning() {
    let dir = TempDir::new();
    let item = dir.file("item.idl", ITEM);
    let (code, stderr) = run(&[
        "check",
        &seed("character.idl"),
        &item,
        "--encoding",
        &seed("myencoding1.enc"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("anim"), "{stderr}");
    assert!(
        stderr.ends_with(
            "warning: 1 warning emitted\nchecked 3 files: 3 types, 1 encoding, 0 errors, 1 warning\n"
        ),
        "{stderr}"
    );
}

#[test]
fn every_seed_example_parses() {
    let dir = TempDir::new();
    let item = dir.file("item.idl", ITEM);
    for (flag, name) in [
        ("-e", "myencoding1.enc"),
        ("-e", "myencoding2.enc"),
        ("--encoding", "myencodinga.enc"),
        ("--encoding", "myencodinga_extended.enc"),
        ("-m", "client.cpp.map"),
        ("--mapping", "server.cpp.map"),
    ] {
        let (code, stderr) = run(&["check", &seed("character.idl"), &item, flag, &seed(name)]);
        assert!(code <= 1, "{name}: exit {code}\n{stderr}");
        assert!(
            !stderr.contains("error[E01"),
            "{name} has syntax errors:\n{stderr}"
        );
    }
}

#[test]
fn syntax_error_exits_1_with_a_plain_diagnostic() {
    let dir = TempDir::new();
    let bad = dir.file("bad.idl", "STRUCT A {\n  UINT8 ;\n}\n");
    let (code, stderr) = run(&["check", &bad]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[E0102]"), "{stderr}");
    assert!(stderr.contains("bad.idl:2:9"), "{stderr}");
    assert!(
        stderr.ends_with("error: could not check: 1 error emitted\n"),
        "{stderr}"
    );
}

#[test]
fn syntax_errors_in_encoding_and_mapping_exit_1() {
    let dir = TempDir::new();
    let item = dir.file("item.idl", ITEM);
    let enc = dir.file("bad.enc", "ENCODING(X) STRUCT Item { VLQ }\n");
    let map = dir.file("bad.map", "MAPPING(\"Rust\" \"Client\") STRUCT Item {}\n");
    let (code, stderr) = run(&["check", &item, "-e", &enc, "--mapping", &map]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("bad.enc:1:"), "{stderr}");
    assert!(stderr.contains("bad.map:1:"), "{stderr}");
}

#[test]
fn missing_named_file_exits_2() {
    let dir = TempDir::new();
    let missing = dir.path().join("missing.idl");
    let (code, stderr) = run(&["check", &missing.to_string_lossy()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with("error: cannot read `"), "{stderr}");
    assert!(stderr.contains("missing.idl"), "{stderr}");

    let item = dir.file("item.idl", ITEM);
    let (code, stderr) = run(&["check", &item, "--encoding", "no/such.enc"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no/such.enc"), "{stderr}");
}

#[test]
fn unknown_flag_exits_2() {
    let (code, stderr) = run(&["check", "--frobnicate", "x.idl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--frobnicate"), "{stderr}");
    let (code, _) = run(&["no-such-command"]);
    assert_eq!(code, 2);
    let (code, _) = run(&[]);
    assert_eq!(code, 2);
}

#[test]
fn no_idl_and_no_idlc_toml_exits_2() {
    let dir = TempDir::new();
    let (code, stderr) = run_in(Some(dir.path()), &["check"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no IDL files given"), "{stderr}");
    assert!(stderr.contains("idlc.toml"), "{stderr}");
    assert!(stderr.contains("Usage: idlc check"), "{stderr}");
}

#[test]
fn import_of_a_missing_file_exits_1() {
    let dir = TempDir::new();
    let main = dir.file(
        "schemas/main.idl",
        "IMPORT \"item.idl\";\nIMPORT \"sub/../gone.idl\";\n",
    );
    dir.file("schemas/item.idl", ITEM);
    let (code, stderr) = run(&["check", &main]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[E0501]"), "{stderr}");
    assert!(stderr.contains("schemas/gone.idl"), "{stderr}");
    assert!(stderr.contains("main.idl:2:8"), "{stderr}");
    assert!(
        stderr.ends_with("error: could not check: 1 error emitted\n"),
        "{stderr}"
    );
}

#[test]
fn imports_resolve_relative_to_the_importer() {
    let dir = TempDir::new();
    let main = dir.file(
        "a/main.idl",
        "IMPORT \"../b/lib.idl\";\nSTRUCT Bag { SEQUENCE<Item> items; }\n",
    );
    dir.file("b/lib.idl", format!("IMPORT \"../a/main.idl\";\n{ITEM}"));
    let (code, stderr) = run(&["check", &main]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn non_utf8_file_exits_1() {
    let dir = TempDir::new();
    let bad = dir.file("latin1.idl", b"// caf\xE9\nSTRUCT A { UINT8 x; }\n");
    let (code, stderr) = run(&["check", &bad]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[E0502]"), "{stderr}");
    assert!(stderr.contains("latin1.idl:1:7"), "{stderr}");
}

#[test]
fn version_and_help_exit_0() {
    let output = idlc().arg("--version").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("idlc "));
    let output = idlc().args(["check", "--help"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(help.contains("--encoding"), "{help}");
    assert!(help.contains("--mapping"), "{help}");
}

/// A binary file named as an IDL: one line that says so, none of its bytes on the terminal
/// (`run` also checks that no escape sequence reaches stderr).
#[test]
fn binary_file_is_named_not_printed() {
    let dir = TempDir::new();
    let mut bytes = b"STRUCT A { UINT8 x; }\0\x01\x02\x1b[31m".to_vec();
    bytes.extend([0xFF, 0xFE, b'\n']);
    let bin = dir.file("game.idl", bytes);
    let (code, stderr) = run(&["check", &bin]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("looks like a binary file"), "{stderr}");
    assert!(
        !stderr.contains('\0') && !stderr.contains('\u{1}'),
        "{stderr:?}"
    );
    assert!(!stderr.contains("STRUCT A"), "{stderr}");
}

/// A text file with one bad byte: the line up to it, control characters shown as `?`, the
/// caret under the bad byte.
#[test]
fn a_bad_byte_in_text_is_shown_in_its_line() {
    let dir = TempDir::new();
    let latin = dir.file("game.idl", b"STRUCT A {\n  UINT8 caf\xE9;\n}\n");
    let (code, stderr) = run(&["check", &latin]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("game.idl:2:12"), "{stderr}");
    assert!(stderr.contains("invalid UTF-8: 0xE9"), "{stderr}");
    assert!(
        !stderr.contains("}"),
        "nothing after the bad byte: {stderr}"
    );
}

/// An empty IDL file is a warning, not silence.
#[test]
fn empty_file_warns() {
    let dir = TempDir::new();
    let empty = dir.file("game.idl", "// to come\n");
    let (code, stderr) = run(&["check", &empty]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("warning[W0501]"), "{stderr}");
}

/// `idlc ir --plan` prints the wire plan by encoding: packed runs in a bit stream, none in a
/// byte stream, and the delta form of a PUBLISHABLE_STRUCT only.
#[test]
fn ir_plan_prints_the_wire_plan() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = idlc()
        .current_dir(&root)
        .args([
            "ir",
            "schemas/arena.idl",
            "-e",
            "schemas/arena_s2c.enc",
            "-e",
            "schemas/arena_s2s.enc",
            "--plan",
        ])
        .output()
        .expect("run idlc");
    assert_eq!(output.status.code(), Some(0));
    let plan: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let state = &plan["S2C"]["structs"]["PlayerState"];
    assert_eq!(state["kind"], "Publishable");
    assert!(state["delta"].is_array(), "{state}");
    assert!(plan["S2C"]["structs"]["Fire"]["delta"].is_null());
    let packed = |encoding: &str| {
        plan[encoding]["structs"]
            .as_object()
            .expect("structs")
            .values()
            .flat_map(|s| s["segments"].as_array().into_iter().flatten())
            .flat_map(|segment| segment.as_array().into_iter().flatten())
            .filter(|step| step.get("Packed").is_some())
            .count()
    };
    assert!(packed("S2C") > 0, "a bit stream packs fixed-width runs");
    assert_eq!(packed("S2S"), 0, "a byte stream packs nothing");
}
