//! `idlc gen`, `idlc ir`, `idlc report` and `idlc.toml`, with the real binary.

use assert_cmd::Command;

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use common::*;
use std::path::Path;

/// What a run of `idlc` gave.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    run_in(None, args)
}

fn run_in(dir: Option<&Path>, args: &[&str]) -> Run {
    let mut command = Command::cargo_bin("idlc").expect("the idlc binary is built");
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let output = command.args(args).output().expect("run idlc");
    let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
    assert!(
        !stderr.contains('\x1b'),
        "colour codes on a pipe:\n{stderr}"
    );
    Run {
        code: output.status.code().expect("exited, not killed"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr,
    }
}

/// The seed's Character with our Item, in MYENCODING1: generates today.
fn character_args() -> Vec<String> {
    vec![
        seed("character.idl"),
        schema("item.idl"),
        "--encoding".into(),
        seed("myencoding1.enc"),
    ]
}

fn with<'a>(head: &[&'a str], tail: &'a [String]) -> Vec<&'a str> {
    head.iter()
        .copied()
        .chain(tail.iter().map(String::as_str))
        .collect()
}

#[test]
fn gen_to_stdout() {
    let args = character_args();
    let out = run(&with(&["gen"], &args));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("@generated"), "{}", out.stdout);
    assert!(
        out.stdout.contains("pub struct Character"),
        "{}",
        out.stdout
    );
    // The header names the inputs by file name only: the checkout path does not leak.
    assert!(
        out.stdout
            .contains("character.idl, item.idl, myencoding1.enc"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains(SEED_EXAMPLES));
    // The warning of myencoding1 goes to stderr, not into the code.
    assert!(out.stderr.contains("warning"), "{}", out.stderr);
    assert!(!out.stdout.contains("warning["));

    let dash = run(&with(&["gen", "-o", "-"], &args));
    assert_eq!(dash.code, 0, "{}", dash.stderr);
    assert_eq!(dash.stdout, out.stdout);
}

#[test]
fn gen_is_deterministic() {
    let args = character_args();
    let first = run(&with(&["gen"], &args));
    let second = run(&with(&["gen"], &args));
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(first.stdout, second.stdout);

    // The same inputs from another directory, by relative paths: the same bytes.
    let dir = TempDir::new();
    dir.copy(&seed("character.idl"), "character.idl");
    dir.copy(&schema("item.idl"), "item.idl");
    dir.copy(&seed("myencoding1.enc"), "myencoding1.enc");
    let third = run_in(
        Some(dir.path()),
        &["gen", "character.idl", "item.idl", "-e", "myencoding1.enc"],
    );
    assert_eq!(third.code, 0, "{}", third.stderr);
    assert_eq!(first.stdout, third.stdout);
}

#[test]
fn gen_to_a_file_then_check() {
    let dir = TempDir::new();
    let out = dir.path().join("net/game.rs");
    let out = out.to_string_lossy().into_owned();
    let args = character_args();

    let written = run(&with(&["gen", "-o", &out], &args));
    assert_eq!(written.code, 0, "{}", written.stderr);
    assert_eq!(written.stdout, "");
    let code = dir.read("net/game.rs");
    assert!(code.contains("pub struct Character"));

    let fresh = run(&with(&["gen", "-o", &out, "--check"], &args));
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);
    assert_eq!(fresh.stdout, "");

    // Regenerating an unchanged file leaves it as it is.
    let again = run(&with(&["gen", "--out", &out], &args));
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(dir.read("net/game.rs"), code);

    // Edited by hand: stale.
    let edited = code.replacen("pub struct Character", "pub struct Charactor", 1);
    dir.file("net/game.rs", &edited);
    let stale = run(&with(&["gen", "-o", &out, "--check"], &args));
    assert_eq!(stale.code, 1, "{}", stale.stderr);
    assert!(stale.stdout.contains("---"), "{}", stale.stdout);
    assert!(stale.stdout.contains("+++ generated"), "{}", stale.stdout);
    assert!(stale.stdout.contains("@@"), "{}", stale.stdout);
    assert!(
        stale.stdout.contains("-pub struct Charactor"),
        "{}",
        stale.stdout
    );
    assert!(
        stale.stdout.contains("+pub struct Character"),
        "{}",
        stale.stdout
    );
    assert!(stale.stderr.contains("stale"), "{}", stale.stderr);
    // --check wrote nothing.
    assert_eq!(dir.read("net/game.rs"), edited);
}

#[test]
fn a_protocol_that_would_shadow_a_prelude_value_is_refused() {
    let dir = TempDir::new();
    let idl = dir.path().join("none.idl");
    std::fs::write(&idl, "PROTOCOL None { MESSAGE Ping { UINT8 n; } }\n").expect("write");
    let out = run(&["gen", &idl.to_string_lossy()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("shadows the prelude's `None`"),
        "{}",
        out.stderr
    );
}

#[test]
fn check_of_a_missing_file_exits_1() {
    let dir = TempDir::new();
    let out = dir.path().join("missing.rs");
    let out = out.to_string_lossy().into_owned();
    let args = character_args();
    let missing = run(&with(&["gen", "-o", &out, "--check"], &args));
    assert_eq!(missing.code, 1, "{}", missing.stderr);
    assert!(
        missing.stdout.contains("+++ generated"),
        "{}",
        missing.stdout
    );
    assert!(
        missing.stderr.contains("does not exist"),
        "{}",
        missing.stderr
    );
    assert!(!dir.path().join("missing.rs").exists());
}

#[test]
fn check_without_an_output_file_is_a_usage_error() {
    let args = character_args();
    let out = run(&with(&["gen", "--check"], &args));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--check"), "{}", out.stderr);
    assert_eq!(out.stdout, "");
}

#[test]
fn ir_prints_json() {
    let args = character_args();
    let out = run(&with(&["ir"], &args));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("valid JSON");
    for key in ["schema", "encodings", "mapping"] {
        assert!(json.get(key).is_some(), "no `{key}` in {json}");
    }
    assert!(json["schema"]["structs"]["Character"].is_object());
    assert!(json["encodings"]["MYENCODING1"].is_object());
}

#[test]
fn report_shows_the_seed_widths() {
    let args = character_args();
    let out = run(&with(&["report"], &args));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = &out.stdout;
    assert!(
        text.contains("Character (encoding MYENCODING1, BITSTREAM)"),
        "{text}"
    );
    let bits = |field: &str| -> String {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(field))
            .unwrap_or_else(|| panic!("no line of {field}:\n{text}"));
        // field, type, rule, bits, note...
        let cells: Vec<&str> = line.split_whitespace().collect();
        cells[3].to_string()
    };
    assert_eq!(bits("x"), "21");
    assert_eq!(bits("angle"), "16");
    assert_eq!(bits("vx"), "11");
    assert_eq!(bits("anim"), "2");
    assert_eq!(bits("character_id"), "8..24");
    assert!(text.contains("FIXED_POINT(0.01)"), "{text}");
    assert!(text.contains("SEQUENCE count VLQ(7) of Item"), "{text}");
    assert!(text.contains("bytes"), "{text}");
    // The delta form: idle is the VLQ id and five changed-bits.
    assert!(
        text.contains("  delta against a baseline (encode_delta):\n"),
        "{text}"
    );
    let idle = text
        .lines()
        .find(|l| l.trim_start().starts_with("nothing changed"))
        .unwrap_or_else(|| panic!("no idle line:\n{text}"));
    assert!(idle.contains(" 13..29 bits  2..4 bytes"), "{idle}");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("only angle (DELTA)")),
        "{text}"
    );
}

/// The bundled project (idlc.toml at the repository's root) checks without a warning on both
/// sides, together and one by one: the README's first command prints no noise.
#[test]
fn bundled_project_checks_clean_on_both_sides() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let every = run_in(Some(&root), &["check"]);
    assert_eq!(every.code, 0, "{}", every.stderr);
    assert!(
        every.stderr.ends_with("0 errors, 0 warnings\n"),
        "{}",
        every.stderr
    );
    for side in ["Client", "Server"] {
        let out = run_in(Some(&root), &["check", "--side", side]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(!out.stderr.contains("warning["), "{side}: {}", out.stderr);
        assert!(
            out.stderr.ends_with("0 errors, 0 warnings\n"),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn errors_in_the_input_exit_1_and_print_nothing() {
    // character.idl alone: `Item` is not declared.
    for command in ["gen", "ir", "report", "check"] {
        let out = run(&[command, &seed("character.idl")]);
        assert_eq!(out.code, 1, "{command}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{command}");
        assert!(out.stderr.contains("Item"), "{command}: {}", out.stderr);
    }
    let dir = TempDir::new();
    let out = dir.path().join("out.rs");
    let out = out.to_string_lossy().into_owned();
    let failed = run(&["gen", &seed("character.idl"), "-o", &out]);
    assert_eq!(failed.code, 1);
    assert!(!dir.path().join("out.rs").exists());
}

#[test]
fn missing_inputs_exit_2() {
    let dir = TempDir::new();
    for command in ["gen", "ir", "report"] {
        let out = run_in(Some(dir.path()), &[command]);
        assert_eq!(out.code, 2, "{command}: {}", out.stderr);
        assert!(out.stderr.contains("no IDL files given"), "{}", out.stderr);
        assert!(
            out.stderr.contains(&format!("Usage: idlc {command}")),
            "{}",
            out.stderr
        );
        let out = run_in(Some(dir.path()), &[command, "nothing-here.idl"]);
        assert_eq!(out.code, 2, "{command}: {}", out.stderr);
        assert!(out.stderr.contains("nothing-here.idl"), "{}", out.stderr);
    }
}

/// A project: schemas/ with the seed Character and our Item, and an idlc.toml with two sides.
fn project() -> TempDir {
    let dir = TempDir::new();
    dir.copy(&seed("character.idl"), "schemas/character.idl");
    dir.copy(&schema("item.idl"), "schemas/item.idl");
    dir.copy(&seed("myencoding1.enc"), "schemas/myencoding1.enc");
    dir.copy(&schema("client.map"), "schemas/client.map");
    dir.file(
        "schemas/other.enc",
        "ENCODING(OTHER) PUBLISHABLE_STRUCT Character { VLQ character_id; }\n",
    );
    dir.file(
        "idlc.toml",
        r#"# The example of docs/CLI.md.
idl = ["schemas/character.idl", "schemas/item.idl"]
encodings = ["schemas/myencoding1.enc"]

[sides.Client]
mappings = ["schemas/client.map"]
out = "src/net/client.rs"

[sides.Server]
out = "src/net/server.rs"
"#,
    );
    dir
}

#[test]
fn idlc_toml_drives_gen_for_every_side() {
    let dir = project();
    let out = run_in(Some(dir.path()), &["gen"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    let client = dir.read("src/net/client.rs");
    let server = dir.read("src/net/server.rs");
    assert!(client.contains("pub struct Character"));
    assert!(client.contains("Encodings: MYENCODING1"), "{client}");
    // client.map makes `angle` an f32; the server keeps the default f64.
    assert!(client.contains("pub angle: f32"), "{client}");
    assert!(server.contains("pub angle: f64"), "{server}");
    assert!(
        client.contains("character.idl, item.idl, myencoding1.enc, client.map"),
        "{client}"
    );

    let fresh = run_in(Some(dir.path()), &["gen", "--check"]);
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);
    assert_eq!(fresh.stdout, "");

    // One side stale: --check says which, and exits 1.
    dir.file("src/net/server.rs", "// old\n");
    let stale = run_in(Some(dir.path()), &["gen", "--check"]);
    assert_eq!(stale.code, 1, "{}", stale.stderr);
    assert!(
        stale.stdout.contains("--- src/net/server.rs"),
        "{}",
        stale.stdout
    );
    assert!(!stale.stdout.contains("client.rs"), "{}", stale.stdout);

    // --side regenerates that side only.
    let one = run_in(Some(dir.path()), &["gen", "--side", "Server"]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(dir.read("src/net/server.rs"), server);
    let fresh = run_in(Some(dir.path()), &["gen", "--check"]);
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);

    // -o with several sides cannot say which side.
    let several = run_in(Some(dir.path()), &["gen", "-o", "x.rs"]);
    assert_eq!(several.code, 2, "{}", several.stderr);
    assert!(several.stderr.contains("--side"), "{}", several.stderr);
    // -o with one side: there, or stdout.
    let stdout = run_in(Some(dir.path()), &["gen", "--side", "Client", "-o", "-"]);
    assert_eq!(stdout.code, 0, "{}", stdout.stderr);
    assert_eq!(stdout.stdout, client);
}

#[test]
fn command_line_encoding_replaces_the_toml_list() {
    let dir = project();
    let out = run_in(
        Some(dir.path()),
        &[
            "gen",
            "--encoding",
            "schemas/other.enc",
            "--side",
            "Server",
            "-o",
            "-",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Encodings: OTHER"), "{}", out.stdout);
    assert!(!out.stdout.contains("MYENCODING1"), "{}", out.stdout);
    assert!(
        out.stdout.contains("character.idl, item.idl, other.enc"),
        "{}",
        out.stdout
    );

    // Without --side: every side, each to its own file, with the command line's encoding.
    let all = run_in(Some(dir.path()), &["gen", "-e", "schemas/other.enc"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert!(dir.read("src/net/client.rs").contains("Encodings: OTHER"));
    assert!(dir.read("src/net/server.rs").contains("Encodings: OTHER"));
}

/// `idlc check` without `--side` checks every side of idlc.toml, each with its own encodings and
/// mappings, and prints a diagnostic that several sides find once; `--side` checks one side.
#[test]
fn idlc_toml_check_checks_every_side() {
    let dir = project();
    dir.file(
        "schemas/server.map",
        "MAPPING(\"Rust\",\"Server\") PUBLISHABLE_STRUCT Nope {\n  f32 x;\n}\n",
    );
    let toml = dir.read("idlc.toml").replace(
        "[sides.Server]\n",
        "[sides.Server]\nmappings = [\"schemas/server.map\"]\n",
    );
    dir.file("idlc.toml", &toml);
    let all = run_in(Some(dir.path()), &["check"]);
    assert_eq!(all.code, 1, "{}", all.stderr);
    assert_eq!(
        all.stderr.matches("error[E0402]").count(),
        1,
        "{}",
        all.stderr
    );
    assert!(all.stderr.contains("schemas/server.map"), "{}", all.stderr);
    // MYENCODING1's `Animation` for the field `anim`: found on both sides, printed once.
    assert_eq!(
        all.stderr.matches("warning[W0301]").count(),
        1,
        "{}",
        all.stderr
    );
    let client = run_in(Some(dir.path()), &["check", "--side", "Client"]);
    assert_eq!(client.code, 0, "{}", client.stderr);
    let server = run_in(Some(dir.path()), &["check", "--side", "Server"]);
    assert_eq!(server.code, 1, "{}", server.stderr);

    // Fixed, with an encoding of the Server's own: the summary counts both sides' files and
    // encodings, and W0402 is the Server's (its `f32 x` under OTHER's FLOAT64).
    dir.file(
        "schemas/server.map",
        "MAPPING(\"Rust\",\"Server\") PUBLISHABLE_STRUCT Character {\n  f32 x;\n}\n",
    );
    let toml = toml.replace(
        "[sides.Server]\n",
        "[sides.Server]\nencodings = [\"schemas/other.enc\"]\n",
    );
    dir.file("idlc.toml", &toml);
    let clean = run_in(Some(dir.path()), &["check"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(clean.stderr.contains("warning[W0402]"), "{}", clean.stderr);
    assert!(
        clean.stderr.contains("on side `Server`"),
        "{}",
        clean.stderr
    );
    assert!(
        clean
            .stderr
            .ends_with("checked 6 files: 4 types, 2 encodings, 0 errors, 2 warnings\n"),
        "{}",
        clean.stderr
    );
}

#[test]
fn idlc_toml_drives_ir_and_report_with_the_first_side() {
    let dir = project();
    let check = run_in(Some(dir.path()), &["check"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let ir = run_in(Some(dir.path()), &["ir"]);
    assert_eq!(ir.code, 0, "{}", ir.stderr);
    let json: serde_json::Value = serde_json::from_str(&ir.stdout).expect("valid JSON");
    assert_eq!(json["mapping"]["side"], "Client", "{}", json["mapping"]);
    let report = run_in(Some(dir.path()), &["report"]);
    assert_eq!(report.code, 0, "{}", report.stderr);
    assert!(report.stdout.contains("MYENCODING1"), "{}", report.stdout);

    let unknown = run_in(Some(dir.path()), &["ir", "--side", "Bot"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(unknown.stderr.contains("`Bot`"), "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("Client, Server"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn idlc_toml_without_sides_writes_to_its_out_or_stdout() {
    let dir = TempDir::new();
    dir.copy(&schema("item.idl"), "item.idl");
    dir.file("idlc.toml", "idl = [\"item.idl\"]\n");
    let out = run_in(Some(dir.path()), &["gen"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("pub struct Item"), "{}", out.stdout);

    dir.file("idlc.toml", "idl = [\"item.idl\"]\nout = \"gen/item.rs\"\n");
    let out = run_in(Some(dir.path()), &["gen"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(dir.read("gen/item.rs").contains("pub struct Item"));
}

#[test]
fn malformed_idlc_toml_exits_2() {
    let dir = TempDir::new();
    dir.file("idlc.toml", "idl = [\"a.idl\"\n[sides.Client]\n");
    for command in ["gen", "check", "ir", "report"] {
        let out = run_in(Some(dir.path()), &[command]);
        assert_eq!(out.code, 2, "{command}: {}", out.stderr);
        assert!(out.stderr.contains("idlc.toml"), "{}", out.stderr);
        assert!(out.stderr.contains("line "), "{}", out.stderr);
        assert_eq!(out.stdout, "");
    }

    // Valid TOML, wrong shape: an unknown key, with its line.
    dir.file(
        "idlc.toml",
        "idl = [\"a.idl\"]\n[sides.Client]\nmapping = [\"c.map\"]\n",
    );
    let out = run_in(Some(dir.path()), &["gen"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("line 3"), "{}", out.stderr);
    assert!(out.stderr.contains("mapping"), "{}", out.stderr);

    // No IDL files at all.
    dir.file("idlc.toml", "encodings = [\"a.enc\"]\n");
    let out = run_in(Some(dir.path()), &["gen"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("names no IDL files"), "{}", out.stderr);

    // A file it names cannot be read: exit 2 as on the command line.
    dir.file("idlc.toml", "idl = [\"gone.idl\"]\n");
    let out = run_in(Some(dir.path()), &["gen"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("gone.idl"), "{}", out.stderr);
}

#[test]
fn help_lists_the_subcommands_and_flags() {
    let out = run(&["--help"]);
    assert_eq!(out.code, 0);
    for command in ["gen", "check", "report", "ir"] {
        assert!(out.stdout.contains(command), "{}", out.stdout);
    }
    let out = run(&["gen", "--help"]);
    assert_eq!(out.code, 0);
    for flag in ["--encoding", "--mapping", "--side", "--out", "--check"] {
        assert!(out.stdout.contains(flag), "{}", out.stdout);
    }
}

/// Each side gets the half of a protocol its Mapping names: SEND the sender, RECEIVE the
/// handler and the receiver, BOTH all of them; every side the ids, the message enum (a sender
/// sends its values) and the response enum (a session answers with its values).
#[test]
fn each_side_gets_its_half_of_each_protocol() {
    let generate = |side: &str, map: &str| {
        let (idl, enc, map) = (schema("arena.idl"), schema("arena_s2c.enc"), schema(map));
        let out = run(&[
            "gen",
            &idl,
            "--encoding",
            &enc,
            "--mapping",
            &map,
            "--side",
            side,
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let has = |code: &str, item: &str| {
        code.contains(&format!("pub struct {item}"))
            || code.contains(&format!("pub trait {item}"))
            || code.contains(&format!("pub enum {item}"))
    };
    let client = generate("Client", "arena_client.map");
    let server = generate("Server", "arena_server.map");
    for (code, send, receive) in [
        (&client, "ArenaClientToServer", "ArenaServerToClient"),
        (&server, "ArenaServerToClient", "ArenaClientToServer"),
    ] {
        for item in ["", "Sender", "Message"] {
            assert!(has(code, &format!("{send}{item}")), "{send}{item}");
            assert!(!has(code, &format!("{receive}{item}")) || item != "Sender");
        }
        for item in ["Handler", "Receiver"] {
            assert!(has(code, &format!("{receive}{item}")), "{receive}{item}");
            assert!(!has(code, &format!("{send}{item}")), "{send}{item}");
        }
        assert!(has(code, receive));
        assert!(has(code, &format!("{receive}Message")));
        for item in ["", "Sender", "Response", "Message", "Handler", "Receiver"] {
            assert!(
                has(code, &format!("ArenaPing{item}")),
                "ArenaPing{item} (BOTH)"
            );
        }
    }
    // The response enum is on both sides: the caller pairs responses, the callee's session
    // endpoint answers with them.
    assert!(has(&client, "ArenaClientToServerResponse"));
    assert!(has(&server, "ArenaClientToServerResponse"));
}

/// A CONST may be negated wherever a number or a value stands (issue 30:
/// `NUMERIC[-MAX_SPEED, MAX_SPEED]` was "E0101 unexpected character"): NUMERIC and INT ranges,
/// a DEFAULT, another CONST, and an Encoding's EXTEND that restates the IDL's. `check` passes,
/// `ir` holds the negated bounds and `report` prices them.
#[test]
fn a_negated_const_bounds_a_range() {
    let dir = TempDir::new();
    let idl = dir.file(
        "kart.idl",
        "CONST MAX_SPEED = 60;\n\
         CONST MAX_TURN = 2.5;\n\
         CONST MAX_LEAN = 100;\n\
         CONST MIN_SPEED = -MAX_SPEED;\n\
         STRUCT Kart {\n\
         \x20 NUMERIC[-MAX_SPEED, MAX_SPEED] speed;\n\
         \x20 NUMERIC[-MAX_TURN, MAX_TURN] turn DEFAULT = -MAX_TURN;\n\
         \x20 INT[-MAX_SPEED, MAX_SPEED] lean;\n\
         \x20 INT[MIN_SPEED, 0] reverse;\n\
         \x20 FENCE\n\
         \x20 EXTEND lean TO INT[-MAX_LEAN, MAX_LEAN];\n\
         }\n",
    );
    let enc = dir.file(
        "kart.enc",
        "ENCODING(E) STRUCT Kart {\n\
         \x20 FIXED_POINT(0.5) speed;\n\
         \x20 FENCE\n\
         \x20 EXTEND lean TO INT[-MAX_LEAN, MAX_LEAN];\n\
         };\n",
    );
    let check = run(&["check", &idl, "-e", &enc]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(
        check.stderr.contains("0 errors, 0 warnings"),
        "{}",
        check.stderr
    );

    let ir = run(&["ir", &idl, "-e", &enc]);
    assert_eq!(ir.code, 0, "{}", ir.stderr);
    let json: serde_json::Value = serde_json::from_str(&ir.stdout).expect("valid JSON");
    let segments = &json["schema"]["structs"]["Kart"]["segments"];
    let fields = &segments[0]["fields"];
    let field = |name: &str| {
        fields
            .as_array()
            .and_then(|all| all.iter().find(|f| f["name"] == name))
            .unwrap_or_else(|| panic!("no field {name} in {fields}"))
    };
    let numeric = |name: &str| {
        let ty = &field(name)["ty"]["Numeric"];
        (ty["min"].as_f64(), ty["max"].as_f64())
    };
    let int = |ty: &serde_json::Value| {
        (
            ty["IntRange"]["min"].as_i64(),
            ty["IntRange"]["max"].as_i64(),
        )
    };
    assert_eq!(numeric("speed"), (Some(-60.0), Some(60.0)), "{fields}");
    assert_eq!(numeric("turn"), (Some(-2.5), Some(2.5)), "{fields}");
    assert_eq!(field("turn")["default"]["Real"], -2.5, "{fields}");
    assert_eq!(int(&field("lean")["ty"]), (Some(-60), Some(60)), "{fields}");
    assert_eq!(
        int(&field("reverse")["ty"]),
        (Some(-60), Some(0)),
        "{fields}"
    );
    let extend = &segments[1]["extends"][0];
    assert_eq!(int(&extend["to"]), (Some(-100), Some(100)), "{extend}");
    assert_eq!(json["schema"]["consts"]["MIN_SPEED"]["value"]["Int"], -60);

    let report = run(&["report", &idl, "-e", &enc]);
    assert_eq!(report.code, 0, "{}", report.stderr);
    for line in [
        "NUMERIC[-60,60]    FIXED_POINT(0.5)  8",
        "INT[-100,100]      BIT(8)",
    ] {
        assert!(report.stdout.contains(line), "{}", report.stdout);
    }
}

/// Only a CONST holding a number can be negated; an unknown name is unknown, negated or not.
#[test]
fn a_negated_const_that_is_no_number_is_an_error() {
    let dir = TempDir::new();
    for (name, idl, expected) in [
        (
            "text.idl",
            "CONST NAME = \"kart\";\nSTRUCT Kart { INT[-NAME, 5] lean; }\n",
            [
                "error[E0207]: `NAME` is not a number: it cannot be negated",
                "text.idl:2:19",
            ],
        ),
        (
            "unknown.idl",
            "CONST MAX_SPEED = 60;\nSTRUCT Kart { NUMERIC[-MAX_SPED, MAX_SPEED] speed; }\n",
            [
                "error[E0203]: cannot find CONST `MAX_SPED`",
                "did you mean `MAX_SPEED`?",
            ],
        ),
    ] {
        let out = run(&["check", &dir.file(name, idl)]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        for text in expected {
            assert!(out.stderr.contains(text), "{}", out.stderr);
        }
    }
}

/// A side mapped with `MAPPING("CPP", ...)` gets a C++ header (the design source's command,
/// DESIGN.md "Generated C++"): in the default namespace `<first IDL stem>::<side>`, or the one
/// `--namespace` gives; a rule the C++ backend does not generate yet is refused by name.
#[test]
fn a_cpp_side_gets_a_header() {
    let args = character_args();
    let client_map = seed("client.cpp.map");
    let out = run(&with(
        &["gen", "--mapping", &client_map, "--side", "Client"],
        &args,
    ));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("#pragma once"), "{}", out.stdout);
    assert!(out.stdout.contains("namespace character::client {"));
    assert!(out.stdout.contains("struct Character {"));
    assert!(out.stdout.contains("std::vector<Item> inventory{};"));
    assert!(out.stdout.contains("using DefaultEncoding = MYENCODING1;"));
    let named = run(&with(
        &[
            "gen",
            "--mapping",
            &client_map,
            "--side",
            "Client",
            "--namespace",
            "game::net",
        ],
        &args,
    ));
    assert!(
        named.stdout.contains("namespace game::net {"),
        "{}",
        named.stderr
    );

    let dir = TempDir::new();
    let map = dir.file(
        "arena.cpp.map",
        "MAPPING(\"CPP\", \"Client\") STRUCT Vec3 { float x; };\n",
    );
    let (idl, enc) = (schema("arena.idl"), schema("arena_s2c.enc"));
    let arena = run(&["gen", &idl, "-e", &enc, "-m", &map, "--side", "Client"]);
    assert_eq!(arena.code, 0, "{}", arena.stderr);
    assert!(
        arena.stdout.contains("namespace arena::client {")
            && arena.stdout.contains("struct Vec3 {"),
        "{}",
        arena.stdout
    );
}
