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
        matches!(&error.kind, EncodeErrorKind::Wire(e) if e.kind == idlc_runtime::EncodeErrorKind::ValueOutOfRange)
    );
    assert_eq!(error.to_string(), "`Out.items[1].v`: value out of range");
    // The runtime's error names the field as generated code's does.
    assert!(
        matches!(&error.kind, EncodeErrorKind::Wire(e) if e.field.as_deref() == Some("Out.items[1].v"))
    );

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
    assert_eq!(error.wire().and_then(|e| e.field.as_deref()), Some("P.m"));
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

// ---- DELTA and DEAD_RECKONING against a baseline

/// The example of docs/WIRE_FORMAT.md section 5: baseline `[10, 20, 30, 40]`, new
/// `[10, 21, 30, 40, 50]`, elements in 8 bits, at most 15: 34 bits, `4B 40 54 C8 00`.
#[test]
fn delta_sequence_is_the_worked_example() {
    let ir = ir(
        "TYPEDEF UINT8 Byte;\nPUBLISHABLE_STRUCT S { SEQUENCE<Byte, 15> v; }",
        Some("ENCODING(E) PUBLISHABLE_STRUCT S { DELTA SEQUENCE<Byte> v; }"),
    );
    let (base, now) = (
        json(r#"{"v": [10, 20, 30, 40]}"#),
        json(r#"{"v": [10, 21, 30, 40, 50]}"#),
    );
    let (bytes, mirror) = interpret::encode_delta(&ir, "E", "S", &now, &base, 0.0).unwrap();
    assert_eq!(hex(&bytes), "4B 40 54 C8 00");
    assert_eq!(mirror, now);
    assert_eq!(
        interpret::decode_delta(&ir, "E", "S", &bytes, &base, 0.0),
        Ok(now)
    );
    // Nothing changed: the changed-bit alone.
    let (bytes, mirror) = interpret::encode_delta(&ir, "E", "S", &base, &base, 0.0).unwrap();
    assert_eq!((hex(&bytes), mirror), ("00".to_string(), base.clone()));
}

const DELTA_IDL: &str = "PUBLISHABLE_STRUCT P { UINT16 id; NUMERIC[-100,100] x; \
                         NUMERIC[-10,10] vx; INT[0,9] hp; BOOL on; }\nSTRUCT Q { UINT8 a; }";
const DELTA_ENC: &str = "ENCODING(E) PUBLISHABLE_STRUCT P { VLQ id; \
                         DELTA { DEAD_RECKONING(0.05) { FIXED_POINT(0.01) x; FIXED_POINT(0.1) vx; } } \
                         DELTA hp; on; }\n\
                         ENCODING(B) BYTESTREAM;\n\
                         ENCODING(B) PUBLISHABLE_STRUCT P { VLQ id; \
                         DEAD_RECKONING { FIXED_POINT(0.01) x; FIXED_POINT(0.1) vx; } DELTA hp; on; }\n";

/// A changed-bit compares values as sent: a move smaller than the resolution is no change, and
/// dead reckoning extrapolates the baseline's quantized position with its velocity.
#[test]
fn changes_are_judged_as_sent_and_positions_extrapolated() {
    let ir = ir(DELTA_IDL, Some(DELTA_ENC));
    let base = json(r#"{"id": 3, "x": 1.0, "vx": 2.0, "hp": 5, "on": true}"#);
    // 0.004 is less than half a step: x is sent as 1.0, unchanged.
    let same = json(r#"{"id": 3, "x": 1.004, "vx": 2.0, "hp": 5, "on": true}"#);
    let (bytes, mirror) = interpret::encode_delta(&ir, "E", "P", &same, &base, 0.0).unwrap();
    // id (8 bits), the DELTA block's 0, hp's 0, on: 11 bits.
    assert_eq!(hex(&bytes), "03 04");
    assert_eq!(mirror, base);
    // Half a second later the receiver shows x = 1 + 2 * 0.5 = 2: a true x of 2.03 is within
    // the 5 cm limit, nothing but the changed-bits is sent.
    let moved = json(r#"{"id": 3, "x": 2.03, "vx": 2.0, "hp": 5, "on": true}"#);
    let (bytes, mirror) = interpret::encode_delta(&ir, "E", "P", &moved, &base, 0.5).unwrap();
    assert_eq!(hex(&bytes), "03 04");
    let Value::Struct(fields) = &mirror else {
        panic!("a struct")
    };
    assert!((fields["x"].to_json().as_f64().unwrap() - 2.0).abs() < 1e-9);
    assert_eq!(
        interpret::decode_delta(&ir, "E", "P", &bytes, &base, 0.5),
        Ok(mirror.clone())
    );
    // 2.1 is off by 10 cm: the block is sent, x and vx as quantized.
    let far = json(r#"{"id": 3, "x": 2.1, "vx": 2.04, "hp": 6, "on": false}"#);
    let (bytes, mirror) = interpret::encode_delta(&ir, "E", "P", &far, &base, 0.5).unwrap();
    let sent = json(r#"{"id": 3, "x": 2.1, "vx": 2.0, "hp": 6, "on": false}"#).to_json();
    for (name, expected) in sent.as_object().unwrap() {
        let got = &mirror.to_json()[name];
        match (got.as_f64(), expected.as_f64()) {
            (Some(a), Some(b)) => assert!((a - b).abs() < 1e-9, "{name}: {a}"),
            _ => assert_eq!(got, expected),
        }
    }
    assert_eq!(
        interpret::decode_delta(&ir, "E", "P", &bytes, &base, 0.5),
        Ok(mirror)
    );
    // In a BYTESTREAM a changed-bit is a byte.
    let (bytes, _) = interpret::encode_delta(&ir, "B", "P", &same, &base, 0.0).unwrap();
    assert_eq!(hex(&bytes), "03 00 00 01");
}

#[test]
fn delta_errors_are_values() {
    let ir = ir(DELTA_IDL, Some(DELTA_ENC));
    let base = json(r#"{"id": 3, "x": 1.0, "vx": 2.0, "hp": 5, "on": true}"#);
    // Not a PUBLISHABLE_STRUCT; an unknown encoding.
    let q = json(r#"{"a": 1}"#);
    let error = interpret::encode_delta(&ir, "E", "Q", &q, &q, 0.0).unwrap_err();
    assert!(matches!(error.kind, EncodeErrorKind::Schema(_)), "{error}");
    assert!(error.to_string().contains("PUBLISHABLE_STRUCT"), "{error}");
    let error = interpret::decode_delta(&ir, "F", "P", &[0], &base, 0.0).unwrap_err();
    assert!(matches!(error.kind, DecodeErrorKind::Schema(_)), "{error}");
    // A baseline that is not a P.
    let bad = json(r#"{"id": 3, "x": 1000.0, "vx": 2.0, "hp": 5, "on": true}"#);
    let error = interpret::encode_delta(&ir, "E", "P", &base, &bad, 0.0).unwrap_err();
    assert_eq!(error.path, "P.x (baseline)");
    let error = interpret::decode_delta(&ir, "E", "P", &[0], &bad, 0.0).unwrap_err();
    assert!(error.to_string().contains("the baseline"), "{error}");
    // A value out of range: named, at the bit before its item (its block's changed-bit).
    let far = json(r#"{"id": 3, "x": 100.5, "vx": 2.0, "hp": 5, "on": true}"#);
    let error = interpret::encode_delta(&ir, "E", "P", &far, &base, 0.0).unwrap_err();
    assert_eq!(error.path, "P.x");
    assert!(
        matches!(&error.kind, EncodeErrorKind::Wire(e) if e.bit_offset == 8),
        "{error:?}"
    );
    // hp out of range in the bytes; the end of the input inside the block.
    let error = interpret::decode_delta(&ir, "E", "P", &[0x03, 0x3E], &base, 0.0).unwrap_err();
    assert_eq!(error.wire().map(|e| e.kind), Some(Wire::ValueOutOfRange));
    assert_eq!(error.path, "P.hp");
    let error = interpret::decode_delta(&ir, "E", "P", &[0x03, 0x03], &base, 0.0).unwrap_err();
    assert_eq!(error.wire().map(|e| e.kind), Some(Wire::UnexpectedEnd));
}

/// The bundled Character trace, each character's values as its ticks at 20 Hz (the trace's
/// rate): every delta decodes to its mirror, MYENCODING2's dead reckoning keeps every position
/// within its limit plus half a step and costs less than MYENCODING1.
#[test]
fn the_character_trace_as_ticks() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let seed = root.join("../shared/seed-examples");
    let inputs = idlc::Inputs {
        idl: vec![seed.join("character.idl"), root.join("schemas/item.idl")],
        encodings: vec![seed.join("myencoding1.enc"), seed.join("myencoding2.enc")],
        ..Default::default()
    };
    let ir = idlc::compile(&inputs).expect("readable").ir;
    let trace = std::fs::read_to_string(root.join("schemas/traces/character.jsonl")).unwrap();
    let values: Vec<Value> = trace.lines().map(json).collect();
    let field = |v: &Value, name: &str| v.to_json()[name].as_f64().unwrap_or(f64::NAN);
    let mut totals = Vec::new();
    for (encoding, limit) in [("MYENCODING1", 0.005), ("MYENCODING2", 0.025)] {
        let mut states: std::collections::HashMap<String, Value> = Default::default();
        let mut total = 0;
        for value in &values {
            let id = value.to_json()["character_id"].to_string();
            let state = match states.get(&id) {
                None => {
                    let bytes = interpret::encode(&ir, encoding, "Character", value).unwrap();
                    total += bytes.len();
                    interpret::decode(&ir, encoding, "Character", &bytes).unwrap()
                }
                Some(base) => {
                    let (bytes, mirror) =
                        interpret::encode_delta(&ir, encoding, "Character", value, base, 0.05)
                            .unwrap();
                    total += bytes.len();
                    let read =
                        interpret::decode_delta(&ir, encoding, "Character", &bytes, base, 0.05);
                    assert_eq!(read.as_ref(), Ok(&mirror));
                    mirror
                }
            };
            for axis in ["x", "y", "z"] {
                let error = (field(value, axis) - field(&state, axis)).abs();
                assert!(error <= limit + 1e-9, "{encoding} {axis}: {error}");
            }
            states.insert(id, state);
        }
        totals.push(total);
    }
    assert!(totals[1] < totals[0], "{totals:?}");
}

/// Random and mutated delta bytes against random baselines: an error or a value, never a
/// panic, and nothing reserved beyond what the input holds.
#[test]
fn hostile_delta_bytes_never_panic() {
    let ir = ir(
        "PUBLISHABLE_STRUCT T { NUMERIC[0,360) b; BOOL l; FENCE }\n\
         PUBLISHABLE_STRUCT S { UINT32 tick; SEQUENCE<T> t; SEQUENCE<Byte, 200> u; FENCE UINT8 late DEFAULT = 4; }\n\
         TYPEDEF UINT8 Byte;",
        Some(
            "ENCODING(E) PUBLISHABLE_STRUCT T { DELTA FIXED_POINT(0.5) b; DELTA l; }\n\
             ENCODING(E) PUBLISHABLE_STRUCT S { VLQ tick; DELTA SEQUENCE<T> t; DELTA SEQUENCE<Byte> u; DELTA late; }",
        ),
    );
    let mut rng = sample::Rng::new(9);
    for _ in 0..300 {
        let base = sample::random_struct(&ir, "S", &mut rng).unwrap();
        let base = interpret::decode(
            &ir,
            "E",
            "S",
            &interpret::encode(&ir, "E", "S", &base).unwrap(),
        )
        .unwrap();
        let now = sample::random_struct(&ir, "S", &mut rng).unwrap();
        let (mut bytes, mirror) = interpret::encode_delta(&ir, "E", "S", &now, &base, 0.1).unwrap();
        assert_eq!(
            interpret::decode_delta(&ir, "E", "S", &bytes, &base, 0.1),
            Ok(mirror)
        );
        if !bytes.is_empty() && rng.one_in(2) {
            let bit = rng.below(bytes.len() as u64 * 8);
            bytes[(bit / 8) as usize] ^= 1 << (bit % 8);
        } else {
            bytes = (0..rng.below(12)).map(|_| rng.next_u64() as u8).collect();
        }
        if let Ok(Value::Struct(fields)) =
            interpret::decode_delta(&ir, "E", "S", &bytes, &base, 0.1)
        {
            let len = |name: &str| match &fields[name] {
                Value::List(items) => items.len(),
                _ => 0,
            };
            let base_len = |name: &str| match &base {
                Value::Struct(f) => match &f[name] {
                    Value::List(items) => items.len(),
                    _ => 0,
                },
                _ => 0,
            };
            // Every element is the baseline's or was read from the input.
            assert!(len("t") <= base_len("t") + bytes.len() * 8);
            assert!(len("u") <= base_len("u") + bytes.len() * 8);
        }
    }
}

/// A chain of distinct structs, each holding the next, `depth` deep.
fn chain(depth: usize) -> String {
    let mut idl: String = (0..depth)
        .map(|i| format!("STRUCT S{i} {{ S{} x; }}\n", i + 1))
        .collect();
    idl.push_str(&format!("STRUCT S{depth} {{ UINT8 y; }}"));
    idl
}

#[test]
fn a_chain_of_structs_deeper_than_the_limit_is_an_error_both_ways_not_a_crash() {
    // 256 levels read and write; the runtime's depth limit counts recursive structs only, so
    // without the interpreter's own a chain of 500 exhausted the stack (exit 134).
    let within = ir(&chain(255), None);
    let bytes = [5];
    let value = interpret::decode(&within, "Default", "S0", &bytes).unwrap();
    assert_eq!(
        interpret::encode(&within, "Default", "S0", &value).unwrap(),
        bytes
    );
    let beyond = ir(&chain(500), None);
    let error = interpret::decode(&beyond, "Default", "S0", &bytes).unwrap_err();
    assert_eq!(error.wire().map(|e| e.kind), Some(Wire::TooDeep));
    assert!(error.path.starts_with("S0.x.x"), "{}", error.path);
}
