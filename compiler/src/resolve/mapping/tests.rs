//! Unit tests of mapping resolution, on schemas built by hand.

use super::resolve_mapping;
use crate::diagnostics::{Diagnostic, FileId};
use crate::front::span::Span;
use crate::ir::{
    EntryKind, EnumDef, Enumerator, Extend, Field, Language, Loc, ProtocolDef, ProtocolEntry,
    ProtocolRole, RustType, Schema, Segment, SideMapping, StructDef, StructKind, Type,
};

const IDL: FileId = 0;
const MAP: FileId = 1;

fn loc() -> Loc {
    Loc::new(IDL, Span::new(0, 1))
}

fn field(name: &str, ty: Type) -> Field {
    Field {
        name: name.into(),
        ty,
        default: None,
        loc: loc(),
    }
}

fn strukt(schema: &mut Schema, name: &str, kind: StructKind, fields: Vec<Field>) {
    schema.structs.insert(
        name.into(),
        StructDef {
            name: name.into(),
            kind,
            segments: vec![Segment {
                extends: vec![],
                fields,
            }],
            open_end: false,
            protocol: None,
            loc: loc(),
            fence_locs: Vec::new(),
            unresolved: Vec::new(),
        },
    );
}

fn enumeration(schema: &mut Schema, name: &str, enumerators: &[(&str, i64)]) {
    let enumerators = enumerators
        .iter()
        .map(|&(name, value)| Enumerator {
            name: name.into(),
            value,
        })
        .collect();
    schema.enums.insert(
        name.into(),
        EnumDef {
            name: name.into(),
            enumerators,
            loc: loc(),
        },
    );
}

fn range(min: i128, max: i128) -> Type {
    Type::IntRange { min, max }
}

fn numeric() -> Type {
    Type::Numeric {
        min: 0.0,
        max: 360.0,
        min_inclusive: true,
        max_inclusive: true,
    }
}

/// The design source's Character, with an Item, a Vec3 and a protocol.
fn character() -> Schema {
    let mut schema = Schema::default();
    strukt(
        &mut schema,
        "Item",
        StructKind::Struct,
        vec![field("kind", Type::Uint(16))],
    );
    strukt(
        &mut schema,
        "Vec3",
        StructKind::Struct,
        vec![
            field("x", Type::Float32),
            field("y", Type::Float32),
            field("z", Type::Float32),
        ],
    );
    enumeration(
        &mut schema,
        "Animation",
        &[("Standing", 0), ("Walking", 1), ("Running", 2)],
    );
    strukt(
        &mut schema,
        "Character",
        StructKind::Publishable,
        vec![
            field("character_id", Type::Uint(16)),
            field("angle", numeric()),
            field("anim", Type::Enum("Animation".into())),
            field("animation_frame", range(0, 119)),
            field(
                "inventory",
                Type::Sequence {
                    element: Box::new(Type::Struct("Item".into())),
                    max: None,
                },
            ),
            field("position", Type::Struct("Vec3".into())),
            field("mass", Type::Float64),
        ],
    );
    schema.protocols.insert(
        "Lobby".into(),
        ProtocolDef {
            name: "Lobby".into(),
            entries: vec![ProtocolEntry {
                id: 0,
                segment: 0,
                kind: EntryKind::Message("Item".into()),
            }],
            fences: 0,
            loc: loc(),
            fence_locs: Vec::new(),
        },
    );
    schema
}

fn run(schema: &Schema, map: &str, side: Option<&str>) -> (SideMapping, Vec<Diagnostic>) {
    let (tree, parse_errors) = crate::front::map::parse(MAP, map);
    assert!(parse_errors.is_empty(), "{parse_errors:?}");
    resolve_mapping(schema, &[(MAP, tree)], side)
}

fn codes(diagnostics: &[Diagnostic]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d.code.clone().unwrap_or_default())
        .collect()
}

/// The Rust type of `field` of `strukt` in `mapping`.
fn ty<'m>(mapping: &'m SideMapping, strukt: &str, field: &str) -> &'m RustType {
    &mapping.structs[strukt].fields[field].ty
}

fn ints(rust: &str) -> RustType {
    RustType::Int(rust.into())
}

#[test]
fn default_integer_types_of_ranges() {
    let mut schema = Schema::default();
    let cases: [(&str, Type, &str); 10] = [
        ("a", range(0, 255), "u8"),
        ("b", range(0, 256), "u16"),
        ("c", range(-1, 127), "i8"),
        ("d", range(-129, 0), "i16"),
        ("e", range(0, i128::from(u64::MAX)), "u64"),
        (
            "f",
            range(i128::from(i64::MIN), i128::from(i64::MAX)),
            "i64",
        ),
        ("g", range(0, 70_000), "u32"),
        ("h", Type::Uint(16), "u16"),
        ("i", Type::Int(32), "i32"),
        ("j", range(-40_000, 0), "i32"),
    ];
    let fields = cases
        .iter()
        .map(|(name, ty, _)| field(name, ty.clone()))
        .collect();
    strukt(&mut schema, "S", StructKind::Struct, fields);
    let (mapping, diagnostics) = resolve_mapping(&schema, &[], None);
    assert!(diagnostics.is_empty());
    for (name, _, rust) in cases {
        assert_eq!(ty(&mapping, "S", name), &ints(rust), "field {name}");
    }
}

#[test]
fn built_in_types_and_names() {
    let mut schema = character();
    strukt(
        &mut schema,
        "my_struct",
        StructKind::Message,
        vec![
            field("type", Type::Bool),
            field("userID", Type::String { max: None }),
            field("blob", Type::Bytes { max: Some(4) }),
            field(
                "grid",
                Type::Array {
                    element: Box::new(Type::Float32),
                    len: 3,
                },
            ),
            field(
                "maybe",
                Type::Optional(Box::new(Type::Struct("Item".into()))),
            ),
        ],
    );
    enumeration(&mut schema, "team_color", &[("RED", 0), ("self", 1)]);
    let (mapping, diagnostics) = resolve_mapping(&schema, &[], Some("Client"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(mapping.side.as_deref(), Some("Client"));
    let s = &mapping.structs["my_struct"];
    assert_eq!(s.rust_name, "MyStruct");
    assert!(!s.existing);
    let names: Vec<&str> = s.fields.values().map(|f| f.rust_name.as_str()).collect();
    assert_eq!(names, ["r#type", "user_id", "blob", "grid", "maybe"]);
    assert_eq!(ty(&mapping, "my_struct", "type"), &RustType::Bool);
    assert_eq!(ty(&mapping, "my_struct", "userID"), &RustType::String);
    assert_eq!(ty(&mapping, "my_struct", "blob"), &RustType::Bytes);
    assert_eq!(
        ty(&mapping, "my_struct", "grid").to_string(),
        "[f32; 3]".to_owned()
    );
    assert_eq!(
        ty(&mapping, "my_struct", "maybe").to_string(),
        "Option<Item>"
    );
    assert_eq!(ty(&mapping, "Character", "angle"), &RustType::F64);
    assert_eq!(ty(&mapping, "Character", "mass"), &RustType::F64);
    assert_eq!(ty(&mapping, "Character", "anim").to_string(), "Animation");
    assert_eq!(ty(&mapping, "Character", "animation_frame"), &ints("u8"));
    assert_eq!(
        ty(&mapping, "Character", "inventory").to_string(),
        "Vec<Item>"
    );
    assert_eq!(ty(&mapping, "Character", "position").to_string(), "Vec3");
    let team = &mapping.enums["team_color"];
    assert_eq!(team.rust_name, "TeamColor");
    let variants: Vec<&str> = team.variants.values().map(String::as_str).collect();
    assert_eq!(variants, ["Red", "Self_"]);
    assert_eq!(mapping.protocols["Lobby"], ProtocolRole::Both);
    assert!(mapping.derives.is_empty());
}

#[test]
fn overrides_apply_on_their_side_only() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","Client") PUBLISHABLE_STRUCT Character {
            f32 angle;
            u64 animation_frame;
            enum Animation { Standing, Walking, Running } anim;
        };
        MAPPING("Rust","Server") PUBLISHABLE_STRUCT Character {
            MyInventory inventory;
            i128 character_id;
        };
    "#;
    let (client, diagnostics) = run(&schema, map, Some("Client"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(ty(&client, "Character", "angle"), &RustType::F32);
    assert_eq!(ty(&client, "Character", "animation_frame"), &ints("u64"));
    assert_eq!(
        ty(&client, "Character", "inventory").to_string(),
        "Vec<Item>"
    );
    let (server, _) = run(&schema, map, Some("Server"));
    assert_eq!(ty(&server, "Character", "angle"), &RustType::F64);
    assert_eq!(ty(&server, "Character", "character_id"), &ints("i128"));
    assert_eq!(
        ty(&server, "Character", "inventory"),
        &RustType::Collection {
            path: "MyInventory".into(),
            element: Box::new(RustType::Named("Item".into())),
        }
    );
    let (none, _) = run(&schema, map, None);
    assert_eq!(ty(&none, "Character", "angle"), &RustType::F64);
}

#[test]
fn errors_of_every_side_are_reported() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","Server") PUBLISHABLE_STRUCT Character { u8 character_id; };
        MAPPING("Rust","Client") PUBLISHABLE_STRUCT Character { f32 mass; };
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("Client"));
    assert_eq!(codes(&diagnostics), ["E0409", "E0408"]);
    // The erroneous override falls back to the default.
    assert_eq!(ty(&mapping, "Character", "mass"), &RustType::F64);
}

#[test]
fn collections_and_element_types() {
    let mut schema = character();
    strukt(
        &mut schema,
        "Path",
        StructKind::Struct,
        vec![
            field(
                "points",
                Type::Sequence {
                    element: Box::new(numeric()),
                    max: None,
                },
            ),
            field(
                "ids",
                Type::Sequence {
                    element: Box::new(range(0, 255)),
                    max: Some(8),
                },
            ),
            field("maybe", Type::Optional(Box::new(Type::Int(8)))),
            field("raw", Type::Bytes { max: None }),
        ],
    );
    let map = r#"
        MAPPING("Rust","C") STRUCT Path {
            std::collections::VecDeque<f32> points;
            Vec<u16> ids;
            Option<i64> maybe;
            Vec<u8> raw;
        }
        MAPPING("Rust","C") PUBLISHABLE_STRUCT Character { SmallInventory<Item> inventory; }
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("C"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        ty(&mapping, "Path", "points"),
        &RustType::Collection {
            path: "std::collections::VecDeque<f32>".into(),
            element: Box::new(RustType::F32),
        }
    );
    assert_eq!(ty(&mapping, "Path", "ids").to_string(), "Vec<u16>");
    assert_eq!(ty(&mapping, "Path", "maybe").to_string(), "Option<i64>");
    assert_eq!(ty(&mapping, "Path", "raw"), &RustType::Bytes);
    assert_eq!(
        ty(&mapping, "Character", "inventory").to_string(),
        "SmallInventory<Item>"
    );
}

#[test]
fn arrays_map_their_element_type() {
    let mut schema = character();
    let array = |element: Type, len: u64| Type::Array {
        element: Box::new(element),
        len,
    };
    strukt(
        &mut schema,
        "Shape",
        StructKind::Struct,
        vec![
            field("corner", array(numeric(), 3)),
            field(
                "outline",
                Type::Sequence {
                    element: Box::new(array(numeric(), 2)),
                    max: Some(8),
                },
            ),
            field("grid", array(array(range(0, 9), 2), 2)),
            field("maybe", Type::Optional(Box::new(array(numeric(), 2)))),
            field("wrong_len", array(numeric(), 2)),
            field("wrong_element", array(numeric(), 2)),
        ],
    );
    let map = r#"
        MAPPING("Rust","C") STRUCT Shape {
            [f32; 3] corner;
            Vec<[f32; 2]> outline;
            [[u8; 2]; 2] grid;
            Option<[f32; 2]> maybe;
            [f32; 3] wrong_len;
            [u8; 2] wrong_element;
        }
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(codes(&diagnostics), ["E0407", "E0407"]);
    assert_eq!(
        ty(&mapping, "Shape", "corner"),
        &RustType::Array(Box::new(RustType::F32), 3)
    );
    assert_eq!(
        ty(&mapping, "Shape", "outline").to_string(),
        "Vec<[f32; 2]>"
    );
    assert_eq!(ty(&mapping, "Shape", "grid").to_string(), "[[u8; 2]; 2]");
    assert_eq!(
        ty(&mapping, "Shape", "maybe").to_string(),
        "Option<[f32; 2]>"
    );
}

#[test]
fn type_errors() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","C") PUBLISHABLE_STRUCT Character {
            bool angle;
            Vec<Item> mass;
            usize character_id;
            i8 animation_frame;
            Vec<u8> inventory;
            glam::Vec3 position;
            Colors anim;
        }
    "#;
    let (_, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(
        codes(&diagnostics),
        ["E0407", "E0411", "E0410", "E0407", "E0407", "E0407"]
    );
}

#[test]
fn signed_types_hold_unsigned_ranges_when_wide_enough() {
    let schema = character();
    let map = r#"MAPPING("Rust","C") PUBLISHABLE_STRUCT Character { i8 animation_frame; i32 character_id; }"#;
    let (mapping, diagnostics) = run(&schema, map, Some("C"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(ty(&mapping, "Character", "animation_frame"), &ints("i8"));
    let map = r#"MAPPING("Rust","C") PUBLISHABLE_STRUCT Character { i16 character_id; }"#;
    let (_, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(codes(&diagnostics), ["E0409"]);
    assert!(diagnostics[0].notes.iter().any(|n| n.contains("`i32`")));
}

#[test]
fn existing_types() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","C") STRUCT Vec3 = glam::Vec3 { x => x; y => y; z => type; f64 x; }
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("C"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let vec3 = &mapping.structs["Vec3"];
    assert!(vec3.existing);
    assert_eq!(vec3.rust_name, "glam::Vec3");
    assert_eq!(vec3.fields["z"].rust_name, "r#type");
    assert_eq!(vec3.fields["x"].ty, RustType::F64);
    // Fields of that type, on that side, are the existing type.
    assert_eq!(
        ty(&mapping, "Character", "position").to_string(),
        "glam::Vec3"
    );
    let (other, _) = run(&schema, map, Some("S"));
    assert_eq!(other.structs["Vec3"].rust_name, "Vec3");
    assert_eq!(ty(&other, "Character", "position").to_string(), "Vec3");

    let map = r#"
        MAPPING("Rust","C") STRUCT Vec3 = glam::Vec3 { x => x; w => w; x => y; y => x; }
        MAPPING("Rust","C") STRUCT Item { kind => k; }
    "#;
    let (_, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(
        codes(&diagnostics),
        ["E0404", "E0405", "E0420", "E0412", "E0413"]
    );
    assert!(diagnostics[3].message.contains("`z`"));
}

#[test]
fn a_struct_field_accepts_its_own_rust_type() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","C") STRUCT Vec3 = glam::Vec3 { x => x; y => y; z => z; }
        MAPPING("Rust","C") PUBLISHABLE_STRUCT Character { glam::Vec3 position; Animation anim; }
    "#;
    let (_, diagnostics) = run(&schema, map, Some("C"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
}

#[test]
fn extended_fields_have_their_latest_type() {
    let mut schema = character();
    let def = schema.structs.get_mut("Item").expect("Item");
    def.segments.push(Segment {
        extends: vec![Extend {
            field: "kind".into(),
            from: Type::Uint(16),
            to: Type::Uint(32),
            loc: loc(),
        }],
        fields: vec![],
    });
    let (mapping, _) = resolve_mapping(&schema, &[], None);
    assert_eq!(ty(&mapping, "Item", "kind"), &ints("u32"));
    let (_, diagnostics) = run(
        &schema,
        r#"MAPPING("Rust","C") STRUCT Item { u16 kind; }"#,
        None,
    );
    // Checked for every side; and no side was asked for (E0422).
    assert_eq!(codes(&diagnostics), ["E0409", "E0422"]);
}

#[test]
fn derives_are_deduplicated_in_order() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","C") DERIVE(serde::Serialize, PartialOrd, std::fmt::Debug);
        MAPPING("Rust","C") DERIVE(PartialOrd, serde::Deserialize, Clone);
        MAPPING("Rust","S") DERIVE(Default);
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(
        mapping.derives,
        ["serde::Serialize", "PartialOrd", "serde::Deserialize"]
    );
    assert_eq!(codes(&diagnostics), ["W0401", "W0401", "W0401"]);
    assert!(!crate::diagnostics::has_errors(&diagnostics));
}

#[test]
fn protocols() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","C") PROTOCOL Lobby SEND;
        MAPPING("Rust","C") PROTOCOL Lobby SEND;
        MAPPING("Rust","S") PROTOCOL Lobby RECEIVE;
        MAPPING("Rust","S") PROTOCOL Lobby BOTH;
        MAPPING("Rust","S") PROTOCOL Loby BOTH;
    "#;
    let (client, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(client.protocols["Lobby"], ProtocolRole::Send);
    assert_eq!(codes(&diagnostics), ["E0417", "E0416"]);
    let (server, _) = run(&schema, map, Some("S"));
    assert_eq!(server.protocols["Lobby"], ProtocolRole::Receive);
}

#[test]
fn restated_enums() {
    let schema = character();
    let ok = r#"
        MAPPING("Rust","C") PUBLISHABLE_STRUCT Character { enum Animation {Standing=0,Walking, Running=2} anim; }
        MAPPING("Rust","C") ENUM Animation { enum Animation { Standing, Walking, Running } }
    "#;
    let (_, diagnostics) = run(&schema, ok, Some("C"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    for (restated, what) in [
        ("Standing, Walking", "lacks `Running`"),
        (
            "Standing, Walking, Running, Jumping",
            "no enumerator `Jumping`",
        ),
        (
            "Standing = 1, Walking, Running",
            "`Standing` is 1 here but 0",
        ),
        (
            "Standing, Running, Walking",
            "`Running` stands where the IDL has `Walking`",
        ),
    ] {
        let map = format!(
            r#"MAPPING("Rust","C") PUBLISHABLE_STRUCT Character {{ enum Animation {{ {restated} }} }}"#
        );
        let (_, diagnostics) = run(&schema, &map, Some("C"));
        assert_eq!(codes(&diagnostics), ["E0414"], "{restated}");
        assert!(
            diagnostics[0].message.contains(what),
            "{}",
            diagnostics[0].message
        );
    }
    let map = r#"
        MAPPING("Rust","C") PUBLISHABLE_STRUCT Character { enum Animation { Standing, Walking, Running } mass; }
        MAPPING("Rust","C") PUBLISHABLE_STRUCT Item { enum Anim { A } }
    "#;
    let (_, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(codes(&diagnostics), ["E0415", "E0403", "E0402"]);
}

#[test]
fn targets() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","C") STRUCT Charactr { f32 angle; }
        MAPPING("Rust","C") MESSAGE Item { u32 kind; }
        MAPPING("Rust","C") STRUCT Animation { }
        MAPPING("Rust","C") ENUM Item { }
        MAPPING("Rust","C") ENUM Animation = game::Anim { f32 x; }
        MAPPING("Rust","C") STRUCT Item { u64 kind; }
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(
        codes(&diagnostics),
        [
            "E0402", "E0403", "E0403", "E0403", "E0421", "E0421", "E0418"
        ]
    );
    assert!(
        diagnostics[0]
            .notes
            .iter()
            .any(|n| n.contains("`Character`"))
    );
    // The first item of a target wins.
    assert_eq!(ty(&mapping, "Item", "kind"), &ints("u32"));
}

#[test]
fn cpp_mappings_resolve_to_the_same_kinds_of_type() {
    let schema = character();
    // The design source's client.cpp.map and server.cpp.map, with the other C++ spellings.
    let map = r#"
        MAPPING("CPP","Client") PUBLISHABLE_STRUCT Character {
            UINT16 character_id;
            float angle;
            enum Animation {Standing=0,Walking=1, Running=2} anim;
            uint8_t animation_frame;
            vector<Item> inventory;
            std::double mass;
        };
        MAPPING("CPP","Server") PUBLISHABLE_STRUCT Character {
            std::uint32_t character_id;
            double angle;
            class MyInventory inventory;
        };
        MAPPING("CPP","Server") STRUCT Vec3 = glm::vec3 { x => x; y => y; z => z; };
    "#;
    let (client, diagnostics) = run(&schema, map, Some("Client"));
    assert_eq!(codes(&diagnostics), Vec::<String>::new());
    assert_eq!(client.language, Language::Cpp);
    assert_eq!(ty(&client, "Character", "character_id"), &ints("u16"));
    assert_eq!(ty(&client, "Character", "angle"), &RustType::F32);
    assert_eq!(ty(&client, "Character", "animation_frame"), &ints("u8"));
    assert_eq!(
        ty(&client, "Character", "inventory"),
        &RustType::Vec(Box::new(RustType::Named("Item".into())))
    );
    let (server, diagnostics) = run(&schema, map, Some("Server"));
    assert_eq!(codes(&diagnostics), Vec::<String>::new());
    assert_eq!(ty(&server, "Character", "character_id"), &ints("u32"));
    assert_eq!(
        ty(&server, "Character", "inventory"),
        &RustType::Collection {
            path: "MyInventory".into(),
            element: Box::new(RustType::Named("Item".into())),
        }
    );
    assert_eq!(server.structs["Vec3"].rust_name, "glm::vec3");
    assert_eq!(
        ty(&server, "Character", "position"),
        &RustType::Named("glm::vec3".into())
    );
}

#[test]
fn cpp_names_escape_cpp_reserved_words() {
    let mut schema = Schema::default();
    strukt(
        &mut schema,
        "Packet",
        StructKind::Struct,
        vec![
            field("class", Type::Bool),
            field("type", Type::Bool),
            field("new", Type::Bool),
        ],
    );
    let map = r#"MAPPING("CPP","C") STRUCT Packet { bool class; };"#;
    let (cpp, diagnostics) = run(&schema, map, Some("C"));
    assert_eq!(codes(&diagnostics), Vec::<String>::new());
    let names: Vec<&str> = cpp.structs["Packet"]
        .fields
        .values()
        .map(|f| f.rust_name.as_str())
        .collect();
    // C++'s reserved words get a `_`; `type` is not one (Rust's `r#type`).
    assert_eq!(names, ["class_", "type", "new_"]);
    let (rust, _) = run(&schema, "", None);
    let names: Vec<&str> = rust.structs["Packet"]
        .fields
        .values()
        .map(|f| f.rust_name.as_str())
        .collect();
    assert_eq!(names, ["class", "r#type", "new"]);
}

#[test]
fn includes_are_a_cpp_sides_headers_in_order() {
    let schema = character();
    let map = r#"
        MAPPING("CPP","Client") INCLUDE "inventory.hpp";
        MAPPING("CPP","Client") INCLUDE "vec3.hpp";
        MAPPING("CPP","Client") INCLUDE "inventory.hpp";
        MAPPING("CPP","Server") INCLUDE "server_only.hpp";
        MAPPING("Rust","Other") INCLUDE "nothing.hpp";
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("Client"));
    assert_eq!(mapping.includes, ["inventory.hpp", "vec3.hpp"]);
    assert_eq!(codes(&diagnostics), ["E0426"]);
    assert!(
        diagnostics[0]
            .message
            .contains("INCLUDE is a C++ mapping's")
    );
}

#[test]
fn cpp_type_errors_and_unknown_languages() {
    let schema = character();
    let map = r#"
        MAPPING("CPP","Client") PUBLISHABLE_STRUCT Character {
            float mass;
            int8_t character_id;
            size_t animation_frame;
            const Item inventory;
        };
        MAPPING("CPP","Client") DERIVE(Debug);
        MAPPING("Rust","Client") STRUCT Item { u16 kind; };
        MAPPING("cpp","Other") STRUCT Item { u16 kind; };
        MAPPING("C#","Other") STRUCT Item { u16 kind; };
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("Client"));
    assert_eq!(
        codes(&diagnostics),
        [
            "E0408", "E0409", "E0410", "E0406", "E0425", "E0424", "E0401", "E0401"
        ]
    );
    assert!(
        diagnostics[6]
            .notes
            .iter()
            .any(|n| n.contains("write \"CPP\""))
    );
    assert!(diagnostics[7].notes[0].contains("\"Rust\" and \"CPP\""));
    // The messages spell C++ types as the item does.
    assert!(
        diagnostics[1].message.contains("`int8_t`"),
        "{:?}",
        diagnostics[1]
    );
    assert!(
        diagnostics[1].notes[0].contains("`int32_t`"),
        "{:?}",
        diagnostics[1]
    );
    assert_eq!(mapping.language, Language::Cpp);
    assert_eq!(ty(&mapping, "Character", "mass"), &RustType::F64);
}

#[test]
fn qualifiers_unknown_fields_and_duplicates() {
    let schema = character();
    let map = r#"
        MAPPING("Rust","S") PUBLISHABLE_STRUCT Character {
            class MyInventory inventory;
            f32 angel;
            f32 angle;
            f64 angle;
        };
    "#;
    let (mapping, diagnostics) = run(&schema, map, Some("S"));
    assert_eq!(codes(&diagnostics), ["E0406", "E0404", "E0405"]);
    assert!(diagnostics[1].notes.iter().any(|n| n.contains("`angle`")));
    assert_eq!(
        ty(&mapping, "Character", "inventory").to_string(),
        "MyInventory"
    );
    assert_eq!(ty(&mapping, "Character", "angle"), &RustType::F32);
}

#[test]
fn rust_name_clashes() {
    let mut schema = Schema::default();
    strukt(
        &mut schema,
        "foo_bar",
        StructKind::Struct,
        vec![field("fooBar", Type::Bool), field("foo_bar", Type::Bool)],
    );
    strukt(&mut schema, "FooBar", StructKind::Struct, vec![]);
    enumeration(&mut schema, "E", &[("A_B", 0), ("AB", 1), ("a_b", 2)]);
    let (mapping, diagnostics) = resolve_mapping(&schema, &[], None);
    assert_eq!(codes(&diagnostics), ["E0419", "E0419", "E0419"]);
    assert!(diagnostics[0].message.contains("`foo_bar` and `FooBar`"));
    assert_eq!(diagnostics[0].labels.len(), 2);
    // Still complete.
    assert_eq!(mapping.structs.len(), 2);
    assert_eq!(mapping.enums["E"].variants.len(), 3);
}

#[test]
fn optionals_that_lead_back_are_boxed() {
    let mut schema = Schema::default();
    let node = || Type::Struct("Node".into());
    strukt(
        &mut schema,
        "Node",
        StructKind::Struct,
        vec![
            field("next", Type::Optional(Box::new(node()))),
            field(
                "children",
                Type::Sequence {
                    element: Box::new(node()),
                    max: None,
                },
            ),
            field(
                "leaf",
                Type::Optional(Box::new(Type::Struct("Leaf".into()))),
            ),
            field(
                "pair",
                Type::Optional(Box::new(Type::Struct("Pair".into()))),
            ),
        ],
    );
    strukt(
        &mut schema,
        "Leaf",
        StructKind::Struct,
        vec![field("v", Type::Bool)],
    );
    strukt(
        &mut schema,
        "Pair",
        StructKind::Struct,
        vec![field(
            "nodes",
            Type::Array {
                element: Box::new(Type::Optional(Box::new(node()))),
                len: 2,
            },
        )],
    );
    let (mapping, diagnostics) = resolve_mapping(&schema, &[], None);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        ty(&mapping, "Node", "next").to_string(),
        "Option<Box<Node>>"
    );
    assert_eq!(ty(&mapping, "Node", "children").to_string(), "Vec<Node>");
    assert_eq!(ty(&mapping, "Node", "leaf").to_string(), "Option<Leaf>");
    assert_eq!(
        ty(&mapping, "Node", "pair").to_string(),
        "Option<Box<Pair>>"
    );
    assert_eq!(
        ty(&mapping, "Pair", "nodes").to_string(),
        "[Option<Box<Node>>; 2]"
    );
    let map =
        r#"MAPPING("Rust","C") STRUCT Node { Option<Box<Node>> next; Option<Box<Leaf>> leaf; }"#;
    let (mapping, diagnostics) = run(&schema, map, Some("C"));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        ty(&mapping, "Node", "next").to_string(),
        "Option<Box<Node>>"
    );
    assert_eq!(
        ty(&mapping, "Node", "leaf").to_string(),
        "Option<Box<Leaf>>"
    );
}
