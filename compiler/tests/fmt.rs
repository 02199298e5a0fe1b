//! `idlc fmt` through the library: on every bundled file (the project's schemas, the
//! check-compat corpus, the seed examples) the formatter keeps the meaning (the same syntax tree,
//! spans aside) and every comment, and formatting its output changes nothing; on odd layouts
//! (hand-written, and every bundled file re-spaced at random) likewise, and the layout it picks
//! does not depend on the one it was given.

mod common;

use std::path::{Path, PathBuf};

use idlc::fmt::{format, language_of, without_spans};
use idlc::front::lexer::{Language, Lexeme, lexemes};
use proptest::prelude::*;

/// Every `.idl`, `.enc` and `.map` file the project carries, and the seed examples.
fn bundled() -> Vec<PathBuf> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, files);
            } else if language_of(&path).is_some() {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    walk(Path::new(common::SCHEMAS), &mut files);
    walk(&root.join("tests/compat"), &mut files);
    walk(Path::new(common::SEED_EXAMPLES), &mut files);
    files
}

fn read(path: &Path) -> (String, Language) {
    let source =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (source, language_of(path).expect("a schema file"))
}

fn fmt(source: &str, language: Language) -> String {
    format(0, source, language).unwrap_or_else(|diagnostics| {
        panic!("not formatted: {diagnostics:?}\n--- source:\n{source}")
    })
}

/// The syntax tree of `source`, spans aside, and whether it has syntax errors.
fn tree(source: &str, language: Language) -> (serde_json::Value, bool) {
    match language {
        Language::Idl => {
            let (tree, diagnostics) = idlc::front::idl::parse(0, source);
            (without_spans(&tree), !diagnostics.is_empty())
        }
        Language::Encoding => {
            let (tree, diagnostics) = idlc::front::enc::parse(0, source);
            (without_spans(&tree), !diagnostics.is_empty())
        }
        Language::Mapping => {
            let (tree, diagnostics) = idlc::front::map::parse(0, source);
            (without_spans(&tree), !diagnostics.is_empty())
        }
    }
}

/// The comments of `source`, as written (a `//` comment without trailing spaces), sorted.
fn comments(source: &str, language: Language) -> Vec<String> {
    let mut found: Vec<String> = lexemes(source, language)
        .filter_map(|(start, lexeme, end)| match lexeme {
            Lexeme::Comment { .. } => Some(source[start..end].trim_end().to_string()),
            Lexeme::Token(_) => None,
        })
        .collect();
    found.sort();
    found
}

/// What formatting must guarantee for `source`: the same tree, the same comments, a fixed
/// point. Returns the formatted text.
fn assert_formats_well(name: &str, source: &str, language: Language) -> String {
    let formatted = fmt(source, language);
    let (before, _) = tree(source, language);
    let (after, broken) = tree(&formatted, language);
    assert!(
        !broken,
        "{name}: the formatted text has syntax errors:\n{formatted}"
    );
    assert_eq!(before, after, "{name}: the meaning changed:\n{formatted}");
    assert_eq!(
        comments(source, language),
        comments(&formatted, language),
        "{name}: a comment was lost or changed:\n{formatted}"
    );
    assert_eq!(
        fmt(&formatted, language),
        formatted,
        "{name}: formatting twice changes the text"
    );
    for line in formatted.lines() {
        assert_eq!(line.trim_end(), line, "{name}: trailing spaces in {line:?}");
    }
    formatted
}

#[test]
fn every_bundled_file_keeps_its_meaning_and_comments_and_is_a_fixed_point() {
    let files = bundled();
    assert!(files.len() > 100, "found only {} files", files.len());
    let mut formatted = 0;
    for path in &files {
        let (source, language) = read(path);
        let name = path.display().to_string();
        if tree(&source, language).1 {
            // A deliberately broken file is left alone, with its syntax errors.
            assert!(format(0, &source, language).is_err(), "{name}");
            continue;
        }
        assert_formats_well(&name, &source, language);
        formatted += 1;
    }
    assert!(formatted > 100, "formatted only {formatted} files");
}

/// What CI's `idlc fmt --check schemas` would say: every schema of the project is formatted.
#[test]
fn the_bundled_schemas_are_formatted() {
    let mut stale = Vec::new();
    for path in bundled() {
        if !path.starts_with(common::SCHEMAS) {
            continue;
        }
        let (source, language) = read(&path);
        if fmt(&source, language) != source {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "not formatted (run `cargo run -p idlc-cli -- fmt schemas`): {stale:?}"
    );
}

#[test]
fn a_file_with_syntax_errors_is_not_formatted() {
    let diagnostics = format(0, "STRUCT A { UINT8 a }\n", Language::Idl).unwrap_err();
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].code.as_deref(), Some("E0102"));
}

fn check(language: Language, source: &str, expected: &str) {
    let formatted = assert_formats_well("example", source, language);
    assert_eq!(
        formatted, expected,
        "\n--- got:\n{formatted}--- expected:\n{expected}"
    );
}

#[test]
fn idl_on_one_line_gets_one_member_per_line() {
    check(
        Language::Idl,
        "IMPORT \"a.idl\";CONST MAX=-5;ENUM E{A=1,B,}STRUCT S{UINT8 a DEFAULT=MAX;\
         NUMERIC[ -MAX , 10.]b;SEQUENCE< E ,4 >c;enum F{X,Y}f;FENCE EXTEND a TO INT(0,1000];};\
         PROTOCOL P{MESSAGE M{ }FENCE RPC go(UINT8 a,FENCE,BOOL b DEFAULT=true)->OPTIONAL<S>;}",
        "IMPORT \"a.idl\";\nCONST MAX = -5;\nENUM E { A = 1, B }\nSTRUCT S {\n  UINT8 a DEFAULT = MAX;\n  \
         NUMERIC[-MAX, 10.] b;\n  SEQUENCE<E, 4> c;\n  enum F { X, Y } f;\n  FENCE;\n  \
         EXTEND a TO INT(0, 1000];\n}\nPROTOCOL P {\n  MESSAGE M {}\n  FENCE;\n  \
         RPC go(UINT8 a, FENCE, BOOL b DEFAULT = true) -> OPTIONAL<S>;\n}\n",
    );
}

#[test]
fn comments_stay_where_they_stand() {
    check(
        Language::Idl,
        "/* header */\n\n\n// before S\nSTRUCT S { // opens\n    UINT8 a; // first\n\
         UINT16 bb;   // second\n             // continues second\n\n\n  // before c\n  \
         UINT8 /* inline */ c;\n  UINT8 d // mid-member\n  DEFAULT = 1;\n  // last\n};  // end\n",
        "/* header */\n\n// before S\nSTRUCT S {  // opens\n  UINT8 a;    // first\n  \
         UINT16 bb;  // second\n              // continues second\n\n  // before c\n  \
         UINT8 /* inline */ c;\n  UINT8 d  // mid-member\n    DEFAULT = 1;\n  // last\n}  // end\n",
    );
}

#[test]
fn an_enum_is_broken_over_lines_when_it_is_long_or_holds_a_comment() {
    check(
        Language::Idl,
        "ENUM Short { A, B, }\nENUM Commented { A, // the first\n B }\n\
         ENUM Long { Aaaaaaaaaaaaaaaa, Bbbbbbbbbbbbbbbbbbbb, Cccccccccccccccccccc, Dddddddddddddddddd, Eeeeeeee }\n",
        "ENUM Short { A, B }\nENUM Commented {\n  A,  // the first\n  B,\n}\nENUM Long {\n  \
         Aaaaaaaaaaaaaaaa,\n  Bbbbbbbbbbbbbbbbbbbb,\n  Cccccccccccccccccccc,\n  \
         Dddddddddddddddddd,\n  Eeeeeeee,\n}\n",
    );
}

#[test]
fn a_long_rpc_or_one_with_a_comment_gets_one_parameter_per_line() {
    check(
        Language::Idl,
        "PROTOCOL P {\n  RPC short(UINT8 a, FENCE, BOOL b DEFAULT = true,) -> UINT8;\n  \
         RPC commented(UINT8 a, // the first\n BOOL b) -> UINT8;\n  \
         RPC long(UINT32 client_tick, WeaponKind weapon, Vec3 origin, Vec3 direction, INT(0, 8] shots, BOOL x);\n}\n",
        "PROTOCOL P {\n  RPC short(UINT8 a, FENCE, BOOL b DEFAULT = true) -> UINT8;\n  \
         RPC commented(\n    UINT8 a,  // the first\n    BOOL b,\n  ) -> UINT8;\n  RPC long(\n    \
         UINT32 client_tick,\n    WeaponKind weapon,\n    Vec3 origin,\n    Vec3 direction,\n    \
         INT(0, 8] shots,\n    BOOL x,\n  );\n}\n",
    );
}

#[test]
fn encoding_blocks_nest() {
    check(
        Language::Encoding,
        "ENCODING(E) BITSTREAM; ENCODING(E) DEFAULTS { NUMERIC : FIXED_POINT( 0.01 ) ; };\n\
         ENCODING(E) PUBLISHABLE_STRUCT S { VLQ(3) id; DELTA { DEAD_RECKONING(0.02) { x; vx; }; }\n\
         DELTA DIFF(4,8) BIT(2) a; HUFFMAN(A=1,B=2) e; ALIGN; CHECK; FENCE EXTEND a TO UINT32;\n\
         SEQUENCE<Item> items; }",
        "ENCODING(E) BITSTREAM;\nENCODING(E) DEFAULTS {\n  NUMERIC: FIXED_POINT(0.01);\n}\n\
         ENCODING(E) PUBLISHABLE_STRUCT S {\n  VLQ(3) id;\n  DELTA {\n    DEAD_RECKONING(0.02) {\n      \
         x;\n      vx;\n    }\n  }\n  DELTA DIFF(4, 8) BIT(2) a;\n  HUFFMAN(A = 1, B = 2) e;\n  ALIGN;\n  \
         CHECK;\n  FENCE;\n  EXTEND a TO UINT32;\n  SEQUENCE<Item> items;\n}\n",
    );
}

#[test]
fn mapping_members_and_restated_enums() {
    check(
        Language::Mapping,
        "MAPPING(\"Rust\",\"Client\") DERIVE(serde::Serialize,Hash);\
         MAPPING(\"Rust\",\"Client\") STRUCT V=glam::Vec3{x=>x;y=>y;}\n\
         MAPPING(\"CPP\",\"Server\") MESSAGE M { class Inv items; enum A {X,Y} anim; \
         enum B { P }; Vec<[f32;3]> pts; std::vector<Item> v; };\n\
         MAPPING(\"Rust\",\"Client\") PROTOCOL P SEND;",
        "MAPPING(\"Rust\", \"Client\") DERIVE(serde::Serialize, Hash);\n\
         MAPPING(\"Rust\", \"Client\") STRUCT V = glam::Vec3 {\n  x => x;\n  y => y;\n}\n\
         MAPPING(\"CPP\", \"Server\") MESSAGE M {\n  class Inv items;\n  enum A { X, Y } anim;\n  \
         enum B { P }\n  Vec<[f32; 3]> pts;\n  std::vector<Item> v;\n}\n\
         MAPPING(\"Rust\", \"Client\") PROTOCOL P SEND;\n",
    );
}

/// `source` with every gap between tokens and comments replaced by one of `gaps` (in turn):
/// whitespace only, never empty, and a newline after a `//` comment.
fn respaced(source: &str, language: Language, gaps: &[&str], keep_comments: bool) -> String {
    let mut out = String::new();
    let mut after_line_comment = false;
    for (i, (start, lexeme, end)) in lexemes(source, language).enumerate() {
        let is_comment = matches!(lexeme, Lexeme::Comment { .. });
        if is_comment && !keep_comments {
            continue;
        }
        if !out.is_empty() {
            let gap = gaps[i % gaps.len()];
            out.push_str(if after_line_comment && !gap.contains('\n') {
                "\n"
            } else {
                gap
            });
        }
        out.push_str(&source[start..end]);
        after_line_comment = matches!(lexeme, Lexeme::Comment { line: true });
    }
    out.push('\n');
    out
}

const GAPS: &[&str] = &[" ", "\n", "  ", "\n\n", "\t", " \n   ", "\n\n\n"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any layout of a bundled file formats well; without comments and blank lines, every
    /// layout of it formats to the same text.
    #[test]
    fn any_layout_of_a_bundled_file(
        file in any::<prop::sample::Index>(),
        picks in prop::collection::vec(0..GAPS.len(), 1..40),
    ) {
        let files = bundled();
        let path = &files[file.index(files.len())];
        let (source, language) = read(path);
        prop_assume!(!tree(&source, language).1);
        let gaps: Vec<&str> = picks.iter().map(|&i| GAPS[i]).collect();
        let name = path.display().to_string();
        assert_formats_well(&name, &respaced(&source, language, &gaps, true), language);
        let single: Vec<&str> = gaps.iter().map(|gap| if gap.contains('\n') { "\n" } else { " " }).collect();
        prop_assert_eq!(
            fmt(&respaced(&source, language, &single, false), language),
            fmt(&respaced(&source, language, &[" "], false), language),
            "{}: the layout depends on the input's", name
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any text is formatted or refused with its diagnostics, never a panic.
    #[test]
    fn any_text_is_formatted_or_refused(
        text in "(STRUCT|ENUM|enum|FENCE|DELTA|MAPPING|ENCODING|[A-Za-z_0-9]|[{}()<>,;:=\\[\\] \n\"-]|//|/\\*|\\*/){0,60}",
        language in 0..3usize,
    ) {
        let language = [Language::Idl, Language::Encoding, Language::Mapping][language];
        if let Ok(formatted) = format(0, &text, language) {
            prop_assert_eq!(fmt(&formatted, language), formatted);
        }
    }
}
