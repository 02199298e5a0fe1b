//! `idlc decode` and `idlc encode` run for real: output, exit codes (0 ok, 1 bad data, 2 usage
//! or I/O), the explain dump, and hostile bytes.

use assert_cmd::Command;

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use common::*;

/// The worked example of docs/WIRE_FORMAT.md section 9.
const IDL: &str = "STRUCT S { INT[0,119] a; BOOL b; UINT32 c; STRING<16> s; NUMERIC[-10,10] x; }\n\
                   STRUCT Node { UINT8 v; OPTIONAL<Node> next; SEQUENCE<STRING> tags; }\n";
const ENC: &str = "ENCODING(E) BITSTREAM;\n\
                   ENCODING(E) STRUCT S { a; b; VLQ c; s; FIXED_POINT(0.01) x; CHECK; }\n\
                   ENCODING(B) BYTESTREAM;\n\
                   ENCODING(B) STRUCT S { a; b; VLQ c; s; FIXED_POINT(0.01) x; CHECK; }\n";
const VALUE: &str = r#"{"a": 17, "b": true, "c": 300, "s": "hi", "x": 1.5}"#;
const HEX: &str = "91ac020268697ef406e6e800";

struct Out {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

impl Out {
    fn text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Out {
    let mut command = Command::cargo_bin("idlc").expect("the idlc binary is built");
    command.args(args);
    if let Some(input) = stdin {
        command.write_stdin(input.to_vec());
    }
    let output = command.output().expect("run idlc");
    Out {
        code: output.status.code().expect("exited, not killed"),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

struct Files {
    _dir: TempDir,
    idl: String,
    enc: String,
    value: String,
}

fn files() -> Files {
    let dir = TempDir::new();
    let idl = dir.file("s.idl", IDL);
    let enc = dir.file("s.enc", ENC);
    let value = dir.file("value.json", VALUE);
    Files {
        _dir: dir,
        idl,
        enc,
        value,
    }
}

#[test]
fn encode_prints_hex_and_decode_prints_json() {
    let f = files();
    let out = run(
        &["encode", &f.idl, "-e", &f.enc, "--type", "S", &f.value],
        None,
    );
    assert_eq!(
        (out.code, out.text(), out.stderr.as_str()),
        (0, format!("{HEX}\n"), "")
    );
    let out = run(
        &["decode", &f.idl, "-e", &f.enc, "--type", "S", "--hex", HEX],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.text(),
        "{\n  \"a\": 17,\n  \"b\": true,\n  \"c\": 300,\n  \"s\": \"hi\",\n  \"x\": 1.5\n}\n"
    );
    // The other encoding, by name: the byte stream of the same example.
    let out = run(
        &[
            "encode",
            &f.idl,
            "-e",
            &f.enc,
            "--encoding-name",
            "B",
            "--type",
            "S",
            &f.value,
        ],
        None,
    );
    assert_eq!(out.text(), "1101ac020268697e04dec01c1d\n", "{}", out.stderr);
}

#[test]
fn binary_output_file_input_and_stdin() {
    let f = files();
    let out = run(
        &[
            "encode", &f.idl, "-e", &f.enc, "--type", "S", "--binary", "-",
        ],
        Some(VALUE.as_bytes()),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bytes = out.stdout;
    assert_eq!(bytes.len(), 12);
    let dir = TempDir::new();
    let written = dir.path().join("s.bin").display().to_string();
    let out = run(
        &[
            "encode", &f.idl, "-e", &f.enc, "--type", "S", &f.value, "-o", &written,
        ],
        None,
    );
    assert_eq!((out.code, out.stdout.len()), (0, 0), "{}", out.stderr);
    assert_eq!(std::fs::read(&written).unwrap(), bytes);
    let from_file = run(
        &["decode", &f.idl, "-e", &f.enc, "--type", "S", &written],
        None,
    );
    let from_stdin = run(
        &["decode", &f.idl, "-e", &f.enc, "--type", "S"],
        Some(&bytes),
    );
    assert_eq!(from_file.code, 0, "{}", from_file.stderr);
    assert_eq!(from_file.text(), from_stdin.text());
}

#[test]
fn explain_annotates_every_field_and_the_failure() {
    let f = files();
    let out = run(
        &[
            "decode", &f.idl, "-e", &f.enc, "--type", "S", "--hex", HEX, "--format", "explain",
        ],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let expected = [
        "   bit  bits  raw                                field      value",
        "     0     7  0010001                            S.a        17",
        "     7     1  1                                  S.b        true",
        "     8    16  0000001010101100                   S.c        300",
        "    24    24  02 68 69                           S.s        \"hi\"",
        "    48    11  10001111110                        S.x        1.5",
        "    59    32  00011101000111001100000011011110   S (CHECK)  0x1D1CC0DE",
    ];
    assert_eq!(
        out.text(),
        expected.map(|line| format!("{line}\n")).concat()
    );
    // The CHECK broken: the dump ends with where and why, the exit code is 1.
    let broken = "91ac020268697ef406e6e900";
    let out = run(
        &[
            "decode", &f.idl, "-e", &f.enc, "--type", "S", "--hex", broken, "--format", "explain",
        ],
        None,
    );
    assert_eq!(out.code, 1);
    assert!(
        out.text()
            .ends_with("S (CHECK)  error: CHECK marker mismatch\n"),
        "{}",
        out.text()
    );
    assert_eq!(
        out.stderr,
        "error: cannot decode `S` in `E`: CHECK marker mismatch at bit 59 in `S (CHECK)`\n"
    );
}

#[test]
fn bad_values_are_exit_1_with_the_field_path() {
    let f = files();
    let dir = TempDir::new();
    let big = dir.file(
        "big.json",
        r#"{"a": 120, "b": true, "c": 300, "s": "hi", "x": 1.5}"#,
    );
    let out = run(&["encode", &f.idl, "-e", &f.enc, "--type", "S", &big], None);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "error: cannot encode `S` in `E`: `S.a`: value out of range\n"
    );
    let broken = dir.file("broken.json", "{\"a\": 1,\n  \"b\": tru }\n");
    let out = run(
        &["encode", &f.idl, "-e", &f.enc, "--type", "S", &broken],
        None,
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("error: the value is not valid JSON"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("broken.json:2:"), "{}", out.stderr);
    let missing = dir.file("missing.json", r#"{"a": 1}"#);
    let out = run(
        &["encode", &f.idl, "-e", &f.enc, "--type", "S", &missing],
        None,
    );
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("missing field `b`"), "{}", out.stderr);
}

#[test]
fn usage_errors_are_exit_2() {
    let f = files();
    for args in [
        vec![
            "decode", &f.idl, "-e", &f.enc, "--type", "Nope", "--hex", HEX,
        ],
        vec!["decode", &f.idl, "-e", &f.enc, "--type", "S", "--hex", "zz"],
        vec![
            "decode",
            &f.idl,
            "-e",
            &f.enc,
            "--type",
            "S",
            "/nonexistent/x.bin",
        ],
        vec![
            "decode",
            &f.idl,
            "-e",
            &f.enc,
            "--encoding-name",
            "Q",
            "--type",
            "S",
            "--hex",
            HEX,
        ],
        vec!["encode", &f.idl, "-e", &f.enc, "--type", "S"],
        vec!["decode", &f.idl, "-e", &f.enc, "--hex", HEX],
    ] {
        let out = run(&args, None);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    }
}

#[test]
fn hostile_bytes_are_exit_0_or_1_never_a_crash() {
    let f = files();
    let dir = TempDir::new();
    let mut state = 0x5eed_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u8
    };
    for round in 0..24 {
        let len = usize::from(next()) % 64;
        let mut bytes: Vec<u8> = (0..len).map(|_| next()).collect();
        if round % 4 == 0 {
            // Deep nesting: every byte 0xFF means "present" again.
            bytes = vec![0xFF; 1024];
        }
        let path = dir.file("hostile.bin", &bytes);
        for format in ["json", "explain"] {
            let out = run(
                &[
                    "decode", &f.idl, "-e", &f.enc, "--type", "Node", &path, "--format", format,
                ],
                None,
            );
            assert!(
                out.code == 0 || out.code == 1,
                "{bytes:02x?}: exit {}: {}",
                out.code,
                out.stderr
            );
        }
    }
}

#[test]
fn measure_ranks_the_encodings_of_the_bundled_trace() {
    let trace = schema("traces/character.jsonl");
    let (character, item) = (seed("character.idl"), schema("item.idl"));
    let (one, two) = (seed("myencoding1.enc"), seed("myencoding2.enc"));
    let out = run(
        &[
            "measure",
            &character,
            &item,
            "-e",
            &one,
            "-e",
            &two,
            "--type",
            "Character",
            &trace,
        ],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = out.text();
    assert!(text.starts_with("`Character`: 200 values from "), "{text}");
    assert!(
        text.contains("   1  MYENCODING1         8150       40.75   18   70   70\n"),
        "{text}"
    );
    assert!(
        text.contains("x                       21.0         21.0\n"),
        "{text}"
    );
    assert!(
        text.contains("max error per field (lossy fields only)"),
        "{text}"
    );
    let out = run(
        &["measure", &character, &item, "--type", "Character", &trace],
        None,
    );
    assert!(
        out.text()
            .contains("   1  Default         16850       84.25   61  114  114\n"),
        "{}",
        out.text()
    );
    // A line that is not JSON: exit 1, with the line number.
    let dir = TempDir::new();
    let bad = dir.file("bad.jsonl", "{\"character_id\": 1}\nnot json\n");
    let out = run(
        &["measure", &character, &item, "--type", "Character", &bad],
        None,
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("bad.jsonl:2: not a JSON value"),
        "{}",
        out.stderr
    );
    let out = run(
        &[
            "measure",
            &character,
            &item,
            "--type",
            "Character",
            "--delta",
            "--tick-rate",
            "0",
            &trace,
        ],
        None,
    );
    assert_eq!(out.code, 2);
}

#[derive(Debug, Clone, Copy, Default)]
struct Bits;
impl idlc_runtime::Encoding for Bits {
    const NAME: &'static str = "E";
    type Style = idlc_runtime::BitStream;
}

#[derive(Debug, Clone, Copy, Default)]
struct Bytes;
impl idlc_runtime::Encoding for Bytes {
    const NAME: &'static str = "B";
    type Style = idlc_runtime::ByteStream;
}

/// The IR of IDL and encoding files.
fn ir_of(idl: &[String], encodings: &[String]) -> idlc::ir::Ir {
    let inputs = idlc::Inputs {
        idl: idl.iter().map(Into::into).collect(),
        encodings: encodings.iter().map(Into::into).collect(),
        mappings: Vec::new(),
        side: None,
    };
    idlc::compile(&inputs).expect("compiles").ir
}

/// An item of a packet: its id and kind, the struct its body is, and the body's value.
struct Item<'a> {
    id: u32,
    kind: idlc_runtime::ItemKind,
    body: &'a str,
    value: idlc::interpret::Value,
}

/// The hex of a packet of `protocol`'s version `version` in `encoding` holding `items`, as a
/// sender writes it: each body exactly as long as the message (no padding after it).
fn packet_hex(
    ir: &idlc::ir::Ir,
    encoding: &str,
    protocol: &str,
    version: usize,
    items: &[Item<'_>],
) -> String {
    use idlc_runtime::WireWrite as _;
    fn write<E: idlc_runtime::Encoding>(
        id: u64,
        items: &[(u32, idlc_runtime::ItemKind, Vec<u8>, u64)],
    ) -> Vec<u8> {
        let mut packet = idlc_runtime::PacketWriter::<E>::new(id);
        for (item, kind, bytes, bits) in items {
            packet
                .push(*item, *kind, |w| {
                    for (index, byte) in bytes.iter().enumerate() {
                        let width = (*bits - 8 * index as u64).min(8) as u32;
                        w.write_bits(u64::from(*byte) & ((1 << width) - 1), width)?;
                    }
                    Ok(())
                })
                .expect("the item fits");
        }
        packet.finish().to_vec()
    }
    let style = ir.encodings[encoding].style;
    let bodies: Vec<_> = items
        .iter()
        .map(|item| {
            let bytes =
                idlc::interpret::encode(ir, encoding, item.body, &item.value).expect("encodes");
            // A BITSTREAM message ends where its last read ends, before the padding.
            let mut trace = Vec::new();
            idlc::interpret::decode_traced(ir, encoding, item.body, &bytes, Some(&mut trace))
                .expect("decodes");
            let bits = match style {
                idlc::ir::Style::Bitstream => trace.iter().map(|e| e.end).max().unwrap_or(0),
                idlc::ir::Style::Bytestream => 8 * bytes.len() as u64,
            };
            (item.id, item.kind, bytes, bits)
        })
        .collect();
    let id = idlc::ir::protocol::version_ids(ir, &ir.schema.protocols[protocol], encoding)[version];
    let packet = match style {
        idlc::ir::Style::Bitstream => write::<Bits>(id, &bodies),
        idlc::ir::Style::Bytestream => write::<Bytes>(id, &bodies),
    };
    packet.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bit ranges of an explain dump's lines (`bit` and `bits` columns), in order; the lines
/// of zero bits left out.
fn explained_ranges(text: &str) -> Vec<(u64, u64, String)> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let start: u64 = words.next()?.parse().ok()?;
            let width: u64 = words.next()?.parse().ok()?;
            (width > 0).then(|| (start, start + width, line.to_string()))
        })
        .collect()
}

/// `decode --format explain` of a packet explains every bit of it: the CRC, each item's
/// present bit, length, header and request id, the body's fields, an unknown item, and the end
/// marker and padding. Over packets of arena.idl's protocols with random messages, calls and
/// responses, in a BITSTREAM and a BYTESTREAM, the lines tile the packet from bit 0 to its end:
/// each begins where the one before ended.
#[test]
fn explain_covers_every_bit_of_a_packet() {
    use idlc::interpret::sample::{Rng, random_struct};
    use idlc_runtime::ItemKind::{Message, Request, Response};
    let idl = schema("arena.idl");
    let mut rng = Rng::new(30);
    for (enc, encoding) in [("arena_s2c.enc", "S2C"), ("arena_s2s.enc", "S2S")] {
        let ir = ir_of(std::slice::from_ref(&idl), &[schema(enc)]);
        let mut item = |id, kind, body: &'static str| Item {
            id,
            kind,
            body,
            value: random_struct(&ir, body, &mut rng).expect("a struct"),
        };
        // A STRING or BYTES aligns to the packet's bytes where the sender writes it: written
        // alone and copied, its bits would not line up. Only the BYTESTREAM's items hold some.
        let mut calls = vec![
            item(1, Message, "input"),
            item(40, Message, "input"),
            item(2, Message, "fire"),
        ];
        if encoding == "S2S" {
            calls.insert(0, item(0, Request(7), "join"));
            calls.push(item(3, Message, "say"));
        }
        let pings = vec![
            item(0, Response(300), "ping.response"),
            item(0, Request(9), "ping"),
        ];
        let packets = [("ArenaClientToServer", calls), ("ArenaPing", pings)];
        for (protocol, items) in packets {
            let hex = packet_hex(&ir, encoding, protocol, 0, &items);
            let out = run(
                &[
                    "decode",
                    &idl,
                    "-e",
                    &schema(enc),
                    "--encoding-name",
                    encoding,
                    "--type",
                    protocol,
                    "--hex",
                    &hex,
                    "--format",
                    "explain",
                ],
                None,
            );
            assert_eq!(out.code, 0, "{}", out.stderr);
            let text = out.text();
            let ranges = explained_ranges(&text);
            let mut at = 0;
            for (start, end, line) in &ranges {
                assert_eq!(
                    *start, at,
                    "{protocol} in {encoding}: a gap or an overlap before `{line}`:\n{text}"
                );
                at = *end;
            }
            assert_eq!(
                at,
                4 * hex.len() as u64,
                "{protocol} in {encoding}: the end is not explained:\n{text}"
            );
            assert!(
                ranges[0].2.contains(&format!("{protocol} (CRC32)")),
                "{text}"
            );
            for (index, item) in items.iter().enumerate() {
                for part in ["(present)", "(length)", "(header)"] {
                    let path = format!("{protocol}.items[{index}] {part}");
                    assert!(text.contains(&path), "{path}:\n{text}");
                }
                let request = format!("{protocol}.items[{index}] (request id)");
                assert_eq!(text.contains(&request), item.kind != Message, "{text}");
            }
            for (index, item) in items.iter().enumerate() {
                let body = match item.id {
                    40 => format!("{protocol}.items[{index}] (body)"),
                    _ => format!("{protocol}.items[{index}] {}.", item.body),
                };
                assert!(text.contains(&body), "{body}:\n{text}");
            }
        }
    }
}

/// The hex of a BITSTREAM packet framed with `id`, one item per `(entry id, kind, value,
/// bits)`: a body of one unsigned value of that width.
fn items_hex(id: u64, items: &[(u32, idlc_runtime::ItemKind, u64, u32)]) -> String {
    use idlc_runtime::WireWrite as _;
    let mut packet = idlc_runtime::PacketWriter::<Bits>::new(id);
    for &(entry, kind, value, bits) in items {
        packet
            .push(entry, kind, |w| w.write_bits(value, bits))
            .unwrap();
    }
    packet.finish().iter().map(|b| format!("{b:02x}")).collect()
}

/// A link (WIRE_FORMAT.md section 6, "Links"): without a side both protocols go both ways, so
/// `LinkSends` is P and Q. `idlc ir` shows it; `idlc decode --type LinkSends` reads its session
/// packets, each item named with its member protocol.
#[test]
fn decode_reads_a_link_packet_and_ir_shows_the_link() {
    let dir = TempDir::new();
    let idl = dir.file(
        "pq.idl",
        "PROTOCOL P {\n  MESSAGE M { UINT8 v; }\n  RPC f(UINT16 a) -> BOOL;\n}\n\
         PROTOCOL Q {\n  MESSAGE N { BOOL b; }\n}\n",
    );
    let enc = dir.file("pq.enc", "ENCODING(E) BITSTREAM;\n");
    let out = run(&["ir", &idl, "-e", &enc], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let links = json["links"].as_array().expect("links");
    assert_eq!(links.len(), 2);
    assert_eq!(links[0]["name"], "LinkSends");
    assert_eq!(links[0]["members"], serde_json::json!(["P", "Q"]));
    let version = &links[0]["versions"]["E"][0];
    assert_eq!(version["members"], serde_json::json!([0, 0]));
    let id = version["id"].as_u64().expect("an id");
    let ir = ir_of(std::slice::from_ref(&idl), std::slice::from_ref(&enc));
    let members =
        ["P", "Q"].map(|p| idlc::ir::protocol::version_ids(&ir, &ir.schema.protocols[p], "E")[0]);
    assert_eq!(id, idlc_runtime::link_id(&members));
    // A session packet of the link: Q's N (item 0 * 2 + 1), then P's call f (item 1 * 2 + 0).
    use idlc_runtime::WireWrite as _;
    let mut items = idlc_runtime::PacketWriter::<Bits>::new(0);
    items
        .push(1, idlc_runtime::ItemKind::Message, |w| w.write_bool(true))
        .unwrap();
    items
        .push(2, idlc_runtime::ItemKind::Request(4), |w| {
            w.write_bits(300, 16)
        })
        .unwrap();
    let header = idlc_runtime::SessionHeader::FIRST.to_bytes();
    let packet = items.finish_with_header(idlc_runtime::session_id(id), &header);
    let hex: String = packet.iter().map(|b| format!("{b:02x}")).collect();
    let out = run(
        &[
            "decode",
            &idl,
            "-e",
            &enc,
            "--type",
            "LinkSends",
            "--hex",
            &hex,
        ],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["protocol"], "LinkSends");
    let named: Vec<(&str, &str)> = json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| (i["protocol"].as_str().unwrap(), i["name"].as_str().unwrap()))
        .collect();
    assert_eq!(named, [("Q", "N"), ("P", "f")]);
    assert_eq!(json["items"][1]["value"]["a"], 300);
    // A member's name does not read the link's packets.
    let out = run(
        &["decode", &idl, "-e", &enc, "--type", "P", "--hex", &hex],
        None,
    );
    assert_eq!(out.code, 1);
}

#[test]
fn decode_reads_a_framed_packet_when_the_type_is_a_protocol() {
    let dir = TempDir::new();
    let idl = dir.file(
        "p.idl",
        "PROTOCOL P {\n  MESSAGE M { UINT8 v; }\n  RPC f(UINT16 a) -> BOOL;\n  FENCE\n  MESSAGE N { BOOL b; }\n}\n",
    );
    let enc = dir.file("p.enc", "ENCODING(E) BITSTREAM;\n");
    let ir = ir_of(std::slice::from_ref(&idl), std::slice::from_ref(&enc));
    let ids = idlc::ir::protocol::version_ids(&ir, &ir.schema.protocols["P"], "E");
    assert_eq!(ids.len(), 2);
    // Version 0: M { v: 5 }, then a call of f(a: 300) with request id 7.
    let hex = items_hex(
        ids[0],
        &[
            (0, idlc_runtime::ItemKind::Message, 5, 8),
            (1, idlc_runtime::ItemKind::Request(7), 300, 16),
        ],
    );
    let out = run(
        &["decode", &idl, "-e", &enc, "--type", "P", "--hex", &hex],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["version"], 0);
    assert_eq!(json["items"][0]["name"], "M");
    assert_eq!(json["items"][0]["value"]["v"], 5);
    assert_eq!(json["items"][1]["name"], "f");
    assert_eq!(json["items"][1]["kind"], "request");
    assert_eq!(json["items"][1]["request"], 7);
    assert_eq!(json["items"][1]["value"]["a"], 300);
    let out = run(
        &[
            "decode", &idl, "-e", &enc, "--type", "P", "--hex", &hex, "--format", "explain",
        ],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.text().contains("P (CRC32)"), "{}", out.text());
    assert!(out.text().contains("300"), "{}", out.text());
    // A packet of no version of P: exit 1, the CRC named.
    let out = run(
        &[
            "decode", &idl, "-e", &enc, "--type", "P", "--hex", "00000000",
        ],
        None,
    );
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("CRC"), "{}", out.stderr);
    // An item of tag 3 (none): exit 1, at the bit after its header (from the packet's start).
    use idlc_runtime::WireWrite as _;
    let mut payload = idlc_runtime::BitWriter::new();
    payload.write_bool(true).unwrap();
    payload.write_vlq(8, 7).unwrap();
    payload.write_vlq(3, 7).unwrap();
    let packet = idlc_runtime::frame(ids[0], &payload.into_bytes());
    let hex: String = packet.iter().map(|b| format!("{b:02x}")).collect();
    let out = run(
        &[
            "decode", &idl, "-e", &enc, "--type", "P", "--hex", &hex, "--format", "explain",
        ],
        None,
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("at bit 49 in `P.items[0] (header)`"),
        "{}",
        out.stderr
    );
    let last = out.text().lines().last().unwrap_or_default().to_string();
    assert!(
        last.contains("P.items[0] (header)") && last.contains("error: "),
        "{last}"
    );
}

/// `decode --type P --answers Q`: a response in a packet of `Down` answers a request of `Up`,
/// so its id is `Up`'s RPC id and its value `Up`'s response; without `--answers` the id is
/// looked up in `Down`, where it names a message (the item is unknown there).
#[test]
fn decode_reads_responses_by_the_protocol_they_answer() {
    let dir = TempDir::new();
    let idl = dir.file(
        "link.idl",
        "PROTOCOL Up {\n  RPC get(UINT8 k) -> UINT16;\n}\n\
         PROTOCOL Down {\n  MESSAGE Tick { UINT8 t; }\n  RPC ask() -> BOOL;\n}\n",
    );
    let enc = dir.file("link.enc", "ENCODING(E) BITSTREAM;\n");
    let ir = ir_of(std::slice::from_ref(&idl), std::slice::from_ref(&enc));
    let ids = idlc::ir::protocol::version_ids(&ir, &ir.schema.protocols["Down"], "E");
    // A Tick, then the answer 300 to Up's `get` (id 0) of request 5.
    let hex = items_hex(
        ids[0],
        &[
            (0, idlc_runtime::ItemKind::Message, 9, 8),
            (0, idlc_runtime::ItemKind::Response(5), 300, 16),
        ],
    );
    let decode = |extra: &[&str]| {
        let args = [
            &["decode", &idl, "-e", &enc, "--type", "Down", "--hex", &hex][..],
            extra,
        ]
        .concat();
        run(&args, None)
    };
    let out = decode(&["--answers", "Up"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["items"][0]["name"], "Tick");
    assert_eq!(json["items"][0]["value"]["t"], 9);
    let response = &json["items"][1];
    assert_eq!(
        (&response["name"], &response["kind"], &response["request"]),
        (&"get".into(), &"response".into(), &5.into())
    );
    assert_eq!(response["value"]["value"], 300);
    let out = decode(&["--answers", "Up", "--format", "explain"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.text().contains("`get`, response"), "{}", out.text());
    // Down's own id 0 is the message Tick: not a response it knows.
    let out = decode(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["items"][1]["unknown"], true, "{json}");
    // Usage: an unknown protocol, or a type that is no protocol.
    let out = decode(&["--answers", "Sideways"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("Sideways"), "{}", out.stderr);
    let out = run(
        &[
            "decode",
            &idl,
            "-e",
            &enc,
            "--type",
            "Tick",
            "--hex",
            "09",
            "--answers",
            "Up",
        ],
        None,
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
}

/// `measure --delta`: each character of the bundled trace (4 interleaved, `--key`) as its own
/// ticks at the trace's 20 Hz; dead reckoning makes MYENCODING2 the smaller.
#[test]
fn measure_delta_ranks_the_ticks_of_the_bundled_trace() {
    let trace = schema("traces/character.jsonl");
    let (character, item) = (seed("character.idl"), schema("item.idl"));
    let (one, two) = (seed("myencoding1.enc"), seed("myencoding2.enc"));
    let args = [
        "measure",
        &character,
        &item,
        "-e",
        &one,
        "-e",
        &two,
        "--type",
        "Character",
        "--delta",
        "--key",
        "character_id",
        "--tick-rate",
        "20",
        &trace,
    ];
    let out = run(&args, None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = out.text();
    assert!(text.starts_with("`Character`: 200 values from "), "{text}");
    assert!(
        text.contains("as ticks at 20 Hz per `character_id`: the first in full"),
        "{text}"
    );
    assert!(
        text.contains("   1  MYENCODING2         1747        8.73    6   18   70\n"),
        "{text}"
    );
    assert!(
        text.contains("   2  MYENCODING1         2705       13.53   16   18   70\n"),
        "{text}"
    );
    // Dead reckoning shows positions up to its 2 cm limit; MYENCODING1 half its step.
    assert!(
        text.contains("x                   0.020000     0.005000\n"),
        "{text}"
    );
    assert!(text.contains("(block bits)"), "{text}");
    // Not a PUBLISHABLE_STRUCT: exit 2.
    let (mk48, mk48_enc) = (schema("mk48.idl"), schema("mk48.enc"));
    let out = run(
        &[
            "measure", &mk48, "-e", &mk48_enc, "--type", "Update", "--delta", &trace,
        ],
        None,
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    // --key naming no field: exit 1, with the line.
    let mut args = args.to_vec();
    args[11] = "nothing";
    let out = run(&args, None);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("character.jsonl:1:"), "{}", out.stderr);
    // --tick-rate without --delta: a usage error.
    let out = run(
        &[
            "measure",
            &character,
            &item,
            "--type",
            "Character",
            "--tick-rate",
            "20",
            &trace,
        ],
        None,
    );
    assert_eq!(out.code, 2);
}

/// `encode --baseline` and `decode --baseline`: a delta packet against a state the receiver
/// holds, `--elapsed` seconds later.
#[test]
fn a_delta_encodes_and_decodes_against_a_baseline() {
    let dir = TempDir::new();
    let idl = dir.file(
        "p.idl",
        "PUBLISHABLE_STRUCT P { UINT16 id; NUMERIC[-100,100] x; NUMERIC[-10,10] vx; INT[0,9] hp; }\n",
    );
    let enc = dir.file(
        "p.enc",
        "ENCODING(E) PUBLISHABLE_STRUCT P { VLQ id; \
         DEAD_RECKONING(0.05) { FIXED_POINT(0.01) x; FIXED_POINT(0.1) vx; } DELTA hp; }\n",
    );
    let base = dir.file("base.json", r#"{"id": 3, "x": 1.0, "vx": 2.0, "hp": 5}"#);
    // Half a second later the receiver extrapolates x to 2.0: 2.03 is close enough.
    let now = dir.file("now.json", r#"{"id": 3, "x": 2.03, "vx": 2.0, "hp": 7}"#);
    let encode = |value: &str, elapsed: &str| {
        run(
            &[
                "encode",
                &idl,
                "-e",
                &enc,
                "--type",
                "P",
                value,
                "--baseline",
                &base,
                "--elapsed",
                elapsed,
            ],
            None,
        )
    };
    let out = encode(&now, "0.5");
    assert_eq!(out.code, 0, "{}", out.stderr);
    // id, the block's 0, hp's 1 and 7.
    assert_eq!(out.text(), "031e\n");
    let decode = |hex: &str, extra: &[&str]| {
        let mut args = vec![
            "decode",
            &idl,
            "-e",
            &enc,
            "--type",
            "P",
            "--hex",
            hex,
            "--baseline",
            &base,
        ];
        args.extend_from_slice(extra);
        run(&args, None)
    };
    let out = decode("031e", &["--elapsed", "0.5"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["hp"], 7);
    assert!((json["x"].as_f64().unwrap() - 2.0).abs() < 1e-9, "{json}");
    assert_eq!(json["vx"], 2.0);
    // Without --elapsed the receiver stays where the baseline is.
    let out = decode("031e", &[]);
    assert!(
        (serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["x"]
            .as_f64()
            .unwrap()
            - 1.0)
            .abs()
            < 1e-9
    );
    let out = decode("031e", &["--elapsed", "0.5", "--format", "explain"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.text().contains("P (DEAD_RECKONING block)"),
        "{}",
        out.text()
    );
    assert!(out.text().contains("P.hp (changed-bit)"), "{}", out.text());
    // Truncated inside the block: exit 1, the field named.
    let out = decode("0301", &[]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("P.x"), "{}", out.stderr);
    // A baseline that is not a P: exit 1; --elapsed without --baseline: exit 2.
    let bad = dir.file("bad.json", r#"{"id": 3}"#);
    let out = run(
        &[
            "decode",
            &idl,
            "-e",
            &enc,
            "--type",
            "P",
            "--hex",
            "00",
            "--baseline",
            &bad,
        ],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("--baseline"), "{}", out.stderr);
    let out = run(
        &[
            "decode",
            &idl,
            "-e",
            &enc,
            "--type",
            "P",
            "--hex",
            "00",
            "--elapsed",
            "1",
        ],
        None,
    );
    assert_eq!(out.code, 2);
}

/// The bundled mk48 trace measures in each of its encodings.
#[test]
fn measure_runs_over_the_bundled_mk48_trace() {
    let (idl, enc) = (schema("mk48.idl"), schema("mk48.enc"));
    let trace = schema("traces/mk48.jsonl");
    let out = run(
        &["measure", &idl, "-e", &enc, "--type", "Update", &trace],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = out.text();
    assert!(text.starts_with("`Update`: 100 values from "), "{text}");
    for encoding in ["MK48", "MK48_PLAIN", "MK48_LOSSY"] {
        assert!(text.contains(&format!("  {encoding} ")), "{text}");
    }
    assert!(text.contains("   1  MK48_LOSSY        76723"), "{text}");
}

/// The interpreter's output on the bundled inputs, snapshotted: decode (JSON and explain),
/// encode, measure (full and --delta), and check-compat --prove.
#[test]
fn outputs_on_the_bundled_inputs() {
    let f = files();
    let text = |args: &[&str]| {
        let out = run(args, None);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        out.text()
    };
    insta::assert_snapshot!(
        "decode_json",
        text(&["decode", &f.idl, "-e", &f.enc, "--type", "S", "--hex", HEX])
    );
    insta::assert_snapshot!(
        "decode_explain",
        text(&[
            "decode", &f.idl, "-e", &f.enc, "--type", "S", "--hex", HEX, "--format", "explain",
        ])
    );
    insta::assert_snapshot!(
        "encode_hex",
        text(&["encode", &f.idl, "-e", &f.enc, "--type", "S", &f.value])
    );
    let (character, item) = (seed("character.idl"), schema("item.idl"));
    let (e1, e2) = (seed("myencoding1.enc"), seed("myencoding2.enc"));
    let trace = schema("traces/character.jsonl");
    let text_of_trace = |args: &[&str]| text(args).replace(&trace, "TRACE");
    insta::assert_snapshot!(
        "measure_character",
        text_of_trace(&[
            "measure",
            &character,
            &item,
            "-e",
            &e1,
            "-e",
            &e2,
            "--type",
            "Character",
            &trace,
        ])
    );
    insta::assert_snapshot!(
        "measure_character_delta",
        text_of_trace(&[
            "measure",
            &character,
            &item,
            "-e",
            &e1,
            "-e",
            &e2,
            "--type",
            "Character",
            "--delta",
            "--key",
            "character_id",
            "--tick-rate",
            "20",
            &trace,
        ])
    );
    let (v1, v3) = (
        schema("versions/squad_v1.idl"),
        schema("versions/squad_v3.idl"),
    );
    let out = run(&["check-compat", &v1, &v3, "--prove", "25"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(
        "check_compat_prove",
        out.stderr.replace(&v1, "OLD").replace(&v3, "NEW")
    );
}

/// A VLQ on a range that admits negative values codes `zigzag(v)`, as on `INT8`..`INT64`; on a
/// range from `a >= 0`, `v - a` (docs/WIRE_FORMAT.md, section 3).
#[test]
fn vlq_on_a_range_codes_zigzag_below_zero_and_an_offset_above() {
    let dir = TempDir::new();
    let idl = dir.file(
        "v.idl",
        "STRUCT V { INT[-120,0] alt; INT[5,300] c; INT[-3,10] d; }\n",
    );
    let enc = dir.file(
        "v.enc",
        "ENCODING(E) BITSTREAM;\nENCODING(E) STRUCT V { VLQ(1) alt; VLQ c; VLQ(3) d; }\n",
    );
    let value = dir.file("v.json", r#"{"alt": -1, "c": 5, "d": -2}"#);
    // alt: zigzag 1 = `1 0`; c: 5 - 5 = 0 in one 7-bit group; d: zigzag 3 = `110 0`.
    let out = run(&["encode", &idl, "-e", &enc, "--type", "V", &value], None);
    assert_eq!(
        (out.code, out.text()),
        (0, "010c\n".to_string()),
        "{}",
        out.stderr
    );
    // zigzag 2 is +1, above the range's end.
    let out = run(
        &["decode", &idl, "-e", &enc, "--type", "V", "--hex", "0600"],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("value out of range"), "{}", out.stderr);
}

/// A real sent as FLOAT32 at a range end no f32 equals: the f32 nearest to a closed end stands
/// for the end (0.1 goes as 0.100000001 and reads as 0.1), the f32 of an open end for no value (a
/// value rounding onto it goes as the f32 below), so `decode` takes what `encode` wrote
/// (docs/WIRE_FORMAT.md, "Floats"); the open end itself is still an encode error.
#[test]
fn float32_at_a_range_end_decodes_inside_it() {
    let dir = TempDir::new();
    let idl = dir.file("f.idl", "STRUCT F { NUMERIC[0,0.1] a; NUMERIC[0,1) b; }\n");
    let enc = dir.file(
        "f.enc",
        "ENCODING(E) BITSTREAM;\nENCODING(E) STRUCT F { FLOAT32 a; FLOAT32 b; }\n",
    );
    let value = dir.file("f.json", r#"{"a": 0.1, "b": 0.999999999999}"#);
    let out = run(&["encode", &idl, "-e", &enc, "--type", "F", &value], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = decode_hex(&idl, &enc, "F", out.text().trim(), &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["a"], 0.1);
    assert_eq!(json["b"], f64::from(1.0f32.next_down()));
    let open_end = dir.file("end.json", r#"{"a": 0, "b": 1}"#);
    let out = run(
        &["encode", &idl, "-e", &enc, "--type", "F", &open_end],
        None,
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("F.b"), "{}", out.stderr);
}

/// JSON numbers are read to the nearest `f64` (serde_json's `float_roundtrip`), as generated
/// code holds them: 17-digit decimals such as `decode` prints for FIXED_POINT steps encode to
/// the same bits, so `decode` then `encode` is the identity.
#[test]
fn json_numbers_are_read_to_the_nearest_f64() {
    let dir = TempDir::new();
    let idl = dir.file("f.idl", "STRUCT S { FLOAT64 v; }\n");
    for v in [
        1.0879654651798887f64,
        -200.07999999999998,
        221.56000000000006,
        3.4028234663852886e38,
    ] {
        let value = dir.file("v.json", format!(r#"{{"v": {v:?}}}"#));
        let out = run(&["encode", &idl, "--type", "S", &value], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let mut expected = String::new();
        for byte in v.to_le_bytes() {
            expected.push_str(&format!("{byte:02x}"));
        }
        assert_eq!(out.text().trim(), expected, "{v:?}");
    }
}

/// `explain` gives a string, bytes or sequence one line for its length and content, whatever
/// rule the length has (a VLQ of the encoding's DEFAULTS too), and a sequence's count its own.
#[test]
fn explain_gives_a_length_no_line_of_its_own() {
    let dir = TempDir::new();
    let idl = dir.file(
        "s.idl",
        "STRUCT S { STRING<16> s; SEQUENCE<UINT8,4> q; STRING u; BYTES b; }\n",
    );
    let enc = dir.file(
        "s.enc",
        "ENCODING(E) DEFAULTS { SEQUENCE: VLQ(3); STRING: VLQ(4); }\n",
    );
    let value = dir.file("v.json", r#"{"s":"hi","q":[1,2],"u":"x","b":[7]}"#);
    let out = run(&["encode", &idl, "-e", &enc, "--type", "S", &value], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = decode_hex(&idl, &enc, "S", out.text().trim(), &["--format", "explain"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = out.text();
    let column = text.find("field").expect("a header");
    let fields: Vec<&str> = text
        .lines()
        .skip(1)
        .filter_map(|line| line.get(column..)?.split_whitespace().next())
        .collect();
    assert_eq!(
        fields,
        ["S.s", "S.q", "S.q[0]", "S.q[1]", "S.u", "S.b"],
        "{text}"
    );
}

/// `decode` prints a FIXED_POINT value as the shortest decimal that names its step (`-39.52`,
/// not `-39.519999999999996`), in JSON and in explain, whatever the resolution (0.01, 0.001, 0.05,
/// 0.25, 0.1), the range (large, negative, a `min` with more decimals than the resolution, a `max`
/// between steps) or the place (a SEQUENCE element, an OPTIONAL); and `encode` of what it
/// printed sends the very same bytes. A raw FLOAT64 keeps its exact value.
#[test]
fn fixed_point_values_print_as_the_shortest_decimal_of_their_step() {
    let dir = TempDir::new();
    let idl = dir.file(
        "r.idl",
        "STRUCT R {\n  NUMERIC[-180,180] a;\n  NUMERIC[-180.005,180] b;\n  NUMERIC[0,1] c;\n  \
         NUMERIC[-1000000,1000000] d;\n  NUMERIC[-2.5,7.3] e;\n  NUMERIC[0,0.35] f;\n  \
         NUMERIC[-50,50] g;\n  SEQUENCE<NUMERIC[-10,10],4> h;\n  OPTIONAL<NUMERIC[-1,1]> i;\n  \
         FLOAT64 raw;\n}\n",
    );
    let enc = dir.file(
        "r.enc",
        "ENCODING(E) BITSTREAM;\nENCODING(E) DEFAULTS { NUMERIC: FIXED_POINT(0.1); }\n\
         ENCODING(E) STRUCT R {\n  FIXED_POINT(0.01) a;\n  FIXED_POINT(0.01) b;\n  \
         FIXED_POINT(0.001) c;\n  FIXED_POINT(0.001) d;\n  FIXED_POINT(0.05) e;\n  \
         FIXED_POINT(0.1) f;\n  FIXED_POINT(0.25) g;\n  h;\n  i;\n  raw;\n}\n",
    );
    // (field, min, max, the most decimals its steps have)
    let fields = [
        ("a", -180.0, 180.0, 2),
        ("b", -180.005, 180.0, 3),
        ("c", 0.0, 1.0, 3),
        ("d", -1e6, 1e6, 3),
        ("e", -2.5, 7.3, 2),
        ("f", 0.0, 0.35, 2),
        ("g", -50.0, 50.0, 2),
    ];
    let decimals = |v: f64| v.to_string().split_once('.').map_or(0, |(_, f)| f.len());
    let samples = 40;
    for k in 0..=samples {
        // Spread over each range, ends included, off the steps (the encoder rounds).
        let t = f64::from((k * 17) % (samples + 1)) / f64::from(samples);
        let mut value = serde_json::Map::new();
        for (name, min, max, _) in fields {
            value.insert(name.into(), (min + (max - min) * t).min(max).into());
        }
        if k == 1 {
            // The issue's values.
            value.insert("a".into(), (-39.52).into());
            value.insert("g".into(), 49.75.into());
        }
        let element = -10.0 + 20.0 * t;
        value.insert("h".into(), serde_json::json!([element, -element, 0.3]));
        value.insert(
            "i".into(),
            serde_json::json!(if k % 2 == 0 { None } else { Some(t - 0.5) }),
        );
        value.insert("raw".into(), (0.1 + 0.2 * t).into());
        let raw = 0.1 + 0.2 * t;
        let sent = dir.file("sent.json", serde_json::Value::Object(value).to_string());
        let out = run(&["encode", &idl, "-e", &enc, "--type", "R", &sent], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let hex = out.text().trim().to_string();
        let out = decode_hex(&idl, &enc, "R", &hex, &[]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let mut printed = Vec::new();
        for (name, _, _, most) in fields {
            printed.push((name, json[name].as_f64().expect("a number"), most));
        }
        for item in json["h"].as_array().expect("h") {
            printed.push(("h[]", item.as_f64().expect("a number"), 1));
        }
        if let Some(i) = json["i"].as_f64() {
            printed.push(("i", i, 1));
        }
        for (name, v, most) in printed {
            assert!(decimals(v) <= most, "{name}: {v} at k = {k}: {json}");
        }
        assert_eq!(
            json["raw"].as_f64(),
            Some(raw),
            "raw floats keep their value"
        );
        // What decode printed encodes to the same bytes.
        let printed = dir.file("printed.json", out.stdout.clone());
        let out = run(&["encode", &idl, "-e", &enc, "--type", "R", &printed], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.text().trim(), hex, "k = {k}: {json}");
        if k == 1 {
            let out = decode_hex(&idl, &enc, "R", &hex, &["--format", "explain"]);
            let text = out.text();
            for (field, value) in [(" R.a ", " -39.52"), (" R.g ", " 49.75")] {
                let line = text.lines().find(|l| l.contains(field));
                assert!(line.is_some_and(|l| l.ends_with(value)), "{text}");
            }
        }
    }
}

/// `decode --bytes-as FIELD=TYPE`: a delta a message carries in a BYTES field, decoded and
/// explained in one command against its baseline (a JSON file, or the hex of its full form), in
/// a message alone and in a packet: the value printed in place of the bytes, the delta's reads
/// nested under the field's line, inside its bytes. Without a baseline the bytes are the type's
/// full form.
#[test]
fn a_delta_carried_in_a_bytes_field_reads_against_its_baseline() {
    let dir = TempDir::new();
    let idl = dir.file(
        "k.idl",
        "PUBLISHABLE_STRUCT Race { UINT16 lap; NUMERIC[-100,100] x; NUMERIC[-10,10] vx; \
         INT[0,9] hp; }\nPROTOCOL KartServer {\n  MESSAGE RaceUpdate { UINT8 tick; BYTES race; }\n\
         MESSAGE Chat { STRING text; }\n}\n",
    );
    let enc = dir.file(
        "k.enc",
        "ENCODING(E) BITSTREAM;\nENCODING(E) PUBLISHABLE_STRUCT Race { VLQ lap; \
         DEAD_RECKONING(0.05) { FIXED_POINT(0.01) x; FIXED_POINT(0.1) vx; } DELTA hp; }\n",
    );
    let base = dir.file("base.json", r#"{"lap": 3, "x": 1.0, "vx": 2.0, "hp": 5}"#);
    let now = dir.file("now.json", r#"{"lap": 3, "x": 2.53, "vx": 2.1, "hp": 7}"#);
    // `idlc SUBCOMMAND k.idl -e k.enc ARGS...`
    let idlc = |args: &[&str]| {
        let mut all = vec![args[0], idl.as_str(), "-e", enc.as_str()];
        all.extend_from_slice(&args[1..]);
        let out = run(&all, None);
        (out.code, out.text(), out.stderr)
    };
    let ok = |args: &[&str]| {
        let (code, text, stderr) = idlc(args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        text.trim().to_string()
    };
    let base_hex = ok(&["encode", "--type", "Race", &base]);
    let delta = ok(&[
        "encode",
        "--type",
        "Race",
        &now,
        "--baseline",
        &base,
        "--elapsed",
        "0.5",
    ]);
    // The hex of a RaceUpdate carrying `race`.
    let carrying = |tick: u8, race: &[u8]| {
        let json = serde_json::json!({"tick": tick, "race": race}).to_string();
        ok(&[
            "encode",
            "--type",
            "RaceUpdate",
            &dir.file("message.json", json),
        ])
    };
    let delta_bytes = bytes_of_hex(&delta);
    let message = carrying(9, &delta_bytes);
    // What three commands gave: the delta decoded against the baseline.
    let expected: serde_json::Value = serde_json::from_str(&ok(&[
        "decode",
        "--type",
        "Race",
        "--hex",
        &delta,
        "--baseline",
        &base,
        "--elapsed",
        "0.5",
    ]))
    .unwrap();
    assert_eq!(
        expected,
        serde_json::json!({"lap": 3, "x": 2.53, "vx": 2.1, "hp": 7})
    );
    let carried = [
        "--type",
        "RaceUpdate",
        "--hex",
        &message,
        "--bytes-as",
        "race=Race",
        "--elapsed",
        "0.5",
    ];
    let head = [&["decode"], &carried[..]].concat();
    let json: serde_json::Value =
        serde_json::from_str(&ok(&joined(&head, &["--baseline", &base]))).unwrap();
    assert_eq!(json, serde_json::json!({"tick": 9, "race": expected}));
    // The baseline as the hex of its full form; explained under the field, inside its bytes.
    let text = ok(&joined(
        &head,
        &["--baseline-hex", &base_hex, "--format", "explain"],
    ));
    let lines = explained_ranges(&text);
    let field = lines
        .iter()
        .find(|(_, _, line)| line.contains(" RaceUpdate.race ") && line.contains("a delta of Race"))
        .unwrap_or_else(|| panic!("the field's line:\n{text}"));
    let mut at = field.1 - 8 * delta_bytes.len() as u64;
    let nested: Vec<_> = lines
        .iter()
        .filter(|(_, _, line)| {
            line.contains(" RaceUpdate.race.") || line.contains(" RaceUpdate.race (")
        })
        .collect();
    assert_eq!(nested.len(), 6, "{text}");
    for (start, end, line) in nested {
        assert_eq!(*start, at, "a gap or an overlap before `{line}`:\n{text}");
        at = *end;
    }
    assert!(at <= field.1, "{text}");
    for part in [
        "RaceUpdate.race (DEAD_RECKONING block)  changed",
        "0111                               RaceUpdate.race.hp                      7",
    ] {
        assert!(text.contains(part), "{part}:\n{text}");
    }
    // In a packet (STRUCT named), as its sender writes it.
    let ir = ir_of(std::slice::from_ref(&idl), std::slice::from_ref(&enc));
    let version = idlc::ir::protocol::version_ids(&ir, &ir.schema.protocols["KartServer"], "E")[0];
    let mut packet = idlc_runtime::PacketWriter::<Bits>::new(version);
    packet
        .push(0, idlc_runtime::ItemKind::Message, |w| {
            use idlc_runtime::WireWrite as _;
            w.write_bits(9, 8)?;
            w.write_bytes(&delta_bytes, None)
        })
        .unwrap();
    let hex: String = packet.finish().iter().map(|b| format!("{b:02x}")).collect();
    let packet_head = ["decode", "--type", "KartServer", "--hex", &hex];
    let packet_args = [
        "--bytes-as",
        "RaceUpdate.race=Race",
        "--baseline",
        &base,
        "--elapsed",
        "0.5",
    ];
    let json: serde_json::Value =
        serde_json::from_str(&ok(&joined(&packet_head, &packet_args))).unwrap();
    assert_eq!(json["items"][0]["value"]["race"], expected);
    let explain = [&packet_args[..], &["--format", "explain"]].concat();
    let text = ok(&joined(&packet_head, &explain));
    assert!(
        text.contains("KartServer.items[0] RaceUpdate.race.hp (changed-bit)"),
        "{text}"
    );
    // Without a baseline, the full form: the baseline's own bytes.
    let message = carrying(1, &bytes_of_hex(&base_hex));
    let plain = [
        "decode",
        "--type",
        "RaceUpdate",
        "--hex",
        &message,
        "--bytes-as",
    ];
    let json: serde_json::Value =
        serde_json::from_str(&ok(&joined(&plain, &["race=Race"]))).unwrap();
    assert_eq!(
        json["race"],
        serde_json::json!({"lap": 3, "x": 1.0, "vx": 2.0, "hp": 5})
    );
    // Usage: no such BYTES field, not FIELD=TYPE, a baseline for a packet without --bytes-as.
    for args in [
        joined(&plain, &["lap=Race"]),
        joined(&plain, &["race"]),
        joined(&packet_head, &["--baseline", &base]),
    ] {
        let (code, _, stderr) = idlc(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
}

/// The bytes of lowercase hex digits.
fn bytes_of_hex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Arguments, then more.
fn joined<'a>(head: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    [head, extra].concat()
}

/// `idlc decode IDL -e ENC --type TY --hex HEX` and `extra` arguments.
fn decode_hex(idl: &str, enc: &str, ty: &str, hex: &str, extra: &[&str]) -> Out {
    let mut args = vec!["decode", idl, "-e", enc, "--type", ty, "--hex", hex];
    args.extend_from_slice(extra);
    run(&args, None)
}

/// DIFF through the CLI (schemas/rover.idl, rover.enc): a delta against a JSON baseline
/// (enumerators written as strings) takes its tiers and escapes, decodes back to the value,
/// and `--format explain` shows each difference.
#[test]
fn diff_deltas_encode_decode_and_explain_against_a_json_baseline() {
    let dir = TempDir::new();
    let (idl, enc) = (schema("rover.idl"), schema("rover.enc"));
    let base = dir.file(
        "base.json",
        r#"{"id": 3, "x": 1.0, "y": 2.0, "vx": 0.5, "vy": 0.0, "heading": 359.9, "charge": 10,
            "odometer": 100, "ammo": 7, "score": -5, "gear": "Drive", "lights": true}"#,
    );
    let now = dir.file(
        "now.json",
        r#"{"id": 3, "x": 1.0, "y": 2.0, "vx": 0.5, "vy": 0.0, "heading": 0.2, "charge": 12,
            "odometer": 101, "ammo": 7, "score": -5, "gear": "Sport", "lights": true}"#,
    );
    for encoding in ["RoverBits", "RoverBytes"] {
        let out = run(
            &[
                "encode",
                &idl,
                "-e",
                &enc,
                "--encoding-name",
                encoding,
                "--type",
                "Rover",
                &now,
                "--baseline",
                &base,
            ],
            None,
        );
        assert_eq!(out.code, 0, "{encoding}: {}", out.stderr);
        let hex = out.text().trim().to_string();
        let decode = |format: &str| {
            run(
                &[
                    "decode",
                    &idl,
                    "-e",
                    &enc,
                    "--encoding-name",
                    encoding,
                    "--type",
                    "Rover",
                    "--hex",
                    &hex,
                    "--baseline",
                    &base,
                    "--format",
                    format,
                ],
                None,
            )
        };
        let out = decode("json");
        assert_eq!(out.code, 0, "{encoding}: {}", out.stderr);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(json["gear"], "Sport", "{encoding}: {json}");
        assert_eq!(json["odometer"], 101, "{encoding}: {json}");
        assert!(
            (json["heading"].as_f64().unwrap() - 0.2).abs() < 1e-9,
            "{json}"
        );
        let explained = decode("explain").text();
        // 359.9 -> 0.2 the short way round: +3 steps of 0.1; Drive -> Sport needs the escape
        // (DIFF(1) holds only -1..0, DIFF(2) in bytes holds it).
        assert!(
            explained.contains("0.2 (DIFF +3 steps)"),
            "{encoding}: {explained}"
        );
        assert!(
            explained.contains("101 (DIFF +1 steps)"),
            "{encoding}: {explained}"
        );
        if encoding == "RoverBits" {
            assert!(explained.contains("Rover.gear (DIFF)"), "{explained}");
        }
    }
}

/// The number after `label` in `text` (`tuned: 1621 bytes`).
fn number_after(text: &str, label: &str) -> usize {
    let at = text
        .find(label)
        .unwrap_or_else(|| panic!("no {label:?} in:\n{text}"))
        + label.len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().expect("a number")
}

/// The `total bytes` of the first-ranked encoding of a `measure` table.
fn first_total(text: &str) -> usize {
    let line = text
        .lines()
        .find(|l| l.starts_with("   1  "))
        .unwrap_or_else(|| panic!("no rank 1 in:\n{text}"));
    line.split_whitespace()
        .nth(2)
        .and_then(|t| t.parse().ok())
        .expect("a total")
}

/// `measure --delta --suggest -o`: the tuned file, measured by `measure --delta` over the same
/// link, costs exactly the bytes the tuner printed, and fewer than the encoding as given; it
/// differs from the input only in DIFF clauses, and check-compat reports it as a new wire.
#[test]
fn the_tuner_writes_an_encoding_that_costs_what_it_printed() {
    let dir = TempDir::new();
    let trace = schema("traces/character.jsonl");
    let (character, item) = (seed("character.idl"), schema("item.idl"));
    let cases: [(&str, &[&str]); 3] = [
        ("myencoding1.enc", &[]),
        ("myencoding2.enc", &["--loss", "0.1", "--ack-delay", "4"]),
        (
            "myencoding2.enc",
            &["--ack-delay", "2", "--loss", "0.3", "--loss-seed", "7"],
        ),
    ];
    for (index, (enc, link)) in cases.iter().enumerate() {
        let given = seed(enc);
        let tuned = dir.path().join(format!("tuned{index}.enc"));
        let tuned = tuned.to_str().expect("a UTF-8 path");
        let common = [
            "measure",
            &character,
            &item,
            "--type",
            "Character",
            "--delta",
            "--key",
            "character_id",
            "--tick-rate",
            "20",
            &trace,
        ];
        let mut args = common.to_vec();
        args.extend(["-e", &given, "--suggest", "-o", tuned]);
        args.extend(link.iter());
        let out = run(&args, None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let text = out.text();
        let printed = number_after(&text, "\ntuned: ");
        let before = number_after(&text, "` as given: ");
        assert!(printed < before, "{text}");
        assert_eq!(number_after(&text, ".enc: "), printed, "{text}");
        assert!(text.contains("is a new wire"), "{text}");
        // Measured on its own, the written file costs what the tuner printed.
        let mut args = common.to_vec();
        args.extend(["-e", tuned]);
        args.extend(link.iter());
        let out = run(&args, None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(first_total(&out.text()), printed, "{}", out.text());
        // Only DIFF clauses changed.
        let strip = |text: &str| -> String {
            let mut out = String::new();
            let mut rest = text;
            while let Some(at) = rest.find("DIFF(") {
                out.push_str(&rest[..at]);
                let close = rest[at..].find(") ").expect("a closed DIFF") + at;
                rest = &rest[close + 2..];
            }
            out + rest
        };
        let written = std::fs::read_to_string(tuned).expect("the tuned file");
        let original = std::fs::read_to_string(&given).expect("the seed");
        assert_eq!(strip(&written), strip(&original));
        // check-compat sees a new wire.
        let out = run(
            &[
                "check-compat",
                &character,
                &character,
                "--with",
                &item,
                "--encoding",
                &given,
                tuned,
            ],
            None,
        );
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stderr.contains("wire-rule-changed"), "{}", out.stderr);
        assert!(out.stderr.contains("DIFF("), "{}", out.stderr);
    }
}

/// `--suggest` on an encoding without a baseline anywhere says so; on a tuned encoding it finds
/// nothing better.
#[test]
fn the_tuner_says_when_there_is_nothing_to_tune() {
    let trace = schema("traces/character.jsonl");
    let (character, item) = (seed("character.idl"), schema("item.idl"));
    let args = [
        "measure",
        &character,
        &item,
        "--type",
        "Character",
        "--delta",
        "--suggest",
        &trace,
    ];
    let out = run(&args, None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.text().contains("No field of `Default` can take DIFF"),
        "{}",
        out.text()
    );
    let dir = TempDir::new();
    let tuned = dir.path().join("tuned.enc");
    let tuned = tuned.to_str().expect("a UTF-8 path");
    let given = seed("myencoding1.enc");
    let tune = |enc: &str, output: &[&str]| {
        let mut args = vec![
            "measure",
            &character,
            &item,
            "-e",
            enc,
            "--type",
            "Character",
            "--delta",
            "--key",
            "character_id",
            "--suggest",
            &trace,
        ];
        args.extend(output.iter());
        run(&args, None)
    };
    assert_eq!(tune(&given, &["-o", tuned]).code, 0);
    let again = tune(tuned, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again
            .text()
            .contains("no tiers send this trace in fewer bytes"),
        "{}",
        again.text()
    );
    // --loss out of range and --ack-delay 0 are usage errors.
    for bad in [["--loss", "1.5"], ["--ack-delay", "0"]] {
        let mut args = vec![
            "measure",
            &character,
            &item,
            "-e",
            &given,
            "--type",
            "Character",
            "--delta",
            &trace,
        ];
        args.extend(bad);
        assert_eq!(run(&args, None).code, 2);
    }
}

/// The tuner on a BYTESTREAM (a selector byte, differences of 1, 2, 4 or 8 bytes), a DEAD
/// RECKONING block and an integer under VLQ, with the tuned file measured again.
#[test]
fn the_tuner_tunes_a_byte_stream() {
    let dir = TempDir::new();
    let idl = dir.file(
        "drone.idl",
        "PUBLISHABLE_STRUCT Drone { UINT16 id; NUMERIC[-1000,1000] x; NUMERIC[-50,50] vx; INT[0,100000] fuel; }\n",
    );
    let enc = dir.file(
        "drone.enc",
        "ENCODING(SERVER) BYTESTREAM;\n\
         ENCODING(SERVER) PUBLISHABLE_STRUCT Drone {\n  id;\n  DEAD_RECKONING(0.05) { FIXED_POINT(0.001) x; FIXED_POINT(0.001) vx; }\n  DELTA VLQ fuel; // burns slowly\n};\n",
    );
    let mut trace = String::new();
    for tick in 0..120u32 {
        for id in 0..3u32 {
            let t = f64::from(tick) / 30.0;
            let vx = 3.0 * (t + f64::from(id)).sin();
            let x = 100.0 * f64::from(id) + 3.0 * (1.0 - (t + f64::from(id)).cos());
            let fuel = 100_000 - tick * (7 + id);
            trace.push_str(&format!(
                "{{\"id\": {id}, \"x\": {x:.3}, \"vx\": {vx:.3}, \"fuel\": {fuel}}}\n"
            ));
        }
    }
    let trace = dir.file("drone.jsonl", trace);
    let tuned = dir.path().join("tuned.enc");
    let tuned = tuned.to_str().expect("a UTF-8 path");
    let common = [
        "measure",
        &idl,
        "--type",
        "Drone",
        "--delta",
        "--key",
        "id",
        "--tick-rate",
        "30",
        "--ack-delay",
        "2",
        &trace,
    ];
    let mut args = common.to_vec();
    args.extend(["-e", &enc, "--suggest", "-o", tuned]);
    let out = run(&args, None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = out.text();
    let printed = number_after(&text, "\ntuned: ");
    assert!(printed < number_after(&text, "` as given: "), "{text}");
    assert!(text.contains("Drone.fuel"), "{text}");
    let mut args = common.to_vec();
    args.extend(["-e", tuned]);
    let out = run(&args, None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(first_total(&out.text()), printed, "{}", out.text());
    let written = std::fs::read_to_string(tuned).expect("the tuned file");
    assert!(written.contains("DIFF("), "{written}");
    assert!(written.contains("// burns slowly"), "{written}");
}
