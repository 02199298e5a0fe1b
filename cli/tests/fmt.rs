//! `idlc fmt`, the real binary: rewriting in place, `--check` (exit 1 and a diff), files with
//! syntax errors left alone, usage errors.

use assert_cmd::Command;

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use common::*;

const UNFORMATTED: &str = "STRUCT A{UINT8 a;// the first\nBOOL b;};\n";
const FORMATTED: &str = "STRUCT A {\n  UINT8 a;  // the first\n  BOOL b;\n}\n";

/// Runs `idlc fmt args...` in `dir`; returns (exit code, stdout, stderr).
fn fmt(dir: &TempDir, args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("idlc")
        .expect("the idlc binary is built")
        .current_dir(dir.path())
        .arg("fmt")
        .args(args)
        .output()
        .expect("run idlc");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8 output");
    (
        output.status.code().expect("exited, not killed"),
        text(output.stdout),
        text(output.stderr),
    )
}

#[test]
fn fmt_rewrites_in_place_and_then_has_nothing_to_do() {
    let dir = TempDir::new();
    dir.file("a.idl", UNFORMATTED);
    let (code, stdout, stderr) = fmt(&dir, &["a.idl"]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(stderr, "formatted a.idl\n");
    assert_eq!(dir.read("a.idl"), FORMATTED);
    let (code, _, stderr) = fmt(&dir, &["a.idl"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
}

#[test]
fn check_writes_nothing_prints_a_diff_and_exits_1() {
    let dir = TempDir::new();
    dir.file("a.idl", UNFORMATTED);
    let (code, stdout, stderr) = fmt(&dir, &["--check", "a.idl"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(dir.read("a.idl"), UNFORMATTED);
    assert!(
        stdout.starts_with("--- a.idl\n+++ a.idl (formatted)\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\n+  UINT8 a;  // the first\n"), "{stdout}");
    assert!(
        stdout.contains("\n-STRUCT A{UINT8 a;// the first\n"),
        "{stdout}"
    );
    assert_eq!(
        stderr,
        "error: `a.idl` is not formatted: run `idlc fmt a.idl`\n"
    );
    dir.file("a.idl", FORMATTED);
    let (code, stdout, stderr) = fmt(&dir, &["--check", "a.idl"]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
}

#[test]
fn a_directory_means_every_schema_file_below_it() {
    let dir = TempDir::new();
    dir.file("s/a.idl", UNFORMATTED);
    dir.file("s/deeper/b.enc", "ENCODING(E) STRUCT A {\n  VLQ a;\n}\n");
    dir.file("s/c.map", "MAPPING(\"Rust\",\"Client\") STRUCT A{u8 a;}");
    dir.file("s/notes.txt", "not a schema {");
    let (code, _, stderr) = fmt(&dir, &["--check", "s"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("`s/a.idl` is not formatted"), "{stderr}");
    assert!(stderr.contains("`s/c.map` is not formatted"), "{stderr}");
    assert!(!stderr.contains("b.enc"), "{stderr}");
    // Without arguments: the current directory.
    let (code, _, stderr) = fmt(&dir, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        dir.read("s/c.map"),
        "MAPPING(\"Rust\", \"Client\") STRUCT A {\n  u8 a;\n}\n"
    );
    let (code, _, _) = fmt(&dir, &["--check"]);
    assert_eq!(code, 0);
}

#[test]
fn a_file_with_syntax_errors_is_left_alone_with_its_diagnostics() {
    let dir = TempDir::new();
    let broken = "STRUCT A { UINT8 a }\n";
    dir.file("a.idl", broken);
    dir.file("b.idl", UNFORMATTED);
    let (code, _, stderr) = fmt(&dir, &["a.idl", "b.idl"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error[E0102]: unexpected `}`"), "{stderr}");
    assert!(stderr.contains("a.idl:1:20"), "{stderr}");
    assert!(
        stderr.contains("could not format: 1 error emitted"),
        "{stderr}"
    );
    assert_eq!(dir.read("a.idl"), broken);
    // The other files are formatted all the same.
    assert_eq!(dir.read("b.idl"), FORMATTED);
}

#[test]
fn usage_errors_exit_2() {
    let dir = TempDir::new();
    dir.file("notes.txt", "hello");
    let (code, _, stderr) = fmt(&dir, &["notes.txt"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not an IDL (.idl), Encoding (.enc) or Mapping (.map) file"));
    let (code, _, stderr) = fmt(&dir, &["missing.idl"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot read `missing.idl`"), "{stderr}");
}

/// CI's check (`cargo test --workspace`, which .ci/run runs): `idlc fmt --check` on the project's
/// schemas finds nothing to change.
#[test]
fn the_bundled_schemas_pass_fmt_check() {
    let output = Command::cargo_bin("idlc")
        .expect("the idlc binary is built")
        .args(["fmt", "--check", SCHEMAS])
        .output()
        .expect("run idlc");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "run `cargo run -p idlc-cli -- fmt schemas`:\n{stdout}{stderr}"
    );
    assert_eq!((stdout.as_ref(), stderr.as_ref()), ("", ""));
}
