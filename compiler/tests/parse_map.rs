//! The Mapping parser: the seed examples, every construct of the grammar, and error recovery.

use idlc::diagnostics::{Diagnostic, SourceMap};
use idlc::front::common::NumberValue;
use idlc::front::map::ast::*;
use idlc::front::map::parse;
use idlc::front::span::Span;

const SEEDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/seed-examples/");

fn seed(name: &str) -> String {
    std::fs::read_to_string(format!("{SEEDS}{name}")).expect("seed example is readable")
}

/// Parses `source`, failing with the rendered diagnostics if there are any.
fn parse_ok(source: &str) -> MapFile {
    let mut map = SourceMap::new();
    let file = map.add("test.map", source);
    let (tree, diagnostics) = parse(file, source);
    assert!(diagnostics.is_empty(), "{}", map.render_plain(&diagnostics));
    tree
}

fn parse_err(source: &str) -> (MapFile, Vec<Diagnostic>) {
    let mut map = SourceMap::new();
    let file = map.add("test.map", source);
    parse(file, source)
}

fn text(source: &str, span: Span) -> &str {
    &source[span.range()]
}

fn label_text<'a>(source: &'a str, diagnostic: &Diagnostic) -> &'a str {
    &source[diagnostic.labels[0].range.clone()]
}

fn target(item: &MapItem) -> (&MapTarget, Option<&RustPath>, &[MapMember]) {
    match &item.body {
        MapBody::Target {
            target,
            existing,
            members,
        } => (target, existing.as_ref(), members),
        other => panic!("expected a target item, got {other:?}"),
    }
}

/// A type as text: `a::b<c, d<e>>`, `[f32; 3]`.
fn show(ty: &RustType) -> String {
    if let (Some(len), [element]) = (ty.array_len, ty.args.as_slice()) {
        return format!("[{}; {len}]", show(element));
    }
    let path: Vec<_> = ty.path.segments.iter().map(|s| s.name.as_str()).collect();
    let mut out = path.join("::");
    if !ty.args.is_empty() {
        let args: Vec<_> = ty.args.iter().map(show).collect();
        out = format!("{out}<{}>", args.join(", "));
    }
    out
}

/// A member as text, for comparing whole blocks at a glance.
fn summary(member: &MapMember) -> String {
    match member {
        MapMember::Field {
            qualifiers,
            ty,
            name,
            ..
        } => {
            let mut words: Vec<String> = qualifiers.iter().map(|q| q.name.clone()).collect();
            words.push(show(ty));
            words.push(name.name.clone());
            words.join(" ")
        }
        MapMember::Rename {
            field, rust_field, ..
        } => format!("{} => {}", field.name, rust_field.name),
        MapMember::Enum { decl, field, .. } => {
            let names: Vec<_> = decl
                .enumerators
                .iter()
                .map(|e| e.name.name.as_str())
                .collect();
            let field = field
                .as_ref()
                .map_or(String::new(), |f| format!(" {}", f.name));
            format!("enum {} {{{}}}{field}", decl.name.name, names.join(","))
        }
    }
}

fn summaries(members: &[MapMember]) -> Vec<String> {
    members.iter().map(summary).collect()
}

#[test]
fn client_seed_parses() {
    let source = seed("client.cpp.map");
    let tree = parse_ok(&source);
    assert_eq!(tree.items.len(), 1);
    let item = &tree.items[0];
    assert_eq!(item.language.value, "CPP");
    assert_eq!(item.side.value, "Client");
    assert_eq!(text(&source, item.language.span), "\"CPP\"");
    let (target, existing, members) = target(item);
    assert_eq!(target.kind, MapTargetKind::Publishable);
    assert_eq!(target.name.name, "Character");
    assert_eq!(existing, None);
    assert_eq!(
        summaries(members),
        [
            "UINT16 character_id",
            "double x",
            "double y",
            "double z",
            "double vx",
            "double vy",
            "double vz",
            "float angle",
            "enum Animation {Standing,Walking,Running} anim",
            "UINT8 animation_frame",
            "vector<Item> inventory",
        ]
    );

    let MapMember::Enum { decl, field, span } = &members[8] else {
        panic!("expected an enum");
    };
    let values: Vec<_> = decl
        .enumerators
        .iter()
        .map(|e| e.value.map(|v| v.value))
        .collect();
    assert_eq!(
        values,
        [0, 1, 2].map(|v| Some(NumberValue::Int(v))).to_vec()
    );
    assert_eq!(field.as_ref().unwrap().name, "anim");
    assert_eq!(
        text(&source, *span),
        "enum Animation {Standing=0,Walking=1, Running=2} anim"
    );
    assert_eq!(
        text(&source, decl.span),
        "enum Animation {Standing=0,Walking=1, Running=2}"
    );

    let MapMember::Field { ty, span, .. } = &members[10] else {
        panic!("expected a field");
    };
    assert_eq!(text(&source, ty.span), "vector<Item>");
    assert_eq!(text(&source, ty.path.span), "vector");
    assert_eq!(text(&source, ty.args[0].span), "Item");
    assert_eq!(text(&source, *span), "vector<Item> inventory");
}

#[test]
fn server_seed_parses_with_qualifiers() {
    let source = seed("server.cpp.map");
    let tree = parse_ok(&source);
    assert_eq!(tree.items.len(), 1);
    assert_eq!(tree.items[0].side.value, "Server");
    let (_, _, members) = target(&tree.items[0]);
    assert_eq!(
        summaries(members),
        ["float angle", "class MyInventory inventory"]
    );
    let MapMember::Field {
        qualifiers,
        ty,
        name,
        span,
    } = &members[1]
    else {
        panic!("expected a field");
    };
    assert_eq!(qualifiers.len(), 1);
    assert_eq!(qualifiers[0].name, "class");
    assert_eq!(text(&source, qualifiers[0].span), "class");
    assert_eq!(text(&source, ty.span), "MyInventory");
    assert_eq!(name.name, "inventory");
    assert_eq!(text(&source, *span), "class MyInventory inventory");
    let MapMember::Field { qualifiers, .. } = &members[0] else {
        panic!("expected a field");
    };
    assert!(qualifiers.is_empty());
}

#[test]
fn existing_type_with_renames() {
    let source =
        r#"MAPPING("Rust", "Client") STRUCT Vec3 = glam::Vec3 { x => x; y => y; z => z; }"#;
    let tree = parse_ok(source);
    let (target, existing, members) = target(&tree.items[0]);
    assert_eq!(target.kind, MapTargetKind::Struct);
    assert_eq!(text(source, target.span), "STRUCT Vec3");
    let existing = existing.expect("= path");
    let segments: Vec<_> = existing.segments.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(segments, ["glam", "Vec3"]);
    assert_eq!(text(source, existing.span), "glam::Vec3");
    assert_eq!(summaries(members), ["x => x", "y => y", "z => z"]);
    let MapMember::Rename {
        field,
        rust_field,
        span,
    } = &members[1]
    else {
        panic!("expected a rename");
    };
    assert_eq!(text(source, field.span), "y");
    assert_eq!(rust_field.span.start, field.span.start + 5);
    assert_eq!(text(source, *span), "y => y");
    assert_eq!(text(source, tree.items[0].span), source);
}

#[test]
fn derive_and_protocol_items() {
    let source = r#"
MAPPING("Rust", "Client") DERIVE(serde::Serialize, Hash, std::fmt::Debug,);
MAPPING("Rust", "Client") PROTOCOL Game SEND;
MAPPING("Rust", "Server") PROTOCOL Game RECEIVE;
MAPPING("Rust", "Tool") PROTOCOL Game BOTH;
"#;
    let tree = parse_ok(source);
    assert_eq!(tree.items.len(), 4);
    let MapBody::Derive(paths) = &tree.items[0].body else {
        panic!("expected DERIVE");
    };
    let paths: Vec<_> = paths.iter().map(|p| text(source, p.span)).collect();
    assert_eq!(paths, ["serde::Serialize", "Hash", "std::fmt::Debug"]);
    assert!(text(source, tree.items[0].span).ends_with(");"));

    let directions: Vec<_> = tree.items[1..]
        .iter()
        .map(|item| match &item.body {
            MapBody::Protocol {
                name,
                direction,
                direction_span,
            } => {
                assert_eq!(name.name, "Game");
                (*direction, text(source, *direction_span))
            }
            other => panic!("expected PROTOCOL, got {other:?}"),
        })
        .collect();
    assert_eq!(
        directions,
        [
            (Direction::Send, "SEND"),
            (Direction::Receive, "RECEIVE"),
            (Direction::Both, "BOTH")
        ]
    );
    assert_eq!(tree.items[2].side.value, "Server");
}

#[test]
fn every_target_kind() {
    let source = r#"
MAPPING("Rust", "C") STRUCT A { }
MAPPING("Rust", "C") PUBLISHABLE_STRUCT B { };
MAPPING("Rust", "C") MESSAGE C { f32 x; }
MAPPING("Rust", "C") ENUM D = game::Anim { Standing => Idle; }
MAPPING("Rust", "C") enum E { }
"#;
    let tree = parse_ok(source);
    let kinds: Vec<_> = tree.items.iter().map(|i| target(i).0.kind).collect();
    assert_eq!(
        kinds,
        [
            MapTargetKind::Struct,
            MapTargetKind::Publishable,
            MapTargetKind::Message,
            MapTargetKind::Enum,
            MapTargetKind::Enum
        ]
    );
    let (_, existing, members) = target(&tree.items[3]);
    assert_eq!(existing.unwrap().segments.len(), 2);
    assert_eq!(summaries(members), ["Standing => Idle"]);
}

#[test]
fn rust_types() {
    let source = r#"MAPPING("Rust", "Client") STRUCT S {
    f32 a;
    std::collections::VecDeque<Item> b;
    Vec<Vec<u8>> c;
    HashMap<String, std::vec::Vec<Option<u8>>> d;
    my::Bag<T,> e;
    crate::Inventory f;
}"#;
    let tree = parse_ok(source);
    let (_, _, members) = target(&tree.items[0]);
    assert_eq!(
        summaries(members),
        [
            "f32 a",
            "std::collections::VecDeque<Item> b",
            "Vec<Vec<u8>> c",
            "HashMap<String, std::vec::Vec<Option<u8>>> d",
            "my::Bag<T> e",
            "crate::Inventory f",
        ]
    );
    let spans: Vec<_> = members
        .iter()
        .map(|m| match m {
            MapMember::Field { ty, .. } => (text(source, ty.span), text(source, ty.path.span)),
            other => panic!("expected a field, got {other:?}"),
        })
        .collect();
    assert_eq!(
        spans,
        [
            ("f32", "f32"),
            (
                "std::collections::VecDeque<Item>",
                "std::collections::VecDeque"
            ),
            ("Vec<Vec<u8>>", "Vec"),
            ("HashMap<String, std::vec::Vec<Option<u8>>>", "HashMap"),
            ("my::Bag<T,>", "my::Bag"),
            ("crate::Inventory", "crate::Inventory"),
        ]
    );
    let MapMember::Field { ty, .. } = &members[3] else {
        unreachable!()
    };
    assert_eq!(text(source, ty.args[1].span), "std::vec::Vec<Option<u8>>");
}

#[test]
fn qualifiers_before_paths_and_generics() {
    let source = r#"MAPPING("CPP", "S") STRUCT S {
    const unsigned int a;
    struct ns::Thing b;
    class std::vector<Item> c;
    mutable vector<Item> d;
}"#;
    let tree = parse_ok(source);
    let (_, _, members) = target(&tree.items[0]);
    assert_eq!(
        summaries(members),
        [
            "const unsigned int a",
            "struct ns::Thing b",
            "class std::vector<Item> c",
            "mutable vector<Item> d",
        ]
    );
    let MapMember::Field { qualifiers, ty, .. } = &members[0] else {
        unreachable!()
    };
    assert_eq!(qualifiers.len(), 2);
    assert_eq!(text(source, ty.span), "int");
    let MapMember::Field { ty, .. } = &members[2] else {
        unreachable!()
    };
    assert_eq!(text(source, ty.span), "std::vector<Item>");
}

#[test]
fn restated_enums_in_every_position() {
    let source = r#"MAPPING("Rust", "C") STRUCT S {
    enum A { X, Y } a;
    enum B { X = 1, Y };
    ENUM C { X }
    f32 c;
    enum D { X }
    d => e;
    enum E { X }
    enum F { X } f;
    enum G { X, }
}"#;
    let tree = parse_ok(source);
    let (_, _, members) = target(&tree.items[0]);
    assert_eq!(
        summaries(members),
        [
            "enum A {X,Y} a",
            "enum B {X,Y}",
            "enum C {X}",
            "f32 c",
            "enum D {X}",
            "d => e",
            "enum E {X}",
            "enum F {X} f",
            "enum G {X}",
        ]
    );
    let spans: Vec<_> = members
        .iter()
        .filter_map(|m| match m {
            MapMember::Enum { span, .. } => Some(text(source, *span)),
            _ => None,
        })
        .collect();
    assert_eq!(
        spans,
        [
            "enum A { X, Y } a",
            "enum B { X = 1, Y }",
            "ENUM C { X }",
            "enum D { X }",
            "enum E { X }",
            "enum F { X } f",
            "enum G { X, }"
        ]
    );
}

#[test]
fn two_member_errors_give_two_diagnostics_and_recover() {
    let source = r#"MAPPING("Rust", "Client") STRUCT S {
    f32 a;
    Vec<> b;
    f64 c;
    onlyone;
    u8 d;
}
MAPPING("Rust", "Client") PROTOCOL P SEND;
"#;
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 2, "{diagnostics:#?}");
    assert_eq!(label_text(source, &diagnostics[0]), ">");
    assert!(diagnostics[0].labels[0].message.contains("identifier"));
    let second = diagnostics[1].labels[0].range.clone();
    assert_eq!(&source[second.clone()], ";");
    assert_eq!(
        second.start,
        source.find("onlyone;").unwrap() + "onlyone".len()
    );
    assert_eq!(tree.items.len(), 2);
    let (_, _, members) = target(&tree.items[0]);
    assert_eq!(summaries(members), ["f32 a", "f64 c", "u8 d"]);
    assert!(matches!(tree.items[1].body, MapBody::Protocol { .. }));
}

#[test]
fn errors_after_an_enum_recover() {
    let source = r#"MAPPING("Rust", "C") STRUCT S {
    enum A { X } = 3;
    enum B { X } a b c = ;
    f32 x;
}"#;
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 2, "{diagnostics:#?}");
    assert_eq!(label_text(source, &diagnostics[0]), "=");
    assert_eq!(label_text(source, &diagnostics[1]), "=");
    assert!(diagnostics[1].labels[0].range.start > diagnostics[0].labels[0].range.start);
    let (_, _, members) = target(&tree.items[0]);
    assert_eq!(summaries(members), ["enum A {X}", "enum B {X}", "f32 x"]);
}

#[test]
fn item_errors_recover_at_the_next_item() {
    let source = r#"MAPPING(Rust, "Client") STRUCT A { f32 x; }
MAPPING("Rust", "Client") PROTOCOL P SIDEWAYS;
MAPPING("Rust", "Client") DERIVE();
MAPPING("Rust", "Client") STRUCT B { f32 y; }
"#;
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 3, "{diagnostics:#?}");
    assert_eq!(label_text(source, &diagnostics[0]), "Rust");
    assert!(diagnostics[0].labels[0].message.contains("string"));
    assert_eq!(label_text(source, &diagnostics[1]), "SIDEWAYS");
    assert!(diagnostics[1].labels[0].message.contains("`SEND`"));
    assert_eq!(label_text(source, &diagnostics[2]), ")");
    assert_eq!(tree.items.len(), 1);
    assert_eq!(target(&tree.items[0]).0.name.name, "B");
}

#[test]
fn stray_tokens_and_lexical_errors_recover() {
    // `[u8]` begins an array type (`[u8; 4]`) that lacks its length.
    let source = r#"MAPPING("Rust", "C") STRUCT S { [u8] a; f32 b; # c; f64 d; }"#;
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 2, "{diagnostics:#?}");
    assert_eq!(label_text(source, &diagnostics[0]), "]");
    assert!(diagnostics[0].labels[0].message.contains("`;`"));
    assert_eq!(label_text(source, &diagnostics[1]), "#");
    let (_, _, members) = target(&tree.items[0]);
    assert_eq!(summaries(members), ["f32 b", "f64 d"]);
}

#[test]
fn array_types_parse_alone_and_as_arguments() {
    let source = r#"MAPPING("Rust", "C") STRUCT S {
    [f32; 3] corner;
    Vec<[f32; 2]> outline;
    [[u8; 2]; 2] grid;
    Option<[f64; 4]> maybe;
}"#;
    let tree = parse_ok(source);
    let (_, _, members) = target(&tree.items[0]);
    assert_eq!(
        summaries(members),
        [
            "[f32; 3] corner",
            "Vec<[f32; 2]> outline",
            "[[u8; 2]; 2] grid",
            "Option<[f64; 4]> maybe"
        ]
    );
    let MapMember::Field { ty, .. } = &members[0] else {
        panic!("a field");
    };
    assert_eq!(text(source, ty.span), "[f32; 3]");
}

#[test]
fn unexpected_end_of_file() {
    let source = "MAPPING(\"Rust\", \"C\") STRUCT S {\n  f32 a;\n";
    let (_, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 1);
    assert!(diagnostics[0].message.contains("end of file"));
    let end = source.trim_end().len();
    assert_eq!(diagnostics[0].labels[0].range, end..end);
}
