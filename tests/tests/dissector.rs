//! `idlc dissector` against the real tshark (Debian's package; skipped with a message when it
//! is not installed): every packet of one capture, written with tests/src/pcap.rs and read in
//! one tshark run, shows every field with the value `idlc decode --format json` gives for the
//! same bytes; hostile payloads that `idlc decode` rejects show as malformed (expert info),
//! those it accepts decode to the same values, and none raises a Lua error.

mod common;
#[path = "dissector/compare.rs"]
mod compare;
#[path = "dissector/pdml.rs"]
mod pdml;

use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{schema, seed};
use idlc::dissector::{self, Options};
use idlc::interpret::{self, Value, sample};
use idlc::ir::{EntryKind, Ir, protocol::version_ids, response_struct_name};
use idlc_runtime::{BitStream, Encoding, ItemKind, PacketWriter};
use idlc_tests::pcap::Pcap;
use serde_json::Value as Json;

fn compile(idl: &[PathBuf], encodings: &[PathBuf]) -> Ir {
    common::ir(idl, encodings, None)
}

/// A bit stream for PacketWriter, whatever the encoding's name.
#[derive(Debug, Clone, Copy, Default)]
struct Bits;
impl Encoding for Bits {
    const NAME: &'static str = "dissector test";
    type Style = BitStream;
}

/// The packets of one protocol in one encoding, on their own UDP port, with their script.
struct Scenario {
    ir: Ir,
    encoding: String,
    protocol: String,
    port: u16,
    packets: Vec<Vec<u8>>,
}

impl Scenario {
    fn new(ir: Ir, encoding: &str, protocol: &str, port: u16) -> Self {
        Scenario {
            ir,
            encoding: encoding.to_string(),
            protocol: protocol.to_string(),
            port,
            packets: Vec::new(),
        }
    }

    fn script(&self, dir: &Path) -> PathBuf {
        let options = Options {
            protocol: self.protocol.clone(),
            encoding: Some(self.encoding.clone()),
            port: Some(self.port),
        };
        let lua = match dissector::generate(&self.ir, &options) {
            Ok(lua) => lua,
            Err(error) => panic!("{}: {error:?}", self.protocol),
        };
        let path = dir.join(format!("{}_{}.lua", self.protocol, self.encoding));
        std::fs::write(&path, lua).expect("the script is written");
        path
    }

    /// What `idlc decode --format json` prints for `packet` (Err: it rejects the packet).
    fn expected(&self, packet: &[u8]) -> Result<Json, String> {
        let value =
            interpret::decode_packet(&self.ir, &self.encoding, &self.protocol, packet, None)
                .map_err(|e| e.to_string())?;
        let printable =
            interpret::printable(&self.ir, &self.encoding, &self.protocol, &value, None);
        Ok(printable.to_json())
    }

    /// A packet of `version` carrying one item per entry of the protocol, each a random value
    /// (seeded): messages, calls and responses.
    fn random_packet(&self, version: usize, rng: &mut sample::Rng) -> Vec<u8> {
        let def = &self.ir.schema.protocols[&self.protocol];
        let ids = version_ids(&self.ir, def, &self.encoding);
        let mut writer = PacketWriter::<Bits>::with_mtu(ids[version], 1 << 16);
        for (n, entry) in def
            .entries
            .iter()
            .filter(|e| e.segment <= version)
            .enumerate()
        {
            let request = n as u32 * 7 + 1;
            let items: Vec<(ItemKind, String)> = match &entry.kind {
                EntryKind::Message(name)
                | EntryKind::Rpc {
                    name,
                    returns: None,
                } => {
                    vec![(ItemKind::Message, name.clone())]
                }
                EntryKind::Rpc { name, .. } => vec![
                    (ItemKind::Request(request), name.clone()),
                    (ItemKind::Response(request), response_struct_name(name)),
                ],
            };
            for (kind, name) in items {
                let value = sample::random_struct(&self.ir, &name, rng).expect("a struct");
                self.push(&mut writer, entry.id, kind, &name, &value);
            }
        }
        writer.finish().to_vec()
    }

    /// Adds `value` of the struct `name` as an item.
    fn push(
        &self,
        writer: &mut PacketWriter<Bits>,
        id: u32,
        kind: ItemKind,
        name: &str,
        value: &Value,
    ) {
        writer
            .push(id, kind, |w| {
                interpret::encode_into(&self.ir, &self.encoding, name, value, w).map_err(|e| {
                    panic!("{name}: {e}");
                })
            })
            .expect("fits");
    }
}

/// The plain packets: the arena's protocols in S2C, the UDP demo's in both seed encodings.
fn plain_scenarios() -> Vec<Scenario> {
    let arena = compile(&[schema("arena.idl")], &[schema("arena_s2c.enc")]);
    let udp = |enc: &str, udp_enc: &str| {
        compile(
            &[
                seed("character.idl"),
                schema("item.idl"),
                schema("arena_udp.idl"),
            ],
            &[seed(enc), schema(udp_enc)],
        )
    };
    let mut scenarios = vec![
        Scenario::new(arena.clone(), "S2C", "ArenaServerToClient", 41001),
        Scenario::new(arena, "S2C", "ArenaClientToServer", 41002),
    ];
    for (n, (enc, udp_enc, name)) in [
        ("myencoding1.enc", "arena_udp_e1.enc", "MYENCODING1"),
        ("myencoding2.enc", "arena_udp_e2.enc", "MYENCODING2"),
    ]
    .into_iter()
    .enumerate()
    {
        let ir = udp(enc, udp_enc);
        let port = 41003 + 2 * n as u16;
        scenarios.push(Scenario::new(ir.clone(), name, "UdpServerToClient", port));
        scenarios.push(Scenario::new(ir, name, "UdpClientToServer", port + 1));
    }
    let mut rng = sample::Rng::new(41);
    for scenario in &mut scenarios {
        let def = &scenario.ir.schema.protocols[&scenario.protocol];
        for version in 0..=def.fences {
            for _ in 0..4 {
                let packet = scenario.random_packet(version, &mut rng);
                scenario.packets.push(packet);
            }
        }
    }
    scenarios
}

/// tshark's PDML of `capture` read with `scripts`; None when tshark is not installed.
fn tshark(capture: &Path, scripts: &[PathBuf]) -> Option<(String, String)> {
    let mut command = Command::new("tshark");
    command.arg("-r").arg(capture).arg("-T").arg("pdml");
    for script in scripts {
        command
            .arg("-X")
            .arg(format!("lua_script:{}", script.display()));
    }
    let output = match command.output() {
        Ok(output) => output,
        Err(error) => {
            eprintln!("skipped: tshark is not installed ({error}); apt-get install tshark");
            return None;
        }
    };
    Some((
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    ))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// Writes every scenario's packets to one capture, runs tshark once, and checks each packet:
/// accepted ones field by field, rejected ones as malformed; no Lua error anywhere.
/// Returns how many packets idlc decode accepts and how many it rejects.
fn check_in_tshark(name: &str, scenarios: &[Scenario], all_valid: bool) -> (usize, usize) {
    let dir = temp_dir(name);
    let mut pcap = Pcap::new();
    let client = |port| SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 2), port);
    let server = |port| SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), port);
    let mut expected = Vec::new();
    for scenario in scenarios {
        for packet in &scenario.packets {
            pcap.udp(client(50000), server(scenario.port), packet);
            let want = scenario.expected(packet);
            if all_valid && let Err(error) = &want {
                panic!(
                    "{}: idlc decode rejects {}: {error}",
                    scenario.protocol,
                    hex(packet)
                );
            }
            expected.push((scenario, packet, want));
        }
    }
    let capture = dir.join("capture.pcap");
    pcap.write(&capture).expect("the capture is written");
    let scripts: Vec<PathBuf> = scenarios.iter().map(|s| s.script(&dir)).collect();
    let accepted = expected.iter().filter(|(_, _, want)| want.is_ok()).count();
    let counts = (accepted, expected.len() - accepted);
    let Some((stdout, stderr)) = tshark(&capture, &scripts) else {
        return counts;
    };
    assert!(!stderr.contains("Lua"), "tshark: {stderr}");
    assert!(
        !stdout.contains("Lua Error"),
        "a Lua error: {}",
        lua_errors(&stdout)
    );
    let packets = pdml::parse(&stdout);
    assert_eq!(packets.len(), expected.len(), "{stderr}");
    let mut failures = Vec::new();
    for (number, (tree, (scenario, packet, want))) in packets.iter().zip(&expected).enumerate() {
        let abbr = scenario.protocol.to_lowercase();
        // UDP hands an empty payload to no dissector.
        if packet.is_empty() {
            continue;
        }
        let Some(proto) = tree.child(&abbr) else {
            failures.push(format!("packet {}: no {abbr} tree", number + 1));
            continue;
        };
        let malformed = proto
            .walk()
            .iter()
            .any(|n| n.name == format!("{abbr}.malformed"));
        if let (Ok(json), false) = (want, malformed) {
            // The comparison is not vacuous: another id is seen.
            let mut other = json.clone();
            if let Some(item) = other["items"].get_mut(0) {
                item["id"] = Json::from(9999);
                assert!(!compare::packet(&abbr, proto, &other).is_empty());
            }
        }
        let problems = match want {
            Ok(json) if malformed => vec![format!("shown malformed, idlc decode accepts: {json}")],
            Ok(json) => compare::packet(&abbr, proto, json),
            Err(error) if !malformed => {
                vec![format!("not malformed, idlc decode rejects: {error}")]
            }
            Err(_) => Vec::new(),
        };
        for problem in problems {
            failures.push(format!(
                "packet {} ({} {}, {}): {problem}",
                number + 1,
                scenario.protocol,
                scenario.encoding,
                hex(packet)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    counts
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn lua_errors(pdml: &str) -> String {
    pdml.lines()
        .filter(|l| l.contains("Lua Error"))
        .take(5)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The arena's protocols and the UDP demo's in MYENCODING1 in one run, MYENCODING2's in
/// another (one protocol has one dissector per run: its name is the protocol's).
#[test]
fn plain_packets_show_every_field_as_idlc_decode_does() {
    let (second, first): (Vec<Scenario>, Vec<Scenario>) = plain_scenarios()
        .into_iter()
        .partition(|s| s.encoding == "MYENCODING2");
    check_in_tshark("plain", &first, true);
    check_in_tshark("plain_e2", &second, true);
}

/// The session packets of schemas/versions/match_v2.idl (MatchBits) that generated endpoints
/// send each other for a few ticks (as tests/tests/protocols/sessions.rs drives them): full
/// snapshots and deltas, reliable chat, requests and responses both ways.
fn session_scenarios() -> Vec<Scenario> {
    use idlc_runtime::{Delivery, Endpoint, SessionConfig};
    use idlc_tests::match_v2 as m;
    type Server = Endpoint<m::DefaultEncoding, m::MatchServer, m::MatchClient>;
    type Client = Endpoint<m::DefaultEncoding, m::MatchClient, m::MatchServer>;
    let ir = compile(
        &[schema("versions/match_v2.idl")],
        &[schema("versions/match.enc")],
    );
    let mut to_client = Scenario::new(ir.clone(), "MatchBits", "MatchServer", 41010);
    let mut to_server = Scenario::new(ir, "MatchBits", "MatchClient", 41011);
    let mut server = Server::newest(SessionConfig::default());
    let mut client = Client::newest(SessionConfig::default());
    let now = std::time::Duration::ZERO;
    for tick in 0..8u32 {
        let units = (0..tick % 3 + 1)
            .map(|id| m::Unit {
                id: id as u16,
                x: (tick * 7) as i16 - 20,
                y: -3,
                hp: 50 + id as u8,
            })
            .collect();
        let world = m::World { tick, units };
        let snapshot = m::MatchServerMessage::Snapshot(m::Snapshot { world });
        server.send_snapshot(tick, snapshot).unwrap();
        if tick % 3 == 0 {
            let chat = m::Chat {
                line: tick,
                text: format!("tick {tick}"),
            };
            server
                .send_reliable(m::MatchServerMessage::Chat(chat))
                .unwrap();
        }
        if tick == 1 {
            let call = m::Ping { nonce: 9 };
            server
                .send(m::MatchServerMessage::Ping { request: 0, call })
                .unwrap();
        }
        for packet in server.flush(now).packets {
            let _ = client.receive(now, &packet, |d| match d {
                Delivery::Request(m::MatchServerMessage::Ping { request, call }) => {
                    Some(m::MatchServerResponse::Ping {
                        request,
                        value: call.nonce + 1,
                    })
                }
                _ => None,
            });
            to_client.packets.push(packet);
        }
        let input = m::Input {
            seq: tick,
            dx: tick as i8 - 4,
        };
        client.send(m::MatchClientMessage::Input(input)).unwrap();
        if tick % 4 == 2 {
            let call = m::Buy {
                call: tick,
                item: 3,
            };
            client
                .send(m::MatchClientMessage::Buy { request: 0, call })
                .unwrap();
        }
        for packet in client.flush(now).packets {
            let _ = server.receive(now, &packet, |d| match d {
                Delivery::Request(m::MatchClientMessage::Buy { request, call }) => {
                    Some(m::MatchClientResponse::Buy {
                        request,
                        value: call.call * 10,
                    })
                }
                _ => None,
            });
            to_server.packets.push(packet);
        }
    }
    vec![to_client, to_server]
}

/// Session packets: the session header, every item (reliable messages with their index,
/// snapshots in full and as deltas with their age and ticks, requests, responses) as
/// `idlc decode` shows them.
#[test]
fn session_packets_show_their_header_and_items() {
    let scenarios = session_scenarios();
    let kinds: Vec<String> = scenarios[0]
        .packets
        .iter()
        .filter_map(|p| scenarios[0].expected(p).ok())
        .flat_map(|json| json["items"].as_array().cloned().unwrap_or_default())
        .filter_map(|item| item["kind"].as_str().map(str::to_string))
        .collect();
    for kind in [
        "snapshot",
        "snapshot delta",
        "reliable message",
        "request",
        "response",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "no {kind} in {kinds:?}");
    }
    check_in_tshark("sessions", &scenarios, true);
}

/// The id `packet` is framed with: a version's (plain) or its session id.
fn frame_id(scenario: &Scenario, packet: &[u8]) -> Option<u64> {
    let def = &scenario.ir.schema.protocols[&scenario.protocol];
    version_ids(&scenario.ir, def, &scenario.encoding)
        .into_iter()
        .flat_map(|id| [id, idlc_runtime::session_id(id)])
        .find(|&id| idlc_runtime::unframe(id, packet).is_ok())
}

/// 500 hostile payloads made of the arena's and the sessions' packets: mutated (bits flipped,
/// bytes changed, inserted, removed, truncated) and framed again with the right CRC, so that
/// they reach the items; one in ten keeps its broken CRC or is random bytes.
fn hostile_scenarios() -> Vec<Scenario> {
    let mut scenarios: Vec<Scenario> = plain_scenarios()
        .into_iter()
        .filter(|s| s.protocol.starts_with("Arena"))
        .chain(session_scenarios())
        .collect();
    let mut rng = sample::Rng::new(500);
    let per = 500 / scenarios.len();
    for scenario in &mut scenarios {
        let seeds = std::mem::take(&mut scenario.packets);
        for n in 0..per {
            let seed = &seeds[n % seeds.len()];
            let id = frame_id(scenario, seed).expect("a valid packet");
            let payload = &seed[4..];
            let hostile = match rng.below(10) {
                0 => (0..rng.below(40)).map(|_| rng.below(256) as u8).collect(),
                1 => common::mutate_seeded(&mut rng, seed),
                _ => idlc_runtime::frame(id, &common::mutate_seeded(&mut rng, payload)),
            };
            scenario.packets.push(hostile);
        }
    }
    scenarios
}

/// Hostile payloads: those idlc decode rejects show as malformed, those it accepts decode to
/// the same values; no Lua error.
#[test]
fn hostile_payloads_are_malformed_exactly_when_idlc_decode_rejects_them() {
    let scenarios = hostile_scenarios();
    let total: usize = scenarios.iter().map(|s| s.packets.len()).sum();
    assert!(total >= 500, "{total}");
    let (accepted, rejected) = check_in_tshark("hostile", &scenarios, false);
    eprintln!("{accepted} hostile payloads accepted, {rejected} rejected");
    assert!(
        accepted >= 50 && rejected >= 200,
        "{accepted} accepted, {rejected} rejected"
    );
}

/// The script is deterministic and readable: match_v2's MatchServer, whole.
#[test]
fn generated_script_snapshot() {
    let ir = compile(
        &[schema("versions/match_v2.idl")],
        &[schema("versions/match.enc")],
    );
    let options = Options {
        protocol: "MatchServer".to_string(),
        encoding: None,
        port: Some(41010),
    };
    let lua = dissector::generate(&ir, &options).expect("a script");
    assert_eq!(dissector::generate(&ir, &options).expect("a script"), lua);
    insta::assert_snapshot!("dissector_match_server", lua);
}

/// What the dissector cannot read yet is refused with E0701, at the declaration: a
/// BYTESTREAM encoding, a QUATERNION; and an unknown protocol is a usage error.
#[test]
fn refusals_are_diagnostics() {
    let compilation = common::compiled(&[schema("arena.idl")], &[schema("arena_s2s.enc")], None);
    let options = Options {
        protocol: "ArenaServerToClient".to_string(),
        encoding: None,
        port: None,
    };
    match dissector::generate(&compilation.ir, &options) {
        Err(dissector::Error::Refused(diagnostics)) => {
            let text = compilation.sources.render_plain(&diagnostics);
            assert!(
                text.contains("E0701") && text.contains("BYTESTREAM"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    let idl = temp_dir("refusals").join("turn.idl");
    std::fs::write(
        &idl,
        "PROTOCOL Turns {\n  MESSAGE Turn {\n    QUATERNION q;\n  }\n}\n",
    )
    .expect("written");
    let compilation = common::compiled(&[idl], &[], None);
    let options = Options {
        protocol: "Turns".to_string(),
        encoding: None,
        port: None,
    };
    match dissector::generate(&compilation.ir, &options) {
        Err(dissector::Error::Refused(diagnostics)) => {
            let text = compilation.sources.render_plain(&diagnostics);
            assert!(
                text.contains("E0701") && text.contains("QUATERNION"),
                "{text}"
            );
            assert!(text.contains("QUATERNION q;"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    let options = Options {
        protocol: "Nope".to_string(),
        ..Options::default()
    };
    assert!(matches!(
        dissector::generate(&compilation.ir, &options),
        Err(dissector::Error::Usage(_))
    ));
}
