//! `idlc check-compat --prove N`: after the verdict, random values of every struct both versions
//! have, in every encoding both have, crossed both ways through the IR interpreter: OLD writes
//! and NEW reads (keeping what OLD sent), NEW writes and OLD reads; for a PUBLISHABLE_STRUCT,
//! its deltas too, each against a baseline both sides hold. A user's own pair is then proven on
//! their own schema, not only on the bundled corpus.

use crate::interpret::{self, Value, sample};
use crate::ir::{Ir, StructKind};

/// What crossing found.
#[derive(Debug, Default)]
pub struct Proof {
    /// Values crossed (each once each way).
    pub crossed: usize,
    /// Deltas of PUBLISHABLE_STRUCTs crossed (each once each way).
    pub deltas: usize,
    /// Structs × encodings crossed.
    pub cases: usize,
    /// Random values that their own version's writer refused (so not crossed), with the
    /// reason: a value the interpreter cannot hold (nested deeper than it goes) says nothing
    /// about the pair.
    pub refused: Vec<String>,
    /// Every disagreement: the struct, the encoding, the direction and what went wrong.
    pub failures: Vec<String>,
}

/// Crosses `values` random values per struct and encoding (seeded: the same run every time).
pub fn prove(old: &Ir, new: &Ir, values: usize) -> Proof {
    let mut proof = Proof::default();
    let mut rng = sample::Rng::new(0x5eed_c0de);
    for (name, def) in &old.schema.structs {
        // A response is crossed with its RPC's check; a struct NEW lacks is a violation already.
        if def.kind == StructKind::RpcResponse || !new.schema.structs.contains_key(name) {
            continue;
        }
        for encoding in old.encodings.keys() {
            if !new.encodings.contains_key(encoding) {
                continue;
            }
            proof.cases += 1;
            for _ in 0..values {
                cross(old, new, name, encoding, &mut rng, &mut proof);
                if def.kind == StructKind::Publishable {
                    cross_delta(old, new, name, encoding, &mut rng, &mut proof);
                }
            }
        }
    }
    proof
}

fn cross(old: &Ir, new: &Ir, name: &str, encoding: &str, rng: &mut sample::Rng, proof: &mut Proof) {
    let case = format!("`{name}` in `{encoding}`");
    let Some(value) = sample::random_struct(old, name, rng) else {
        return;
    };
    let bytes = match interpret::encode(old, encoding, name, &value) {
        Ok(bytes) => bytes,
        Err(e) => {
            proof.refused.push(format!("{case}, OLD: {e}"));
            return;
        }
    };
    let old_to_new = interpret::decode(old, encoding, name, &bytes)
        .map_err(|e| format!("OLD cannot read what it wrote: {e}"))
        .and_then(|sent| {
            let read = interpret::decode(new, encoding, name, &bytes)
                .map_err(|e| format!("NEW rejects what OLD wrote ({value}): {e}"))?;
            if contains(&read, &sent) {
                Ok(())
            } else {
                Err(format!("NEW reads {read} where OLD wrote {sent}"))
            }
        });
    if let Err(failure) = old_to_new {
        proof
            .failures
            .push(format!("{case}, OLD to NEW: {failure}"));
        return;
    }
    let Some(value) = sample::random_struct(new, name, rng) else {
        return;
    };
    let bytes = match interpret::encode(new, encoding, name, &value) {
        Ok(bytes) => bytes,
        Err(e) => {
            proof.refused.push(format!("{case}, NEW: {e}"));
            return;
        }
    };
    if let Err(e) = interpret::decode(old, encoding, name, &bytes) {
        proof.failures.push(format!(
            "{case}, NEW to OLD: OLD rejects what NEW wrote ({value}): {e}"
        ));
        return;
    }
    proof.crossed += 1;
}

/// The time since the baseline that deltas are crossed with (dead reckoning extrapolates).
const ELAPSED: f64 = 0.05;

/// One delta each way. The receiver's baseline is what it read of the writer's baseline in full
/// form. OLD writes, NEW reads: NEW's state keeps every field of OLD's mirror. NEW writes, OLD
/// reads: OLD reads it without an error (what it holds of a widened field is checked by the
/// full crossing).
fn cross_delta(
    old: &Ir,
    new: &Ir,
    name: &str,
    encoding: &str,
    rng: &mut sample::Rng,
    proof: &mut Proof,
) {
    let case = format!("`{name}` in `{encoding}`, delta");
    let mut one_way = |writer: &Ir, reader: &Ir, direction: &str, check: bool| {
        let (Some(base), Some(value)) = (
            sample::random_struct(writer, name, rng),
            sample::random_struct(writer, name, rng),
        ) else {
            return Ok(false);
        };
        let Ok(full) = interpret::encode(writer, encoding, name, &base) else {
            return Ok(false);
        };
        let writer_base = interpret::decode(writer, encoding, name, &full)
            .map_err(|e| format!("{direction}: the writer cannot read its own baseline: {e}"))?;
        let reader_base = interpret::decode(reader, encoding, name, &full)
            .map_err(|e| format!("{direction}: the reader rejects the baseline: {e}"))?;
        let Ok((bytes, mirror)) =
            interpret::encode_delta(writer, encoding, name, &value, &writer_base, ELAPSED)
        else {
            return Ok(false);
        };
        let state = interpret::decode_delta(reader, encoding, name, &bytes, &reader_base, ELAPSED)
            .map_err(|e| format!("{direction}: the reader rejects the delta of {value} against {writer_base}: {e}"))?;
        if check && !contains(&state, &mirror) {
            return Err(format!(
                "{direction}: the reader holds {state} where the writer's mirror is {mirror}"
            ));
        }
        Ok(true)
    };
    let crossed = one_way(old, new, "OLD to NEW", true)
        .and_then(|first| Ok(first && one_way(new, old, "NEW to OLD", false)?));
    match crossed {
        Ok(true) => proof.deltas += 1,
        Ok(false) => {}
        Err(failure) => proof.failures.push(format!("{case}, {failure}")),
    }
}

/// Whether every field of `part` has the same value in `whole` (what NEW read of what OLD sent
/// keeps OLD's fields; NEW's own fields are extra).
fn contains(whole: &Value, part: &Value) -> bool {
    match (whole, part) {
        (Value::Struct(w), Value::Struct(p)) => p
            .iter()
            .all(|(k, v)| w.get(k).is_some_and(|wv| contains(wv, v))),
        (Value::List(w), Value::List(p)) => {
            w.len() == p.len() && w.iter().zip(p).all(|(w, p)| contains(w, p))
        }
        (w, p) => w.to_json() == p.to_json(),
    }
}
