//! The Encoding parser: the seed examples, every construct of the grammar, and error recovery.

use idlc::diagnostics::{Diagnostic, SourceMap};
use idlc::front::common::{Literal, NumberRef, NumberValue, Primitive, TypeKind};
use idlc::front::enc::ast::*;
use idlc::front::enc::parse;
use idlc::front::span::Span;

const SEEDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/seed-examples/");

fn seed(name: &str) -> String {
    std::fs::read_to_string(format!("{SEEDS}{name}")).expect("seed example is readable")
}

/// Parses `source`, failing with the rendered diagnostics if there are any.
fn parse_ok(source: &str) -> EncFile {
    let mut map = SourceMap::new();
    let file = map.add("test.enc", source);
    let (tree, diagnostics) = parse(file, source);
    assert!(diagnostics.is_empty(), "{}", map.render_plain(&diagnostics));
    tree
}

fn parse_err(source: &str) -> (EncFile, Vec<Diagnostic>) {
    let mut map = SourceMap::new();
    let file = map.add("test.enc", source);
    parse(file, source)
}

fn text(source: &str, span: Span) -> &str {
    &source[span.range()]
}

/// The text under the primary label of a diagnostic.
fn label_text<'a>(source: &'a str, diagnostic: &Diagnostic) -> &'a str {
    &source[diagnostic.labels[0].range.clone()]
}

fn target(item: &EncItem) -> (&Target, &[EncMember]) {
    match &item.body {
        EncBody::Target(target, members) => (target, members),
        other => panic!("expected a target item, got {other:?}"),
    }
}

fn field(member: &EncMember) -> &EncField {
    match member {
        EncMember::Field(field) => field,
        other => panic!("expected a field, got {other:?}"),
    }
}

fn real(value: f64) -> NumberValue {
    NumberValue::Real(value)
}

fn rule_kind(field: &EncField) -> &RuleKind {
    &field.rule.as_ref().expect("field has a rule").kind
}

#[test]
fn myencoding1_parses() {
    let source = seed("myencoding1.enc");
    let tree = parse_ok(&source);
    assert_eq!(tree.items.len(), 1);
    let item = &tree.items[0];
    assert_eq!(item.encoding.name, "MYENCODING1");
    let (target, members) = target(item);
    assert_eq!(target.kind, TargetKind::Publishable);
    assert_eq!(target.name.name, "Character");
    assert_eq!(text(&source, target.span), "PUBLISHABLE_STRUCT Character");
    assert_eq!(members.len(), 6);

    let id = field(&members[0]);
    assert_eq!(id.delta, None);
    assert_eq!(rule_kind(id), &RuleKind::Vlq(None));
    assert_eq!(id.name.name, "character_id");
    assert_eq!(text(&source, id.span), "VLQ character_id");

    let EncMember::Delta(block) = &members[1] else {
        panic!("expected a DELTA block, got {:?}", members[1]);
    };
    let names: Vec<_> = block
        .members
        .iter()
        .map(|m| field(m).name.name.as_str())
        .collect();
    assert_eq!(names, ["x", "y", "z", "vx", "vy", "vz"]);
    for member in &block.members {
        let f = field(member);
        assert_eq!(f.delta, None);
        let RuleKind::FixedPoint(resolution) = rule_kind(f) else {
            panic!("expected FIXED_POINT, got {f:?}");
        };
        assert_eq!(resolution.value, real(0.01));
    }
    assert!(text(&source, block.span).starts_with("DELTA {"));
    assert!(text(&source, block.span).ends_with('}'));

    let angle = field(&members[2]);
    assert_eq!(text(&source, angle.delta.unwrap()), "DELTA");
    assert!(matches!(rule_kind(angle), RuleKind::FixedPoint(n) if n.value == real(0.01)));
    assert_eq!(angle.name.name, "angle");

    let anim = field(&members[3]);
    assert!(anim.delta.is_some());
    assert!(matches!(rule_kind(anim), RuleKind::Bit(n) if n.value == NumberValue::Int(2)));
    assert_eq!(anim.name.name, "Animation");
    assert_eq!(text(&source, anim.rule.as_ref().unwrap().span), "BIT(2)");

    let frame = field(&members[4]);
    assert!(frame.delta.is_some());
    assert_eq!(rule_kind(frame), &RuleKind::Vlq(None));

    let inventory = field(&members[5]);
    assert!(inventory.delta.is_some());
    assert!(matches!(rule_kind(inventory), RuleKind::Sequence(name) if name.name == "Item"));
    assert_eq!(inventory.name.name, "inventory");
    assert_eq!(
        text(&source, inventory.span),
        "DELTA SEQUENCE<Item> inventory"
    );
}

#[test]
fn myencoding2_parses_dead_reckoning() {
    let source = seed("myencoding2.enc");
    let tree = parse_ok(&source);
    let (target, members) = target(&tree.items[0]);
    assert_eq!(tree.items[0].encoding.name, "MYENCODING2");
    assert_eq!(target.name.name, "Character");
    assert_eq!(members.len(), 6);

    let EncMember::Delta(delta) = &members[1] else {
        panic!("expected a DELTA block, got {:?}", members[1]);
    };
    assert_eq!(delta.members.len(), 3);
    let expected = [
        (Some(0.02), ["x", "vx"]),
        (Some(0.02), ["y", "vy"]),
        (None, ["z", "vz"]),
    ];
    for (member, (limit, names)) in delta.members.iter().zip(expected) {
        let EncMember::DeadReckoning(block) = member else {
            panic!("expected DEAD_RECKONING, got {member:?}");
        };
        assert_eq!(block.limit.map(|n| n.value), limit.map(real));
        let got: Vec<_> = block
            .members
            .iter()
            .map(|m| field(m).name.name.as_str())
            .collect();
        assert_eq!(got, names);
        assert!(text(&source, block.span).starts_with("DEAD_RECKONING"));
        assert!(text(&source, block.span).ends_with('}'));
    }
    let EncMember::DeadReckoning(first) = &delta.members[0] else {
        unreachable!()
    };
    assert_eq!(text(&source, first.limit.unwrap().span), "0.02");

    let names: Vec<_> = members[2..]
        .iter()
        .map(|m| field(m).name.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["angle", "Animation", "animation_frame", "inventory"]
    );
    assert!(members[2..].iter().all(|m| field(m).delta.is_some()));
}

#[test]
fn myencodinga_parses() {
    let source = seed("myencodinga.enc");
    let tree = parse_ok(&source);
    assert_eq!(tree.items.len(), 1);
    assert_eq!(tree.items[0].encoding.name, "MYENCODINGA");
    let (_, members) = target(&tree.items[0]);
    assert_eq!(members.len(), 2);
    let id = field(&members[0]);
    assert_eq!(rule_kind(id), &RuleKind::Primitive(Primitive::Uint16));
    let EncMember::Delta(block) = &members[1] else {
        panic!("expected a DELTA block");
    };
    assert_eq!(block.members.len(), 6);
    assert!(text(&source, tree.items[0].span).ends_with('}'));
}

#[test]
fn myencodinga_extended_parses_fence_extend_default() {
    let source = seed("myencodinga_extended.enc");
    let tree = parse_ok(&source);
    let (_, members) = target(&tree.items[0]);
    assert_eq!(members.len(), 5, "{members:#?}");
    assert_eq!(
        rule_kind(field(&members[0])),
        &RuleKind::Primitive(Primitive::Uint16)
    );
    let EncMember::Delta(block) = &members[1] else {
        panic!("expected a DELTA block");
    };
    assert_eq!(block.members.len(), 6);

    let EncMember::Fence(fence) = members[2] else {
        panic!("expected FENCE, got {:?}", members[2]);
    };
    assert_eq!(text(&source, fence), "FENCE");

    let EncMember::Extend(extend) = &members[3] else {
        panic!("expected EXTEND, got {:?}", members[3]);
    };
    assert_eq!(extend.field.name, "character_id");
    assert_eq!(extend.ty.kind, TypeKind::Primitive(Primitive::Uint32));
    assert_eq!(text(&source, extend.ty.span), "UINT32");
    assert_eq!(text(&source, extend.span), "EXTEND character_id TO UINT32");

    let some_data = field(&members[4]);
    assert_eq!(some_data.delta, None);
    assert_eq!(
        rule_kind(some_data),
        &RuleKind::Primitive(Primitive::Uint32)
    );
    assert_eq!(some_data.name.name, "some_data");
    let Some(Literal::Number(default)) = &some_data.default else {
        panic!("expected a numeric DEFAULT, got {:?}", some_data.default);
    };
    assert_eq!(default.value, NumberValue::Int(23));
    assert_eq!(text(&source, default.span), "23");
    assert_eq!(text(&source, some_data.span), "UINT32 some_data DEFAULT=23");
}

#[test]
fn styles_and_several_items() {
    let source = "ENCODING(S2S) BYTESTREAM;\nENCODING(C2S) BITSTREAM;\n";
    let tree = parse_ok(source);
    assert_eq!(tree.items.len(), 2);
    assert_eq!(tree.items[0].encoding.name, "S2S");
    let EncBody::Style(style, span) = &tree.items[0].body else {
        panic!("expected a style");
    };
    assert_eq!(*style, Style::Bytestream);
    assert_eq!(text(source, *span), "BYTESTREAM");
    assert_eq!(
        text(source, tree.items[0].span),
        "ENCODING(S2S) BYTESTREAM;"
    );
    assert!(matches!(
        tree.items[1].body,
        EncBody::Style(Style::Bitstream, _)
    ));
}

#[test]
fn defaults_block() {
    let source = r#"
ENCODING(E) DEFAULTS {
    INT: VLQ;
    NUMERIC: FIXED_POINT(0.001);
    ENUM: BIT(3);
    BOOL: BOOL;
    SEQUENCE: VLQ(5);
    STRING: VLQ;
    BYTES: VLQ;
    FLOAT32: FLOAT32;
    FLOAT64: FLOAT32;
    UINT8: BIT(8);
    INT64: VLQ;
    Whatever: UINT16;
};
ENCODING(E) DEFAULTS { }
"#;
    let tree = parse_ok(source);
    assert_eq!(tree.items.len(), 2);
    let EncBody::Defaults(rules) = &tree.items[0].body else {
        panic!("expected DEFAULTS");
    };
    let categories: Vec<_> = rules.iter().map(|r| r.category.name.as_str()).collect();
    assert_eq!(
        categories,
        [
            "INT", "NUMERIC", "ENUM", "BOOL", "SEQUENCE", "STRING", "BYTES", "FLOAT32", "FLOAT64",
            "UINT8", "INT64", "Whatever"
        ]
    );
    assert_eq!(rules[0].rule.kind, RuleKind::Vlq(None));
    assert!(matches!(&rules[1].rule.kind, RuleKind::FixedPoint(n) if n.value == real(0.001)));
    assert!(matches!(&rules[2].rule.kind, RuleKind::Bit(n) if n.value == NumberValue::Int(3)));
    assert_eq!(rules[3].rule.kind, RuleKind::Primitive(Primitive::Bool));
    assert!(
        matches!(&rules[4].rule.kind, RuleKind::Vlq(Some(n)) if n.value == NumberValue::Int(5))
    );
    assert_eq!(rules[11].rule.kind, RuleKind::Primitive(Primitive::Uint16));
    assert_eq!(text(source, rules[1].span), "NUMERIC: FIXED_POINT(0.001)");
    assert_eq!(text(source, rules[1].category.span), "NUMERIC");
    assert_eq!(text(source, rules[1].rule.span), "FIXED_POINT(0.001)");
    assert!(matches!(&tree.items[1].body, EncBody::Defaults(rules) if rules.is_empty()));
}

#[test]
fn every_target_kind_and_rule() {
    let source = r#"
ENCODING(E) STRUCT Vec3 { FLOAT32 x; FLOAT64 y; INT8 z; }
ENCODING(E) MESSAGE Hello {
    HUFFMAN(Standing = 10, Walking = 3, Running = 1,) anim;
    ALIGN;
    BOOL flag;
    UINT8 a; UINT32 b; UINT64 c; INT16 d; INT32 e; INT64 f;
    CHECK;
    name;
    DELTA name2;
}
ENCODING(E) PROTOCOL Game { ALIGN; CHECK; };
ENCODING(E) RPC Login { VLQ(4) user; FENCE; EXTEND user TO SEQUENCE<INT[0,10), 5>; }
"#;
    let tree = parse_ok(source);
    let kinds: Vec<_> = tree.items.iter().map(|i| target(i).0.kind).collect();
    assert_eq!(
        kinds,
        [
            TargetKind::Struct,
            TargetKind::Message,
            TargetKind::Protocol,
            TargetKind::Rpc
        ]
    );

    let (_, vec3) = target(&tree.items[0]);
    let prims: Vec<_> = vec3.iter().map(|m| rule_kind(field(m)).clone()).collect();
    assert_eq!(
        prims,
        [
            RuleKind::Primitive(Primitive::Float32),
            RuleKind::Primitive(Primitive::Float64),
            RuleKind::Primitive(Primitive::Int8),
        ]
    );

    let (_, hello) = target(&tree.items[1]);
    let RuleKind::Huffman(weights) = rule_kind(field(&hello[0])) else {
        panic!("expected HUFFMAN");
    };
    let weights: Vec<_> = weights
        .iter()
        .map(|(n, w)| (n.name.as_str(), w.value))
        .collect();
    assert_eq!(
        weights,
        [
            ("Standing", NumberValue::Int(10)),
            ("Walking", NumberValue::Int(3)),
            ("Running", NumberValue::Int(1)),
        ]
    );
    assert!(matches!(hello[1], EncMember::Align(span) if text(source, span) == "ALIGN"));
    assert_eq!(
        rule_kind(field(&hello[2])),
        &RuleKind::Primitive(Primitive::Bool)
    );
    assert_eq!(hello.len(), 12);
    assert!(matches!(hello[9], EncMember::Check(span) if text(source, span) == "CHECK"));
    let bare = field(&hello[10]);
    assert_eq!((bare.delta, bare.rule.as_ref()), (None, None));
    assert_eq!(bare.name.name, "name");
    let delta_only = field(&hello[11]);
    assert!(delta_only.delta.is_some() && delta_only.rule.is_none());

    let (_, protocol) = target(&tree.items[2]);
    assert!(matches!(
        protocol,
        [EncMember::Align(_), EncMember::Check(_)]
    ));

    let (rpc, login) = target(&tree.items[3]);
    assert_eq!(rpc.name.name, "Login");
    assert!(
        matches!(rule_kind(field(&login[0])), RuleKind::Vlq(Some(n)) if n.value == NumberValue::Int(4))
    );
    assert!(matches!(login[1], EncMember::Fence(_)));
    let EncMember::Extend(extend) = &login[2] else {
        panic!("expected EXTEND");
    };
    let TypeKind::Sequence(element, Some(NumberRef::Literal(max))) = &extend.ty.kind else {
        panic!("expected SEQUENCE<T, n>, got {:?}", extend.ty.kind);
    };
    assert_eq!(max.value, NumberValue::Int(5));
    let TypeKind::IntRange(range) = &element.kind else {
        panic!("expected INT[..)");
    };
    assert!(range.min_inclusive && !range.max_inclusive);
    assert_eq!(text(source, extend.ty.span), "SEQUENCE<INT[0,10), 5>");
}

#[test]
fn extend_accepts_every_type() {
    let source = r#"ENCODING(E) STRUCT S {
    EXTEND a TO NUMERIC(-1.5, 2.];
    EXTEND b TO STRING;
    EXTEND c TO STRING<MAX_LEN>;
    EXTEND d TO BYTES<16>;
    EXTEND e TO ARRAY<UINT8, 4>;
    EXTEND f TO OPTIONAL<Vec3>;
    EXTEND g TO SEQUENCE<Item>;
    EXTEND h TO Vec3;
}"#;
    let tree = parse_ok(source);
    let (_, members) = target(&tree.items[0]);
    let types: Vec<_> = members
        .iter()
        .map(|m| match m {
            EncMember::Extend(e) => e.ty.kind.clone(),
            other => panic!("expected EXTEND, got {other:?}"),
        })
        .collect();
    assert!(matches!(&types[0], TypeKind::Numeric(r) if !r.min_inclusive && r.max_inclusive));
    assert_eq!(types[1], TypeKind::String(None));
    assert!(
        matches!(&types[2], TypeKind::String(Some(NumberRef::Const(c))) if c.name == "MAX_LEN")
    );
    assert!(matches!(
        &types[3],
        TypeKind::Bytes(Some(NumberRef::Literal(_)))
    ));
    assert!(matches!(&types[4], TypeKind::Array(..)));
    assert!(matches!(&types[5], TypeKind::Optional(..)));
    assert!(matches!(&types[6], TypeKind::Sequence(_, None)));
    assert!(matches!(&types[7], TypeKind::Named(n) if n.name == "Vec3"));
}

#[test]
fn default_literals() {
    let source = r#"ENCODING(E) STRUCT S {
    FENCE;
    BOOL a DEFAULT = true;
    b DEFAULT = false;
    DELTA c DEFAULT = "text \"quoted\"";
    VLQ d DEFAULT = Walking;
    FIXED_POINT(0.5) e DEFAULT = -1.5;
    INT64 f DEFAULT = 0x2A;
}"#;
    let tree = parse_ok(source);
    let (_, members) = target(&tree.items[0]);
    let defaults: Vec<_> = members[1..]
        .iter()
        .map(|m| field(m).default.clone().expect("a DEFAULT"))
        .collect();
    assert!(matches!(defaults[0], Literal::Bool(true, _)));
    assert!(matches!(defaults[1], Literal::Bool(false, _)));
    assert!(matches!(&defaults[2], Literal::Str(s) if s.value == "text \"quoted\""));
    assert!(matches!(&defaults[3], Literal::Name(n) if n.name == "Walking"));
    assert!(matches!(&defaults[4], Literal::Number(n) if n.value == real(-1.5)));
    assert!(matches!(&defaults[5], Literal::Number(n) if n.value == NumberValue::Int(42)));
    assert_eq!(text(source, defaults[2].span()), r#""text \"quoted\"""#);
}

#[test]
fn nested_blocks_and_optional_semicolons() {
    let source = "ENCODING(E) PUBLISHABLE_STRUCT P {
    DELTA { DELTA { a; }; DEAD_RECKONING(1) { FIXED_POINT(0.1) p; FIXED_POINT(0.1) v; }; };
    FENCE
    FENCE;
};;";
    // The second `;` after the last `}` is not part of the grammar.
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(label_text(source, &diagnostics[0]), ";");
    let (_, members) = target(&tree.items[0]);
    assert_eq!(members.len(), 3);
    let EncMember::Delta(outer) = &members[0] else {
        panic!("expected DELTA");
    };
    assert!(matches!(&outer.members[0], EncMember::Delta(inner) if inner.members.len() == 1));
    assert!(
        matches!(&outer.members[1], EncMember::DeadReckoning(dr) if dr.limit.unwrap().value == NumberValue::Int(1))
    );
    assert!(matches!(
        members[1..],
        [EncMember::Fence(_), EncMember::Fence(_)]
    ));
}

#[test]
fn two_member_errors_give_two_diagnostics_and_recover() {
    let source = "ENCODING(E) STRUCT S {
    VLQ a;
    BIT(2.5) b;
    c d e;
    UINT8 f;
}
ENCODING(E) STRUCT T { ALIGN; }
";
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 2, "{diagnostics:#?}");
    assert_eq!(label_text(source, &diagnostics[0]), "2.5");
    assert!(
        diagnostics[0].message.contains("2.5"),
        "{}",
        diagnostics[0].message
    );
    assert!(
        diagnostics[0].labels[0].message.contains("integer"),
        "{}",
        diagnostics[0].labels[0].message
    );
    assert_eq!(label_text(source, &diagnostics[1]), "d");
    assert_eq!(tree.items.len(), 2);
    let (_, members) = target(&tree.items[0]);
    let names: Vec<_> = members
        .iter()
        .map(|m| field(m).name.name.as_str())
        .collect();
    assert_eq!(names, ["a", "f"]);
    assert_eq!(target(&tree.items[1]).0.name.name, "T");
}

#[test]
fn errors_inside_nested_blocks_recover() {
    let source = "ENCODING(E) STRUCT S {
    DELTA { VLQ(x) a; b; }
    DEAD_RECKONING(0.1) { p; v; HUFFMAN() q; }
    c;
}";
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 2, "{diagnostics:#?}");
    assert_eq!(label_text(source, &diagnostics[0]), "x");
    assert_eq!(label_text(source, &diagnostics[1]), ")");
    let (_, members) = target(&tree.items[0]);
    assert_eq!(members.len(), 3);
    assert!(matches!(&members[0], EncMember::Delta(d) if d.members.len() == 1));
    assert!(matches!(&members[1], EncMember::DeadReckoning(d) if d.members.len() == 2));
    assert_eq!(field(&members[2]).name.name, "c");
}

#[test]
fn item_errors_recover_at_the_next_item() {
    let source = "ENCODING(A) SIDEWAYS;
ENCODING(B) BYTESTREAM;
ENCODING B BITSTREAM;
ENCODING(C) DEFAULTS { INT: VLQ; NUMERIC FIXED_POINT(0.1); STRING: VLQ; }
";
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 3, "{diagnostics:#?}");
    assert_eq!(label_text(source, &diagnostics[0]), "SIDEWAYS");
    assert_eq!(label_text(source, &diagnostics[1]), "B");
    assert_eq!(label_text(source, &diagnostics[2]), "FIXED_POINT");
    assert!(diagnostics[2].labels[0].message.contains("`:`"));
    let names: Vec<_> = tree
        .items
        .iter()
        .map(|i| i.encoding.name.as_str())
        .collect();
    assert_eq!(names, ["B", "C"]);
    let EncBody::Defaults(rules) = &tree.items[1].body else {
        panic!("expected DEFAULTS");
    };
    let categories: Vec<_> = rules.iter().map(|r| r.category.name.as_str()).collect();
    assert_eq!(categories, ["INT", "STRING"]);
}

#[test]
fn unexpected_end_of_file() {
    let source = "ENCODING(E) STRUCT S {\n  VLQ a;\n";
    let (_, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 1);
    assert!(diagnostics[0].message.contains("end of file"));
    let end = source.trim_end().len();
    assert_eq!(diagnostics[0].labels[0].range, end..end);
}

#[test]
fn lexical_errors_and_stray_tokens_recover() {
    let source = "ENCODING(E) STRUCT S { VLQ a; $ b; c -> d; e::f; g; }";
    let (tree, diagnostics) = parse_err(source);
    assert_eq!(diagnostics.len(), 3, "{diagnostics:#?}");
    assert_eq!(label_text(source, &diagnostics[0]), "$");
    assert!(diagnostics[0].message.contains("unexpected character"));
    assert_eq!(label_text(source, &diagnostics[1]), "->");
    assert_eq!(label_text(source, &diagnostics[2]), "::");
    let (_, members) = target(&tree.items[0]);
    let names: Vec<_> = members
        .iter()
        .map(|m| field(m).name.name.as_str())
        .collect();
    assert_eq!(names, ["a", "g"]);
}
