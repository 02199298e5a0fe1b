//! A bounded, seeded fuzz test of the three front ends and of resolution.
//!
//! Each parser gets at least [`PARSER_RUNS`] inputs, and `compile_with` (one IDL, one Encoding,
//! one Mapping, from memory) at least [`RESOLVE_RUNS`]: mutations of real schemas (the design
//! source's examples in ../shared/seed-examples/ and every file of schemas/, when present, plus a
//! few built-in ones) and purely random text. Mutations work on tokens (split at whitespace and
//! punctuation boundaries: delete, duplicate, swap, replace, insert a keyword or punctuation) and
//! on bytes (delete, duplicate, swap, flip, insert, truncate).
//!
//! For every input: no panic (the input is printed before the panic goes on), a diagnostic for
//! every failure (text the lexer cannot read, or tokens that gave no item), every label inside
//! its file and on character boundaries, and every diagnostic renders.
//!
//! check-compat gets at least [`COMPAT_RUNS`] pairs: the pairs of tests/compat/ and pairs of a
//! real schema and a mutation of it, either side mutated. It must not panic on any pair (also
//! when a version does not compile: the checker reads the partial IR), its diagnostics follow
//! the same rules, and a version that compiles is a compatible extension of itself.
//!
//! The seed is fixed, so a failure reproduces; `IDLC_FUZZ_SEED=<n>` tries another one and
//! `IDLC_FUZZ_SCALE=<k>` runs k times as many inputs.

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use idlc::diagnostics::{Diagnostic, FileId, SourceMap};
use idlc::front::lexer::{Language, Token, tokens};
use idlc::load::MemoryFs;
use idlc::{Inputs, compile_with};
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

/// Inputs per parser (the task's floor: 20,000).
const PARSER_RUNS: usize = 20_000;
/// Compilations (IDL + Encoding + Mapping) through resolution, in two halves.
const RESOLVE_RUNS: usize = 20_000;
/// Pairs of versions through check-compat.
const COMPAT_RUNS: usize = 3_000;

const SEED_EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/seed-examples");
const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas");
const COMPAT_CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/compat");

/// Built-in samples, so the corpus is never empty.
const BUILTIN_IDL: &str = r#"IMPORT "lib.idl";
CONST MAX = 16;
TYPEDEF SEQUENCE<UINT8, MAX> Blob;
ENUM Color { Red, Green = 4, Blue, }
STRUCT Vec3 { NUMERIC[-1.,1.] x; NUMERIC[-1.,1.] y; NUMERIC[-1.,1.] z; FENCE }
MESSAGE Hello { STRING<32> name DEFAULT = "x"; OPTIONAL<Vec3> at; ARRAY<INT8, 3> a; FENCE
  EXTEND name TO STRING<64>; BOOL ok DEFAULT = true; Color c DEFAULT = Blue; }
PROTOCOL Game { MESSAGE Bye { BYTES<4> b; } RPC ping(UINT32 t, FENCE, INT[0,9) n DEFAULT = 1) -> UINT64; FENCE }
"#;
const BUILTIN_ENC: &str = r#"ENCODING(S2S) BYTESTREAM;
ENCODING(S2C) DEFAULTS { INT: VLQ; NUMERIC: FIXED_POINT(0.01); ENUM: BIT(3); }
ENCODING(S2C) MESSAGE Hello { VLQ(3) name; ALIGN; CHECK; FENCE EXTEND name TO STRING<64>; HUFFMAN(Red=1, Blue=2.5) c; }
ENCODING(S2C) RPC ping { UINT32 t; }
"#;
const BUILTIN_MAP: &str = r#"MAPPING("Rust", "Client") DERIVE(serde::Serialize, Hash);
MAPPING("Rust", "Client") STRUCT Vec3 = glam::Vec3 { x => x; y => y; z => z; }
MAPPING("Rust", "Server") MESSAGE Hello { std::collections::HashMap<u8, Vec<f32>> a; ENUM Color { Red, Green = 4, Blue } }
MAPPING("Rust", "Server") PROTOCOL Game RECEIVE;
"#;
/// Declares the `Item` that character.idl uses, and imports back (a cycle).
const LIB_IDL: &str = r#"IMPORT "fuzz.idl"; PUBLISHABLE_STRUCT Item { UINT32 id; FENCE }"#;

/// Words and punctuation that mutations insert.
const INSERTS: &[&str] = &[
    // IDL
    "IMPORT",
    "CONST",
    "TYPEDEF",
    "ENUM",
    "enum",
    "STRUCT",
    "PUBLISHABLE_STRUCT",
    "MESSAGE",
    "FENCE",
    "EXTEND",
    "TO",
    "DEFAULT",
    "PROTOCOL",
    "RPC",
    "true",
    "false",
    "BOOL",
    "UINT8",
    "UINT16",
    "UINT32",
    "UINT64",
    "INT8",
    "INT16",
    "INT32",
    "INT64",
    "FLOAT32",
    "FLOAT64",
    "INT",
    "NUMERIC",
    "STRING",
    "BYTES",
    "SEQUENCE",
    "ARRAY",
    "OPTIONAL",
    // Encoding
    "ENCODING",
    "DEFAULTS",
    "BITSTREAM",
    "BYTESTREAM",
    "DELTA",
    "DEAD_RECKONING",
    "ALIGN",
    "CHECK",
    "VLQ",
    "BIT",
    "FIXED_POINT",
    "HUFFMAN",
    // Mapping
    "MAPPING",
    "DERIVE",
    "SEND",
    "RECEIVE",
    "BOTH",
    "\"Rust\"",
    "\"Client\"",
    "\"CPP\"",
    "f32",
    "Vec",
    "u8",
    "glam::Vec3",
    // Punctuation and comments
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ",",
    ";",
    ":",
    "::",
    "=",
    "=>",
    "->",
    "-",
    ".",
    "\"",
    "\\",
    "/",
    "*",
    "/*",
    "*/",
    "//",
    "#",
    "@",
    "\n",
    // Literals, good and bad
    "0",
    "1",
    "-1",
    "2",
    "7",
    "64",
    "65",
    "1.5",
    "-10.",
    "0.01",
    "1e-3",
    "1e400",
    "0x",
    "0x2A",
    "1_000",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999999999999999999999999",
    "\"a.idl\"",
    "\"fuzz.idl\"",
    "\"lib.idl\"",
    "\"\"",
    "\"..\"",
    "\"/\"",
    "\"\\q\"",
    "\"\\\"\"",
    // Names the schemas use
    "Item",
    "Character",
    "x",
    "anim",
    "Animation",
    "inventory",
    "character_id",
    "Standing",
    // Odd characters
    "é",
    "\u{FEFF}",
    "\u{0}",
    "\r",
    "\t",
    "😀",
    "\u{200B}",
];

/// The alphabet of purely random text.
const ALPHABET: &[&str] = &[
    "a", "Z", "_", "0", "9", " ", " ", "\n", "{", "}", "(", ")", "[", "]", "<", ">", ",", ";", ":",
    "=", "-", ".", "\"", "\\", "/", "*", "é", "\u{0}", "😀",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Idl,
    Enc,
    Map,
}

impl Kind {
    fn language(self) -> Language {
        match self {
            Kind::Idl => Language::Idl,
            Kind::Enc => Language::Encoding,
            Kind::Map => Language::Mapping,
        }
    }

    fn of(path: &Path) -> Option<Kind> {
        match path.extension()?.to_str()? {
            "idl" => Some(Kind::Idl),
            "enc" => Some(Kind::Enc),
            "map" => Some(Kind::Map),
            _ => None,
        }
    }

    /// Parses `source` as file 0: whether anything was parsed, and the diagnostics.
    fn parse(self, source: &str) -> (bool, Vec<Diagnostic>) {
        match self {
            Kind::Idl => {
                let (ast, diagnostics) = idlc::front::idl::parse(0, source);
                (!ast.items.is_empty(), diagnostics)
            }
            Kind::Enc => {
                let (ast, diagnostics) = idlc::front::enc::parse(0, source);
                (!ast.items.is_empty(), diagnostics)
            }
            Kind::Map => {
                let (ast, diagnostics) = idlc::front::map::parse(0, source);
                (!ast.items.is_empty(), diagnostics)
            }
        }
    }
}

/// The real files to mutate, by language: built-in samples, seed examples, schemas/.
struct Corpus {
    idl: Vec<String>,
    enc: Vec<String>,
    map: Vec<String>,
    /// The IDL files read from disk, by file name, for the IMPORTs of the others.
    importable: Vec<(String, String)>,
}

impl Corpus {
    fn load() -> Corpus {
        let mut corpus = Corpus {
            idl: vec![BUILTIN_IDL.to_string(), LIB_IDL.to_string()],
            enc: vec![BUILTIN_ENC.to_string()],
            map: vec![BUILTIN_MAP.to_string()],
            importable: Vec::new(),
        };
        for dir in [SEED_EXAMPLES, SCHEMAS] {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
            paths.sort();
            for path in paths {
                let (Some(kind), Ok(text)) = (Kind::of(&path), std::fs::read_to_string(&path))
                else {
                    continue;
                };
                if kind == Kind::Idl
                    && let Some(name) = path.file_name().and_then(|name| name.to_str())
                {
                    corpus.importable.push((name.to_string(), text.clone()));
                }
                corpus.of_mut(kind).push(text);
            }
        }
        corpus
    }

    fn of(&self, kind: Kind) -> &[String] {
        match kind {
            Kind::Idl => &self.idl,
            Kind::Enc => &self.enc,
            Kind::Map => &self.map,
        }
    }

    fn of_mut(&mut self, kind: Kind) -> &mut Vec<String> {
        match kind {
            Kind::Idl => &mut self.idl,
            Kind::Enc => &mut self.enc,
            Kind::Map => &mut self.map,
        }
    }

    /// An input for a parser of `kind`: mostly a mutated file of that language, sometimes one
    /// of another language, sometimes random text.
    fn input(&self, kind: Kind, rng: &mut ChaCha8Rng) -> String {
        let roll = rng.random_range(0..100);
        if roll < 12 {
            return random_text(rng);
        }
        let pool = if roll < 22 {
            self.of([Kind::Idl, Kind::Enc, Kind::Map][rng.random_range(0..3)])
        } else {
            self.of(kind)
        };
        let base = &pool[rng.random_range(0..pool.len())];
        mutate(base, rng)
    }
}

fn random_text(rng: &mut ChaCha8Rng) -> String {
    let len = rng.random_range(0..160);
    let mut text = String::new();
    for _ in 0..len {
        if rng.random_bool(0.15) {
            text.push_str(INSERTS[rng.random_range(0..INSERTS.len())]);
        } else {
            text.push_str(ALPHABET[rng.random_range(0..ALPHABET.len())]);
        }
    }
    text
}

/// Splits at whitespace and punctuation boundaries: runs of word characters (ASCII letters,
/// digits, `_`, and any non-ASCII character), runs of ASCII whitespace, and every other ASCII
/// character on its own. Concatenating the pieces gives `text`.
fn split_tokens(text: &str) -> Vec<&str> {
    // Works on bytes: every boundary it cuts at is next to an ASCII byte, so it is a character
    // boundary.
    fn class(byte: u8) -> u8 {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | 0x80.. => 0,
            b' ' | b'\t' | b'\n' | b'\r' | 0x0C => 1,
            _ => 2,
        }
    }
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    for at in 1..bytes.len() {
        let (before, here) = (class(bytes[at - 1]), class(bytes[at]));
        if before != here || here == 2 {
            pieces.push(&text[start..at]);
            start = at;
        }
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// One to four mutations of `base`.
fn mutate(base: &str, rng: &mut ChaCha8Rng) -> String {
    let mut text = base.to_string();
    for _ in 0..rng.random_range(1..=4) {
        text = if rng.random_bool(0.65) {
            mutate_tokens(&text, rng)
        } else {
            mutate_bytes(&text, rng)
        };
    }
    text
}

fn mutate_tokens(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut pieces: Vec<&str> = split_tokens(text);
    let n = pieces.len();
    let pick = |rng: &mut ChaCha8Rng| rng.random_range(0..n.max(1));
    match rng.random_range(0..6) {
        0 if n > 0 => {
            let at = pick(rng);
            let count = rng.random_range(1..=4).min(n - at);
            pieces.drain(at..at + count);
        }
        1 if n > 0 => {
            let at = pick(rng);
            let count = rng.random_range(1..=8).min(n - at);
            let copy: Vec<&str> = pieces[at..at + count].to_vec();
            pieces.splice(at..at, copy);
        }
        2 if n > 1 => {
            let (a, b) = (pick(rng), pick(rng));
            pieces.swap(a, b);
        }
        3 if n > 0 => {
            let (a, b) = (pick(rng), pick(rng));
            pieces[a] = pieces[b];
        }
        _ => {
            let at = rng.random_range(0..=n);
            let insert = INSERTS[rng.random_range(0..INSERTS.len())];
            if rng.random_bool(0.5) {
                pieces.insert(at, insert);
            } else {
                pieces.splice(at..at, [" ", insert, " "]);
            }
        }
    }
    pieces.concat()
}

fn mutate_bytes(text: &str, rng: &mut ChaCha8Rng) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let n = bytes.len();
    match rng.random_range(0..6) {
        0 if n > 0 => {
            let at = rng.random_range(0..n);
            let count = rng.random_range(1..=3).min(n - at);
            bytes.drain(at..at + count);
        }
        1 if n > 0 => {
            let at = rng.random_range(0..n);
            bytes.insert(at, bytes[at]);
        }
        2 if n > 1 => {
            bytes.swap(rng.random_range(0..n), rng.random_range(0..n));
        }
        3 if n > 0 => {
            let at = rng.random_range(0..n);
            bytes[at] ^= 1 << rng.random_range(0..8);
        }
        4 if n > 0 => {
            bytes.truncate(rng.random_range(0..n));
        }
        _ => {
            let at = rng.random_range(0..=n);
            let byte = if rng.random_bool(0.5) {
                *b"{}()[]<>,;:=-.\"\\/*\n 0aZ_".choose(rng).unwrap()
            } else {
                rng.random()
            };
            bytes.insert(at, byte);
        }
    }
    // The parsers take text: invalid sequences become U+FFFD.
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs `f`; if it panics, prints `what` and the input first, then lets the panic go on.
fn guarded<T>(what: &str, input: &dyn std::fmt::Debug, f: impl FnOnce() -> T) -> T {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => value,
        Err(payload) => {
            eprintln!("\n{what} failed on this input:\n{input:#?}\n");
            panic::resume_unwind(payload)
        }
    }
}

/// Every label of every diagnostic lies inside its file, on character boundaries; every
/// diagnostic renders.
fn check_diagnostics(sources: &SourceMap, diagnostics: &[Diagnostic]) {
    for diagnostic in diagnostics {
        assert!(
            !diagnostic.message.is_empty(),
            "a diagnostic without a message"
        );
        for label in &diagnostic.labels {
            let file: FileId = label.file_id;
            assert!(
                file < sources.len(),
                "label in unknown file {file}: {diagnostic:?}"
            );
            let source = sources.source(file);
            let range = label.range.clone();
            assert!(
                range.start <= range.end && range.end <= source.len(),
                "label {range:?} outside its file of {} bytes: {diagnostic:?}",
                source.len()
            );
            assert!(
                source.is_char_boundary(range.start) && source.is_char_boundary(range.end),
                "label {range:?} not on character boundaries: {diagnostic:?}"
            );
        }
        let rendered = sources.render_plain(std::slice::from_ref(diagnostic));
        assert!(!rendered.is_empty());
    }
}

/// Parses `source` as `kind` and checks the result.
fn check_parse(kind: Kind, source: &str) {
    let (parsed_something, diagnostics) = kind.parse(source);
    let lexed: Vec<Token<'_>> = tokens(source, kind.language())
        .map(|token| token.expect("the lexer never fails").1)
        .collect();
    if lexed.iter().any(|token| matches!(token, Token::Error(_))) {
        assert!(
            !diagnostics.is_empty(),
            "text the lexer cannot read, and no diagnostic"
        );
    }
    if !lexed.is_empty() && !parsed_something {
        assert!(
            !diagnostics.is_empty(),
            "tokens that gave no item, and no diagnostic"
        );
    }
    let mut sources = SourceMap::new();
    sources.add("fuzz", source);
    check_diagnostics(&sources, &diagnostics);
    for diagnostic in &diagnostics {
        assert!(
            diagnostic.labels.iter().all(|label| label.file_id == 0),
            "a parser's label points into another file: {diagnostic:?}"
        );
    }
}

fn seed() -> u64 {
    std::env::var("IDLC_FUZZ_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or(0x1D1C_F022)
}

fn scaled(runs: usize) -> usize {
    let scale = std::env::var("IDLC_FUZZ_SCALE")
        .ok()
        .and_then(|scale| scale.parse().ok())
        .unwrap_or(1usize);
    runs * scale.max(1)
}

fn fuzz_parser(kind: Kind, stream: u64) {
    let corpus = Corpus::load();
    let mut rng = ChaCha8Rng::seed_from_u64(seed());
    rng.set_stream(stream);
    let start = std::time::Instant::now();
    let runs = scaled(PARSER_RUNS);
    for _ in 0..runs {
        let input = corpus.input(kind, &mut rng);
        guarded(&format!("the {kind:?} parser"), &input, || {
            check_parse(kind, &input)
        });
    }
    // The corpus itself, unmutated, must parse clean enough not to panic either.
    for text in corpus.of(kind) {
        guarded(&format!("the {kind:?} parser"), text, || {
            check_parse(kind, text)
        });
    }
    eprintln!("{kind:?} parser: {runs} inputs in {:?}", start.elapsed());
}

#[test]
fn idl_parser_survives_random_and_mutated_input() {
    fuzz_parser(Kind::Idl, 1);
}

#[test]
fn encoding_parser_survives_random_and_mutated_input() {
    fuzz_parser(Kind::Enc, 2);
}

#[test]
fn mapping_parser_survives_random_and_mutated_input() {
    fuzz_parser(Kind::Map, 3);
}

// Resolution is the slowest part; two halves balance the test threads.
#[test]
fn resolution_survives_random_and_mutated_input_1() {
    fuzz_resolution(4, "first");
}

#[test]
fn resolution_survives_random_and_mutated_input_2() {
    fuzz_resolution(5, "second");
}

fn fuzz_resolution(stream: u64, half: &str) {
    let corpus = Corpus::load();
    let mut rng = ChaCha8Rng::seed_from_u64(seed());
    rng.set_stream(stream);
    let start = std::time::Instant::now();
    let runs = scaled(RESOLVE_RUNS).div_ceil(2);
    // What the IDL files may IMPORT: the schemas beside them (arena.idl imports
    // arena_common.idl and item.idl), and lib.idl.
    let mut base_fs = MemoryFs::new().with("lib.idl", LIB_IDL);
    for (name, text) in &corpus.importable {
        base_fs.insert(name, text.as_str());
    }
    let inputs = Inputs {
        idl: vec!["fuzz.idl".into()],
        encodings: vec!["fuzz.enc".into()],
        mappings: vec!["fuzz.map".into()],
        side: None,
    };
    let mut generated = 0usize;
    for run in 0..runs {
        // Mutate one of the three (mostly the IDL), keep the others real, so that resolution
        // gets far; now and then mutate all three.
        let real = |kind: Kind, rng: &mut ChaCha8Rng| {
            let pool = corpus.of(kind);
            pool[rng.random_range(0..pool.len())].clone()
        };
        let all = rng.random_bool(0.2);
        let target = rng.random_range(0..4);
        let idl = if all || target <= 1 {
            corpus.input(Kind::Idl, &mut rng)
        } else {
            real(Kind::Idl, &mut rng)
        };
        let enc = if all || target == 2 {
            corpus.input(Kind::Enc, &mut rng)
        } else {
            real(Kind::Enc, &mut rng)
        };
        let map = if all || target == 3 {
            corpus.input(Kind::Map, &mut rng)
        } else {
            real(Kind::Map, &mut rng)
        };
        let side = match run % 3 {
            0 => None,
            1 => Some("Client".to_string()),
            _ => Some("Server".to_string()),
        };
        let fs = base_fs
            .clone()
            .with("fuzz.idl", idl.as_str())
            .with("fuzz.enc", enc.as_str())
            .with("fuzz.map", map.as_str());
        let inputs = Inputs {
            side,
            ..inputs.clone()
        };
        let files = (&idl, &enc, &map, &inputs.side);
        guarded("compile_with", &files, || {
            let compilation = compile_with(&inputs, &fs).expect("every named file exists");
            check_diagnostics(&compilation.sources, &compilation.diagnostics);
            assert!(
                compilation.sources.len() >= 3,
                "the three named files are read"
            );
            // What checks clean also generates: codegen has no gap a valid input can reach
            // (but the EXTENDs of bounds, which WIRE.md does not define yet).
            if !compilation.has_errors() {
                generated += 1;
                if let Err(error) = idlc::codegen::generate(&compilation.ir, &Default::default()) {
                    assert!(
                        error.0.contains("not generated yet"),
                        "a valid input does not generate: {error}"
                    );
                }
            }
        });
    }
    eprintln!(
        "resolution, {half} half: {runs} compilations ({generated} clean, generated) in {:?}",
        start.elapsed()
    );
}

/// One pair of the check-compat corpus: old.idl, new.idl, and old.enc with new.enc if any.
type CompatPair = (String, String, Option<(String, String)>);

/// The pairs of the check-compat corpus.
fn compat_pairs() -> Vec<CompatPair> {
    let mut pairs = Vec::new();
    for kind in ["pass", "fail"] {
        let Ok(entries) = std::fs::read_dir(Path::new(COMPAT_CORPUS).join(kind)) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
        dirs.sort();
        for dir in dirs {
            let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
            if let (Some(old), Some(new)) = (read("old.idl"), read("new.idl")) {
                let encodings = read("old.enc").zip(read("new.enc"));
                pairs.push((old, new, encodings));
            }
        }
    }
    pairs
}

#[test]
fn check_compat_survives_mutated_pairs() {
    let corpus = Corpus::load();
    let pairs = compat_pairs();
    let mut rng = ChaCha8Rng::seed_from_u64(seed());
    rng.set_stream(6);
    let start = std::time::Instant::now();
    let runs = scaled(COMPAT_RUNS);
    let mut base_fs = MemoryFs::new().with("lib.idl", LIB_IDL);
    for (name, text) in &corpus.importable {
        base_fs.insert(name, text.as_str());
    }
    let (mut clean, mut incompatible) = (0usize, 0usize);
    for _ in 0..runs {
        // A pair of the corpus, or a real file and itself; then mutate one side, the other or
        // both (now and then neither).
        let (mut old, mut new, encodings) = if !pairs.is_empty() && rng.random_bool(0.5) {
            pairs[rng.random_range(0..pairs.len())].clone()
        } else {
            let base = corpus.idl[rng.random_range(0..corpus.idl.len())].clone();
            (base.clone(), base, None)
        };
        match rng.random_range(0..8) {
            0..=3 => new = mutate(&new, &mut rng),
            4 | 5 => old = mutate(&old, &mut rng),
            6 => {
                old = mutate(&old, &mut rng);
                new = mutate(&new, &mut rng);
            }
            _ => {}
        }
        let (old_enc, new_enc) = match encodings {
            Some((old_enc, new_enc)) if rng.random_bool(0.3) => {
                (old_enc, mutate(&new_enc, &mut rng))
            }
            Some(pair) => pair,
            None if rng.random_bool(0.2) => {
                let enc = corpus.enc[rng.random_range(0..corpus.enc.len())].clone();
                (enc.clone(), mutate(&enc, &mut rng))
            }
            None => (String::new(), String::new()),
        };
        let fs = base_fs
            .clone()
            .with("old/v.idl", old.as_str())
            .with("new/v.idl", new.as_str())
            .with("old/v.enc", old_enc.as_str())
            .with("new/v.enc", new_enc.as_str());
        let inputs = |dir: &str, with_encoding: bool| Inputs {
            idl: vec![format!("{dir}/v.idl").into()],
            encodings: if with_encoding {
                vec![format!("{dir}/v.enc").into()]
            } else {
                Vec::new()
            },
            ..Inputs::default()
        };
        let with_encoding = !old_enc.is_empty();
        let files = (&old, &new, &old_enc, &new_enc);
        guarded("check-compat", &files, || {
            let pair = idlc::compat::compile_pair(
                &inputs("old", with_encoding),
                &fs,
                &inputs("new", with_encoding),
                &fs,
            )
            .expect("every named file exists");
            check_diagnostics(&pair.sources, &pair.diagnostics);
            // The checker reads any IR, partial ones too.
            let mut outcome = idlc::compat::check(&pair.old, &pair.new);
            let warnings =
                idlc::compat::acknowledge(&mut outcome.violations, &pair.sources, &pair.new_files);
            check_diagnostics(&pair.sources, &warnings);
            check_diagnostics(&pair.sources, &outcome.diagnostics());
            for violation in &outcome.violations {
                assert!(!idlc::compat::render::json_line(&pair.sources, violation).is_empty());
                assert!(
                    !idlc::compat::render::github_line(&pair.sources, violation, &pair.new_files)
                        .contains('\n')
                );
            }
            let _ = idlc::compat::normalize::diff(&pair.old, &pair.new, "OLD", "NEW");
            if !pair.has_errors() {
                clean += 1;
                incompatible += usize::from(!outcome.is_compatible());
                for ir in [&pair.old, &pair.new] {
                    let same = idlc::compat::check(ir, ir);
                    assert!(
                        same.violations.is_empty(),
                        "a version is not compatible with itself: {:?}",
                        same.violations
                    );
                }
            }
        });
    }
    eprintln!(
        "check-compat: {runs} pairs ({clean} compiled, {incompatible} of them incompatible) in {:?}",
        start.elapsed()
    );
}

#[test]
fn splitting_keeps_the_text() {
    let text = "STRUCT A {\n  NUMERIC[-1.,1.] x; // é\n}";
    let pieces = split_tokens(text);
    assert_eq!(pieces.concat(), text);
    assert_eq!(&pieces[..4], ["STRUCT", " ", "A", " "]);
    assert!(pieces.contains(&"é"));
}

/// Absurdly deep nesting (a megabyte of `SEQUENCE<`) must give a diagnostic, not overflow the
/// stack, in every language (the front ends refuse brackets nested more than 64 deep).
#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    const DEPTH: usize = 100_000;
    let idl = format!(
        "STRUCT A {{ {}UINT8{} x; }}",
        "SEQUENCE<".repeat(DEPTH),
        ">".repeat(DEPTH)
    );
    let enc = format!(
        "ENCODING(E) STRUCT A {{ {}VLQ x;{} }}",
        "DELTA { ".repeat(DEPTH),
        " }".repeat(DEPTH)
    );
    let map = format!(
        "MAPPING(\"Rust\", \"Client\") STRUCT A {{ {}u8{} x; }}",
        "Vec<".repeat(DEPTH),
        ">".repeat(DEPTH)
    );
    let fs = MemoryFs::new()
        .with("a.idl", idl)
        .with("a.enc", enc)
        .with("a.map", map);
    let inputs = Inputs {
        idl: vec!["a.idl".into()],
        encodings: vec!["a.enc".into()],
        mappings: vec!["a.map".into()],
        side: Some("Client".into()),
    };
    // The stack of a test thread (2 MiB by default), made explicit.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let compilation = compile_with(&inputs, &fs).expect("the files exist");
            assert!(compilation.has_errors(), "nesting that deep is an error");
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Long chains of definitions (each TYPEDEF, CONST or struct naming the next) are resolved or
/// refused without overflowing the stack.
#[test]
fn long_definition_chains_do_not_overflow_the_stack() {
    const LENGTH: usize = 20_000;
    let mut idl = String::new();
    for i in 0..LENGTH {
        idl.push_str(&format!(
            "TYPEDEF T{} T{i};\nCONST C{i} = C{};\nSTRUCT S{i} {{ S{} next; }}\n",
            i + 1,
            i + 1,
            i + 1
        ));
    }
    idl.push_str(&format!("TYPEDEF UINT8 T{LENGTH};\nCONST C{LENGTH} = 1;\nSTRUCT S{LENGTH} {{ T0 x; INT[0,C0] y; }}\n"));
    let fs = MemoryFs::new().with("a.idl", idl);
    let inputs = Inputs {
        idl: vec!["a.idl".into()],
        ..Inputs::default()
    };
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let compilation = compile_with(&inputs, &fs).expect("the file exists");
            assert!(compilation.has_errors(), "chains that long are refused");
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
}
