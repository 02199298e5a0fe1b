//! Crossing two versions of one type: the code generated from check-compat's compatible pairs
//! (tests/build.rs, `compat_pairs`), compared through their JSON form (serde), so that one
//! function serves every type of every pair.
//!
//! - OLD writer, NEW reader: NEW decodes every value OLD writes; it holds every OLD field's value
//!   (nested structs may hold more fields), and the fields NEW added hold their DEFAULTs.
//! - NEW writer, OLD reader: OLD decodes every value NEW writes, never an error; the fields no
//!   EXTEND changed hold NEW's values (an EXTENDed field holds what OLD can hold of it: the low
//!   bits or the value saturated, tests/tests/versions.rs checks those exactly).

use idlc_runtime::{Codec, Encoding, from_bytes, to_bytes};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::Value;

/// Crosses `O` (OLD, in `EO`) and `N` (NEW, in `EN`) both ways over `cases` values of each
/// (their Default, then what random bytes decode to). `exact` names the fields (Rust names)
/// an OLD reader must hold exactly as NEW wrote them.
pub fn cross<EO, O, EN, N>(
    what: &str,
    exact: &[&str],
    seed: u64,
    cases: usize,
) -> Result<(), String>
where
    EO: Encoding,
    EN: Encoding,
    O: Codec<EO> + Serialize + Default,
    N: Codec<EN> + Serialize + Default,
{
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let new_default = json(&N::default())?;
    for old in values::<EO, O>(&mut rng, cases) {
        let bytes = to_bytes::<EO, O>(&old).map_err(|e| format!("{what}: OLD encodes: {e}"))?;
        let new = from_bytes::<EN, N>(&bytes)
            .map_err(|e| format!("{what}: NEW rejects OLD's {}: {e}", hex(&bytes)))?;
        let (old, new) = (json(&old)?, json(&new)?);
        if !contains(&new, &old) {
            return Err(format!("{what}: OLD wrote {old}, NEW read {new}"));
        }
        if let (Value::Object(new), Value::Object(old), Value::Object(default)) =
            (&new, &old, &new_default)
        {
            for (key, value) in new.iter().filter(|(key, _)| !old.contains_key(*key)) {
                if default.get(key) != Some(value) {
                    return Err(format!("{what}: `{key}` is {value}, not its DEFAULT"));
                }
            }
        }
    }
    for new in values::<EN, N>(&mut rng, cases) {
        let bytes = to_bytes::<EN, N>(&new).map_err(|e| format!("{what}: NEW encodes: {e}"))?;
        let old = from_bytes::<EO, O>(&bytes)
            .map_err(|e| format!("{what}: OLD rejects NEW's {}: {e}", hex(&bytes)))?;
        let (old, new) = (json(&old)?, json(&new)?);
        for key in exact {
            let (Some(o), Some(n)) = (old.get(key), new.get(key)) else {
                return Err(format!("{what}: no field `{key}` in {old} or {new}"));
            };
            if !contains(n, o) {
                return Err(format!("{what}: NEW wrote `{key}` = {n}, OLD read {o}"));
            }
        }
    }
    Ok(())
}

/// `T::default()`, then up to `cases - 1` values that random buffers decode to.
fn values<E: Encoding, T: Codec<E> + Default>(rng: &mut ChaCha8Rng, cases: usize) -> Vec<T> {
    let mut out = vec![T::default()];
    for _ in 0..cases.saturating_mul(50) {
        if out.len() >= cases {
            break;
        }
        let len = rng.random_range(0..48);
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        if let Ok(value) = from_bytes::<E, T>(&bytes) {
            out.push(value);
        }
    }
    out
}

fn json<T: Serialize>(value: &T) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|e| format!("to JSON: {e}"))
}

/// Whether `big` holds everything `small` does: the same scalars, arrays of the same length
/// whose elements hold `small`'s, objects with at least `small`'s keys holding its values.
fn contains(big: &Value, small: &Value) -> bool {
    match (big, small) {
        (Value::Object(big), Value::Object(small)) => small
            .iter()
            .all(|(key, value)| big.get(key).is_some_and(|b| contains(b, value))),
        (Value::Array(big), Value::Array(small)) => {
            big.len() == small.len() && big.iter().zip(small).all(|(b, s)| contains(b, s))
        }
        _ => big == small,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
