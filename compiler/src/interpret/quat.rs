//! QUATERNION values: `idlc_runtime::Quaternion` in the interpreter, written in JSON as
//! `{"x": .., "y": .., "z": .., "w": ..}` (DESIGN.md).

use idlc_runtime::{EncodeError, Quaternion, SmallestThree, SmallestThreeCode, WireWrite};

use super::value::{Value, number};

use super::value::AXES;
pub(super) use super::value::quaternion_value as value_of;

/// The quaternion a value holds: an object with the numbers `x`, `y`, `z` and `w` (each taken
/// as the nearest `f32`), and no other key.
pub(super) fn quaternion_of(value: &Value) -> Result<Quaternion, String> {
    let expected =
        || "expected a quaternion {\"x\": .., \"y\": .., \"z\": .., \"w\": ..}".to_string();
    let Value::Struct(fields) = value else {
        return Err(expected());
    };
    if let Some(extra) = fields.keys().find(|k| !AXES.contains(&k.as_str())) {
        return Err(format!(
            "unknown key `{extra}` in a quaternion (x, y, z, w)"
        ));
    }
    let mut out = [0f32; 4];
    for (slot, axis) in out.iter_mut().zip(AXES) {
        *slot = match fields.get(axis) {
            Some(Value::Float32(v)) => *v,
            Some(v) => match number(v) {
                Some(v) => v as f32,
                None => return Err(format!("`{axis}` of a quaternion must be a number")),
            },
            None => return Err(format!("a quaternion needs `{axis}`")),
        };
    }
    Ok(Quaternion::from_array(out))
}

/// The reference of `DELTA DIFF(..) SMALLEST_THREE(bits)`: the code of the baseline's
/// quaternion, when it has one (as generated code computes it).
pub(super) fn reference(bits: u32, base: Option<&Value>) -> Option<SmallestThreeCode> {
    let base = quaternion_of(base?).ok()?;
    SmallestThree::new(bits).reference(&base)
}

/// Writes `now` with `DELTA DIFF(tiers) SMALLEST_THREE(bits)` against the baseline's value
/// `base` (the runtime's `write_diff`); `Err` with a message for a value of the wrong shape.
pub(super) fn write_diff<W: WireWrite>(
    w: &mut W,
    bits: u32,
    tiers: &[u32],
    now: &Value,
    base: Option<&Value>,
) -> Result<Result<(), EncodeError>, String> {
    let q = quaternion_of(now)?;
    let reference = reference(bits, base);
    Ok(SmallestThree::new(bits).write_diff(w, tiers, &q, reference.as_ref()))
}
