//! The C++ backend's test rig (tests/tests/cpp_conformance.rs; tests/tests/cpp_sanitized.rs
//! builds its fuzz entry points on the same sets and [`build`]): one table of the C++ header
//! sets ([`HEADER_SETS`]), one driver program that holds every set's header (each in its own
//! namespace inside `idlc_test`) and answers requests on stdin, and that driver compiled by g++
//! and by clang++ ([`FLAGS`]), whichever are on PATH, once per test process.
//!
//! The driver's protocol, one line each way: a request `<namespace> <encoding> <type> <hex>`
//! (`-` for no bytes) is answered `ok <hex>` (the bytes decoded, and the value encoded again;
//! `-` for no bytes), `decode-error <Kind> <bit>` or `encode-error <Kind> <bit>` (the Status's
//! `idlc::error_kind_name` and `bit_offset`). For a PUBLISHABLE_STRUCT, `... <type> delta
//! <elapsed> <baseline> <value>` (the elapsed seconds as the hex of the double's bits, the two
//! values in full form) is answered `ok <delta> <mirror in full form>`, and `... <type> undelta
//! <elapsed> <baseline> <delta>` `ok <state in full form>`, or an error as above. The sets of
//! [`OFF_STEPS`] answer `... <type> delta-raw <elapsed> <baseline> <value>`, the two values in
//! RAW (as they are, off the steps), with `ok <delta> <mirror in RAW>`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use idlc_tests::cpp::{COMPILERS, build, present};
use std::sync::OnceLock;

use idlc::ir::plan::DeltaStep;
use idlc::ir::{Ir, RustType};

use super::{compiled, hex, schema, seed};

/// An input file: one of the seed examples or of schemas/.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A file of the seed examples (../shared/seed-examples/).
    Seed(&'static str),
    /// A file of schemas/.
    Schema(&'static str),
}

impl Source {
    /// The file's path.
    pub fn path(self) -> PathBuf {
        match self {
            Source::Seed(name) => seed(name),
            Source::Schema(name) => schema(name),
        }
    }
}

/// The C++ mapping of a header set.
#[derive(Debug, Clone, Copy)]
pub enum Mapping {
    /// A mapping file.
    File(Source),
    /// A mapping's text (written to the rig's directory to be read).
    Inline(&'static str),
    /// One item of a mapping of the side `Cpp` (`STRUCT Name {}`), which makes the side C++.
    Item(&'static str),
}

/// One header of the driver: the inputs of a side mapped in C++, and what the tests exercise.
#[derive(Debug)]
pub struct HeaderSet {
    /// The first word of its requests, and the header's namespace inside `idlc_test` unless
    /// `cpp_namespace` says otherwise.
    pub namespace: &'static str,
    /// The header's C++ namespace when a header the mapping INCLUDEs declares types in it.
    pub cpp_namespace: Option<&'static str>,
    /// The golden snapshots of the set, `golden_bytes__{golden}_{encoding}.snap`; `None` for a
    /// schema no generated Rust records (diff_edge: the interpreter alone is its reference).
    pub golden: Option<&'static str>,
    /// The IDL files.
    pub idl: &'static [Source],
    /// The encoding files.
    pub encoding_files: &'static [Source],
    /// The side's C++ mapping.
    pub mapping: Mapping,
    /// The side.
    pub side: &'static str,
    /// The encodings exercised.
    pub encodings: &'static [&'static str],
    /// The structs exercised in each of them (IDL names).
    pub types: &'static [&'static str],
}

impl HeaderSet {
    /// The golden snapshot of `encoding`, `{golden}_{encoding}`, when the set has them.
    pub fn snapshot(&self, encoding: &str) -> Option<String> {
        self.golden.map(|golden| format!("{golden}_{encoding}"))
    }

    /// The header's C++ namespace.
    pub fn cpp_namespace(&self) -> String {
        self.cpp_namespace
            .map_or_else(|| format!("idlc_test::{}", self.namespace), str::to_string)
    }
}

/// Every C++ header the tests compile: the design source's two C++ mappings (client.cpp.map
/// with `vector<Item>`, server.cpp.map with the user's `class MyInventory`) in MYENCODING1,
/// MYENCODING2 and MYENCODINGA (whose raw FLOAT64 angle their `float angle` cannot hold:
/// lossy) and in MYENCODING1_DIFF and MYENCODING2_DIFF, every bundled schema of the golden
/// snapshots: with its C++ mapping (schemas/*.cpp.map, mirroring the Rust mapping the snapshots
/// were recorded with) or, where the snapshots have the built-in types, a one-item C++ mapping
/// that makes the side C++; schemas/diff_edge.idl, DIFF's corner cases, and schemas/cubes.idl,
/// QUATERNION's (no golden snapshot: the interpreter's random and hostile cases only).
pub const HEADER_SETS: [HeaderSet; 19] = [
    character("character_client", "client.cpp.map", "Client"),
    character("character_server", "server.cpp.map", "Server"),
    builtin(
        "character_builtin",
        &[Source::Seed("character.idl"), Source::Schema("item.idl")],
        &[],
        "PUBLISHABLE_STRUCT Item {}",
        &["Default"],
        &["Character", "Item"],
    ),
    HeaderSet {
        namespace: "character_v2",
        cpp_namespace: None,
        golden: Some("character_v2"),
        idl: &[Source::Schema("character_v2.idl")],
        encoding_files: &[Source::Seed("myencodinga_extended.enc")],
        mapping: Mapping::Inline(
            "MAPPING(\"CPP\", \"Client\") PUBLISHABLE_STRUCT Character { float angle; }\n",
        ),
        side: "Client",
        encodings: &["MYENCODINGA"],
        types: &["Character", "Item"],
    },
    squad("squad_v1", &[Source::Schema("versions/squad_v1.idl")]),
    squad("squad_v2", &[Source::Schema("versions/squad_v2.idl")]),
    squad("squad_v3", &[Source::Schema("versions/squad_v3.idl")]),
    builtin(
        "naval",
        &[Source::Schema("naval.idl")],
        &[Source::Schema("naval.enc")],
        "PUBLISHABLE_STRUCT Turret {}",
        &["NAVAL", "NAVAL_S2S"],
        &["Turret", "Ship", "Fleet"],
    ),
    HeaderSet {
        namespace: "mk48",
        cpp_namespace: None,
        golden: Some("mk48"),
        idl: &[Source::Schema("mk48.idl")],
        encoding_files: &[Source::Schema("mk48.enc")],
        mapping: Mapping::File(Source::Schema("mk48.cpp.map")),
        side: "Game",
        encodings: &["MK48", "MK48_PLAIN", "MK48_LOSSY"],
        types: &[
            "Guidance",
            "Transform",
            "Contact",
            "TerrainUpdate",
            "Update",
        ],
    },
    HeaderSet {
        namespace: "edge",
        cpp_namespace: None,
        golden: Some("edge"),
        idl: &[Source::Schema("edge.idl")],
        encoding_files: &[Source::Schema("edge.enc")],
        mapping: Mapping::File(Source::Schema("edge.cpp.map")),
        side: "Edge",
        encodings: &["Odd", "Bytes", "Some"],
        types: &[
            "Empty",
            "Keywords",
            "Extremes",
            "FloatEnds",
            "F32Ends",
            "Nesting",
            "Node",
            "Versioned",
            "Box",
            "Result",
            "Nothing",
            "Everything",
            "F32Arrays",
            "BigArrays",
            "Gust",
            "Spin",
            "Roster",
            "Drift",
        ],
    },
    builtin(
        "markers",
        &[Source::Schema("markers.idl")],
        &[Source::Schema("markers.enc")],
        "STRUCT Wire {}",
        &["Wire", "Lobby", "idlc", "type"],
        &["Wire", "WireEncoding"],
    ),
    builtin(
        "derives",
        &[Source::Schema("derives.idl")],
        &[],
        "STRUCT Buff {}",
        &["Default"],
        &["Buff", "Tick"],
    ),
    HeaderSet {
        namespace: "arena_client",
        cpp_namespace: None,
        golden: Some("arena"),
        idl: ARENA,
        encoding_files: ARENA_ENCODINGS,
        mapping: Mapping::File(Source::Schema("arena_client.cpp.map")),
        side: "Client",
        encodings: &["S2C", "S2CDebug"],
        types: ARENA_TYPES,
    },
    HeaderSet {
        namespace: "arena_server",
        cpp_namespace: Some("arena::server"),
        golden: Some("arena"),
        idl: ARENA,
        encoding_files: ARENA_ENCODINGS,
        mapping: Mapping::File(Source::Schema("arena_server.cpp.map")),
        side: "Server",
        encodings: &["S2S"],
        types: ARENA_TYPES,
    },
    HeaderSet {
        golden: Some("arena"),
        ..builtin(
            "arena_builtin",
            ARENA,
            &[],
            "STRUCT Vec3 {}",
            &["Default"],
            &[
                "Buy",
                "ChatBroadcast",
                "Fire",
                "Input",
                "Item",
                "Join",
                "JoinResult",
                "KillCredit",
                "KillFeed",
                "LootDrop",
                "MatchEnded",
                "MatchReport",
                "Ping",
                "PlayerResult",
                "ReportPlayer",
                "Say",
                "Squad",
                "VoiceFrame",
                "Welcome",
                "ArenaState",
                "PlayerState",
                "Projectile",
                "Vec3",
            ],
        )
    },
    HeaderSet {
        namespace: "world",
        cpp_namespace: None,
        golden: Some("character"),
        idl: &[
            Source::Seed("character.idl"),
            Source::Schema("item.idl"),
            Source::Schema("world.idl"),
        ],
        encoding_files: &[
            Source::Seed("myencoding1.enc"),
            Source::Seed("myencoding2.enc"),
            Source::Schema("world.enc"),
        ],
        mapping: Mapping::File(Source::Seed("client.cpp.map")),
        side: "Client",
        encodings: &["MYENCODING1", "MYENCODING2"],
        types: &["World"],
    },
    HeaderSet {
        namespace: "diff_edge",
        cpp_namespace: None,
        golden: None,
        idl: &[Source::Schema("diff_edge.idl")],
        encoding_files: &[Source::Schema("diff_edge.enc")],
        mapping: Mapping::File(Source::Schema("diff_edge.cpp.map")),
        side: "Client",
        encodings: &["DiffBits", "DiffBytes"],
        types: &["Probe", "Swarm"],
    },
    // QUATERNION (no golden snapshot: the interpreter is its reference): SMALLEST_THREE(9)
    // and its DIFF form in both streams, and four raw FLOAT32s in the built-in encoding.
    HeaderSet {
        golden: None,
        ..builtin(
            "cubes",
            &[Source::Schema("cubes.idl")],
            &[Source::Schema("cubes.enc")],
            "PUBLISHABLE_STRUCT Cube {}",
            &[
                "CubesBits",
                "CubesBytes",
                "CubesDiff",
                "CubesDiffBytes",
                "CubesDr",
            ],
            &["Cube", "Cubes"],
        )
    },
    HeaderSet {
        golden: None,
        ..builtin(
            "cubes_builtin",
            &[Source::Schema("cubes.idl")],
            &[],
            "PUBLISHABLE_STRUCT Cube {}",
            &["Default"],
            &["Cube", "Cubes"],
        )
    },
];

const ARENA: &[Source] = &[Source::Schema("arena.idl")];
const ARENA_ENCODINGS: &[Source] = &[
    Source::Schema("arena_s2c.enc"),
    Source::Schema("arena_s2s.enc"),
];
const ARENA_TYPES: &[&str] = &[
    "Buy",
    "ChatBroadcast",
    "Fire",
    "Input",
    "Item",
    "Join",
    "JoinResult",
    "KillCredit",
    "KillFeed",
    "LootDrop",
    "MatchEnded",
    "MatchReport",
    "Ping",
    "PlayerResult",
    "ReportPlayer",
    "Say",
    "Squad",
    "VoiceFrame",
    "Welcome",
    "ArenaState",
    "PlayerState",
    "Projectile",
];

/// A bundled schema with the built-in types: `item` (one mapping item, `STRUCT Name {}`) makes
/// the side `Cpp` a C++ side and maps nothing else.
const fn builtin(
    namespace: &'static str,
    idl: &'static [Source],
    encoding_files: &'static [Source],
    item: &'static str,
    encodings: &'static [&'static str],
    types: &'static [&'static str],
) -> HeaderSet {
    HeaderSet {
        namespace,
        cpp_namespace: None,
        golden: Some(namespace),
        idl,
        encoding_files,
        mapping: Mapping::Item(item),
        side: "Cpp",
        encodings,
        types,
    }
}

/// A version of the squad schema in its bit and byte streams, built-in types.
const fn squad(namespace: &'static str, idl: &'static [Source]) -> HeaderSet {
    builtin(
        namespace,
        idl,
        &[Source::Schema("versions/squad.enc")],
        "STRUCT Member {}",
        &["SquadBits", "SquadBytes"],
        &["Member", "Squad"],
    )
}

/// The design source's Character and Item on `side`, mapped by the seed's `mapping`, in its
/// three encodings and the two with DIFF (schemas/myencoding1_diff.enc, myencoding2_diff.enc).
const fn character(
    namespace: &'static str,
    mapping: &'static str,
    side: &'static str,
) -> HeaderSet {
    HeaderSet {
        namespace,
        cpp_namespace: None,
        golden: Some("character"),
        idl: &[Source::Seed("character.idl"), Source::Schema("item.idl")],
        encoding_files: &[
            Source::Seed("myencoding1.enc"),
            Source::Seed("myencoding2.enc"),
            Source::Seed("myencodinga.enc"),
            Source::Schema("myencoding1_diff.enc"),
            Source::Schema("myencoding2_diff.enc"),
        ],
        mapping: Mapping::File(Source::Seed(mapping)),
        side,
        encodings: &[
            "MYENCODING1",
            "MYENCODING2",
            "MYENCODINGA",
            "MYENCODING1_DIFF",
            "MYENCODING2_DIFF",
        ],
        types: &["Character", "Item"],
    }
}

/// A header set compiled by idlc.
#[derive(Debug)]
pub struct CompiledSet {
    /// The set.
    pub set: &'static HeaderSet,
    /// Its IR.
    pub ir: Ir,
    /// The encodings some of whose values the mapping cannot hold (W0402: an f32 field sent as
    /// FLOAT64, or finer than an f32 resolves): a decoded value is rounded to the C++ type, so
    /// its re-encoding may differ and only verdicts compare.
    pub lossy: Vec<String>,
}

impl CompiledSet {
    /// The C++ name of the struct `idl` names.
    pub fn cpp_name<'a>(&'a self, idl: &'a str) -> &'a str {
        self.ir
            .mapping
            .structs
            .get(self.idl_name(idl))
            .map_or(idl, |m| m.rust_name.as_str())
    }

    /// The IDL name of the struct `name` names: itself, or the struct whose C++ name it is (an
    /// RPC's parameters, named as the generated code names them).
    pub fn idl_name<'a>(&'a self, name: &'a str) -> &'a str {
        if self.ir.schema.structs.contains_key(name) {
            return name;
        }
        self.ir
            .mapping
            .structs
            .iter()
            .find(|(_, m)| m.rust_name == name)
            .map_or(name, |(idl, _)| idl.as_str())
    }

    /// Whether the C++ header gives the struct `name` names its delta form.
    pub fn has_delta_form(&self, name: &str) -> bool {
        idlc::cppgen::has_delta_form(&self.ir, self.idl_name(name))
    }

    /// Whether the delta form of the struct `name` names in `encoding` has a DEAD_RECKONING
    /// block, its own or an element's of a DELTA SEQUENCE.
    pub fn has_dead_reckoning(&self, encoding: &str, name: &str) -> bool {
        let Some(plan) = self.ir.plan(encoding) else {
            return false;
        };
        let mut seen = Vec::new();
        let mut pending = vec![self.idl_name(name).to_string()];
        while let Some(name) = pending.pop() {
            if seen.contains(&name) {
                continue;
            }
            let steps = plan.structs.get(&name).and_then(|s| s.delta.as_ref());
            let mut stack: Vec<&DeltaStep> = steps.into_iter().flatten().flatten().collect();
            while let Some(step) = stack.pop() {
                match step {
                    DeltaStep::DeadReckoning { .. } => return true,
                    DeltaStep::Block(inner) => stack.extend(inner),
                    DeltaStep::Sequence {
                        element: Some(element),
                        ..
                    } => pending.push(element.clone()),
                    _ => {}
                }
            }
            seen.push(name);
        }
        false
    }

    /// Whether the mapping cannot hold every value of `encoding` (see [`CompiledSet::lossy`]).
    pub fn is_lossy(&self, encoding: &str) -> bool {
        self.lossy.iter().any(|e| e == encoding)
    }

    /// Every struct the set exercises in every encoding, encoding by encoding.
    pub fn codecs(&self) -> Vec<Codec> {
        let cpp_ns = self.set.cpp_namespace();
        let mut codecs = Vec::new();
        for &encoding in self.set.encodings {
            let tag = idlc::cppgen::tag_name(&self.ir, encoding);
            for &ty in self.set.types {
                codecs.push(Codec {
                    encoding,
                    ty,
                    cpp_type: format!("{cpp_ns}::{}", self.cpp_name(ty)),
                    cpp_tag: format!("{cpp_ns}::{tag}"),
                });
            }
        }
        codecs
    }
}

/// A struct of a header set in one of its encodings.
#[derive(Debug, Clone)]
pub struct Codec {
    /// The encoding (its IDL name).
    pub encoding: &'static str,
    /// The struct as the set's `types` names it.
    pub ty: &'static str,
    /// The struct's qualified C++ name.
    pub cpp_type: String,
    /// The encoding's qualified C++ tag.
    pub cpp_tag: String,
}

/// Every header set compiled by idlc, once per test process.
pub fn header_sets() -> &'static [CompiledSet] {
    static SETS: OnceLock<Vec<CompiledSet>> = OnceLock::new();
    SETS.get_or_init(|| HEADER_SETS.iter().map(compile_set).collect())
}

/// The sets whose `delta-raw` requests carry values that lie off the steps (a game's own
/// values, `Default`s) in their encoding RAW, which holds every value as the mapping holds it,
/// and ask for their deltas in the other encodings. Not among [`HEADER_SETS`]: only those
/// requests exercise them.
/// - The seed's Character with the built-in C++ types but a `float angle`, in its FIXED_POINT
///   encodings, RAW from schemas/character_raw.enc.
/// - schemas/held_delta.idl: structs behind changed-bits, compared part by part.
/// - schemas/cubes.idl: rotations that are no rotation SMALLEST_THREE sends (a random unit
///   quaternion, the game's own), alone and as DELTA SEQUENCE elements, RAW from
///   schemas/cubes_raw.enc.
pub const OFF_STEPS: [HeaderSet; 3] = [
    HeaderSet {
        namespace: "off_steps",
        cpp_namespace: None,
        golden: None,
        idl: &[Source::Seed("character.idl"), Source::Schema("item.idl")],
        encoding_files: &[
            Source::Schema("character_raw.enc"),
            Source::Seed("myencoding1.enc"),
            Source::Seed("myencoding2.enc"),
            Source::Schema("myencoding1_diff.enc"),
            Source::Schema("myencoding2_diff.enc"),
        ],
        mapping: Mapping::Inline(
            "MAPPING(\"CPP\", \"Cpp\") PUBLISHABLE_STRUCT Character { float angle; }\n",
        ),
        side: "Cpp",
        encodings: &[
            "MYENCODING1",
            "MYENCODING2",
            "MYENCODING1_DIFF",
            "MYENCODING2_DIFF",
        ],
        types: &["Character"],
    },
    HeaderSet {
        namespace: "held_delta",
        cpp_namespace: None,
        golden: None,
        idl: &[Source::Schema("held_delta.idl")],
        encoding_files: &[Source::Schema("held_delta.enc")],
        mapping: Mapping::Item("PUBLISHABLE_STRUCT Marker {}"),
        side: "Cpp",
        encodings: &["HeldDelta"],
        types: &["Marker"],
    },
    HeaderSet {
        namespace: "cubes_off",
        cpp_namespace: None,
        golden: None,
        idl: &[Source::Schema("cubes.idl")],
        encoding_files: &[Source::Schema("cubes.enc"), Source::Schema("cubes_raw.enc")],
        mapping: Mapping::Item("PUBLISHABLE_STRUCT Cube {}"),
        side: "Cpp",
        encodings: &[
            "CubesBits",
            "CubesBytes",
            "CubesDiff",
            "CubesDiffBytes",
            "CubesDr",
        ],
        types: &["Cube", "Cubes"],
    },
];

/// The encoding of the [`OFF_STEPS`] sets that carries values as they are.
pub const RAW: &str = "RAW";

/// The [`OFF_STEPS`] sets compiled by idlc, once per test process.
pub fn off_steps() -> &'static [CompiledSet] {
    static SETS: OnceLock<Vec<CompiledSet>> = OnceLock::new();
    SETS.get_or_init(|| OFF_STEPS.iter().map(compile_set).collect())
}

fn compile_set(set: &'static HeaderSet) -> CompiledSet {
    let mapping = match set.mapping {
        Mapping::File(source) => source.path(),
        Mapping::Inline(text) => written_mapping(set, text),
        Mapping::Item(item) => written_mapping(set, &format!("MAPPING(\"CPP\", \"Cpp\") {item}\n")),
    };
    let idl: Vec<PathBuf> = set.idl.iter().map(|s| s.path()).collect();
    let encodings: Vec<PathBuf> = set.encoding_files.iter().map(|s| s.path()).collect();
    let compilation = compiled(&idl, &encodings, Some((set.side, mapping)));
    let lossy = set
        .encodings
        .iter()
        .filter(|encoding| lossy_in(&compilation, encoding))
        .map(|encoding| encoding.to_string())
        .collect();
    CompiledSet {
        set,
        ir: compilation.ir,
        lossy,
    }
}

/// `text` written to the rig's directory as the set's mapping.
fn written_mapping(set: &HeaderSet, text: &str) -> PathBuf {
    let path = work_dir().join(format!("{}.cpp.map", set.namespace));
    std::fs::write(&path, text).unwrap();
    path
}

/// Whether a W0402 warning of the compilation names `encoding` among those the mapping cannot
/// hold.
fn lossy_in(compilation: &idlc::Compilation, encoding: &str) -> bool {
    let named = format!("the encoding `{encoding}`");
    compilation
        .diagnostics
        .iter()
        .filter(|d| d.code.as_deref() == Some("W0402"))
        .any(|d| d.notes.iter().any(|note| note.starts_with(&named)))
}

/// The rig's directory: mappings, headers, the driver's source and binaries.
fn work_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cpp_conformance");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---------------------------------------------------------------------------------------------
// Requests and answers
// ---------------------------------------------------------------------------------------------

/// Bytes as the protocol writes them: hex, `-` for none.
pub fn wire_hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        "-".to_string()
    } else {
        hex(bytes)
    }
}

/// The request to decode `hex` ([`wire_hex`]) as the struct `ty` (IDL name) of `encoding` in
/// the header `namespace`, and to encode the value again.
pub fn request(namespace: &str, encoding: &str, ty: &str, hex: &str) -> String {
    format!("{namespace} {encoding} {ty} {hex}")
}

/// The answer when the bytes decoded and the value encoded to `bytes`.
pub fn ok_answer(bytes: &[u8]) -> String {
    format!("ok {}", wire_hex(bytes))
}

/// The answer when decoding (`stage` "decode") or encoding ("encode") failed with the error
/// kind `kind` (its Rust name) at bit `bit`.
pub fn error_answer(stage: &str, kind: &str, bit: u64) -> String {
    format!("{stage}-error {kind} {bit}")
}

/// The records of `types` in the golden snapshot `golden_bytes__{snapshot}.snap` under headings
/// `<type><heading>`: `(type, words of the record's line)`; none without a snapshot. A named
/// snapshot must exist.
pub fn golden_lines(
    snapshot: Option<&str>,
    heading: &str,
    types: &[&str],
) -> Vec<(String, Vec<String>)> {
    let Some(snapshot) = snapshot else {
        return Vec::new();
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/snapshots/golden_bytes__{snapshot}.snap"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the golden snapshot {}: {e}", path.display()));
    let mut records = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_suffix(heading) {
            current = Some(name.to_string());
        } else if !line.starts_with(' ') {
            current = None;
        } else if let Some(ty) = current.as_ref().filter(|t| types.contains(&t.as_str())) {
            let words = line.split_whitespace().map(str::to_string).collect();
            records.push((ty.clone(), words));
        }
    }
    records
}

/// Every full-form record of `types` in a golden snapshot: `(type, hex)`.
pub fn golden_records(snapshot: Option<&str>, types: &[&str]) -> Vec<(String, String)> {
    golden_lines(snapshot, " full", types)
        .into_iter()
        .map(|(ty, words)| (ty, words[1].clone()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The driver program
// ---------------------------------------------------------------------------------------------

const DRIVER_HEAD: &str = "#include <cstddef>\n#include <cstdint>\n#include <cstdio>\n#include <sstream>\n\
    #include <iostream>\n#include <map>\n#include <string>\n#include <vector>\n\n";

/// `unhex`, a C++ function from hex digits to the bytes they spell (those of a request).
pub const UNHEX: &str = r#"std::vector<std::uint8_t> unhex(const std::string& s) {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < s.size(); i += 2) {
        out.push_back(static_cast<std::uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
    }
    return out;
}
"#;

/// `hex`, a C++ function from bytes to their hex digits (`-` for none), as the drivers answer.
pub const HEX: &str = r#"std::string hex(const std::vector<std::uint8_t>& bytes) {
    if (bytes.empty()) {
        return "-";
    }
    std::string out;
    for (std::uint8_t b : bytes) {
        char pair[3];
        std::snprintf(pair, sizeof pair, "%02x", b);
        out += pair;
    }
    return out;
}
"#;

const DRIVER_MAIN: &str = r#"
namespace {

UNHEX

HEX

void report(const char* stage, const idlc::Status& s) {
    std::printf("%s-error %s %llu\n", stage, idlc::error_kind_name(s.kind),
                static_cast<unsigned long long>(s.bit_offset));
}

template <class T, class E>
void roundtrip(const std::vector<std::uint8_t>& in) {
    T value;
    idlc::Status s = value.template from_bytes_with<E>(in.data(), in.size());
    if (!s.ok()) {
        report("decode", s);
        return;
    }
    std::vector<std::uint8_t> out;
    s = value.template to_bytes_with<E>(out);
    if (!s.ok()) {
        report("encode", s);
        return;
    }
    std::printf("ok %s\n", hex(out).c_str());
}

using Bytes = std::vector<std::uint8_t>;

template <class T, class E>
bool decoded(const Bytes& bytes, T& value) {
    return value.template from_bytes_with<E>(bytes.data(), bytes.size()).ok();
}

template <class T, class E>
void answer_state(const T& state, const char* stage, const Bytes* delta) {
    Bytes full;
    idlc::Status s = state.template to_bytes_with<E>(full);
    if (!s.ok()) {
        report(stage, s);
        return;
    }
    if (delta != nullptr) {
        std::printf("ok %s %s\n", hex(*delta).c_str(), hex(full).c_str());
    } else {
        std::printf("ok %s\n", hex(full).c_str());
    }
}

/// The delta of `value` against `baseline`, both carried in the full form of `C` (`E` itself,
/// or RAW, which carries values off `E`'s steps as they are), and the mirror in `C`'s.
template <class T, class E, class C, class W>
void delta(const idlc::DeltaContext& ctx, const Bytes& base_bytes, const Bytes& value_bytes) {
    T baseline;
    T value;
    if (!decoded<T, C>(base_bytes, baseline) || !decoded<T, C>(value_bytes, value)) {
        std::printf("bad-input\n");
        return;
    }
    W w;
    T mirror;
    idlc::Status s = value.template encode_delta_with<E>(baseline, ctx, w, mirror);
    if (!s.ok()) {
        report("encode", s);
        return;
    }
    Bytes bytes = w.finish();
    answer_state<T, C>(mirror, "mirror", &bytes);
}

/// The state a delta makes of `baseline`, in full form.
template <class T, class E, class R>
void undelta(const idlc::DeltaContext& ctx, const Bytes& base_bytes, const Bytes& delta_bytes) {
    T state;
    if (!decoded<T, E>(base_bytes, state)) {
        std::printf("bad-input\n");
        return;
    }
    R r(delta_bytes.data(), delta_bytes.size());
    idlc::Status s = state.template decode_delta_with<E>(state, ctx, r);
    if (!s.ok()) {
        report("decode", s);
        return;
    }
    answer_state<T, E>(state, "encode", nullptr);
}

using Roundtrip = void (*)(const Bytes&);
using Delta = void (*)(const idlc::DeltaContext&, const Bytes&, const Bytes&);

Bytes bytes_of(const std::string& text) {
    return text == "-" ? Bytes{} : unhex(text);
}

} // namespace

int main() {
    const std::map<std::string, Roundtrip> codecs = {
CODECS    };
    const std::map<std::string, Delta> deltas = {
DELTAS    };
    const std::map<std::string, Delta> undeltas = {
UNDELTAS    };
    const std::map<std::string, Delta> raw_deltas = {
RAW_DELTAS    };
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream words(line);
        std::string ns, encoding, type, first, elapsed, second;
        words >> ns >> encoding >> type >> first;
        std::string key = ns + " " + encoding + " " + type;
        if (first == "delta" || first == "undelta" || first == "delta-raw") {
            const auto& table = first == "undelta" ? undeltas : first == "delta-raw" ? raw_deltas : deltas;
            words >> elapsed >> first >> second;
            auto codec = table.find(key);
            if (codec == table.end()) {
                std::printf("unknown\n");
                continue;
            }
            idlc::DeltaContext ctx;
            ctx.elapsed = idlc::f64_from_bits(std::stoull(elapsed, nullptr, 16));
            codec->second(ctx, bytes_of(first), bytes_of(second));
            continue;
        }
        auto codec = codecs.find(key);
        if (codec == codecs.end()) {
            std::printf("unknown\n");
            continue;
        }
        codec->second(bytes_of(first));
    }
    return 0;
}
"#;

/// The driver's source: every set's header (written to `dir`), and `main` with one codec per
/// set, encoding and type.
fn driver_source(sets: &[CompiledSet], dir: &Path) -> String {
    let mut text = String::from(DRIVER_HEAD);
    let mut codecs = String::new();
    let mut deltas = String::new();
    let mut undeltas = String::new();
    for compiled in sets {
        let ns = compiled.set.namespace;
        text.push_str(&include_header(compiled, dir));
        let cpp_ns = compiled.set.cpp_namespace();
        for Codec {
            encoding,
            ty,
            cpp_type,
            cpp_tag,
        } in compiled.codecs()
        {
            writeln!(
                codecs,
                "        {{\"{ns} {encoding} {ty}\", &roundtrip<{cpp_type}, {cpp_tag}>}},"
            )
            .unwrap();
            if compiled.has_delta_form(ty) {
                let stream = format!("{cpp_ns}::Codec<{cpp_type}, {cpp_tag}>");
                writeln!(
                    deltas,
                    "        {{\"{ns} {encoding} {ty}\", &delta<{cpp_type}, {cpp_tag}, {cpp_tag}, {stream}::Writer>}},"
                )
                .unwrap();
                writeln!(
                    undeltas,
                    "        {{\"{ns} {encoding} {ty}\", &undelta<{cpp_type}, {cpp_tag}, {stream}::Reader>}},"
                )
                .unwrap();
            }
        }
    }
    let mut raw_deltas = String::new();
    for off_steps in off_steps() {
        text.push_str(&include_header(off_steps, dir));
        let cpp_ns = off_steps.set.cpp_namespace();
        let raw = idlc::cppgen::tag_name(&off_steps.ir, RAW);
        for Codec {
            encoding,
            ty,
            cpp_type,
            cpp_tag,
        } in off_steps.codecs()
        {
            let stream = format!("{cpp_ns}::Codec<{cpp_type}, {cpp_tag}>");
            writeln!(
                raw_deltas,
                "        {{\"{} {encoding} {ty}\", &delta<{cpp_type}, {cpp_tag}, {cpp_ns}::{raw}, {stream}::Writer>}},",
                off_steps.set.namespace
            )
            .unwrap();
        }
    }
    text + &DRIVER_MAIN
        .replace("UNHEX\n", UNHEX)
        .replace("HEX\n", HEX)
        .replace("CODECS", &codecs)
        .replace("RAW_DELTAS", &raw_deltas)
        .replace("UNDELTAS", &undeltas)
        .replace("DELTAS", &deltas)
}

/// Writes the set's header to `dir` and returns its `#include`, between the declarations of
/// the collection classes its mapping names and the definitions of their members. A mapping
/// that INCLUDEs headers declares its classes there (each holding a `std::vector` named
/// `items_`, as [`collection_class`] does).
pub fn include_header(compiled: &CompiledSet, dir: &Path) -> String {
    let (ns, cpp_ns) = (compiled.set.namespace, compiled.set.cpp_namespace());
    let header = idlc::cppgen::generate_header(&compiled.ir, &cpp_ns)
        .unwrap_or_else(|e| panic!("{ns}: {e}"));
    std::fs::write(dir.join(format!("{ns}.hpp")), header).unwrap();
    let collections = custom_collections(&compiled.ir);
    let mut text = String::new();
    if compiled.ir.mapping.includes.is_empty() {
        for (class, element) in &collections {
            text.push_str(&collection_class(&cpp_ns, class, element));
        }
    }
    writeln!(text, "#include \"{ns}.hpp\"").unwrap();
    for (class, element) in &collections {
        text.push_str(&collection_members(&cpp_ns, class, element));
    }
    text
}

/// The user's collection classes a side's mapping names (`class MyInventory inventory;`), with
/// their element types: `(class, element)`.
fn custom_collections(ir: &Ir) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for mapping in ir.mapping.structs.values() {
        for field in mapping.fields.values() {
            if let RustType::Collection { path, element } = &field.ty {
                out.insert((path.clone(), element.to_string()));
            }
        }
    }
    out
}

/// A collection class with the four members the design source asks for, holding a
/// `std::vector` of its elements, which are only declared yet.
fn collection_class(namespace: &str, class: &str, element: &str) -> String {
    format!(
        "namespace {namespace} {{
struct {element};
class {class} {{
public:
    std::size_t idl_serialize_collection_get_size() const;
    const {element}& idl_serialize_collection_get_item(std::size_t i) const;
    void idl_deserialize_collection_reserve_size(std::size_t n);
    void idl_deserialize_collection_add_item(const {element}& item);
private:
    std::vector<{element}> items_;
}};
}}
"
    )
}

/// The four members of a [`collection_class`], defined where the element type is complete.
fn collection_members(namespace: &str, class: &str, element: &str) -> String {
    format!(
        "namespace {namespace} {{
std::size_t {class}::idl_serialize_collection_get_size() const {{ return items_.size(); }}
const {element}& {class}::idl_serialize_collection_get_item(std::size_t i) const {{ return items_[i]; }}
void {class}::idl_deserialize_collection_reserve_size(std::size_t n) {{ items_.reserve(n); }}
void {class}::idl_deserialize_collection_add_item(const {element}& item) {{ items_.push_back(item); }}
}}
"
    )
}

// ---------------------------------------------------------------------------------------------
// Compilers
// ---------------------------------------------------------------------------------------------

/// The flags the driver is built with, by each compiler on PATH: unoptimized, as an optimized
/// build of the driver takes two to five times as long on CI's two cores and tests nothing more
/// here. The generated headers do no float arithmetic of their own (the runtime does it all),
/// so floating-point contraction is the runtime's test: runtime/tests/cpp_runtime.rs builds it
/// with g++ `-O2 -march=native -ffp-contract=fast`, where g++ contracts (at -O1 it does not).
/// Undefined behaviour is the sanitized replay's (cpp_sanitized.rs).
pub const FLAGS: [&str; 1] = ["-O0"];

/// A compiled driver program.
#[derive(Debug)]
pub struct Driver {
    /// The compiler and its flags (`g++ -O0`), for messages.
    pub name: String,
    binary: PathBuf,
}

impl Driver {
    /// A driver program built elsewhere (cpp_protocols.rs builds its own), named `name` in
    /// messages.
    pub fn new(name: String, binary: PathBuf) -> Self {
        Driver { name, binary }
    }

    /// The driver's answer to each request, in order: one process reads them all.
    pub fn answer(&self, requests: &[String]) -> Vec<String> {
        let mut child = Command::new(&self.binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = requests.join("\n") + "\n";
        let output = std::thread::scope(|scope| {
            // Written while the answers are read, so that neither pipe fills up; a driver that
            // stops reading is reported by its exit status below.
            scope.spawn(move || stdin.write_all(input.as_bytes()));
            child.wait_with_output().unwrap()
        });
        assert!(output.status.success(), "{}: {}", self.name, output.status);
        let answers: Vec<String> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(
            answers.len(),
            requests.len(),
            "{}: one answer per request",
            self.name
        );
        answers
    }
}

/// The driver built with every compiler on PATH and every flag set, in parallel, once per
/// test process; `None` (said on stderr) when there is no C++ compiler, the headers having
/// been generated all the same.
pub fn drivers() -> Option<&'static [Driver]> {
    static DRIVERS: OnceLock<Vec<Driver>> = OnceLock::new();
    let drivers = DRIVERS.get_or_init(build_drivers);
    if drivers.is_empty() {
        eprintln!("no g++ or clang++ on PATH: the C++ headers were generated but not compiled");
        return None;
    }
    Some(drivers)
}

fn build_drivers() -> Vec<Driver> {
    let dir = work_dir();
    let source = dir.join("driver.cpp");
    std::fs::write(&source, driver_source(header_sets(), &dir)).unwrap();
    let present: Vec<&str> = COMPILERS.into_iter().filter(|c| present(c)).collect();
    let built: Result<Vec<Driver>, String> = std::thread::scope(|scope| {
        let threads: Vec<_> = present
            .iter()
            .map(|&compiler| scope.spawn(|| compile(compiler, &FLAGS, &dir, &source)))
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    built.unwrap_or_else(|failure| panic!("{failure}"))
}

/// Compiles the driver's `source` (its headers in `dir`) with `compiler` and `flags`.
fn compile(compiler: &str, flags: &[&str], dir: &Path, source: &Path) -> Result<Driver, String> {
    let name = format!("{compiler} {}", flags.join(" "));
    let binary = dir.join(format!("driver {name}").replace([' ', '='], "_"));
    build(compiler, flags, dir, &[source], &binary)?;
    Ok(Driver { name, binary })
}
