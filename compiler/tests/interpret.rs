//! The IR interpreter (`idlc::interpret`) as a library: the worked examples of
//! docs/WIRE_FORMAT.md byte for byte, fences and extensions, errors with field paths, hostile
//! bytes. (Its agreement with generated code is checked in tests/tests/interpreter_agrees.rs.)

use idlc::interpret::{self, DecodeErrorKind, EncodeErrorKind, Value, sample};
use idlc::ir::Ir;
use idlc::load::MemoryFs;
use idlc_runtime::DecodeErrorKind as Wire;

/// Compiles in-memory files; the IDL is `a.idl`, the encoding (if any) `a.enc`.
fn ir(idl: &str, enc: Option<&str>) -> Ir {
    let mut fs = MemoryFs::new().with("a.idl", idl);
    let mut inputs = idlc::Inputs {
        idl: vec!["a.idl".into()],
        ..Default::default()
    };
    if let Some(enc) = enc {
        fs.insert("a.enc", enc);
        inputs.encodings.push("a.enc".into());
    }
    let compilation = idlc::compile_with(&inputs, &fs).expect("in-memory files");
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    compilation.ir
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("valid JSON")
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

const EXAMPLE_IDL: &str =
    "STRUCT S { INT[0,119] a; BOOL b; UINT32 c; STRING<16> s; NUMERIC[-10,10] x; }";

fn example_enc(style: &str) -> String {
    format!(
        "ENCODING(E) {style};\nENCODING(E) STRUCT S {{ a; b; VLQ c; s; FIXED_POINT(0.01) x; CHECK; }}\n"
    )
}

#[test]
fn worked_example_bitstream_and_bytestream() {
    let value = json(r#"{"a": 17, "b": true, "c": 300, "s": "hi", "x": 1.5}"#);
    for (style, expected) in [
        ("BITSTREAM", "91 AC 02 02 68 69 7E F4 06 E6 E8 00"),
        ("BYTESTREAM", "11 01 AC 02 02 68 69 7E 04 DE C0 1C 1D"),
    ] {
        let ir = ir(EXAMPLE_IDL, Some(&example_enc(style)));
        let bytes = interpret::encode(&ir, "E", "S", &value).unwrap();
        assert_eq!(hex(&bytes), expected, "{style}");
        let back = interpret::decode(&ir, "E", "S", &bytes).unwrap();
        assert_eq!(back, value, "{style}");
    }
}

#[test]
fn encode_errors_name_the_field_path() {
    let ir = ir(
        "STRUCT In { INT[0,10] v; } STRUCT Out { SEQUENCE<In, 4> items; OPTIONAL<In> maybe; }",
        None,
    );
    let value = json(r#"{"items": [{"v": 1}, {"v": 11}], "maybe": null}"#);
    let error = interpret::encode(&ir, "Default", "Out", &value).unwrap_err();
    assert_eq!(error.path, "Out.items[1].v");
    assert!(
        matches!(error.kind, EncodeErrorKind::Wire(e) if e.kind == idlc_runtime::EncodeErrorKind::ValueOutOfRange)
    );
    assert_eq!(error.to_string(), "`Out.items[1].v`: value out of range");

    let missing = interpret::encode(&ir, "Default", "Out", &json(r#"{"items": []}"#)).unwrap_err();
    assert_eq!(missing.path, "Out");
    assert!(
        matches!(&missing.kind, EncodeErrorKind::Shape(m) if m.contains("missing field `maybe`"))
    );

    let shape = interpret::encode(
        &ir,
        "Default",
        "Out",
        &json(r#"{"items": [], "maybe": {"v": "x"}}"#),
    )
    .unwrap_err();
    assert_eq!(shape.path, "Out.maybe.v");

    let too_long = interpret::encode(
        &ir,
        "Default",
        "Out",
        &json(r#"{"items": [{"v":1},{"v":1},{"v":1},{"v":1},{"v":1}], "maybe": null}"#),
    )
    .unwrap_err();
    assert_eq!(too_long.path, "Out.items");

    let unknown = interpret::encode(&ir, "Nope", "Out", &value).unwrap_err();
    assert!(matches!(unknown.kind, EncodeErrorKind::Schema(_)));
    let unknown = interpret::decode(&ir, "Default", "Nope", &[]).unwrap_err();
    assert!(matches!(unknown.kind, DecodeErrorKind::Schema(_)));
}

#[test]
fn enums_strings_optionals_and_decode_errors() {
    let ir = ir(
        "ENUM Mood { Calm, Angry, Sad } STRUCT P { Mood m; OPTIONAL<STRING<8>> name; BYTES<4> raw; }",
        None,
    );
    let value = json(r#"{"m": "Sad", "name": "é", "raw": [1, 2, 255]}"#);
    let bytes = interpret::encode(&ir, "Default", "P", &value).unwrap();
    assert_eq!(
        interpret::decode(&ir, "Default", "P", &bytes)
            .unwrap()
            .to_json(),
        value.to_json()
    );
    // Index 3 of 3 enumerators.
    let error = interpret::decode(&ir, "Default", "P", &[0b11]).unwrap_err();
    assert_eq!(error.wire().map(|e| e.kind), Some(Wire::BadEnumerator));
    assert_eq!(error.path, "P.m");
    // Present, length 1, then a lone continuation byte: not UTF-8.
    let error =
        interpret::decode(&ir, "Default", "P", &[0b0000_0100 | 0b10_0000, 0x80]).unwrap_err();
    assert_eq!(error.path, "P.name");
    let error = interpret::decode(&ir, "Default", "P", &[]).unwrap_err();
    assert_eq!(error.wire().map(|e| e.kind), Some(Wire::UnexpectedEnd));
    let bad = interpret::encode(
        &ir,
        "Default",
        "P",
        &json(r#"{"m": "Happy", "name": null, "raw": []}"#),
    )
    .unwrap_err();
    assert!(
        matches!(&bad.kind, EncodeErrorKind::Shape(m) if m.contains("Calm, Angry, Sad")),
        "{bad}"
    );
}

#[test]
fn fences_defaults_and_extensions() {
    // Version 2 of a message and of a nested struct with an open FENCE.
    let v1 = ir(
        "STRUCT In { UINT8 a; FENCE } MESSAGE M { UINT16 id; In inner; UINT8 after; }",
        None,
    );
    let v2 = ir(
        "STRUCT In { UINT8 a; FENCE UINT8 b DEFAULT = 9; FENCE } \
         MESSAGE M { UINT16 id; In inner; UINT8 after; FENCE EXTEND id TO UINT32; INT[1,3] later DEFAULT = 2; }",
        None,
    );
    let old = json(r#"{"id": 7, "inner": {"a": 1}, "after": 5}"#);
    let new = json(r#"{"id": 70000, "inner": {"a": 1, "b": 4}, "after": 5, "later": 3}"#);
    let old_bytes = interpret::encode(&v1, "Default", "M", &old).unwrap();
    let new_bytes = interpret::encode(&v2, "Default", "M", &new).unwrap();
    // A new reader fills the DEFAULTs of an old writer's message.
    assert_eq!(
        interpret::decode(&v2, "Default", "M", &old_bytes).unwrap(),
        json(r#"{"id": 7, "inner": {"a": 1, "b": 9}, "after": 5, "later": 2}"#)
    );
    // An old reader sees the low bits of the widened id and skips the nested extension.
    assert_eq!(
        interpret::decode(&v1, "Default", "M", &new_bytes).unwrap(),
        json(r#"{"id": 4464, "inner": {"a": 1}, "after": 5}"#)
    );
    assert_eq!(
        interpret::decode(&v2, "Default", "M", &new_bytes).unwrap(),
        new
    );
    // The open extension example of WIRE_FORMAT.md section 4: 3 bits `001`, then an extension
    // holding 0x2A in 6 bits.
    let nested = ir(
        "STRUCT In { INT[0,7] a; FENCE INT[0,63] b DEFAULT = 0; } STRUCT O { In i; }",
        None,
    );
    let value = json(r#"{"i": {"a": 1, "b": 42}}"#);
    let bytes = interpret::encode(&nested, "Default", "O", &value).unwrap();
    assert_eq!(hex(&bytes), "69 A0 02");
    assert_eq!(
        interpret::decode(&nested, "Default", "O", &bytes).unwrap(),
        value
    );
    // An extension claiming more bits than are left.
    let error = interpret::decode(&nested, "Default", "O", &[0x69, 0xA0]).unwrap_err();
    assert_eq!(error.wire().map(|e| e.kind), Some(Wire::UnexpectedEnd));
}

#[test]
fn recursion_is_bounded_by_the_depth_limit() {
    let ir = ir("STRUCT Node { UINT8 v; OPTIONAL<Node> next; }", None);
    // Every byte 0xFF: v = 255, present, v = 255, present, ... deeper than the limit.
    let bytes = vec![0xFF; 4096];
    let error = interpret::decode(&ir, "Default", "Node", &bytes).unwrap_err();
    assert_eq!(error.wire().map(|e| e.kind), Some(Wire::TooDeep));
}

#[test]
fn hostile_bytes_never_panic_and_stay_bounded() {
    let ir = ir(
        "STRUCT E { UINT8 x; STRING s; } STRUCT H { SEQUENCE<E> many; SEQUENCE<INT[5,5], 1000000> zeros; \
         BYTES raw; ARRAY<E, 3> three; OPTIONAL<H> again; }",
        None,
    );
    let mut rng = sample::Rng::new(7);
    for round in 0..3000 {
        let len = rng.below(40) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if round % 3 == 0 {
            // A huge VLQ count first.
            bytes.splice(0..0, [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]);
        }
        if let Ok(value) = interpret::decode(&ir, "Default", "H", &bytes) {
            // What decodes re-encodes, to bytes that decode to the same value.
            let again = interpret::encode(&ir, "Default", "H", &value).unwrap();
            assert_eq!(
                interpret::decode(&ir, "Default", "H", &again).unwrap(),
                value
            );
        }
    }
}

#[test]
fn random_values_round_trip() {
    let ir = ir(
        "ENUM K { A, B, C, D, E } STRUCT In { INT[-5,1000] n; K k; FENCE } \
         STRUCT R { UINT64 big; INT64 small; FLOAT32 f; NUMERIC[0,360) angle; STRING<20> name; \
         SEQUENCE<In, 5> items; OPTIONAL<R> next; ARRAY<BOOL, 3> flags; BYTES b; SEQUENCE<BOOL> bits; }",
        Some(
            "ENCODING(Q) DEFAULTS { SEQUENCE: VLQ(2); }\n\
             ENCODING(Q) STRUCT R { VLQ big; VLQ(5) small; f; FIXED_POINT(0.5) angle; ALIGN; name; items; next; flags; b; CHECK; }\n\
             ENCODING(Q) STRUCT In { VLQ n; HUFFMAN(A = 10, B = 1, C = 1, D = 3, E = 5) k; }\n",
        ),
    );
    let mut rng = sample::Rng::new(1);
    for _ in 0..500 {
        let value = sample::random_struct(&ir, "R", &mut rng).unwrap();
        let bytes = interpret::encode(&ir, "Q", "R", &value).unwrap();
        let back = interpret::decode(&ir, "Q", "R", &bytes).unwrap();
        // Quantized angles come back on their step: the bytes are the same.
        assert_eq!(interpret::encode(&ir, "Q", "R", &back).unwrap(), bytes);
    }
}

#[test]
fn explain_shows_every_field_and_the_failure() {
    let ir = ir(EXAMPLE_IDL, Some(&example_enc("BITSTREAM")));
    let value = json(r#"{"a": 17, "b": true, "c": 300, "s": "hi", "x": 1.5}"#);
    let mut bytes = interpret::encode(&ir, "E", "S", &value).unwrap();
    let mut trace = Vec::new();
    interpret::decode_traced(&ir, "E", "S", &bytes, Some(&mut trace)).unwrap();
    let text = interpret::explain::render(&trace, &bytes, idlc::ir::Style::Bitstream);
    assert!(text.contains("S.a"), "{text}");
    assert!(text.contains("0010001"), "{text}");
    assert!(text.contains("S (CHECK)"), "{text}");
    // Break the CHECK.
    if let Some(last) = bytes.get_mut(9) {
        *last ^= 0x10;
    }
    let mut trace = Vec::new();
    let error = interpret::decode_traced(&ir, "E", "S", &bytes, Some(&mut trace)).unwrap_err();
    assert_eq!(
        error.wire().map(|e| (e.kind, e.bit_offset)),
        Some((Wire::CheckMismatch, 59))
    );
    let last = trace.last().unwrap();
    assert_eq!(last.error.as_deref(), Some("CHECK marker mismatch"));
}

/// An ALIGN or CHECK after a FENCE belongs to its segment: a newer reader of an older writer's
/// message (no segment, so neither padding nor check word) does not read them.
#[test]
fn align_and_check_of_an_absent_segment_are_not_read() {
    let v1 = ir("MESSAGE M { UINT8 a; }", None);
    let v2 = ir(
        "MESSAGE M { UINT8 a; FENCE UINT8 b DEFAULT = 1; }",
        Some("ENCODING(E) BITSTREAM; ENCODING(E) MESSAGE M { a; FENCE ALIGN; b; CHECK; }"),
    );
    let old = interpret::encode(&v1, "Default", "M", &json(r#"{"a": 5}"#)).unwrap();
    assert_eq!(
        interpret::decode(&v2, "E", "M", &old).unwrap(),
        json(r#"{"a": 5, "b": 1}"#)
    );
    let new = json(r#"{"a": 5, "b": 7}"#);
    let bytes = interpret::encode(&v2, "E", "M", &new).unwrap();
    assert_eq!(interpret::decode(&v2, "E", "M", &bytes).unwrap(), new);
}
