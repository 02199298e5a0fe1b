//! Generates Rust code from the project's schemas (and the seed examples) with `idlc::Builder`,
//! so that the tests compile and run it.

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
        // warning each, checked by the compiler's tests; not repeated on every build here.
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
    // MYENCODINGA sends the angle as raw FLOAT64, which client.map's `f32 angle` cannot hold:
    // W0402, expected (checked by the compiler's tests), not repeated on every build.
    idlc::Builder::new()
        .encoding(seed("myencodinga_extended.enc"))
        .mapping(schemas("client.map"))
        .side("Client")
        .emit_warnings(false)
        .file_name("character_v2_client.rs")
        .compile(&[schemas("character_v2.idl")])?;
    // The same as character_client, without packed runs: the benchmark's baseline.
    idlc::Builder::new()
        .encoding(seed("myencoding1.enc"))
        .mapping(schemas("client.map"))
        .side("Client")
        .merge_fixed_width(false)
        .emit_warnings(false)
        .file_name("character_unmerged.rs")
        .compile(&character)?;
    idlc::Builder::new()
        .file_name("character_builtin.rs")
        .compile(&character)?;
    // Both sides get every encoding, so that the tests can hold the two mappings against each
    // other in each. The client's f32 positions cannot hold S2S's raw FLOAT64s: W0402 there,
    // expected (the bundled idlc.toml gives the client no S2S).
    for (side, map, file, warn) in [
        ("Client", "arena_client.map", "arena_client.rs", false),
        ("Server", "arena_server.map", "arena_server.rs", true),
    ] {
        idlc::Builder::new()
            .encoding(schemas("arena_s2c.enc"))
            .encoding(schemas("arena_s2s.enc"))
            .mapping(schemas(map))
            .side(side)
            .file_name(file)
            .emit_warnings(warn)
            .compile(&[schemas("arena.idl")])?;
    }
    idlc::Builder::new()
        .encoding(schemas("edge.enc"))
        .file_name("edge.rs")
        .compile(&[schemas("edge.idl")])?;
    idlc::Builder::new()
        .encoding(schemas("naval.enc"))
        .file_name("naval.rs")
        .compile(&[schemas("naval.idl")])?;
    // One schema in three versions, each a fenced extension of the one before: the built-in
    // encoding (a bit stream) and SquadBytes (a byte stream).
    for version in ["squad_v1", "squad_v2", "squad_v3"] {
        idlc::Builder::new()
            .encoding(schemas("versions/squad.enc"))
            .file_name(format!("{version}.rs"))
            .compile(&[schemas(&format!("versions/{version}.idl"))])?;
    }
    idlc::Builder::new()
        .file_name("arena_builtin.rs")
        .compile(&[schemas("arena.idl")])?;
    Ok(())
}
