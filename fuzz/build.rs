//! Generates the Rust modules that the schema targets fuzz, with `idlc::Builder`, into OUT_DIR:
//! the same inputs and options as tests/build.rs (so the fuzzed code is the tested code), one
//! module per schema, side and mapping. To fuzz another schema: generate it here, include it in
//! src/lib.rs, list its types in src/dispatch.rs, add a target (fuzz_targets/, Cargo.toml).

use std::path::{Path, PathBuf};

fn schemas(name: &str) -> PathBuf {
    Path::new("../schemas").join(name)
}

fn seed(name: &str) -> PathBuf {
    Path::new("../../shared/seed-examples").join(name)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let character = [seed("character.idl"), schemas("item.idl")];
    let seed_encodings = [
        seed("myencoding1.enc"),
        seed("myencoding2.enc"),
        seed("myencodinga.enc"),
    ];
    for (side, map, file) in [
        ("Client", "client.map", "character_client.rs"),
        ("Server", "server.map", "character_server.rs"),
    ] {
        // The seed encodings name the enum `Animation` for the field `anim`: one expected
        // warning each (see tests/build.rs).
        let mut builder = idlc::Builder::new()
            .side(side)
            .mapping(schemas(map))
            .file_name(file)
            .emit_warnings(false);
        for encoding in &seed_encodings {
            builder = builder.encoding(encoding);
        }
        builder.compile(&character)?;
    }
    idlc::Builder::new()
        .encoding(seed("myencodinga_extended.enc"))
        .mapping(schemas("client.map"))
        .side("Client")
        .file_name("character_v2_client.rs")
        .compile(&[schemas("character_v2.idl")])?;
    idlc::Builder::new()
        .file_name("character_builtin.rs")
        .compile(&character)?;
    for (side, map, file) in [
        ("Client", "arena_client.map", "arena_client.rs"),
        ("Server", "arena_server.map", "arena_server.rs"),
    ] {
        idlc::Builder::new()
            .encoding(schemas("arena_s2c.enc"))
            .encoding(schemas("arena_s2s.enc"))
            .mapping(schemas(map))
            .side(side)
            .file_name(file)
            .compile(&[schemas("arena.idl")])?;
    }
    idlc::Builder::new()
        .file_name("arena_builtin.rs")
        .compile(&[schemas("arena.idl")])?;
    idlc::Builder::new()
        .encoding(schemas("edge.enc"))
        .file_name("edge.rs")
        .compile(&[schemas("edge.idl")])?;
    idlc::Builder::new()
        .encoding(schemas("naval.enc"))
        .file_name("naval.rs")
        .compile(&[schemas("naval.idl")])?;
    Ok(())
}
