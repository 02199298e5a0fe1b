//! The C++ backend against the interpreter (whose bytes and verdicts are Rust's generated
//! code's: interpreter_agrees.rs), for every header set of the rig (`common::cpp`: the design
//! source's two C++ mappings, every bundled schema of the golden snapshots and DIFF's corner
//! cases, 17 sets), every encoding and every type:
//!
//! - every full-form record of the golden snapshots (recorded from the interpreter) decodes
//!   and encodes again to the very same bytes (where the mapping can hold every value);
//! - random valid values (seeded), encoded by the interpreter, decode and encode again to the
//!   very same bytes;
//! - hostile bytes (those encodings mutated, cut short, extended; random bytes) get the
//!   interpreter's answer: the same acceptance, the same re-encoding when accepted, the same
//!   error kind at the same bit when refused. Where the mapping cannot hold every value (W0402)
//!   only verdicts compare.
//!
//! One driver program holds every header and is compiled by g++ and by clang++, whichever are on
//! PATH, unoptimized (`common::cpp::FLAGS` says why); the tests ask every build. Without a C++ compiler the tests say why and pass (.ci/run installs both).

mod common;

use common::cpp::{
    self, CompiledSet, error_answer, golden_lines, golden_records, ok_answer, request, wire_hex,
};
use common::{mutate_seeded, schema, seed};
use idlc::interpret::{self, EncodeErrorKind, sample};
use idlc::ir::Ir;

/// Random values per set, encoding and type.
const VALUES: u64 = 60;
/// Hostile variants of each value's encoding.
const MUTATIONS: u64 = 12;

#[test]
fn every_build_reencodes_every_golden_record() {
    let mut requests = Vec::new();
    let mut lossy = Vec::new();
    for compiled in cpp::header_sets() {
        let set = compiled.set;
        for encoding in set.encodings {
            let snapshot = set.snapshot(encoding);
            for (ty, hex) in golden_records(snapshot.as_deref(), set.types) {
                requests.push(request(set.namespace, encoding, &ty, &hex));
                lossy.push(compiled.is_lossy(encoding));
            }
        }
    }
    assert!(requests.len() >= 40 * 32, "{} records", requests.len());
    let Some(drivers) = cpp::drivers() else {
        return;
    };
    for driver in drivers {
        let answers = driver.answer(&requests);
        for ((asked, answer), &lossy) in requests.iter().zip(&answers).zip(&lossy) {
            let hex = asked.rsplit(' ').next().unwrap();
            assert_eq!(
                compared(answer, lossy),
                compared(&format!("ok {hex}"), lossy),
                "{}: {asked}",
                driver.name
            );
        }
    }
}

/// One request of the differential test, and what the interpreter answers.
struct Case {
    request: String,
    /// The interpreter's answer: Rust's generated code's.
    expected: String,
    /// Whether the mapping cannot hold every value: only verdicts compare.
    lossy: bool,
}

/// An answer as compared: whole, or, when `lossy`, `ok` without the bytes.
fn compared(answer: &str, lossy: bool) -> &str {
    if lossy && answer.starts_with("ok ") {
        "ok"
    } else {
        answer
    }
}

/// The interpreter's answer to a request, in the driver's words.
fn interpreted(ir: &Ir, encoding: &str, ty: &str, bytes: &[u8]) -> String {
    let value = match interpret::decode(ir, encoding, ty, bytes) {
        Ok(value) => value,
        Err(e) => {
            let wire = e.wire().unwrap_or_else(|| panic!("{e}"));
            return error_answer("decode", &format!("{:?}", wire.kind), wire.bit_offset);
        }
    };
    match interpret::encode(ir, encoding, ty, &value) {
        Ok(again) => ok_answer(&again),
        Err(interpret::EncodeError {
            kind: EncodeErrorKind::Wire(wire),
            ..
        }) => error_answer("encode", &format!("{:?}", wire.kind), wire.bit_offset),
        Err(e) => panic!("{ty} in {encoding}: a decoded value has its type: {e}"),
    }
}

/// A seed of its own for every set, encoding and type (FNV-1a of their names).
fn seed_of(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The cases of the struct `ty` of `encoding` in a set: random valid values, each followed by
/// its hostile variants.
fn cases_of(compiled: &CompiledSet, encoding: &str, ty: &str) -> Vec<Case> {
    let (ir, ns) = (&compiled.ir, compiled.set.namespace);
    let lossy = compiled.is_lossy(encoding);
    let mut rng = sample::Rng::new(seed_of(&request(ns, encoding, ty, "")));
    let (asked, ty) = (ty, compiled.idl_name(ty));
    let mut cases = Vec::new();
    for round in 0..VALUES {
        let value = sample::random_struct(ir, ty, &mut rng).expect("the type exists");
        let bytes = interpret::encode(ir, encoding, ty, &value)
            .unwrap_or_else(|e| panic!("{ns} {encoding} {ty}, round {round}: {e}\n{value}"));
        cases.push(Case {
            request: request(ns, encoding, asked, &wire_hex(&bytes)),
            expected: ok_answer(&bytes),
            lossy,
        });
        for _ in 0..MUTATIONS {
            let hostile = mutate_seeded(&mut rng, &bytes);
            cases.push(Case {
                request: request(ns, encoding, asked, &wire_hex(&hostile)),
                expected: interpreted(ir, encoding, ty, &hostile),
                lossy,
            });
        }
    }
    cases
}

/// Every case of every set, encoding and type.
fn every_case() -> Vec<Case> {
    let mut cases = Vec::new();
    for compiled in cpp::header_sets() {
        for encoding in compiled.set.encodings {
            for ty in compiled.set.types {
                cases.extend(cases_of(compiled, encoding, ty));
            }
        }
    }
    cases
}

#[test]
fn every_build_answers_as_the_interpreter() {
    every_build_answers(&every_case(), "full-form");
}

/// Asks every build `cases` and requires the interpreter's answers (`what` names them).
fn every_build_answers(cases: &[Case], what: &str) {
    let Some(drivers) = cpp::drivers() else {
        return;
    };
    let requests: Vec<String> = cases.iter().map(|c| c.request.clone()).collect();
    for driver in drivers {
        let differences: Vec<String> = cases
            .iter()
            .zip(driver.answer(&requests))
            .filter(|(case, answer)| {
                compared(answer, case.lossy) != compared(&case.expected, case.lossy)
            })
            .map(|(case, answer)| {
                format!(
                    "{}\n    interpreter: {}\n    {}: {answer}",
                    case.request, case.expected, driver.name
                )
            })
            .collect();
        assert!(
            differences.is_empty(),
            "{}: {} {what} answers differ from the interpreter's; the first:\n{}",
            driver.name,
            differences.len(),
            differences[..differences.len().min(20)].join("\n")
        );
    }
}

/// The elapsed times the golden deltas cycle through (golden_bytes.rs).
const ELAPSED: [f64; 4] = [0.0, 1.0 / 30.0, 0.25, 1.5];
/// Random delta rounds per set, encoding and PUBLISHABLE_STRUCT.
const DELTA_ROUNDS: u64 = 24;
/// Hostile variants of each delta.
const DELTA_MUTATIONS: u64 = 6;

/// A delta request: encode `value` against `base` (full forms, hex) `elapsed` seconds after it.
fn delta_request(
    ns: &str,
    encoding: &str,
    ty: &str,
    elapsed: f64,
    base: &str,
    value: &str,
) -> String {
    format!(
        "{ns} {encoding} {ty} delta {:016x} {base} {value}",
        elapsed.to_bits()
    )
}

/// An undelta request: decode `delta` against `base` `elapsed` seconds after it.
fn undelta_request(
    ns: &str,
    encoding: &str,
    ty: &str,
    elapsed: f64,
    base: &str,
    delta: &str,
) -> String {
    format!(
        "{ns} {encoding} {ty} undelta {:016x} {base} {delta}",
        elapsed.to_bits()
    )
}

/// Every delta record of `types` in a golden snapshot: `(type, elapsed, baseline, value,
/// delta, mirror)`, hex (the elapsed time as its bits).
fn golden_deltas(snapshot: Option<&str>, types: &[&str]) -> Vec<[String; 6]> {
    let heading = " delta (baseline, value, elapsed: delta, mirror)";
    golden_lines(snapshot, heading, types)
        .into_iter()
        .map(|(ty, words)| {
            let round: usize = words[0].parse().unwrap();
            let elapsed = ELAPSED[round % ELAPSED.len()];
            [
                ty,
                format!("{:016x}", elapsed.to_bits()),
                words[1].clone(),
                words[2].clone(),
                words[4].clone(),
                words[5].clone(),
            ]
        })
        .collect()
}

/// The interpreter's delta of `value` against `baseline`, in the driver's words.
fn interpreted_delta(
    ir: &Ir,
    encoding: &str,
    ty: &str,
    value: &interpret::Value,
    baseline: &interpret::Value,
    elapsed: f64,
) -> String {
    interpreted_delta_in(ir, (encoding, encoding), ty, (value, baseline), elapsed)
}

/// [`interpreted_delta`] with the mirror in the full form of `mirror_in`.
fn interpreted_delta_in(
    ir: &Ir,
    (encoding, mirror_in): (&str, &str),
    ty: &str,
    (value, baseline): (&interpret::Value, &interpret::Value),
    elapsed: f64,
) -> String {
    match interpret::encode_delta(ir, encoding, ty, value, baseline, elapsed) {
        Ok((delta, mirror)) => {
            let full = interpret::encode(ir, mirror_in, ty, &mirror).expect("a mirror encodes");
            format!("ok {} {}", wire_hex(&delta), wire_hex(&full))
        }
        Err(interpret::EncodeError {
            kind: EncodeErrorKind::Wire(wire),
            ..
        }) => error_answer("encode", &format!("{:?}", wire.kind), wire.bit_offset),
        Err(e) => panic!("{ty} in {encoding}: {e}"),
    }
}

/// The interpreter's state from `delta` against `baseline`, in the driver's words.
fn interpreted_undelta(
    ir: &Ir,
    encoding: &str,
    ty: &str,
    delta: &[u8],
    baseline: &interpret::Value,
    elapsed: f64,
) -> String {
    match interpret::decode_delta(ir, encoding, ty, delta, baseline, elapsed) {
        Ok(state) => match interpret::encode(ir, encoding, ty, &state) {
            Ok(full) => ok_answer(&full),
            Err(interpret::EncodeError {
                kind: EncodeErrorKind::Wire(wire),
                ..
            }) => error_answer("encode", &format!("{:?}", wire.kind), wire.bit_offset),
            Err(e) => panic!("{ty} in {encoding}: {e}"),
        },
        Err(e) => {
            let wire = e.wire().unwrap_or_else(|| panic!("{e}"));
            error_answer("decode", &format!("{:?}", wire.kind), wire.bit_offset)
        }
    }
}

/// A value as the receiver holds it: its full form decoded.
fn as_sent(
    ir: &Ir,
    encoding: &str,
    ty: &str,
    value: &interpret::Value,
) -> (interpret::Value, Vec<u8>) {
    let bytes = interpret::encode(ir, encoding, ty, value).expect("a random value encodes");
    let sent = interpret::decode(ir, encoding, ty, &bytes).expect("its bytes decode");
    (sent, bytes)
}

/// Random deltas of one PUBLISHABLE_STRUCT: each baseline and value (the same, or another)
/// delta-coded, the delta decoded, and the delta mutated.
fn delta_cases(compiled: &CompiledSet, encoding: &str, ty: &str) -> Vec<Case> {
    let (ir, ns) = (&compiled.ir, compiled.set.namespace);
    let lossy = compiled.is_lossy(encoding);
    let idl = compiled.idl_name(ty);
    let mut rng = sample::Rng::new(seed_of(&format!("{ns} {encoding} {ty} delta")));
    let mut cases = Vec::new();
    for round in 0..DELTA_ROUNDS {
        let elapsed = ELAPSED[round as usize % ELAPSED.len()];
        let (baseline, base_bytes) = as_sent(
            ir,
            encoding,
            idl,
            &sample::random_struct(ir, idl, &mut rng).expect("the type exists"),
        );
        let (value, value_bytes) = if rng.one_in(3) {
            (baseline.clone(), base_bytes.clone())
        } else {
            as_sent(
                ir,
                encoding,
                idl,
                &sample::random_struct(ir, idl, &mut rng).expect("the type exists"),
            )
        };
        let (base_hex, value_hex) = (wire_hex(&base_bytes), wire_hex(&value_bytes));
        let expected = interpreted_delta(ir, encoding, idl, &value, &baseline, elapsed);
        cases.push(Case {
            request: delta_request(ns, encoding, ty, elapsed, &base_hex, &value_hex),
            expected: expected.clone(),
            lossy,
        });
        let Ok((delta, _)) = interpret::encode_delta(ir, encoding, idl, &value, &baseline, elapsed)
        else {
            continue;
        };
        for variant in 0..=DELTA_MUTATIONS {
            let bytes = if variant == 0 {
                delta.clone()
            } else {
                mutate_seeded(&mut rng, &delta)
            };
            cases.push(Case {
                request: undelta_request(ns, encoding, ty, elapsed, &base_hex, &wire_hex(&bytes)),
                expected: interpreted_undelta(ir, encoding, idl, &bytes, &baseline, elapsed),
                lossy,
            });
        }
    }
    cases
}

/// The delta form: every golden delta record is encoded to its bytes and mirror and decoded to
/// its mirror; random baselines and values get the interpreter's delta and mirror, and their
/// deltas, whole or mutated, the interpreter's state or error.
#[test]
fn every_build_codes_deltas_as_the_interpreter() {
    let mut cases = Vec::new();
    for compiled in cpp::header_sets() {
        let set = compiled.set;
        let delta_types: Vec<&str> = set
            .types
            .iter()
            .copied()
            .filter(|ty| compiled.has_delta_form(ty))
            .collect();
        for encoding in set.encodings {
            let lossy = compiled.is_lossy(encoding);
            let snapshot = set.snapshot(encoding);
            for [ty, elapsed, base, value, delta, mirror] in
                golden_deltas(snapshot.as_deref(), &delta_types)
            {
                let elapsed = f64::from_bits(u64::from_str_radix(&elapsed, 16).unwrap());
                cases.push(Case {
                    request: delta_request(set.namespace, encoding, &ty, elapsed, &base, &value),
                    expected: format!("ok {delta} {mirror}"),
                    lossy,
                });
                cases.push(Case {
                    request: undelta_request(set.namespace, encoding, &ty, elapsed, &base, &delta),
                    expected: format!("ok {mirror}"),
                    lossy,
                });
            }
            for ty in &delta_types {
                cases.extend(delta_cases(compiled, encoding, ty));
            }
        }
    }
    assert!(cases.len() > 1000, "{} delta cases", cases.len());
    every_build_answers(&cases, "delta");
}

/// Random deltas per encoding of the off-step set.
const OFF_STEP_ROUNDS: u64 = 48;

/// `value` with some of its reals (in structs and lists too) moved towards zero (not past it)
/// by up to about a step of 0.01, which keeps them in their ranges; a rotation (a struct of
/// exactly `x`, `y`, `z` and `w`) is then scaled back to unit length, which its encoder needs.
fn nudged(value: &interpret::Value, rng: &mut sample::Rng) -> interpret::Value {
    use interpret::Value;
    match value {
        Value::Struct(fields) => {
            let mut fields: Vec<(String, Value)> = fields
                .iter()
                .map(|(name, v)| (name.clone(), nudged(v, rng)))
                .collect();
            let names: Vec<&str> = fields.iter().map(|(name, _)| name.as_str()).collect();
            let reals: Vec<f64> = fields
                .iter()
                .filter_map(|(_, v)| match v {
                    Value::Float(x) => Some(*x),
                    Value::Float32(x) => Some(f64::from(*x)),
                    _ => None,
                })
                .collect();
            let length = reals.iter().map(|x| x * x).sum::<f64>().sqrt();
            if names == ["x", "y", "z", "w"] && reals.len() == 4 && length > 0.0 {
                for (_, v) in &mut fields {
                    match v {
                        Value::Float(x) => *x /= length,
                        Value::Float32(x) => *x = (f64::from(*x) / length) as f32,
                        _ => {}
                    }
                }
            }
            Value::Struct(fields.into_iter().collect())
        }
        Value::List(items) => Value::List(items.iter().map(|v| nudged(v, rng)).collect()),
        Value::Float(x) if rng.one_in(2) => {
            Value::Float(x - x.signum() * (rng.unit() * 0.014).min(x.abs()))
        }
        Value::Float32(x) if rng.one_in(2) => {
            let x = f64::from(*x);
            Value::Float32((x - x.signum() * (rng.unit() * 0.014).min(x.abs())) as f32)
        }
        other => other.clone(),
    }
}

/// Deltas against baselines that lie off the FIXED_POINT steps or are no rotation as sent (a
/// game's own values, `Default`s): both values travel to the C++ code in RAW as they are
/// (`cpp::OFF_STEPS`: the Character, structs behind changed-bits, the cubes); the value is the baseline itself, the baseline
/// moved by about a step or less, or another value; the delta and the mirror (in RAW: an
/// unchanged field keeps the baseline's own value) are the interpreter's, which are Rust's
/// generated code's (interpreter_agrees.rs).
#[test]
fn every_build_codes_deltas_off_the_steps_as_the_interpreter() {
    let mut cases = Vec::new();
    for compiled in cpp::off_steps() {
        off_step_cases(compiled, &mut cases);
    }
    every_build_answers(&cases, "off-step delta");
}

/// The off-step delta cases of one set of `cpp::OFF_STEPS`.
fn off_step_cases(compiled: &CompiledSet, cases: &mut Vec<Case>) {
    let (ir, ns) = (&compiled.ir, compiled.set.namespace);
    for encoding in compiled.set.encodings {
        for ty in compiled.set.types {
            let mut rng = sample::Rng::new(seed_of(&format!("{ns} {encoding} {ty} off steps")));
            // A value RAW cannot carry (an angle whose `float` rounds above 360) is drawn again.
            let random = |rng: &mut sample::Rng| loop {
                let value = sample::random_struct(ir, ty, rng).expect("the type exists");
                if interpret::encode(ir, cpp::RAW, ty, &value).is_ok() {
                    break as_sent(ir, cpp::RAW, ty, &value);
                }
            };
            for round in 0..OFF_STEP_ROUNDS {
                let elapsed = ELAPSED[round as usize % ELAPSED.len()];
                let (baseline, base_bytes) = random(&mut rng);
                let (value, value_bytes) = match rng.below(3) {
                    0 => (baseline.clone(), base_bytes.clone()),
                    1 => as_sent(ir, cpp::RAW, ty, &nudged(&baseline, &mut rng)),
                    _ => random(&mut rng),
                };
                cases.push(Case {
                    request: format!(
                        "{ns} {encoding} {ty} delta-raw {:016x} {} {}",
                        elapsed.to_bits(),
                        wire_hex(&base_bytes),
                        wire_hex(&value_bytes)
                    ),
                    expected: interpreted_delta_in(
                        ir,
                        (encoding, cpp::RAW),
                        ty,
                        (&value, &baseline),
                        elapsed,
                    ),
                    lossy: false,
                });
            }
        }
    }
}

/// Ticks of each simulated replication.
const TICKS: u64 = 40;
/// How many of the sender's last mirrors a tick's baseline is chosen from (the newest the
/// receiver acknowledged, older when acknowledgements were lost).
const ACK_WINDOW: usize = 4;

/// `base` with each field replaced by `fresh`'s now and then: a tick's state that moved a little.
fn moved(
    base: &interpret::Value,
    fresh: &interpret::Value,
    rng: &mut sample::Rng,
) -> interpret::Value {
    match (base, fresh) {
        (interpret::Value::Struct(old), interpret::Value::Struct(new)) => interpret::Value::Struct(
            old.iter()
                .map(|(name, value)| {
                    let next = match new.get(name) {
                        Some(other) if rng.one_in(3) => other.clone(),
                        _ => value.clone(),
                    };
                    (name.clone(), next)
                })
                .collect(),
        ),
        _ => fresh.clone(),
    }
}

/// A replication of one PUBLISHABLE_STRUCT over `TICKS` ticks with loss: each tick's state moves
/// a little from the last, is delta-coded against one of the sender's last mirrors (the one the
/// receiver acknowledged), and the C++ must give the interpreter's delta and mirror; the
/// receiver's C++ decodes it against the same baseline to the same state. The mirrors chain:
/// each is the baseline of later ticks.
fn tick_cases(compiled: &CompiledSet, encoding: &str, ty: &str) -> Vec<Case> {
    let (ir, ns) = (&compiled.ir, compiled.set.namespace);
    let idl = compiled.idl_name(ty);
    let lossy = compiled.is_lossy(encoding);
    let mut rng = sample::Rng::new(seed_of(&format!("{ns} {encoding} {ty} ticks")));
    let random =
        |rng: &mut sample::Rng| sample::random_struct(ir, idl, rng).expect("the type exists");
    let (first, _) = as_sent(ir, encoding, idl, &random(&mut rng));
    let mut mirrors = vec![first.clone()];
    let mut state = first;
    let mut cases = Vec::new();
    for tick in 0..TICKS {
        let elapsed = ELAPSED[tick as usize % ELAPSED.len()];
        // As the receiver would hold it: the C++ gets the state through its full form.
        state = as_sent(
            ir,
            encoding,
            idl,
            &moved(&state, &random(&mut rng), &mut rng),
        )
        .0;
        let back = rng.below(mirrors.len().min(ACK_WINDOW) as u64) as usize;
        let baseline = mirrors[mirrors.len() - 1 - back].clone();
        let Ok((delta, mirror)) =
            interpret::encode_delta(ir, encoding, idl, &state, &baseline, elapsed)
        else {
            continue;
        };
        let base_hex =
            wire_hex(&interpret::encode(ir, encoding, idl, &baseline).expect("a mirror encodes"));
        let state_hex =
            wire_hex(&interpret::encode(ir, encoding, idl, &state).expect("a state encodes"));
        cases.push(Case {
            request: delta_request(ns, encoding, ty, elapsed, &base_hex, &state_hex),
            expected: interpreted_delta(ir, encoding, idl, &state, &baseline, elapsed),
            lossy,
        });
        cases.push(Case {
            request: undelta_request(ns, encoding, ty, elapsed, &base_hex, &wire_hex(&delta)),
            expected: interpreted_undelta(ir, encoding, idl, &delta, &baseline, elapsed),
            lossy,
        });
        mirrors.push(mirror);
    }
    cases
}

/// Long replications with loss ([`tick_cases`]) of every PUBLISHABLE_STRUCT in every encoding.
#[test]
fn every_build_follows_long_replications_with_loss() {
    let mut cases = Vec::new();
    for compiled in cpp::header_sets() {
        for encoding in compiled.set.encodings {
            for ty in compiled
                .set
                .types
                .iter()
                .filter(|ty| compiled.has_delta_form(ty))
            {
                cases.extend(tick_cases(compiled, encoding, ty));
            }
        }
    }
    assert!(cases.len() > 500, "{} tick cases", cases.len());
    every_build_answers(&cases, "replication");
}

/// Version pairs of the bundled version chains, as (older, newer) header sets, with the
/// encodings and types they share.
const VERSION_PAIRS: [(&str, &str, &[&str], &[&str]); 4] = [
    (
        "squad_v1",
        "squad_v2",
        &["SquadBits", "SquadBytes"],
        &["Member", "Squad"],
    ),
    (
        "squad_v1",
        "squad_v3",
        &["SquadBits", "SquadBytes"],
        &["Member", "Squad"],
    ),
    (
        "squad_v2",
        "squad_v3",
        &["SquadBits", "SquadBytes"],
        &["Member", "Squad"],
    ),
    (
        "character_client",
        "character_v2",
        &["MYENCODINGA"],
        &["Character", "Item"],
    ),
];

/// The header set of the namespace `ns`.
fn set_named(ns: &str) -> &'static CompiledSet {
    cpp::header_sets()
        .iter()
        .find(|c| c.set.namespace == ns)
        .unwrap_or_else(|| panic!("no header set {ns}"))
}

/// Random values of one version, encoded by the interpreter, as requests to the header of the
/// other: what the other version's reader (the interpreter over its IR) answers.
fn cross_cases(writer: &CompiledSet, reader: &CompiledSet, encoding: &str, ty: &str) -> Vec<Case> {
    let mut rng = sample::Rng::new(seed_of(&format!(
        "{} {} {encoding} {ty}",
        writer.set.namespace, reader.set.namespace
    )));
    let lossy = writer.is_lossy(encoding) || reader.is_lossy(encoding);
    (0..VALUES)
        .map(|_| {
            let value = sample::random_struct(&writer.ir, ty, &mut rng).expect("the type exists");
            let bytes = interpret::encode(&writer.ir, encoding, ty, &value)
                .unwrap_or_else(|e| panic!("{} {encoding} {ty}: {e}", writer.set.namespace));
            Case {
                request: request(reader.set.namespace, encoding, ty, &wire_hex(&bytes)),
                expected: interpreted(&reader.ir, encoding, ty, &bytes),
                lossy,
            }
        })
        .collect()
}

/// Random deltas written by one version, decoded by the other version's C++ against its own
/// view of the baseline (the writer's baseline as the reader decodes it), as the interpreter
/// over the reader's IR decodes them.
fn cross_delta_cases(
    writer: &CompiledSet,
    reader: &CompiledSet,
    encoding: &str,
    ty: &str,
) -> Vec<Case> {
    if !writer.has_delta_form(ty) || !reader.has_delta_form(ty) {
        return Vec::new();
    }
    let mut rng = sample::Rng::new(seed_of(&format!(
        "{} {} {encoding} {ty} delta",
        writer.set.namespace, reader.set.namespace
    )));
    let lossy = writer.is_lossy(encoding) || reader.is_lossy(encoding);
    let mut cases = Vec::new();
    for round in 0..DELTA_ROUNDS {
        let elapsed = ELAPSED[round as usize % ELAPSED.len()];
        let random = |rng: &mut sample::Rng| {
            sample::random_struct(&writer.ir, ty, rng).expect("the type exists")
        };
        let (baseline, base_bytes) = as_sent(&writer.ir, encoding, ty, &random(&mut rng));
        let value = random(&mut rng);
        let Ok((delta, _)) =
            interpret::encode_delta(&writer.ir, encoding, ty, &value, &baseline, elapsed)
        else {
            continue;
        };
        let theirs = interpret::decode(&reader.ir, encoding, ty, &base_bytes)
            .expect("a newer or older reader reads the baseline");
        let their_bytes = interpret::encode(&reader.ir, encoding, ty, &theirs).expect("it encodes");
        cases.push(Case {
            request: undelta_request(
                reader.set.namespace,
                encoding,
                ty,
                elapsed,
                &wire_hex(&their_bytes),
                &wire_hex(&delta),
            ),
            expected: interpreted_undelta(&reader.ir, encoding, ty, &delta, &theirs, elapsed),
            lossy,
        });
    }
    cases
}

/// The versions of a chain read each other both ways, as Rust's generated code does (the
/// interpreter over the reader's IR): an older reader skips what a newer writer appended and
/// keeps the older fields' slots; a newer reader fills the DEFAULTs of what an older writer did
/// not send (in a delta, keeps the baseline's). The bytes written by one version, full and
/// delta, are decoded by the other version's C++ and encoded again in its own version.
#[test]
fn every_build_reads_the_other_versions() {
    let mut cases = Vec::new();
    for (older, newer, encodings, types) in VERSION_PAIRS {
        let (older, newer) = (set_named(older), set_named(newer));
        for encoding in encodings {
            for ty in types {
                cases.extend(cross_cases(older, newer, encoding, ty));
                cases.extend(cross_cases(newer, older, encoding, ty));
                cases.extend(cross_delta_cases(older, newer, encoding, ty));
                cases.extend(cross_delta_cases(newer, older, encoding, ty));
            }
        }
    }
    let Some(drivers) = cpp::drivers() else {
        return;
    };
    let requests: Vec<String> = cases.iter().map(|c| c.request.clone()).collect();
    for driver in drivers {
        for (case, answer) in cases.iter().zip(driver.answer(&requests)) {
            assert_eq!(
                compared(&answer, case.lossy),
                compared(&case.expected, case.lossy),
                "{}: {}",
                driver.name,
                case.request
            );
            assert!(answer.starts_with("ok "), "{}: {answer}", case.request);
        }
    }
}

/// The header of the design source's client.cpp.map in MYENCODING1, and in MYENCODING1_DIFF and
/// MYENCODING2_DIFF (DIFF's tiers in DELTA and DEAD_RECKONING blocks), as generated code is
/// reviewed: snapshotted.
#[test]
fn the_client_header_reads_well() {
    let header = |encodings: &[std::path::PathBuf]| {
        let ir = common::ir(
            &[seed("character.idl"), schema("item.idl")],
            encodings,
            Some(("Client", seed("client.cpp.map"))),
        );
        idlc::cppgen::generate_header(&ir, "character::client").unwrap()
    };
    insta::assert_snapshot!(
        "character_client_myencoding1_hpp",
        header(&[seed("myencoding1.enc")])
    );
    insta::assert_snapshot!(
        "character_client_diff_hpp",
        header(&[
            schema("myencoding1_diff.enc"),
            schema("myencoding2_diff.enc")
        ])
    );
}
