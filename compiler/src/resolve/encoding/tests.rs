//! Unit tests: the wire-rule computations on a hand-built schema, and whole encodings of the
//! seed examples.

use std::path::PathBuf;

use indexmap::IndexMap;

use super::resolve_encodings;
use super::rules::{
    self, IntKind, Params, Slot, canonical_codes, fixed_point, huffman_lengths, round_to_bytes, vlq,
};
use crate::diagnostics::{Diagnostic, SourceMap, codes};
use crate::ir::{
    EnumDef, Enumerator, ExtensionPart, Field, Loc, Schema, Segment, StructDef, StructKind, Style,
    Type, VlqMapping, WireItem, WireRule, bits_required,
};

fn field(name: &str, ty: Type) -> Field {
    Field {
        name: name.into(),
        ty,
        default: None,
        loc: Loc::default(),
    }
}

fn numeric(min: f64, max: f64) -> Type {
    Type::Numeric {
        min,
        max,
        min_inclusive: true,
        max_inclusive: true,
    }
}

/// The seed's Character (with its Item), built by hand.
fn character_schema() -> Schema {
    let mut schema = Schema::default();
    schema.enums.insert(
        "Animation".into(),
        EnumDef {
            name: "Animation".into(),
            enumerators: ["Standing", "Walking", "Running"]
                .iter()
                .zip(0..)
                .map(|(n, v)| Enumerator {
                    name: (*n).into(),
                    value: v,
                })
                .collect(),
            loc: Loc::default(),
        },
    );
    let fields = vec![
        field("character_id", Type::Uint(16)),
        field("x", numeric(-10000.0, 10000.0)),
        field("y", numeric(-10000.0, 10000.0)),
        field("z", numeric(-100.0, 100.0)),
        field("vx", numeric(-10.0, 10.0)),
        field("vy", numeric(-10.0, 10.0)),
        field("vz", numeric(-10.0, 10.0)),
        field("angle", numeric(0.0, 360.0)),
        field("anim", Type::Enum("Animation".into())),
        field("animation_frame", Type::IntRange { min: 0, max: 119 }),
        field(
            "inventory",
            Type::Sequence {
                element: Box::new(Type::Struct("Item".into())),
                max: None,
            },
        ),
    ];
    schema.structs.insert(
        "Character".into(),
        StructDef {
            name: "Character".into(),
            kind: StructKind::Publishable,
            segments: vec![Segment {
                extends: vec![],
                fields,
            }],
            open_end: false,
            protocol: None,
            loc: Loc::default(),
            fence_locs: Vec::new(),
            unresolved: Vec::new(),
        },
    );
    schema.structs.insert(
        "Item".into(),
        StructDef {
            name: "Item".into(),
            kind: StructKind::Struct,
            segments: vec![Segment {
                extends: vec![],
                fields: vec![field("weight", Type::IntRange { min: 0, max: 1000 })],
            }],
            open_end: false,
            protocol: None,
            loc: Loc::default(),
            fence_locs: Vec::new(),
            unresolved: Vec::new(),
        },
    );
    schema
}

#[test]
fn fixed_point_bits_of_the_seed_fields() {
    let steps =
        |min, max, r, lo, hi| fixed_point(min, max, r, lo, hi).map(|f| (f.steps(), f.bits()));
    assert_eq!(
        steps(-10000.0, 10000.0, 0.01, true, true),
        Ok((2_000_000, 21))
    );
    assert_eq!(steps(0.0, 360.0, 0.01, true, true), Ok((36_000, 16)));
    assert_eq!(steps(0.0, 360.0, 0.01, true, false), Ok((35_999, 16)));
    assert_eq!(steps(0.0, 360.0, 0.5, true, false), Ok((719, 10)));
    assert_eq!(steps(-100.0, 100.0, 0.01, true, true), Ok((20_000, 15)));
    assert_eq!(steps(-10.0, 10.0, 0.01, true, true), Ok((2_000, 11)));
    // A resolution coarser than the range: one value, nothing sent.
    assert_eq!(steps(0.0, 1.0, 10.0, true, true), Ok((0, 0)));
    // No step inside an open range narrower than the resolution.
    assert_eq!(
        steps(0.0, 0.3, 0.5, false, false),
        Err(super::rules::FixedPointError::NoStepInside)
    );
    // More than 2^53 steps.
    assert!(steps(-1e30, 1e30, 1e-9, true, true).is_err());
    assert!(steps(0.0, 18_446_744_073_709_551_616.0, 1.0, true, true).is_err());
    assert_eq!(
        steps(0.0, 9_007_199_254_740_992.0, 1.0, true, true),
        Ok((9_007_199_254_740_992, 54))
    );
}

#[test]
fn bits_required_edges() {
    assert_eq!(bits_required(7, 7), 0);
    assert_eq!(bits_required(0, 119), 7);
    assert_eq!(bits_required(i64::MIN.into(), i64::MAX.into()), 64);
    assert_eq!(bits_required(0, u64::MAX.into()), 64);
    assert_eq!(bits_required(i128::MIN, i128::MAX), 129);
}

#[test]
fn vlq_max_groups() {
    let groups = |rule: WireRule| match rule {
        WireRule::Vlq { max_groups, .. } => max_groups,
        other => panic!("not a VLQ: {other:?}"),
    };
    // INT[0,120): 7 bits, one group of 7.
    assert_eq!(groups(vlq(7, VlqMapping::Offset, 0, 119)), 1);
    assert_eq!(groups(vlq(7, VlqMapping::Offset, 0, 128)), 2);
    // UINT16: 16 bits, three groups of 7.
    assert_eq!(groups(vlq(7, VlqMapping::Plain, 0, 65535)), 3);
    // INT64 zigzag: 64 bits, ten groups of 7, two of 32.
    let (min, max) = (i128::from(i64::MIN), i128::from(i64::MAX));
    assert_eq!(groups(vlq(7, VlqMapping::ZigZag, min, max)), 10);
    assert_eq!(groups(vlq(32, VlqMapping::ZigZag, min, max)), 2);
    // INT8 zigzag: -128 codes 255.
    assert_eq!(groups(vlq(4, VlqMapping::ZigZag, -128, 127)), 2);
    // UINT64 and an unbounded length.
    assert_eq!(groups(vlq(7, VlqMapping::Plain, 0, u64::MAX.into())), 10);
    // A single value still sends one group.
    assert_eq!(groups(vlq(7, VlqMapping::Offset, 5, 5)), 1);
    // Hostile extremes never panic.
    assert_eq!(
        groups(vlq(1, VlqMapping::Offset, i128::MIN, i128::MAX)),
        128
    );
    assert_eq!(
        groups(vlq(0, VlqMapping::ZigZag, i128::MIN, i128::MAX)),
        128
    );
}

fn kraft_is_one(lengths: &[u32]) -> bool {
    let sum: f64 = lengths.iter().map(|&l| 0.5f64.powi(l as i32)).sum();
    (sum - 1.0).abs() < 1e-12
}

fn prefix_free(codes: &[(u64, u32)]) -> bool {
    codes.iter().enumerate().all(|(i, &(a, la))| {
        codes.iter().enumerate().all(|(j, &(b, lb))| {
            // Bit 0 is written first: `a` is a prefix of `b` when b's low la bits equal a.
            let mask = if la == 64 { u64::MAX } else { (1u64 << la) - 1 };
            i == j || la > lb || (b & mask) != a
        })
    })
}

#[test]
fn huffman_codes() {
    assert_eq!(huffman_lengths(&[]), Vec::<u32>::new());
    assert_eq!(huffman_lengths(&[5.0]), vec![0]);
    assert_eq!(canonical_codes(&[0]), Some(vec![(0, 0)]));
    assert_eq!(huffman_lengths(&[1.0, 1.0, 1.0, 1.0]), vec![2, 2, 2, 2]);
    let lengths = huffman_lengths(&[10.0, 1.0, 1.0, 5.0, 2.0]);
    assert_eq!(lengths, vec![1, 4, 4, 2, 3]);
    let codes = canonical_codes(&lengths).expect("short codes");
    assert!(prefix_free(&codes));
    // Canonical, MSB-first 0, 10, 110, 1110, 1111; stored with the first bit in bit 0.
    assert_eq!(
        codes,
        vec![(0b0, 1), (0b0111, 4), (0b1111, 4), (0b01, 2), (0b011, 3)]
    );
    // Ties are broken by index, so the result never depends on anything else.
    assert_eq!(huffman_lengths(&[1.0, 1.0, 1.0]), vec![2, 2, 1]);
    assert_eq!(
        huffman_lengths(&[1.0, 1.0, 1.0]),
        huffman_lengths(&[1.0, 1.0, 1.0])
    );
    // Skewed weights: lengths grow to n - 1; past 64 bits there is no code.
    // 1, 1, 2, 4, 8, ...: every weight is the sum of all before it, a chain.
    let chain: Vec<f64> = std::iter::once(1.0)
        .chain((0..79).map(|i| 2f64.powi(i)))
        .collect();
    let lengths = huffman_lengths(&chain);
    assert!(kraft_is_one(&lengths));
    assert_eq!(lengths.iter().max(), Some(&79));
    assert_eq!(canonical_codes(&lengths), None);
    let lengths = huffman_lengths(&chain[..40]);
    assert!(prefix_free(
        &canonical_codes(&lengths).expect("39 bits at most")
    ));
    for n in 2..40 {
        let weights: Vec<f64> = (0..n).map(|i| f64::from((i * 7 + 3) % 11 + 1)).collect();
        let lengths = huffman_lengths(&weights);
        assert!(kraft_is_one(&lengths), "{weights:?}");
        assert!(prefix_free(&canonical_codes(&lengths).expect("short")));
    }
}

#[test]
fn rules_against_types() {
    let ty = Type::IntRange { min: 0, max: 100 };
    let slot = Slot::Int {
        min: 0,
        max: 100,
        kind: IntKind::Ranged,
    };
    let bit = |n| rules::apply(&Params::Bit(n), &slot, &ty, "`hp`", Style::Bitstream);
    assert_eq!(
        bit(7),
        Ok(WireRule::Ranged {
            min: 0,
            max: 100,
            bits: 7
        })
    );
    let err = bit(3).expect_err("too narrow");
    assert_eq!(err.code, codes::ENC_RULE_TOO_NARROW);
    assert!(err.label.contains("needs 7"), "{}", err.label);
    let fp = rules::apply(
        &Params::FixedPoint(0.1),
        &slot,
        &ty,
        "`hp`",
        Style::Bitstream,
    );
    let err = fp.expect_err("not NUMERIC");
    assert_eq!(err.code, codes::ENC_RULE_TYPE_MISMATCH);
    assert!(err.message.contains("INT[0,100]"), "{}", err.message);
    let u8_rule = rules::apply(
        &Params::Primitive(crate::front::common::Primitive::Uint8),
        &slot,
        &ty,
        "`hp`",
        Style::Bitstream,
    );
    assert_eq!(
        u8_rule,
        Ok(WireRule::Fixed {
            bits: 8,
            signed: false
        })
    );
    let i8_slot = Slot::Int {
        min: 0,
        max: 300,
        kind: IntKind::Ranged,
    };
    let i8_rule = rules::apply(
        &Params::Primitive(crate::front::common::Primitive::Int8),
        &i8_slot,
        &Type::IntRange { min: 0, max: 300 },
        "`hp`",
        Style::Bitstream,
    );
    assert_eq!(
        i8_rule.expect_err("does not fit").code,
        codes::ENC_RULE_TOO_NARROW
    );
}

#[test]
fn bytestream_rounds_widths_up() {
    assert_eq!(round_to_bytes(0), 0);
    assert_eq!(round_to_bytes(1), 8);
    assert_eq!(round_to_bytes(9), 16);
    assert_eq!(round_to_bytes(21), 32);
    assert_eq!(round_to_bytes(33), 64);
    assert_eq!(
        rules::to_bytestream(WireRule::Bool { bits: 1 }),
        WireRule::Bool { bits: 8 }
    );
    assert_eq!(
        rules::to_bytestream(vlq(3, VlqMapping::Plain, 0, 65535)),
        vlq(7, VlqMapping::Plain, 0, 65535)
    );
}

fn rule_of<'a>(items: &'a [WireItem], name: &str) -> Option<(&'a WireRule, bool)> {
    items.iter().find_map(|item| match item {
        WireItem::Field(f) if f.field == name => Some((&f.rule, f.delta)),
        WireItem::DeltaBlock(inner) => rule_of(inner, name),
        WireItem::DeadReckoning(dr) => dr
            .positions
            .iter()
            .chain(&dr.velocities)
            .find(|f| f.field == name)
            .map(|f| (&f.rule, f.delta)),
        _ => None,
    })
}

#[test]
fn no_encoding_file_gives_the_built_in_defaults() {
    let schema = character_schema();
    let (encodings, diagnostics) = resolve_encodings(&schema, &[]);
    assert!(diagnostics.is_empty());
    let default = &encodings["Default"];
    assert_eq!(default.style, Style::Bitstream);
    let items = &default.structs["Character"].segments[0].items;
    assert_eq!(items.len(), 11);
    assert_eq!(
        rule_of(items, "character_id"),
        Some((
            &WireRule::Fixed {
                bits: 16,
                signed: false
            },
            false
        ))
    );
    assert_eq!(rule_of(items, "x"), Some((&WireRule::Float64, false)));
    assert_eq!(
        rule_of(items, "anim"),
        Some((&WireRule::EnumIndex { count: 3, bits: 2 }, false))
    );
    assert_eq!(
        rule_of(items, "animation_frame"),
        Some((
            &WireRule::Ranged {
                min: 0,
                max: 119,
                bits: 7
            },
            false
        ))
    );
    match rule_of(items, "inventory") {
        Some((WireRule::Sequence { count, element, .. }, _)) => {
            assert_eq!(**element, WireRule::Struct("Item".into()));
            assert!(matches!(
                **count,
                WireRule::Vlq {
                    group_bits: 7,
                    max_groups: 10,
                    ..
                }
            ));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        default.structs["Item"].segments[0].items,
        vec![WireItem::Field(crate::ir::FieldEncoding {
            field: "weight".into(),
            delta: false,
            diff: None,
            rule: WireRule::Ranged {
                min: 0,
                max: 1000,
                bits: 10
            },
            loc: None,
            rule_loc: None,
        })]
    );
}

/// Parses IDL and encoding sources (the IDL with the resolver of the IDL) and resolves.
fn compile(
    idl: &[(&str, &str)],
    enc: &[(&str, &str)],
) -> (
    IndexMap<String, crate::ir::Encoding>,
    Vec<Diagnostic>,
    SourceMap,
) {
    let mut sources = SourceMap::new();
    let mut diagnostics = Vec::new();
    let mut idl_files = Vec::new();
    for (name, text) in idl {
        let file = sources.add(name, *text);
        let (tree, diags) = crate::front::idl::parse(file, text);
        diagnostics.extend(diags);
        idl_files.push((file, tree));
    }
    let mut enc_files = Vec::new();
    for (name, text) in enc {
        let file = sources.add(name, *text);
        let (tree, diags) = crate::front::enc::parse(file, text);
        diagnostics.extend(diags);
        enc_files.push((file, tree));
    }
    let (schema, diags) = crate::resolve::idl::resolve_schema(&idl_files);
    diagnostics.extend(diags);
    let (encodings, diags) = resolve_encodings(&schema, &enc_files);
    diagnostics.extend(diags);
    (encodings, diagnostics, sources)
}

fn seed(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/seed-examples/");
    std::fs::read_to_string(format!("{path}{name}")).unwrap_or_default()
}

const ITEM: &str = "PUBLISHABLE_STRUCT Item { UINT32 id; INT[0,99] count; };\n";

#[test]
fn myencoding1_warns_once_about_animation() {
    let idl = seed("character.idl");
    if idl.is_empty() {
        return; // the seed examples live outside the repository
    }
    let enc = seed("myencoding1.enc");
    let (encodings, diagnostics, sources) = compile(
        &[("character.idl", &idl), ("item.idl", ITEM)],
        &[("myencoding1.enc", &enc)],
    );
    let rendered = sources.render_plain(&diagnostics);
    assert_eq!(diagnostics.len(), 1, "{rendered}");
    assert_eq!(
        diagnostics[0].code.as_deref(),
        Some(codes::ENC_TYPE_NAME_FOR_FIELD)
    );
    assert!(
        diagnostics[0]
            .message
            .contains("`Animation` is the type of field `anim`; write `anim`"),
        "{rendered}"
    );
    let encoding = &encodings["MYENCODING1"];
    let items = &encoding.structs["Character"].segments[0].items;
    // Wire order: the block's.
    assert!(matches!(&items[0], WireItem::Field(f) if f.field == "character_id"));
    assert!(matches!(&items[1], WireItem::DeltaBlock(inner) if inner.len() == 6));
    assert!(matches!(
        rule_of(items, "character_id"),
        Some((
            WireRule::Vlq {
                mapping: VlqMapping::Plain,
                max_groups: 3,
                ..
            },
            false
        ))
    ));
    assert!(matches!(
        rule_of(items, "x"),
        Some((
            WireRule::FixedPoint {
                steps: 2_000_000,
                bits: 21,
                ..
            },
            false
        ))
    ));
    assert!(matches!(
        rule_of(items, "angle"),
        Some((
            WireRule::FixedPoint {
                steps: 36_000,
                bits: 16,
                ..
            },
            true
        ))
    ));
    assert_eq!(
        rule_of(items, "anim"),
        Some((&WireRule::EnumIndex { count: 3, bits: 2 }, true))
    );
    assert!(matches!(
        rule_of(items, "animation_frame"),
        Some((
            WireRule::Vlq {
                mapping: VlqMapping::Offset,
                max_groups: 1,
                min: 0,
                max: 119,
                ..
            },
            true
        ))
    ));
    assert!(matches!(
        rule_of(items, "inventory"),
        Some((
            WireRule::Sequence {
                element_delta: true,
                ..
            },
            true
        ))
    ));
    assert_eq!(encoding.structs.len(), 2, "Item gets the defaults too");
}

#[test]
fn myencoding2_dead_reckoning_limits() {
    let idl = seed("character.idl");
    if idl.is_empty() {
        return;
    }
    let enc = seed("myencoding2.enc");
    let (encodings, diagnostics, sources) = compile(
        &[("character.idl", &idl), ("item.idl", ITEM)],
        &[("myencoding2.enc", &enc)],
    );
    assert_eq!(
        diagnostics.len(),
        1,
        "{}",
        sources.render_plain(&diagnostics)
    );
    let items = &encodings["MYENCODING2"].structs["Character"].segments[0].items;
    let Some(WireItem::DeltaBlock(inner)) = items.get(1) else {
        panic!("{items:?}");
    };
    let limits: Vec<(f64, Vec<&str>, Vec<&str>)> = inner
        .iter()
        .filter_map(|item| match item {
            WireItem::DeadReckoning(dr) => Some((
                dr.limit,
                dr.positions.iter().map(|f| f.field.as_str()).collect(),
                dr.velocities.iter().map(|f| f.field.as_str()).collect(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        limits,
        vec![
            (0.02, vec!["x"], vec!["vx"]),
            (0.02, vec!["y"], vec!["vy"]),
            (0.01, vec!["z"], vec!["vz"]),
        ]
    );
}

const V2: &str = "PUBLISHABLE_STRUCT Character {
  UINT16 character_id;
  NUMERIC[-10000,10000] x;
  NUMERIC[-10000,10000] y;
  NUMERIC[-100.,100.] z;
  NUMERIC[-10.,10.] vx;
  NUMERIC[-10.,10.] vy;
  NUMERIC[-10.,10.] vz;
  FENCE
  EXTEND character_id TO UINT32;
  UINT32 some_data DEFAULT=23;
};
";

#[test]
fn extended_encoding_follows_the_fence() {
    let enc = seed("myencodinga_extended.enc");
    if enc.is_empty() {
        return;
    }
    let (encodings, diagnostics, sources) = compile(&[("v2.idl", V2)], &[("a.enc", &enc)]);
    assert!(
        diagnostics.is_empty(),
        "{}",
        sources.render_plain(&diagnostics)
    );
    let segments = &encodings["MYENCODINGA"].structs["Character"].segments;
    assert_eq!(segments.len(), 2);
    assert_eq!(segments[0].items.len(), 2);
    match &segments[1].items[..] {
        [WireItem::Extend(extend), WireItem::Field(some_data)] => {
            assert_eq!(extend.part, ExtensionPart::HighBits { low_bits: 16 });
            assert_eq!(
                extend.rule,
                WireRule::Fixed {
                    bits: 16,
                    signed: false
                }
            );
            assert_eq!(
                some_data.rule,
                WireRule::Fixed {
                    bits: 32,
                    signed: false
                }
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn bytestream_widths() {
    let idl = "STRUCT S { INT[0,120) a; BOOL b; enum E {P, Q, R} e; NUMERIC[0,360] angle; \
               SEQUENCE<UINT8, 300> s; INT32 i; };";
    let enc = "ENCODING(S2S) BYTESTREAM;\n\
               ENCODING(S2S) STRUCT S { FIXED_POINT(0.01) angle; VLQ(3) i; };";
    let (encodings, diagnostics, sources) = compile(&[("s.idl", idl)], &[("s.enc", enc)]);
    assert_eq!(
        diagnostics.len(),
        1,
        "{}",
        sources.render_plain(&diagnostics)
    );
    assert_eq!(
        diagnostics[0].code.as_deref(),
        Some(codes::ENC_VLQ_GROUP_IN_BYTESTREAM)
    );
    let encoding = &encodings["S2S"];
    assert_eq!(encoding.style, Style::Bytestream);
    let items = &encoding.structs["S"].segments[0].items;
    assert!(matches!(
        rule_of(items, "angle"),
        Some((WireRule::FixedPoint { bits: 16, .. }, _))
    ));
    assert!(matches!(
        rule_of(items, "i"),
        Some((
            WireRule::Vlq {
                group_bits: 7,
                mapping: VlqMapping::ZigZag,
                max_groups: 5,
                ..
            },
            _
        ))
    ));
    assert_eq!(
        rule_of(items, "a"),
        Some((
            &WireRule::Ranged {
                min: 0,
                max: 119,
                bits: 8
            },
            false
        ))
    );
    assert_eq!(
        rule_of(items, "b"),
        Some((&WireRule::Bool { bits: 8 }, false))
    );
    assert_eq!(
        rule_of(items, "e"),
        Some((&WireRule::EnumIndex { count: 3, bits: 8 }, false))
    );
    match rule_of(items, "s") {
        Some((WireRule::Sequence { count, element, .. }, _)) => {
            assert_eq!(
                **count,
                WireRule::Ranged {
                    min: 0,
                    max: 300,
                    bits: 16
                }
            );
            assert_eq!(
                **element,
                WireRule::Fixed {
                    bits: 8,
                    signed: false
                }
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn defaults_and_huffman() {
    let idl =
        "STRUCT S { INT[0,5] a; SEQUENCE<INT[0,3]> b; enum E {P, Q, R} e; OPTIONAL<INT[0,9]> o; };";
    let enc = "ENCODING(X) DEFAULTS { INT: VLQ(2); SEQUENCE: BIT(8); }\n\
               ENCODING(X) STRUCT S { HUFFMAN(P = 5, Q = 1, R = 1) e; BIT(4) o; };";
    let (encodings, diagnostics, sources) = compile(&[("s.idl", idl)], &[("s.enc", enc)]);
    // `SEQUENCE: BIT(8)` does not fit an unbounded sequence: one error, at the rule.
    assert_eq!(
        diagnostics.len(),
        1,
        "{}",
        sources.render_plain(&diagnostics)
    );
    assert_eq!(
        diagnostics[0].code.as_deref(),
        Some(codes::ENC_RULE_TOO_NARROW)
    );
    let items = &encodings["X"].structs["S"].segments[0].items;
    assert!(matches!(
        rule_of(items, "a"),
        Some((
            WireRule::Vlq {
                group_bits: 2,
                max_groups: 2,
                ..
            },
            _
        ))
    ));
    match rule_of(items, "b") {
        Some((WireRule::Sequence { count, element, .. }, _)) => {
            assert!(
                matches!(**count, WireRule::Vlq { group_bits: 7, .. }),
                "the built-in count"
            );
            assert!(matches!(
                **element,
                WireRule::Vlq {
                    group_bits: 2,
                    max_groups: 1,
                    ..
                }
            ));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        rule_of(items, "e"),
        Some((
            &WireRule::Huffman {
                codes: vec![(0, 1), (1, 2), (3, 2)]
            },
            false
        ))
    );
    assert_eq!(
        rule_of(items, "o"),
        Some((
            &WireRule::Optional(Box::new(WireRule::Ranged {
                min: 0,
                max: 9,
                bits: 4
            })),
            false
        ))
    );
}

/// Every `enc_*.case` file gives at least one diagnostic of the encoding resolver (E03xx or
/// W03xx), and nothing panics. Prints the rendering, for review with `--nocapture`.
#[test]
fn encoding_cases_report_their_errors() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/diagnostics"));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("enc_") && n.ends_with(".case"))
        })
        .collect();
    paths.sort();
    let mut codes_seen = std::collections::BTreeSet::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut files: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            if let Some(name) = line.strip_prefix("=== ") {
                files.push((name.trim().to_string(), String::new()));
            } else if let Some((_, body)) = files.last_mut() {
                body.push_str(line);
                body.push('\n');
            }
        }
        let idl: Vec<(&str, &str)> = files
            .iter()
            .filter(|(n, _)| n.ends_with(".idl"))
            .map(|(n, b)| (n.as_str(), b.as_str()))
            .collect();
        let enc: Vec<(&str, &str)> = files
            .iter()
            .filter(|(n, _)| n.ends_with(".enc"))
            .map(|(n, b)| (n.as_str(), b.as_str()))
            .collect();
        let (_, diagnostics, sources) = compile(&idl, &enc);
        println!(
            "==== {}\n{}",
            path.display(),
            sources.render_plain(&diagnostics)
        );
        let ours: Vec<&str> = diagnostics
            .iter()
            .filter_map(|d| d.code.as_deref())
            .filter(|c| c.starts_with("E03") || c.starts_with("W03"))
            .collect();
        assert!(
            !ours.is_empty(),
            "{} gives no encoding diagnostic",
            path.display()
        );
        codes_seen.extend(ours.into_iter().map(str::to_string));
    }
    println!("codes: {codes_seen:?}");
}

/// The DIFF tiers of field `name` among `items`, looking into blocks.
fn diff_of(items: &[WireItem], name: &str) -> Option<Option<Vec<u32>>> {
    items.iter().find_map(|item| match item {
        WireItem::Field(f) if f.field == name => Some(f.diff.clone()),
        WireItem::DeltaBlock(inner) => diff_of(inner, name),
        WireItem::DeadReckoning(dr) => dr
            .positions
            .iter()
            .chain(&dr.velocities)
            .find(|f| f.field == name)
            .map(|f| f.diff.clone()),
        _ => None,
    })
}

const DIFF_IDL: &str = "PUBLISHABLE_STRUCT P { NUMERIC[-100,100] x; NUMERIC[-10,10] vx; \
    NUMERIC[0,360) angle; INT[0,1000] hp; enum E {A, B, C} e; FLOAT32 f; BOOL b; UINT64 id; };";

#[test]
fn diff_on_fields_with_a_baseline_and_steps() {
    let enc = "ENCODING(X) PUBLISHABLE_STRUCT P {\n\
               DEAD_RECKONING(0.1) { DIFF(4, 8) FIXED_POINT(0.01) x; DIFF(3) FIXED_POINT(0.01) vx; }\n\
               DELTA DIFF(6) FIXED_POINT(0.5) angle;\n\
               DELTA { DIFF(2, 5) hp; DIFF(1) e; }\n\
               DELTA DIFF(8, 64) VLQ id;\n}";
    let (encodings, diagnostics, sources) = compile(&[("p.idl", DIFF_IDL)], &[("p.enc", enc)]);
    assert!(
        diagnostics.is_empty(),
        "{}",
        sources.render_plain(&diagnostics)
    );
    let items = &encodings["X"].structs["P"].segments[0].items;
    assert_eq!(diff_of(items, "x"), Some(Some(vec![4, 8])));
    assert_eq!(diff_of(items, "vx"), Some(Some(vec![3])));
    assert_eq!(diff_of(items, "angle"), Some(Some(vec![6])));
    assert_eq!(diff_of(items, "hp"), Some(Some(vec![2, 5])));
    assert_eq!(diff_of(items, "e"), Some(Some(vec![1])));
    assert_eq!(diff_of(items, "id"), Some(Some(vec![8, 64])));
    assert_eq!(diff_of(items, "f"), Some(None));
    let steps = |name: &str| {
        let rule = rule_of(items, name)
            .map(|(rule, _)| rule.clone())
            .or_else(|| match &items[0] {
                WireItem::DeadReckoning(dr) => dr
                    .positions
                    .iter()
                    .find(|f| f.field == name)
                    .map(|f| f.rule.clone()),
                _ => None,
            })
            .unwrap();
        let ty = match name {
            "id" => Type::Uint(64),
            _ => numeric(-100.0, 100.0),
        };
        rule.diff_steps(&ty).unwrap()
    };
    let x = steps("x");
    assert_eq!((x.first, x.last, x.wraps), (0, 20_000, false));
    let angle = steps("angle");
    assert_eq!((angle.first, angle.last, angle.wraps), (0, 719, true));
    let id = steps("id");
    assert_eq!((id.origin, id.last), (0, u64::MAX));
}

#[test]
fn diff_diagnostics_say_the_fix() {
    let cases = [
        (
            "DIFF(4) FIXED_POINT(0.01) x;",
            codes::ENC_DIFF_NO_BASELINE,
            "DELTA DIFF(..) x",
        ),
        (
            "DELTA DIFF(4) f;",
            codes::ENC_DIFF_NO_STEPS,
            "FIXED_POINT(r)",
        ),
        (
            "DELTA DIFF(4) FLOAT32 x;",
            codes::ENC_DIFF_NO_STEPS,
            "FIXED_POINT(r)",
        ),
        ("DELTA DIFF(1) b;", codes::ENC_DIFF_NO_STEPS, "BIT(n)"),
        ("DELTA DIFF() hp;", codes::ENC_DIFF_TIERS, "e.g. DIFF(4, 8)"),
        ("DELTA DIFF(0) hp;", codes::ENC_DIFF_TIERS, "1 to 10"),
        ("DELTA DIFF(4, 11) hp;", codes::ENC_DIFF_TIERS, "1 to 10"),
        ("DELTA { DIFF(65) id; }", codes::ENC_DIFF_TIERS, "1 to 64"),
    ];
    for (member, code, fix) in cases {
        let enc = format!("ENCODING(X) PUBLISHABLE_STRUCT P {{ {member} }}");
        let (_, diagnostics, sources) = compile(&[("p.idl", DIFF_IDL)], &[("p.enc", &enc)]);
        let text = sources.render_plain(&diagnostics);
        assert_eq!(diagnostics.len(), 1, "{member}: {text}");
        assert_eq!(
            diagnostics[0].code.as_deref(),
            Some(code),
            "{member}: {text}"
        );
        assert!(text.contains(fix), "{member}: {text}");
    }
    let enc = "ENCODING(X) PUBLISHABLE_STRUCT P { DELTA DIFF(6, 4, 6, 8) hp; }";
    let (encodings, diagnostics, sources) = compile(&[("p.idl", DIFF_IDL)], &[("p.enc", enc)]);
    let text = sources.render_plain(&diagnostics);
    assert_eq!(diagnostics.len(), 2, "{text}");
    assert!(
        diagnostics
            .iter()
            .all(|d| d.code.as_deref() == Some(codes::ENC_DIFF_TIER_UNUSED)),
        "{text}"
    );
    assert!(text.contains("an earlier tier holds 6 bits"), "{text}");
    let items = &encodings["X"].structs["P"].segments[0].items;
    assert_eq!(diff_of(items, "hp"), Some(Some(vec![6, 4, 6, 8])));
    let widened = "PUBLISHABLE_STRUCT W { INT[0,10] n; FENCE EXTEND n TO INT[0,1000]; };";
    let enc = "ENCODING(X) PUBLISHABLE_STRUCT W { DELTA DIFF(2) n; }";
    let (_, diagnostics, sources) = compile(&[("w.idl", widened)], &[("w.enc", enc)]);
    let text = sources.render_plain(&diagnostics);
    assert_eq!(diagnostics.len(), 1, "{text}");
    assert!(text.contains("a later version EXTENDs"), "{text}");
}
