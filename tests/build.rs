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
        schemas("myencoding1_diff.enc"),
        schemas("myencoding2_diff.enc"),
    ];
    let world = [
        seed("character.idl"),
        schemas("item.idl"),
        schemas("world.idl"),
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
        builder.encoding(schemas("world.enc")).compile(&world)?;
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
    idlc::Builder::new()
        .encoding(schemas("held_delta.enc"))
        .file_name("held_delta.rs")
        .compile(&[schemas("held_delta.idl")])?;
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
        .mapping(schemas("edge.map"))
        .side("Edge")
        // F64Held's f32 cannot hold every FLOAT64: W0402, expected (checked by the compiler's
        // tests), not repeated on every build.
        .emit_warnings(false)
        .file_name("edge.rs")
        .compile(&[schemas("edge.idl")])?;
    idlc::Builder::new()
        .encoding(schemas("markers.enc"))
        .file_name("markers.rs")
        .compile(&[schemas("markers.idl")])?;
    idlc::Builder::new()
        .mapping(schemas("derives.map"))
        .side("Game")
        .file_name("derives.rs")
        .compile(&[schemas("derives.idl")])?;
    idlc::Builder::new()
        .encoding(schemas("naval.enc"))
        .file_name("naval.rs")
        .compile(&[schemas("naval.idl")])?;
    idlc::Builder::new()
        .encoding(schemas("rover.enc"))
        .file_name("rover.rs")
        .compile(&[schemas("rover.idl")])?;
    idlc::Builder::new()
        .encoding(schemas("cubes.enc"))
        .file_name("cubes.rs")
        .compile(&[schemas("cubes.idl")])?;
    // CubesBits twice, under two names: the second shares the first's codecs (same_codec!).
    idlc::Builder::new()
        .encoding(schemas("cubes.enc"))
        .encoding(schemas("cubes_twin.enc"))
        .file_name("cubes_twin.rs")
        .compile(&[schemas("cubes.idl")])?;
    idlc::Builder::new()
        .file_name("cubes_builtin.rs")
        .compile(&[schemas("cubes.idl")])?;
    // The same with the orientation in the game's glam::Quat (cubes_glam.map).
    idlc::Builder::new()
        .encoding(schemas("cubes.enc"))
        .mapping(schemas("cubes_glam.map"))
        .side("Glam")
        .file_name("cubes_glam.rs")
        .compile(&[schemas("cubes.idl")])?;
    idlc::Builder::new()
        .mapping(schemas("cubes_glam.map"))
        .side("Glam")
        .file_name("cubes_glam_builtin.rs")
        .compile(&[schemas("cubes.idl")])?;
    // A struct in the game's own type, which is not `Clone` (waypoint.map).
    idlc::Builder::new()
        .mapping(schemas("waypoint.map"))
        .side("Game")
        .file_name("waypoint.rs")
        .compile(&[schemas("waypoint.idl")])?;
    // One schema in three versions, each a fenced extension of the one before: the built-in
    // encoding (a bit stream) and SquadBytes (a byte stream).
    for version in ["squad_v1", "squad_v2", "squad_v3"] {
        idlc::Builder::new()
            .encoding(schemas("versions/squad.enc"))
            .file_name(format!("{version}.rs"))
            .compile(&[schemas(&format!("versions/{version}.idl"))])?;
    }
    // A match over sessions in two versions, its World a DELTA SEQUENCE of units.
    for version in ["match_v1", "match_v2"] {
        idlc::Builder::new()
            .encoding(schemas("versions/match.enc"))
            .file_name(format!("{version}.rs"))
            .compile(&[schemas(&format!("versions/{version}.idl"))])?;
    }
    // The match's snapshots as the UDP demo sent them before sessions.
    idlc::Builder::new()
        .encoding(schemas("versions/match_wrapped.enc"))
        .file_name("match_wrapped.rs")
        .compile(&[schemas("versions/match_wrapped.idl")])?;
    idlc::Builder::new()
        .file_name("arena_builtin.rs")
        .compile(&[schemas("arena.idl")])?;
    idlc::Builder::new()
        .encoding(schemas("mk48.enc"))
        .mapping(schemas("mk48.map"))
        .side("Game")
        .file_name("mk48.rs")
        .compile(&[schemas("mk48.idl")])?;
    // The same without packed runs: tests/tests/mk48.rs holds the two against each other.
    idlc::Builder::new()
        .encoding(schemas("mk48.enc"))
        .mapping(schemas("mk48.map"))
        .side("Game")
        .merge_fixed_width(false)
        .file_name("mk48_unmerged.rs")
        .compile(&[schemas("mk48.idl")])?;
    compat_pairs()?;
    arena_udp()?;
    tutorial()?;
    Ok(())
}

/// Every compatible pair of check-compat's corpus (compiler/tests/compat/pass/), generated from
/// OLD and from NEW, and `compat_pairs.rs`: their modules and, per pair, a function that crosses
/// every type both have in every encoding both have (tests/src/compat_cross.rs).
fn compat_pairs() -> Result<(), Box<dyn std::error::Error>> {
    let corpus = Path::new("../compiler/tests/compat/pass");
    println!("cargo::rerun-if-changed={}", corpus.display());
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    let mut modules = String::new();
    let mut table = String::new();
    for dir in &dirs {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or("a corpus directory without a name")?;
        let ident = format!(
            "p{}",
            name.to_lowercase()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        let mut irs = Vec::new();
        for version in ["old", "new"] {
            let idl = dir.join(format!("{version}.idl"));
            println!("cargo::rerun-if-changed={}", idl.display());
            let mut files = vec![idl.clone()];
            let with = dir.join("with.idl");
            if with.exists() && !std::fs::read_to_string(&idl)?.contains("\"with.idl\"") {
                files.push(with);
            }
            let encoding = dir.join(format!("{version}.enc"));
            let encodings: Vec<PathBuf> =
                encoding.exists().then_some(encoding).into_iter().collect();
            let mut builder = idlc::Builder::new()
                .mapping(schemas("versions/serde.map"))
                .side("Test")
                .emit_warnings(false)
                .file_name(format!("compat_{ident}_{version}.rs"));
            for encoding in &encodings {
                builder = builder.encoding(encoding);
            }
            builder.compile(&files)?;
            let inputs = idlc::Inputs {
                idl: files,
                encodings,
                mappings: vec![schemas("versions/serde.map")],
                side: Some("Test".into()),
            };
            irs.push(idlc::compile(&inputs)?.ir);
        }
        let (old, new) = (&irs[0], &irs[1]);
        let mut calls = String::new();
        for (encoding, _) in old
            .encodings
            .iter()
            .filter(|(e, _)| new.encodings.contains_key(*e))
        {
            let (eo, en) = (
                idlc::codegen::marker_name(old, encoding),
                idlc::codegen::marker_name(new, encoding),
            );
            for (ty, def) in &old.schema.structs {
                let (Some(mo), Some(mn)) =
                    (old.mapping.structs.get(ty), new.mapping.structs.get(ty))
                else {
                    continue;
                };
                let Some(new_def) = new.schema.structs.get(ty) else {
                    continue;
                };
                // The fields whose type no EXTEND changed: an old reader holds them exactly.
                let unchanged: Vec<String> = def
                    .fields()
                    .filter(|f| {
                        new_def
                            .segments
                            .iter()
                            .all(|s| s.extends.iter().all(|e| e.field != f.name))
                    })
                    .filter(|f| !holds_extended(new, &f.ty, 0))
                    .filter_map(|f| mo.fields.get(&f.name).map(|m| format!("{:?}", m.rust_name)))
                    .collect();
                calls.push_str(&format!(
                    "crate::compat_cross::cross::<old::{eo}, old::{}, new::{en}, new::{}>({:?}, &[{}], seed, cases)?;\n",
                    mo.rust_name, mn.rust_name, format!("{ty} in {encoding}"), unchanged.join(", ")
                ));
            }
        }
        modules.push_str(&format!(
            "/// compiler/tests/compat/pass/{name}: OLD and NEW.\npub mod {ident} {{\n    /// OLD.\n    pub mod old {{ generated!(\"compat_{ident}_old\"); }}\n    /// NEW.\n    pub mod new {{ generated!(\"compat_{ident}_new\"); }}\n    /// Crosses every shared type both ways.\n    pub fn cross(seed: u64, cases: usize) -> Result<(), String> {{\n{calls}Ok(())\n    }}\n}}\n"
        ));
        table.push_str(&format!("    ({name:?}, {ident}::cross),\n"));
    }
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("compat_pairs.rs");
    let text = format!(
        "{modules}\n/// A pair's crossing: a seed, values per type.\npub type Cross = fn(u64, usize) -> Result<(), String>;\n\n/// Every pair: its directory name and its crossing.\npub static PAIRS: &[(&str, Cross)] = &[\n{table}];\n"
    );
    if std::fs::read_to_string(&out).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&out, text)?;
    }
    Ok(())
}

/// Whether a value of `ty` holds a struct that some EXTEND widens in `ir` (an old reader then
/// holds what it can of it, not the value itself).
fn holds_extended(ir: &idlc::ir::Ir, ty: &idlc::ir::Type, depth: u32) -> bool {
    use idlc::ir::Type;
    if depth > 16 {
        return true;
    }
    match ty {
        Type::Struct(name) => ir.schema.structs.get(name).is_some_and(|def| {
            def.segments.iter().any(|s| !s.extends.is_empty())
                || def.fields().any(|f| holds_extended(ir, &f.ty, depth + 1))
        }),
        Type::Sequence { element, .. } | Type::Array { element, .. } | Type::Optional(element) => {
            holds_extended(ir, element, depth + 1)
        }
        _ => false,
    }
}

/// The UDP demo (schemas/arena_udp.idl, tests/src/arena_udp/): one module per seed encoding and
/// side, `arena_udp_e1_client` .. `arena_udp_e2_server`. The two builds of a side differ only in
/// their encoding files: the seed's myencoding1.enc with arena_udp_e1.enc, or myencoding2.enc
/// with arena_udp_e2.enc.
fn arena_udp() -> Result<(), Box<dyn std::error::Error>> {
    let idl = [
        seed("character.idl"),
        schemas("item.idl"),
        schemas("arena_udp.idl"),
    ];
    for (tag, seed_encoding, encoding) in [
        ("e1", "myencoding1.enc", "arena_udp_e1.enc"),
        ("e2", "myencoding2.enc", "arena_udp_e2.enc"),
    ] {
        for (side, map) in [
            ("Client", "arena_udp_client.map"),
            ("Server", "arena_udp_server.map"),
        ] {
            // The seed encodings' expected W0301 (`Animation` names the field `anim`): not
            // repeated on every build.
            idlc::Builder::new()
                .encoding(seed(seed_encoding))
                .encoding(schemas(encoding))
                .mapping(schemas(map))
                .side(side)
                .emit_warnings(false)
                .file_name(format!("arena_udp_{tag}_{}.rs", side.to_lowercase()))
                .compile(&idl)?;
        }
    }
    Ok(())
}

/// The program of docs/TUTORIAL.md (the Rust blocks of its section "4. The program", in order,
/// as its `src/main.rs`) into `tutorial_main.rs`, its modules those of [`arena_udp`]'s MYENCODING1
/// build, which the tutorial's build.rs makes the same way: tests/tests/tutorial.rs compiles and
/// runs it.
fn tutorial() -> Result<(), Box<dyn std::error::Error>> {
    const TUTORIAL: &str = "../docs/TUTORIAL.md";
    const MODULES: &str = "use mygame::{net_client as c, net_server as s};";
    println!("cargo::rerun-if-changed={TUTORIAL}");
    let text = std::fs::read_to_string(TUTORIAL)?;
    let section = text
        .split("\n## ")
        .find(|section| section.starts_with("4. The program"))
        .ok_or("docs/TUTORIAL.md has no section \"4. The program\"")?;
    let mut program = String::new();
    let mut in_rust = false;
    for line in section.lines() {
        match line {
            "```rust" => in_rust = true,
            "```" if in_rust => in_rust = false,
            _ if in_rust => {
                program.push_str(line);
                program.push('\n');
            }
            _ => {}
        }
    }
    if !program.contains(MODULES) {
        return Err(format!("docs/TUTORIAL.md's program no longer says `{MODULES}`").into());
    }
    let program = program.replace(
        MODULES,
        "use idlc_tests::{arena_udp_e1_client as c, arena_udp_e1_server as s};",
    );
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("tutorial_main.rs");
    std::fs::write(out, program)?;
    Ok(())
}
