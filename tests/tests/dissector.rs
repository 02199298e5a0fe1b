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

use std::collections::{HashMap, HashSet};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{schema, seed};
use idlc::dissector::{self, Options};
use idlc::interpret::{self, Value, sample};
use idlc::ir::{EntryKind, Ir, protocol::version_ids, response_struct_name};
use idlc_runtime::{BitStream, Encoding, ItemKind, PacketReader, PacketWriter};
use idlc_tests::pcap::{self, Pcap};
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
    /// The protocol whose requests its responses answer (`--answers`).
    answers: String,
    port: u16,
    packets: Vec<Vec<u8>>,
    /// The state each snapshot delta decodes to (`{field: state}`, as the receiver holds it),
    /// by packet index: what tshark's `item_value` of that delta must show.
    states: HashMap<usize, Json>,
    /// Whether its snapshot deltas are of a form the script cannot read yet: each must show as
    /// not decoded (`.undecoded`), with no value.
    undecoded: bool,
    /// The packets (by index) whose snapshot delta the receiver rejects against its baseline:
    /// each must show `.delta_malformed`.
    rejected: HashSet<usize>,
}

impl Scenario {
    fn new(ir: Ir, encoding: &str, protocol: &str, port: u16) -> Self {
        Scenario {
            ir,
            encoding: encoding.to_string(),
            protocol: protocol.to_string(),
            answers: protocol.to_string(),
            port,
            packets: Vec::new(),
            states: HashMap::new(),
            undecoded: false,
            rejected: HashSet::new(),
        }
    }

    fn script(&self, dir: &Path) -> PathBuf {
        let options = Options {
            protocol: self.protocol.clone(),
            answers: Some(self.answers.clone()),
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
        let value = interpret::decode_packet_answering(
            &self.ir,
            &self.encoding,
            &self.protocol,
            &self.answers,
            packet,
            None,
        )
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

/// The UDP demo's schemas in a seed encoding (`myencoding1.enc` with `arena_udp_e1.enc`...).
fn udp_ir(encoding: &str, udp_encoding: &str) -> Ir {
    compile(
        &[
            seed("character.idl"),
            schema("item.idl"),
            schema("arena_udp.idl"),
        ],
        &[seed(encoding), schema(udp_encoding)],
    )
}

/// The plain packets: the arena's protocols in S2C, the UDP demo's in both seed encodings.
fn plain_scenarios() -> Vec<Scenario> {
    let arena = compile(&[schema("arena.idl")], &[schema("arena_s2c.enc")]);
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
        let ir = udp_ir(enc, udp_enc);
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

/// Writes every scenario's packets to one capture and checks it in tshark (`check_capture`).
/// Returns how many packets idlc decode accepts and how many it rejects.
fn check_in_tshark(name: &str, scenarios: &[Scenario], all_valid: bool) -> (usize, usize) {
    let dir = temp_dir(name);
    let mut pcap = Pcap::new();
    let client = |port| SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 2), port);
    let server = |port| SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), port);
    let mut order = Vec::new();
    for (s, scenario) in scenarios.iter().enumerate() {
        for (index, packet) in scenario.packets.iter().enumerate() {
            pcap.udp(client(50000), server(scenario.port), packet);
            order.push((s, index));
        }
    }
    let capture = dir.join("capture.pcap");
    pcap.write(&capture).expect("the capture is written");
    check_capture(&dir, &capture, scenarios, &order, all_valid)
}

/// Runs tshark once on `capture`, whose records are the packets `order` names (scenario,
/// packet index), with every scenario's script, and checks each packet: accepted ones field by
/// field, rejected ones as malformed; no Lua error anywhere. Returns how many packets idlc
/// decode accepts and how many it rejects.
fn check_capture(
    dir: &Path,
    capture: &Path,
    scenarios: &[Scenario],
    order: &[(usize, usize)],
    all_valid: bool,
) -> (usize, usize) {
    let mut expected = Vec::new();
    for &(s, index) in order {
        let scenario = &scenarios[s];
        let packet = &scenario.packets[index];
        let mut want = scenario.expected(packet);
        if let (Ok(json), Some(state)) = (&mut want, scenario.states.get(&index)) {
            with_delta_state(json, state);
        }
        if all_valid && let Err(error) = &want {
            panic!(
                "{}: idlc decode rejects {}: {error}",
                scenario.protocol,
                hex(packet)
            );
        }
        expected.push((scenario, index, packet, want));
    }
    let scripts: Vec<PathBuf> = scenarios.iter().map(|s| s.script(dir)).collect();
    let accepted = expected
        .iter()
        .filter(|(_, _, _, want)| want.is_ok())
        .count();
    let counts = (accepted, expected.len() - accepted);
    let Some((stdout, stderr)) = tshark(capture, &scripts) else {
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
    for (number, (tree, (scenario, index, packet, want))) in
        packets.iter().zip(&expected).enumerate()
    {
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
            // Nor is a delta's state: another one is seen.
            if json["items"].as_array().is_some_and(|items| {
                items
                    .iter()
                    .any(|i| i.get("value").is_some() && i["kind"] == "snapshot delta")
            }) {
                let mut other = json.clone();
                with_delta_state(&mut other, &Json::Null);
                assert!(!compare::packet(&abbr, proto, &other).is_empty());
            }
        }
        let shown = |name: &str| {
            proto
                .walk()
                .iter()
                .any(|n| n.name == format!("{abbr}.{name}"))
        };
        if want.is_ok() && shown("delta_malformed") != scenario.rejected.contains(index) {
            failures.push(format!(
                "packet {}: a delta shown malformed exactly when the receiver rejects it",
                number + 1
            ));
        }
        if all_valid {
            let delta = want.as_ref().is_ok_and(|json| {
                json["items"]
                    .as_array()
                    .is_some_and(|items| items.iter().any(|i| i["kind"] == "snapshot delta"))
            });
            if shown("undecoded") && !scenario.undecoded {
                failures.push(format!("packet {}: a delta not decoded", number + 1));
            }
            if scenario.undecoded && delta {
                let value = proto
                    .named(&format!("{abbr}.item"))
                    .iter()
                    .any(|item| item.child(&format!("{abbr}.item_value")).is_some());
                if !shown("undecoded") || value {
                    failures.push(format!("packet {}: a delta decoded", number + 1));
                }
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

/// Gives the snapshot delta of `packet` (idlc decode's JSON, which shows a delta's bits only:
/// it holds no baseline) the state the receiver decoded it to.
fn with_delta_state(packet: &mut Json, state: &Json) {
    let items = packet["items"].as_array_mut().expect("items");
    let delta = items
        .iter_mut()
        .find(|item| item["kind"] == "snapshot delta")
        .expect("a snapshot delta");
    delta["value"] = state.clone();
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
/// send each other for 40 ticks (as tests/tests/protocols/sessions.rs drives them): full
/// snapshots and deltas (units that move, stay, appear and go), reliable chat, requests and
/// responses both ways. One server packet in five is lost (neither delivered nor captured, as
/// a capture on the client's side shows it), so that later deltas are against older
/// baselines. Each delta's expected state is the World the client's endpoint delivered.
fn session_scenarios() -> Vec<Scenario> {
    use idlc_runtime::{Answer, Delivery, Endpoint, Refusal, SessionConfig};
    use idlc_tests::match_v2 as m;
    type Server = Endpoint<m::DefaultEncoding, m::MatchServer, m::MatchClient>;
    type Client = Endpoint<m::DefaultEncoding, m::MatchClient, m::MatchServer>;
    let ir = compile(
        &[schema("versions/match_v2.idl")],
        &[schema("versions/match.enc")],
    );
    let mut to_client = Scenario::new(ir.clone(), "MatchBits", "MatchServer", 41010);
    let mut to_server = Scenario::new(ir, "MatchBits", "MatchClient", 41011);
    to_client.answers = to_server.protocol.clone();
    to_server.answers = to_client.protocol.clone();
    let mut server = Server::newest(SessionConfig::default());
    let mut client = Client::newest(SessionConfig::default());
    let now = std::time::Duration::ZERO;
    let mut sent = 0u32;
    for tick in 0..40u32 {
        // Unit 0 walks, unit 1 stands still, unit 2 comes and goes, unit 3 loses hp now and
        // then.
        let units = (0..tick % 3 + 2)
            .map(|id| m::Unit {
                id: id as u16,
                x: if id == 0 {
                    (tick * 7) as i16 - 20
                } else {
                    10 * id as i16
                },
                y: -3,
                hp: if id == 3 {
                    90 - (tick / 4) as u8
                } else {
                    50 + id as u8
                },
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
            sent += 1;
            if sent % 5 == 3 {
                continue; // lost
            }
            let mut state = None;
            let _ = client.receive(now, &packet, |d| match d {
                Delivery::Request(m::MatchServerMessage::Ping { request, call }) => {
                    Some(m::MatchServerResponse::Ping {
                        request,
                        value: call.nonce + 1,
                    })
                }
                Delivery::Snapshot {
                    message: m::MatchServerMessage::Snapshot(m::Snapshot { world }),
                    ..
                } => {
                    state = Some(world_json(&world));
                    None
                }
                _ => None,
            });
            if let Some(state) = state {
                to_client.states.insert(to_client.packets.len(), state);
            }
            to_client.packets.push(packet);
        }
        let input = m::Input {
            seq: tick,
            dx: (tick % 9) as i8 - 4,
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
            // One buy in two is refused: a refusal travels in place of the response.
            let _ = server.receive(now, &packet, |d| match d {
                Delivery::Request(m::MatchClientMessage::Buy { call, .. })
                    if call.call % 8 == 6 =>
                {
                    Answer::Refuse(Refusal::new(call.call, format!("sold out ({})", call.call)))
                }
                Delivery::Request(m::MatchClientMessage::Buy { request, call }) => {
                    Answer::Now(m::MatchClientResponse::Buy {
                        request,
                        value: call.call * 10,
                    })
                }
                _ => Answer::None,
            });
            to_server.packets.push(packet);
        }
    }
    // Only the deltas keep their states: a full snapshot is compared with idlc decode.
    let deltas: Vec<usize> = to_client
        .states
        .keys()
        .copied()
        .filter(|&index| {
            to_client
                .expected(&to_client.packets[index])
                .is_ok_and(|json| {
                    json["items"]
                        .as_array()
                        .is_some_and(|items| items.iter().any(|i| i["kind"] == "snapshot delta"))
                })
        })
        .collect();
    to_client.states.retain(|index, _| deltas.contains(index));
    vec![to_client, to_server]
}

/// A match_v2 World as idlc decode prints a Snapshot's value.
fn world_json(world: &idlc_tests::match_v2::World) -> Json {
    let units: Vec<Json> = world
        .units
        .iter()
        .map(|u| serde_json::json!({ "id": u.id, "x": u.x, "y": u.y, "hp": u.hp }))
        .collect();
    serde_json::json!({ "world": { "tick": world.tick, "units": units } })
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
    // A response names the RPC of the other direction that it answers, and holds its value:
    // `buy`'s (call * 10) in the server's packets, `ping`'s (nonce + 1) in the client's.
    for (scenario, rpc) in scenarios.iter().zip(["buy", "ping"]) {
        let responses: Vec<Json> = scenario
            .packets
            .iter()
            .filter_map(|p| scenario.expected(p).ok())
            .flat_map(|json| json["items"].as_array().cloned().unwrap_or_default())
            .filter(|item| item["kind"] == "response")
            .collect();
        assert!(
            !responses.is_empty(),
            "no response in {}",
            scenario.protocol
        );
        let refusals = responses
            .iter()
            .filter(|r| r.get("refusal").is_some())
            .count();
        assert_eq!(refusals > 0, rpc == "buy", "refusals of {rpc}: {refusals}");
        for response in responses {
            assert_eq!(response["name"], rpc, "{response}");
            if let Some(refusal) = response.get("refusal") {
                assert_eq!(
                    refusal["code"].as_u64().unwrap_or_default() % 8,
                    6,
                    "{response}"
                );
                continue;
            }
            let value = response["value"]["value"].as_u64().unwrap_or_default();
            assert!(
                (rpc == "buy" && value % 10 == 0 && value > 0) || (rpc == "ping" && value == 10),
                "{response}"
            );
        }
    }
    let deltas = kinds.iter().filter(|k| *k == "snapshot delta").count();
    assert!(
        scenarios[0].states.len() == deltas && deltas >= 20,
        "{} delta states of {deltas} deltas",
        scenarios[0].states.len()
    );
    check_in_tshark("sessions", &scenarios, true);
}

/// The UDP demo's own capture (`--pcap`: every datagram its server received and sent), in
/// both encodings: 4 clients over the bad network, both directions on the server's one port
/// (both scripts registered on it: each hands the other's packets over). Every field of every
/// packet is idlc decode's, and every snapshot delta shows the server's mirror of it: the
/// state the client holds once it decoded it.
#[test]
fn the_demo_capture_shows_every_field_as_idlc_decode_does() {
    use idlc_tests::arena_udp::{Config, e1, e2};
    let config = Config {
        capture: true,
        ..Config::short()
    };
    let runs = [
        (e1::run(&config), "myencoding1.enc", "arena_udp_e1.enc"),
        (e2::run(&config), "myencoding2.enc", "arena_udp_e2.enc"),
    ];
    for (report, encoding, udp_encoding) in runs {
        let report = report.expect("a demo run");
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        let ir = udp_ir(encoding, udp_encoding);
        let capture = report.capture.as_deref().expect("a capture");
        let datagrams = pcap::datagrams(capture).expect("the capture reads back");
        // The first datagram is a client's hello: its destination is the server.
        let server = datagrams.first().expect("datagrams").1;
        let protocols = ["UdpServerToClient", "UdpClientToServer"];
        let mut scenarios: Vec<Scenario> = protocols
            .iter()
            .zip(protocols.iter().rev())
            .map(|(protocol, answers)| {
                let mut scenario = Scenario::new(ir.clone(), report.encoding, protocol, 0);
                scenario.port = server.port();
                scenario.answers = answers.to_string();
                scenario
            })
            .collect();
        let mut order = Vec::new();
        for (record, (from, _, payload)) in datagrams.into_iter().enumerate() {
            let s = usize::from(from != server);
            let scenario = &mut scenarios[s];
            let index = scenario.packets.len();
            let delta = scenario.expected(&payload).is_ok_and(|json| {
                json["items"]
                    .as_array()
                    .is_some_and(|items| items.iter().any(|i| i["kind"] == "snapshot delta"))
            });
            if delta {
                let state = &report.capture_states[&record];
                let value = interpret::decode(&ir, report.encoding, "Snapshot", state)
                    .expect("a mirror's full form");
                let json = interpret::printable(&ir, report.encoding, "Snapshot", &value, None);
                scenario.states.insert(index, json.to_json());
            }
            scenario.packets.push(payload);
            order.push((s, index));
        }
        // Not vacuous: snapshots in full and as deltas, requests and responses both ways.
        let kinds = |scenario: &Scenario| -> Vec<String> {
            scenario
                .packets
                .iter()
                .filter_map(|p| scenario.expected(p).ok())
                .flat_map(|json| json["items"].as_array().cloned().unwrap_or_default())
                .filter_map(|item| Some(format!("{} {}", item["kind"].as_str()?, item["name"])))
                .collect()
        };
        let (down, up) = (kinds(&scenarios[0]), kinds(&scenarios[1]));
        for (kinds, kind) in [
            (&down, "snapshot \"Snapshot\""),
            (&down, "snapshot delta \"Snapshot\""),
            (&down, "response \"hello\""),
            (&down, "response \"use_item\""),
            (&down, "reliable message \"End\""),
            (&down, "reliable message \"Chat\""),
            (&up, "request \"hello\""),
            (&up, "request \"use_item\""),
            (&up, "reliable message \"move_to\""),
        ] {
            assert!(kinds.iter().any(|k| k == kind), "no {kind} in {kinds:?}");
        }
        assert!(
            scenarios[0].states.len() >= 60,
            "{}",
            scenarios[0].states.len()
        );
        // The uses of an item no Character holds are refused: a refusal in place of a value.
        let refused = scenarios[0]
            .packets
            .iter()
            .filter_map(|p| scenarios[0].expected(p).ok())
            .flat_map(|json| json["items"].as_array().cloned().unwrap_or_default())
            .any(|item| item["refusal"]["code"] == 1);
        assert!(refused, "no refused use_item in the capture");
        let dir = temp_dir(&format!("demo_{}", report.encoding));
        let path = dir.join("arena_udp.pcap");
        std::fs::write(&path, capture).expect("the capture is written");
        check_capture(&dir, &path, &scenarios, &order, true);
    }
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
        scenario.states.clear();
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
        answers: Some("MatchClient".to_string()),
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
        ..Options::default()
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
        ..Options::default()
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

/// The UDP demo's IDL (arena_udp.idl's World of the seed's Characters and their Items) with a
/// protocol of this test, `WorldFeed`, whose snapshot is the World, in MYENCODING1 (`e1`) or
/// MYENCODING2.
fn feed_ir(tag: &str) -> Ir {
    let feed = temp_dir("world_feed").join("feed.idl");
    std::fs::write(
        &feed,
        "// The UDP demo's World as a session snapshot.\n\
         PROTOCOL WorldFeed {\n  MESSAGE WorldState {\n    World world;\n  }\n}\n",
    )
    .expect("written");
    compile(
        &[
            seed("character.idl"),
            schema("item.idl"),
            schema("arena_udp.idl"),
            feed,
        ],
        &[
            seed(&format!("myencoding{}.enc", &tag[1..])),
            schema(&format!("arena_udp_{tag}.enc")),
        ],
    )
}

/// 40 ticks of the demo's simulation (tests/src/arena_udp/sim.rs), each World with the age of
/// the snapshot it is sent as: full at ticks 0 and 20, else a delta against the state 1 to 3
/// packets back; Characters moving (one standing still), appearing and going, an inventory
/// changing.
fn worlds() -> Vec<(u16, idlc_tests::arena_udp_e1_server::World)> {
    use idlc_tests::arena_udp::sim;
    use idlc_tests::arena_udp_e1_server as net;
    let (mut bodies, mut rng) = sim::npcs(5, 41);
    let character = |id: u16| net::Character {
        character_id: id,
        z: f64::from(id) - 2.5,
        inventory: vec![net::Item {
            item_id: 200 + u32::from(id),
            kind: net::ItemKind::Armor,
            count: 2,
            durability: 0.5,
        }],
        ..Default::default()
    };
    let mut world = net::World {
        tick: 0,
        characters: (0..5).map(character).collect(),
    };
    let mut out = Vec::new();
    let mut last_full = 0u16;
    for tick in 0..40u16 {
        world.tick = u32::from(tick);
        for (body, c) in bodies.iter_mut().zip(&mut world.characters) {
            body.step(1.0 / 30.0, &mut rng);
            if c.character_id == 1 {
                continue; // it stands still: a delta keeps it whole
            }
            c.x = body.x;
            c.y = body.y;
            c.vx = body.vx;
            c.vy = body.vy;
            c.angle = body.heading_degrees();
            c.animation_frame = body.frame;
            c.anim = if body.speed() > 2.0 {
                net::Animation::Running
            } else {
                net::Animation::Walking
            };
        }
        if tick % 10 == 5 {
            world.characters.push(character(10 + tick));
        }
        if tick % 10 == 8 {
            world.characters.remove(2);
        }
        if tick % 7 == 3
            && let Some(item) = world.characters[0].inventory.first_mut()
        {
            item.count = item.count % 99 + 1;
        }
        let full = tick == 0 || tick == 20;
        if full {
            last_full = tick;
        }
        let age = if full {
            0
        } else {
            (1 + tick % 3).min(tick - last_full)
        };
        out.push((age, world.clone()));
    }
    out
}

/// A session packet of `WorldFeed` (sequence `sequence`, nothing acknowledged) with one
/// snapshot item of `age`, its body written by `body`.
fn feed_packet(
    ir: &Ir,
    encoding: &str,
    sequence: u16,
    age: u16,
    body: impl FnOnce(&mut idlc_runtime::BitWriter) -> Result<(), idlc_runtime::EncodeError>,
) -> Vec<u8> {
    let version = version_ids(ir, &ir.schema.protocols["WorldFeed"], encoding)[0];
    let mut writer = PacketWriter::<Bits>::with_mtu(0, 1 << 16);
    let kind = ItemKind::Snapshot {
        age,
        ticks: u32::from(age),
    };
    writer.push(0, kind, body).expect("fits");
    let header = idlc_runtime::SessionHeader {
        sequence,
        ack: 65535,
        ack_bits: 0,
    };
    writer
        .finish_with_header(idlc_runtime::session_id(version), &header.to_bytes())
        .to_vec()
}

/// The worlds of [`worlds`] as `WorldFeed` snapshots in the encoding of the generated module
/// `$net` (`$tag`: e1 or e2, on UDP port `$port`). Generated code writes the deltas
/// (`encode_delta_to`) and reads them (`from_delta_bytes`, elapsed `ticks / 30` s as a
/// session's default tick): each delta's expected state is the receiver's, as idlc decode shows
/// its full form.
macro_rules! world_feed {
    ($net:ident, $tag:literal, $port:literal) => {{
        use idlc_runtime::{DeltaCodec, DeltaContext};
        use idlc_tests::$net as net;
        type E = net::DefaultEncoding;
        let name = <E as idlc_runtime::Encoding>::NAME;
        let e1 = feed_ir("e1");
        let mut scenario = Scenario::new(feed_ir($tag), name, "WorldFeed", $port);
        let mut received: Vec<net::World> = Vec::new();
        for (tick, (age, world)) in worlds().into_iter().enumerate() {
            let tick = tick as u16;
            // The same World in this encoding's types.
            let bytes = world
                .to_bytes_with::<idlc_tests::arena_udp_e1_server::MYENCODING1>()
                .expect("encoded");
            let value = interpret::decode(&e1, "MYENCODING1", "World", &bytes).expect("decoded");
            let bytes = interpret::encode(&scenario.ir, name, "World", &value).expect("encoded");
            let world = net::World::from_bytes_with::<E>(&bytes).expect("decoded");
            let ctx = DeltaContext::from_ticks(u64::from(age), 1.0 / 30.0);
            let (packet, state) = if age == 0 {
                let packet = feed_packet(&scenario.ir, name, tick, age, |w| {
                    idlc_runtime::Codec::<E>::encode_to(&world, w)
                });
                (packet, world)
            } else {
                let base = &received[usize::from(tick - age)];
                let mut mirror = None;
                let packet = feed_packet(&scenario.ir, name, tick, age, |w| {
                    mirror = Some(world.encode_delta_to(base, &ctx, w)?);
                    Ok(())
                });
                let bytes = world.to_delta_bytes_with::<E>(base, &ctx).expect("encoded");
                let state =
                    net::World::from_delta_bytes_with::<E>(base, &ctx, &bytes).expect("decoded");
                assert_eq!(mirror.as_ref(), Some(&state), "the mirror is the receiver's");
                let full = state.to_bytes_with::<E>().expect("encoded");
                let value = interpret::decode(&scenario.ir, name, "World", &full).expect("decoded");
                let value = interpret::printable(&scenario.ir, name, "World", &value, None);
                let json = serde_json::json!({ "world": value.to_json() });
                scenario.states.insert(scenario.packets.len(), json);
                (packet, state)
            };
            scenario.packets.push(packet);
            received.push(state);
        }
        scenario
    }};
}

/// The seed's Character alone as a session snapshot (`CharacterFeed`) in MYENCODING1_DIFF
/// (schemas/myencoding1_diff.enc: DIFF), the first Character of [`worlds`], written by the
/// interpreter's delta encoder.
fn character_feed_diff() -> Scenario {
    let feed = temp_dir("character_feed").join("feed.idl");
    std::fs::write(
        &feed,
        "// The seed's Character as a session snapshot.\n\
         PROTOCOL CharacterFeed {\n  MESSAGE CharacterState {\n    Character character;\n  }\n}\n",
    )
    .expect("written");
    let ir = compile(
        &[seed("character.idl"), schema("item.idl"), feed],
        &[schema("myencoding1_diff.enc")],
    );
    let name = "MYENCODING1_DIFF";
    let e1 = feed_ir("e1");
    let mut scenario = Scenario::new(ir, name, "CharacterFeed", 41022);
    scenario.undecoded = true;
    let version = version_ids(
        &scenario.ir,
        &scenario.ir.schema.protocols["CharacterFeed"],
        name,
    )[0];
    let mut mirrors: Vec<Value> = Vec::new();
    for (tick, (age, world)) in worlds().into_iter().enumerate() {
        let tick = tick as u16;
        let bytes = world
            .to_bytes_with::<idlc_tests::arena_udp_e1_server::MYENCODING1>()
            .expect("encoded");
        let Value::Struct(value) =
            interpret::decode(&e1, "MYENCODING1", "World", &bytes).expect("decoded")
        else {
            panic!("a World");
        };
        let Some(Value::List(characters)) = value.get("characters") else {
            panic!("characters");
        };
        let character = characters[0].clone();
        let mut writer = PacketWriter::<Bits>::with_mtu(0, 1 << 16);
        let kind = ItemKind::Snapshot {
            age,
            ticks: u32::from(age),
        };
        let mirror = if age == 0 {
            let message = Value::Struct([("character".to_string(), character.clone())].into());
            writer
                .push(0, kind, |w| {
                    interpret::encode_into(&scenario.ir, name, "CharacterState", &message, w)
                        .map_err(|e| panic!("{e}"))
                })
                .expect("fits");
            character
        } else {
            let base = &mirrors[usize::from(tick - age)];
            let elapsed = f64::from(age) * (1.0 / 30.0);
            let (bytes, mirror) =
                interpret::encode_delta(&scenario.ir, name, "Character", &character, base, elapsed)
                    .expect("encoded");
            writer
                .push(0, kind, |w| {
                    bytes
                        .iter()
                        .try_for_each(|&b| idlc_runtime::WireWrite::write_bits(w, u64::from(b), 8))
                })
                .expect("fits");
            mirror
        };
        let header = idlc_runtime::SessionHeader {
            sequence: tick,
            ack: 65535,
            ack_bits: 0,
        };
        let packet = writer
            .finish_with_header(idlc_runtime::session_id(version), &header.to_bytes())
            .to_vec();
        scenario.packets.push(packet);
        mirrors.push(mirror);
    }
    scenario
}

/// The UDP demo's World in MYENCODING1 (changed-bits, DELTA blocks, a DELTA SEQUENCE of
/// Characters with element deltas, each Character's DELTA SEQUENCE of Items with theirs, in
/// their nested form with the Item's open end): every delta shows the receiver's state.
#[test]
fn snapshot_deltas_show_the_state_the_receiver_decodes() {
    let scenario = world_feed!(arena_udp_e1_server, "e1", 41020);
    assert!(
        scenario.states.len() >= 30,
        "{} deltas",
        scenario.states.len()
    );
    check_in_tshark("world_feed", &[scenario], true);
}

/// The UDP demo's World in MYENCODING2 (DEAD_RECKONING blocks inside a DELTA block): a block
/// not sent extrapolates its positions from the baseline's, as the receiver does.
#[test]
fn dead_reckoned_deltas_show_the_state_the_receiver_decodes() {
    let scenario = world_feed!(arena_udp_e2_server, "e2", 41021);
    assert!(
        scenario.states.len() >= 30,
        "{} deltas",
        scenario.states.len()
    );
    check_in_tshark("world_feed_e2", &[scenario], true);
}

/// Mutated deltas of the UDP demo's World (MYENCODING1): bits of their bodies flipped, framed
/// again with the right CRC, after the valid packets in the same conversation. Generated code
/// decodes each against the state the script keeps for its baseline (the states of the packets
/// read whole before it, by sequence): a delta it rejects shows `.delta_malformed`, one it
/// accepts shows the state it gives; no Lua error.
#[test]
fn mutated_deltas_are_malformed_exactly_when_the_receiver_rejects_them() {
    use idlc_runtime::{DeltaCodec, DeltaContext, PacketReader};
    use idlc_tests::arena_udp_e1_server as net;
    type E = net::MYENCODING1;
    let mut scenario = world_feed!(arena_udp_e1_server, "e1", 41024);
    scenario.states.clear();
    let version = version_ids(
        &scenario.ir,
        &scenario.ir.schema.protocols["WorldFeed"],
        "MYENCODING1",
    )[0];
    let frame = idlc_runtime::session_id(version);
    let mut rng = sample::Rng::new(4141);
    let originals = scenario.packets.clone();
    let mut hostile: Vec<Vec<u8>> = originals.clone();
    for _ in 0..5 {
        for packet in &originals {
            let mut payload = idlc_runtime::unframe(frame, packet)
                .expect("framed")
                .to_vec();
            // A bit of the items (the header and the item's framing too, now and then).
            let bit = 64 + rng.below((payload.len() as u64 - 8) * 8);
            payload[(bit / 8) as usize] ^= 1 << (bit % 8);
            hostile.push(idlc_runtime::frame(frame, &payload));
        }
    }
    // The receiver's states, as the script keeps them.
    let mut states: HashMap<u16, net::World> = HashMap::new();
    let (mut decoded, mut rejected) = (0, 0);
    for (index, packet) in hostile.iter().enumerate() {
        let Ok(payload) = idlc_runtime::unframe(frame, packet) else {
            continue;
        };
        if payload.len() < 8 || scenario.expected(packet).is_err() {
            continue; // malformed as idlc decode sees it: checked as such
        }
        let sequence = u16::from_le_bytes([payload[0], payload[1]]);
        let mut reader = PacketReader::<E>::session_items(&payload[8..]);
        // Some(state): a snapshot read; None: a delta without its baseline (the script keeps
        // nothing of the packet); Err: a delta the receiver rejects (nor then).
        let read = reader.next_item(|header, r| match header.kind {
            ItemKind::Snapshot { age: 0, .. } if header.id == 0 => {
                Ok(Some(Some(idlc_runtime::Codec::<E>::decode_from(r)?)))
            }
            ItemKind::Snapshot { age, ticks } if header.id == 0 && age > 0 => {
                match states.get(&sequence.wrapping_sub(age)) {
                    Some(base) => {
                        let ctx = DeltaContext::from_ticks(u64::from(ticks), 1.0 / 30.0);
                        Ok(Some(Some(net::World::decode_delta_from(base, &ctx, r)?)))
                    }
                    None => Ok(None),
                }
            }
            _ => Ok(Some(None)),
        });
        match read {
            Ok(Some(Some(Some(state)))) => {
                if !packet_is_full(packet, frame) {
                    let full = state.to_bytes_with::<E>().expect("encoded");
                    let value = interpret::decode(&scenario.ir, "MYENCODING1", "World", &full)
                        .expect("decoded");
                    let value =
                        interpret::printable(&scenario.ir, "MYENCODING1", "World", &value, None);
                    scenario
                        .states
                        .insert(index, serde_json::json!({ "world": value.to_json() }));
                    decoded += 1;
                }
                states.insert(sequence, state);
            }
            // A packet read whole with no snapshot: the script keeps none for its sequence.
            Ok(Some(Some(None)) | None) => {
                states.remove(&sequence);
            }
            Ok(Some(None)) => {}
            Err(_) => {
                scenario.rejected.insert(index);
                rejected += 1;
            }
        }
    }
    eprintln!("{decoded} deltas decoded, {rejected} rejected");
    assert!(
        decoded >= 5 && rejected >= 20,
        "{decoded} decoded, {rejected} rejected"
    );
    scenario.packets = hostile;
    check_in_tshark("mutated_deltas", &[scenario], false);
}

/// Whether the session packet `packet` carries a full snapshot (its item's `x` is 1).
fn packet_is_full(packet: &[u8], frame: u64) -> bool {
    let payload = idlc_runtime::unframe(frame, packet).expect("framed");
    let mut reader = PacketReader::<Bits>::session_items(&payload[8..]);
    matches!(
        reader.next_item(|header, _| Ok(header.kind)),
        Ok(Some(ItemKind::Snapshot { age: 0, .. }))
    )
}

/// DIFF (MYENCODING1_DIFF): the script cannot read it yet, so each delta shows as not decoded
/// (expert info `.undecoded`, no value), never with wrong values; the full snapshots are
/// decoded.
#[test]
fn snapshot_deltas_it_cannot_read_show_as_not_decoded() {
    check_in_tshark("character_feed", &[character_feed_diff()], true);
}
