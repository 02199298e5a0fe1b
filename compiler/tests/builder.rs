//! `idlc::Builder`, as a build script uses it.

mod common;

use common::TempDir;

/// A build script's `main` returning `Result<(), Box<dyn Error>>` prints the error's `Debug`:
/// it must be the diagnostics as the CLI renders them, over several lines, not
/// `BuildError("error[E0...]: ...\n ...")`.
#[test]
fn build_errors_debug_as_rendered_diagnostics() {
    let dir = TempDir::new();
    let idl = dir.file("game.idl", "STRUCT Player { UNIT32 id; }\n");
    let out = TempDir::new();
    let error = idlc::Builder::new()
        .out_dir(out.path())
        .compile([&idl])
        .expect_err("the IDL has an error");
    let boxed: Box<dyn std::error::Error> = Box::new(error);
    let debug = format!("{boxed:?}");
    assert!(!debug.contains("BuildError("), "{debug}");
    assert!(!debug.contains("\\n"), "escaped newlines: {debug}");
    assert!(debug.starts_with("error["), "{debug}");
    assert!(debug.lines().count() > 3, "{debug}");
    assert!(debug.contains("game.idl:1:"), "{debug}");
}

/// `compile` takes one IDL file as DESIGN.md writes it (`.compile("game.idl")`), or several
/// (a slice, an array, a `Vec`), as `&str`, `String`, `Path` or `PathBuf`: the same module.
#[test]
fn compile_takes_one_file_or_several() {
    let dir = TempDir::new();
    let idl = dir.file("game.idl", "STRUCT Player { UINT32 id; }\n");
    let out = TempDir::new();
    let builder = idlc::Builder::new().out_dir(out.path());
    let written = builder.compile(idl.as_str()).expect("one &str");
    assert_eq!(written, out.path().join("game.rs"));
    let first = std::fs::read_to_string(&written).expect("written");
    let path = std::path::PathBuf::from(&idl);
    for again in [
        builder.compile(&idl),
        builder.compile(idl.clone()),
        builder.compile(path.as_path()),
        builder.compile(path.clone()),
        builder.compile([&idl]),
        builder.compile(&[idl.as_str()][..]),
        builder.compile(vec![path.clone()]),
    ] {
        assert_eq!(again.expect("compiles"), written);
        assert_eq!(std::fs::read_to_string(&written).expect("written"), first);
    }
}

/// A side mapped in C++ gets its header: where `header` says (directories made), in the
/// namespace `namespace` names; without them, `<stem>.hpp` in the output directory and the
/// namespace `idlc gen` gives.
#[test]
fn a_cpp_side_gets_its_header_where_the_builder_says() {
    let dir = TempDir::new();
    let idl = dir.file("game.idl", "STRUCT Player { UINT32 id; }\n");
    let map = dir.file(
        "client.cpp.map",
        "MAPPING(\"CPP\", \"Client\") STRUCT Player { uint32_t id; }\n",
    );
    let out = TempDir::new();
    let builder = idlc::Builder::new()
        .mapping(&map)
        .side("Client")
        .out_dir(out.path());
    let default = builder.clone().compile(&idl).expect("generates");
    assert_eq!(default, out.path().join("game.hpp"));
    let header = std::fs::read_to_string(&default).expect("written");
    assert!(header.contains("namespace game::client {"), "{header}");
    assert!(header.contains("struct Player {"), "{header}");
    let chosen = out.path().join("include/net/player.hpp");
    let written = builder
        .header(&chosen)
        .namespace("net")
        .compile(&idl)
        .expect("generates");
    assert_eq!(written, chosen);
    let header = std::fs::read_to_string(&chosen).expect("written");
    assert!(header.contains("namespace net {"), "{header}");
}

/// A protocol's session alias `<Protocol>Endpoint` is a name the schema's types must leave
/// free, as they must its other names: a clash is an error that says to rename.
#[test]
fn a_type_named_like_a_protocols_endpoint_is_an_error() {
    let dir = TempDir::new();
    let idl = dir.file(
        "game.idl",
        "STRUCT PingEndpoint { UINT32 id; }\nPROTOCOL Ping { MESSAGE Hello { UINT8 x; } }\n",
    );
    let out = TempDir::new();
    let error = idlc::Builder::new()
        .out_dir(out.path())
        .compile([&idl])
        .expect_err("the name is taken");
    assert!(format!("{error}").contains("PingEndpoint"), "{error}");
}
