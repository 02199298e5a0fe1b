//! The markdown document `bench-table` prints: one table per comparison, each followed by the
//! line that says which of the project's targets hold.

use idlc_tests::simulation::Population;

use crate::measure::{Table, micros, nanos, ratio, thousands, verdict};
use crate::{character, delta, mk48};

/// The mk48 table (lossless serializers, then the lossy one) and its targets.
pub fn mk48(rows: &[mk48::Row]) -> String {
    let Some(bitcode) = rows.iter().find(|r| r.name == "bitcode") else {
        return "no bitcode row\n".into();
    };
    let mut table = Table::new(&[
        "serializer",
        "bytes",
        "zstd bytes",
        "size vs bitcode",
        "serialize (ns/update)",
        "deserialize (ns/update)",
        "deserialize into a reused value (ns/update)",
        "ser vs bitcode",
        "de vs bitcode",
        "reused vs bitcode",
    ]);
    let lossless = rows.iter().filter(|r| !r.lossy);
    for r in lossless.chain(rows.iter().filter(|r| r.lossy)) {
        let name = if r.lossy {
            format!("{} — lossy", r.name)
        } else {
            r.name.to_string()
        };
        table.row(vec![
            name,
            thousands(r.bytes as u64),
            thousands(r.zstd as u64),
            ratio(r.bytes as f64, bitcode.bytes as f64),
            nanos(r.serialize_ns),
            nanos(r.deserialize_ns),
            nanos(r.reused_ns),
            ratio(r.serialize_ns, bitcode.serialize_ns),
            ratio(r.deserialize_ns, bitcode.deserialize_ns),
            ratio(r.reused_ns, bitcode.reused_ns.min(bitcode.deserialize_ns)),
        ]);
    }
    let mut out = table.markdown();
    let ranged = rows.iter().find(|r| r.name.starts_with("idlc MK48 "));
    let lossy = rows.iter().find(|r| r.lossy);
    if let (Some(m), Some(l)) = (ranged, lossy) {
        let size = m.bytes as f64 / bitcode.bytes as f64;
        let ser = m.serialize_ns / bitcode.serialize_ns;
        let de = m.deserialize_ns / bitcode.deserialize_ns;
        let bitcode_best = bitcode.reused_ns.min(bitcode.deserialize_ns);
        let reused = m.reused_ns / bitcode_best;
        let lossy_size = l.bytes as f64 / bitcode.bytes as f64;
        out.push_str(&format!(
            "\nThe reused column decodes every update into one value kept from update to update: \
             idlc's `from_bytes_in_place` (its Vecs keep their memory), prost's `clear` + \
             `merge`; the others have no such API and decode a new value that replaces it. \
             \"reused vs bitcode\" compares with bitcode's faster of its two columns.\n\n\
             Targets: MK48 size ≤ bitcode {} ({size:.2}×); MK48 serialize ≤ bitcode {} \
             ({ser:.2}×); MK48 deserialize ≤ bitcode {} ({de:.2}× decoding new values, {} \
             {reused:.2}× decoding into a reused value); MK48_LOSSY size ≤ 0.8 × bitcode {} \
             ({lossy_size:.2}×).\n",
            verdict(size <= 1.0),
            verdict(ser <= 1.0),
            verdict(de <= 1.0),
            verdict(reused <= 1.0),
            verdict(lossy_size <= 0.8),
        ));
    }
    out
}

/// The Character table and its targets.
pub fn character(outcome: &character::Outcome) -> String {
    let rows = &outcome.rows;
    let (Some(hand), Some(generated), Some(prost)) = (
        rows.iter().find(|r| r.name.starts_with("hand")),
        rows.iter().find(|r| r.name.starts_with("idlc")),
        rows.iter().find(|r| r.name == "prost"),
    ) else {
        return "missing rows\n".into();
    };
    let mut table = Table::new(&[
        "codec",
        "bytes/Character",
        "encode (ns)",
        "decode (ns)",
        "encode vs hand-written",
        "decode vs hand-written",
        "encode vs prost",
        "decode vs prost",
    ]);
    for r in rows {
        table.row(vec![
            r.name.to_string(),
            format!("{:.2}", r.bytes),
            nanos(r.encode_ns),
            nanos(r.decode_ns),
            ratio(r.encode_ns, hand.encode_ns),
            ratio(r.decode_ns, hand.decode_ns),
            ratio(r.encode_ns, prost.encode_ns),
            ratio(r.decode_ns, prost.decode_ns),
        ]);
    }
    let enc_hand = generated.encode_ns / hand.encode_ns;
    let dec_hand = generated.decode_ns / hand.decode_ns;
    let enc_prost = prost.encode_ns / generated.encode_ns;
    let dec_prost = prost.decode_ns / generated.decode_ns;
    let mut out = table.markdown();
    out.push_str(&format!(
        "\nTargets: generated encode within 1.10 × hand-written {} ({enc_hand:.2}×), decode {} \
         ({dec_hand:.2}×); generated ≥ 3 × faster than prost to encode {} ({enc_prost:.1}× \
         faster), to decode {} ({dec_prost:.1}× faster).\n",
        verdict(enc_hand <= 1.10),
        verdict(dec_hand <= 1.10),
        verdict(enc_prost >= 3.0),
        verdict(dec_prost >= 3.0),
    ));
    out
}

/// The delta table (per population) and its targets: idlc's one World per tick against
/// delta-pack's one message per tick, idlc's one message per Character against delta-pack's.
pub fn delta(results: &[(Population, Vec<delta::Row>)]) -> String {
    let mut table = Table::new(&[
        "population",
        "codec",
        "bytes/Character/tick",
        "encode (µs/tick)",
        "decode (µs/tick)",
        "bytes vs delta-pack (same framing)",
        "encode vs delta-pack",
        "decode vs delta-pack",
    ]);
    let mut targets = Vec::new();
    for (population, rows) in results {
        let [
            one,
            two,
            one_diff,
            two_diff,
            world_one,
            world_two,
            tick,
            per_character,
        ] = rows.as_slice()
        else {
            continue;
        };
        // Each row against delta-pack with the same framing; the first four are the targets.
        let pairs = [
            (one, per_character, "MYENCODING1 per Character"),
            (two, per_character, "MYENCODING2 per Character"),
            (world_one, tick, "MYENCODING1 World"),
            (world_two, tick, "MYENCODING2 World"),
            (one_diff, per_character, ""),
            (two_diff, per_character, ""),
            (tick, tick, ""),
            (per_character, per_character, ""),
        ];
        for (r, peer, _) in pairs {
            table.row(vec![
                format!("{population:?}"),
                r.name.to_string(),
                format!("{:.3}", r.bytes_per_character),
                micros(r.encode_ns),
                micros(r.decode_ns),
                ratio(r.bytes_per_character, peer.bytes_per_character),
                ratio(r.encode_ns, peer.encode_ns),
                ratio(r.decode_ns, peer.decode_ns),
            ]);
        }
        let mut clauses = Vec::new();
        for (r, peer, name) in pairs.iter().take(4) {
            let mark = |x: fn(&delta::Row) -> f64, limit: f64| {
                let q = x(r) / x(peer);
                format!("{} {q:.2}×", if q <= limit { "✓" } else { "✗" })
            };
            clauses.push(format!(
                "{name} bytes {}, encode {}, decode {}",
                mark(|r| r.bytes_per_character, 0.7),
                mark(|r| r.encode_ns, 1.0),
                mark(|r| r.decode_ns, 1.0),
            ));
        }
        targets.push(format!("{population:?}: {}", clauses.join("; ")));
    }
    let mut out = table.markdown();
    out.push_str(&format!(
        "\nTargets (bytes ≤ 0.7×, encode and decode time ≤ 1× delta-pack with the same framing: \
         a World per tick against a message per tick, a message per Character against a message \
         per Character; ✓ holds, ✗ does not): {}.\n",
        targets.join(". ")
    ));
    out
}
