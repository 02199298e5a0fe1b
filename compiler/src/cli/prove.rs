//! `idlc check-compat --prove N`: after the verdict, random values of every struct both versions
//! have, in every encoding both have, crossed both ways through the IR interpreter: OLD writes
//! and NEW reads (keeping what OLD sent), NEW writes and OLD reads. A user's own pair is then
//! proven on their own schema, not only on the bundled corpus.

use crate::interpret::{self, Value, sample};
use crate::ir::{Ir, StructKind};

/// What crossing found.
#[derive(Debug, Default)]
pub struct Proof {
    /// Values crossed (each once each way).
    pub crossed: usize,
    /// Structs × encodings crossed.
    pub cases: usize,
    /// Random values of NEW that its own writer refused (so not crossed), with the reason.
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
    let old_to_new = interpret::encode(old, encoding, name, &value)
        .map_err(|e| format!("OLD cannot write {value}: {e}"))
        .and_then(|bytes| {
            let sent = interpret::decode(old, encoding, name, &bytes)
                .map_err(|e| format!("OLD cannot read what it wrote: {e}"))?;
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
            proof.refused.push(format!("{case}: {e}"));
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
