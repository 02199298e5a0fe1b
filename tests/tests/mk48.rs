//! The mk48 data set (../shared/bench/MK48.md) through the code generated from schemas/mk48.idl:
//! every update round-trips in the lossless encodings and arrives quantized to 1 cm in the lossy
//! one, every encoded size lies within what `idlc report` predicts, and the generator draws
//! what MK48.md describes.

use std::path::{Path, PathBuf};

use idlc::report::StructReport;
use idlc::{Inputs, compile};
use idlc_runtime::{BitWriter, Codec, Encoding};
use idlc_tests::mk48::{
    Contact, EntityType, Guidance, MK48, MK48_LOSSY, MK48_PLAIN, TerrainUpdate, Transform, Update,
};
use idlc_tests::mk48_data;

fn schemas(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(name)
}

fn reports() -> Vec<StructReport> {
    let inputs = Inputs {
        idl: vec![schemas("mk48.idl")],
        encodings: vec![schemas("mk48.enc")],
        mappings: vec![schemas("mk48.map")],
        side: Some("Game".into()),
    };
    let compilation = compile(&inputs).expect("the schemas are readable");
    assert!(
        !compilation.has_errors() && compilation.diagnostics.is_empty(),
        "{}",
        compilation.sources.render_plain(&compilation.diagnostics)
    );
    idlc::report::report(&compilation.ir)
}

/// The encoded bytes of one value in `E`, on its own.
fn bytes<E: Encoding, T: Codec<E>>(value: &T) -> usize {
    idlc_runtime::to_bytes::<E, T>(value)
        .expect("a valid value")
        .len()
}

#[test]
fn the_data_set_is_what_mk48_md_describes() {
    let updates = mk48_data::updates();
    assert_eq!(updates.len(), 1000);
    assert_eq!(updates, mk48_data::updates(), "a fixed seed");
    let contacts: Vec<&Contact> = updates.iter().flat_map(|u| &u.contacts).collect();
    for u in &updates {
        assert!((20..40).contains(&u.contacts.len()));
        assert!((3..10).contains(&u.terrain_updates.len()));
        assert!(u.world_radius > 1600.0 && u.world_radius < 2550.0);
    }
    let visible = contacts.iter().filter(|c| c.entity_type.is_some()).count();
    let share = visible as f64 / contacts.len() as f64;
    assert!((0.67..0.73).contains(&share), "visible: {share}");
    let g5 = contacts
        .iter()
        .filter(|c| c.entity_type == Some(EntityType::G5))
        .count();
    // G5 is 13.16 of 44.86 of the visible contacts.
    let g5_share = g5 as f64 / visible as f64;
    assert!((0.27..0.32).contains(&g5_share), "G5: {g5_share}");
    for c in contacts {
        assert_eq!(c.player_id.is_some(), c.entity_type.is_some());
        if c.entity_type.is_none() {
            assert!(c.reloads.is_empty() && c.turret_angles.is_empty());
        }
        assert!(c.transform.altitude == 0 || (-120..-35).contains(&c.transform.altitude));
    }
}

#[test]
fn every_update_round_trips_in_the_lossless_encodings() {
    let updates = mk48_data::updates();
    let mut w = BitWriter::new();
    for u in &updates {
        w.clear();
        u.encode(&mut w).expect("valid");
        assert_eq!(&Update::from_bytes(w.finish()).expect("decodes"), u);
        let plain = u.to_bytes_with::<MK48_PLAIN>().expect("valid");
        assert_eq!(
            &Update::from_bytes_with::<MK48_PLAIN>(&plain).expect("decodes"),
            u
        );
    }
}

#[test]
fn decoding_in_place_gives_the_same_updates_and_keeps_the_memory() {
    let updates = mk48_data::updates();
    let mut held = Update::default();
    let mut plain = Update::default();
    for u in &updates {
        held.from_bytes_in_place(&u.to_bytes().expect("valid"))
            .expect("decodes");
        assert_eq!(&held, u);
        plain
            .from_bytes_in_place_with::<MK48_PLAIN>(
                &u.to_bytes_with::<MK48_PLAIN>().expect("valid"),
            )
            .expect("decodes");
        assert_eq!(&plain, u);
    }
    // Once the held value has seen the longest update, its buffers stay where they are.
    let longest = updates
        .iter()
        .max_by_key(|u| u.contacts.len())
        .expect("updates");
    held.from_bytes_in_place(&longest.to_bytes().expect("valid"))
        .expect("decodes");
    let buffer = held.contacts.as_ptr();
    let first_reloads = held.contacts[0].reloads.capacity();
    for u in updates
        .iter()
        .filter(|u| u.contacts.len() < longest.contacts.len())
        .take(50)
    {
        held.from_bytes_in_place(&u.to_bytes().expect("valid"))
            .expect("decodes");
        assert_eq!(&held, u);
        assert_eq!(held.contacts.as_ptr(), buffer);
        assert!(held.contacts[0].reloads.capacity() >= first_reloads);
    }
}

#[test]
fn the_lossy_encoding_keeps_positions_to_a_centimetre() {
    for u in mk48_data::updates().iter().take(200) {
        let bytes = u.to_bytes_with::<MK48_LOSSY>().expect("valid");
        let back = Update::from_bytes_with::<MK48_LOSSY>(&bytes).expect("decodes");
        assert_eq!(back, u.quantized_with::<MK48_LOSSY>().expect("valid"));
        for (sent, got) in u.contacts.iter().zip(&back.contacts) {
            let (a, b) = (&sent.transform, &got.transform);
            // Half a centimetre, and the f32 the game holds.
            assert!((a.x - b.x).abs() <= 0.005 + 1e-4 && (a.y - b.y).abs() <= 0.005 + 1e-4);
            assert_eq!((a.angle, a.velocity), (b.angle, b.velocity));
        }
        assert!(bytes.len() < u.to_bytes().expect("valid").len());
    }
}

/// Every value's size lies within the report's least..most bytes; fixed-width structs take
/// exactly their reported bytes.
fn check_sizes<E: Encoding>(reports: &[StructReport], updates: &[Update])
where
    Update: Codec<E>,
    Contact: Codec<E>,
    Guidance: Codec<E>,
    Transform: Codec<E>,
    TerrainUpdate: Codec<E>,
{
    let find = |name: &str| {
        reports
            .iter()
            .find(|r| r.encoding == E::NAME && r.name == name)
            .unwrap_or_else(|| panic!("no report of {name} in {}", E::NAME))
            .total
            .bytes()
    };
    let within = |name: &str, len: usize| {
        let b = find(name);
        let len = len as u64;
        assert!(
            len >= b.min && b.max.is_none_or(|max| len <= max),
            "{name} in {}: {len} bytes, reported {b}",
            E::NAME
        );
    };
    for u in updates {
        within("Update", bytes::<E, _>(u));
        for c in &u.contacts {
            within("Contact", bytes::<E, _>(c));
            assert_eq!(bytes::<E, _>(&c.guidance) as u64, find("Guidance").min);
            within("Transform", bytes::<E, _>(&c.transform));
        }
        for t in &u.terrain_updates {
            within("TerrainUpdate", bytes::<E, _>(t));
        }
    }
}

#[test]
fn every_size_is_within_the_report() {
    let reports = reports();
    // A Transform's altitude is a VLQ in the bit-packed encodings (2 bits on the surface).
    for (name, encoding, fixed) in [
        ("Guidance", "MK48", true),
        ("Guidance", "MK48_PLAIN", true),
        ("Guidance", "MK48_LOSSY", true),
        ("Transform", "MK48", false),
        ("Transform", "MK48_PLAIN", true),
        ("Transform", "MK48_LOSSY", false),
    ] {
        let r = reports
            .iter()
            .find(|r| r.encoding == encoding && r.name == name)
            .expect("reported");
        assert_eq!(r.total.is_fixed(), fixed, "{name} in {encoding}");
    }
    let updates = mk48_data::updates_from(mk48_data::SEED, 100);
    check_sizes::<MK48>(&reports, &updates);
    check_sizes::<MK48_PLAIN>(&reports, &updates);
    check_sizes::<MK48_LOSSY>(&reports, &updates);
}

/// How many updates of the data set schemas/traces/mk48.jsonl holds (the first ones: the whole
/// set would be over 2 MB of JSON, its terrain chunks being byte arrays).
const TRACE_UPDATES: usize = 100;

/// The bundled trace's text: the first [`TRACE_UPDATES`] updates of the data set, one JSON
/// value per line, each the generated code's MK48 bytes (lossless) read by the interpreter.
fn trace_text() -> String {
    let inputs = Inputs {
        idl: vec![schemas("mk48.idl")],
        encodings: vec![schemas("mk48.enc")],
        mappings: vec![schemas("mk48.map")],
        side: Some("Game".into()),
    };
    let ir = compile(&inputs).expect("the schemas are readable").ir;
    let mut text = String::new();
    for u in mk48_data::updates_from(mk48_data::SEED, TRACE_UPDATES) {
        let bytes = u.to_bytes_with::<MK48>().expect("valid");
        let value = idlc::interpret::decode(&ir, "MK48", "Update", &bytes).expect("decodes");
        text.push_str(&value.to_string());
        text.push('\n');
    }
    text
}

/// Writes schemas/traces/mk48.jsonl (for `idlc measure`): run with `cargo test -p idlc-tests
/// --test mk48 -- --ignored write_the_bundled_trace`.
#[test]
#[ignore = "writes schemas/traces/mk48.jsonl"]
fn write_the_bundled_trace() {
    std::fs::write(schemas("traces/mk48.jsonl"), trace_text()).expect("writable");
}

/// The bundled trace is the data set's first updates, as `write_the_bundled_trace` writes them.
#[test]
fn the_bundled_trace_is_the_data_set() {
    let bundled = std::fs::read_to_string(schemas("traces/mk48.jsonl")).expect("bundled");
    assert!(
        bundled == trace_text(),
        "schemas/traces/mk48.jsonl is stale: run the ignored test write_the_bundled_trace"
    );
    assert!(bundled.len() < 2_000_000, "{} bytes", bundled.len());
}

/// Packed runs (a UINT16 with FLOAT32s, ranged integers and a BOOL read as one word) put the
/// same bits on the wire, read damaged bytes and refuse bad values as field-by-field code does
/// (`mk48_unmerged`): the same value or the same error (kind, field and bit offset; a run cut
/// short is UnexpectedEnd in both, named after the run's first field in packed code).
#[test]
fn packed_runs_match_field_by_field_code() {
    use idlc::interpret::sample::Rng;
    use idlc_runtime::{DecodeErrorKind, EncodeErrorKind, to_bytes};
    use idlc_tests::mk48_unmerged as unmerged;

    let updates = mk48_data::updates_from(mk48_data::SEED, 40);
    let mut rng = Rng::new(0x6d6b_3438);
    let mut refused = 0;
    for update in &updates {
        let bytes = to_bytes::<MK48, _>(update).expect("valid");
        let plain =
            unmerged::Update::from_bytes(&bytes).expect("field by field reads packed bytes");
        assert_eq!(to_bytes::<unmerged::MK48, _>(&plain), Ok(bytes.clone()));
        for _ in 0..25 {
            let mut hostile = bytes.clone();
            let at = rng.below(hostile.len() as u64) as usize;
            match rng.below(3) {
                0 => hostile[at] ^= 1 << rng.below(8),
                1 => hostile.truncate(at),
                _ => hostile[at] = rng.next_u64() as u8,
            }
            match (
                Update::from_bytes(&hostile),
                unmerged::Update::from_bytes(&hostile),
            ) {
                (Ok(packed), Ok(plain)) => assert_eq!(
                    to_bytes::<MK48, _>(&packed),
                    to_bytes::<unmerged::MK48, _>(&plain)
                ),
                (Err(packed), Err(plain)) if packed.kind == DecodeErrorKind::UnexpectedEnd => {
                    assert_eq!(plain.kind, packed.kind);
                    refused += 1;
                }
                (Err(packed), Err(plain)) => {
                    assert_eq!(packed, plain);
                    refused += 1;
                }
                (packed, plain) => panic!("{hostile:02x?}: packed {packed:?}, plain {plain:?}"),
            }
        }
    }
    assert!(refused > 100, "only {refused} damaged updates refused");

    let value = &updates[0];
    let plain =
        unmerged::Update::from_bytes(&to_bytes::<MK48, _>(value).expect("valid")).expect("reads");
    macro_rules! refused_alike {
        ($($field:ident).+ = $bad:expr, $kind:expr) => {{
            let (mut packed, mut unpacked) = (value.clone(), plain.clone());
            packed.contacts[1].$($field).+ = $bad;
            unpacked.contacts[1].$($field).+ = $bad;
            let e = to_bytes::<MK48, _>(&packed).expect_err(stringify!($($field).+));
            assert_eq!(Err(e.clone()), to_bytes::<unmerged::MK48, _>(&unpacked));
            let path = concat!("Update.contacts[1].", $(stringify!($field), ".",)+);
            assert_eq!(
                (e.kind, e.field.as_deref()),
                ($kind, Some(&path[..path.len() - 1]))
            );
        }};
    }
    refused_alike!(transform.x = f32::NAN, EncodeErrorKind::NotANumber);
    refused_alike!(transform.x = 750.5, EncodeErrorKind::ValueOutOfRange);
    refused_alike!(transform.y = -800.0, EncodeErrorKind::ValueOutOfRange);
    refused_alike!(transform.velocity = 900, EncodeErrorKind::ValueOutOfRange);
    refused_alike!(transform.altitude = 1, EncodeErrorKind::ValueOutOfRange);
    refused_alike!(guidance.velocity = -226, EncodeErrorKind::ValueOutOfRange);
}
