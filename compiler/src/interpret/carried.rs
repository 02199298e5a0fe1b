//! A value carried in a BYTES field: a game that sends a PUBLISHABLE_STRUCT's delta (or any
//! type's full form) inside a message's BYTES field. `idlc decode --bytes-as [STRUCT.]FIELD=TYPE`
//! reads the field's bytes as that type (against `--baseline` for a delta), prints the value in
//! place of the bytes and explains its bits under the field's line.

use super::explain::Entry;
use super::value::{Carried, Node, Walk};
use super::{DecodeError, DecodeErrorKind, Value};
use crate::ir::{Ir, Type, WireRule};

/// Reads the bytes of each field `carried` names in `value` (a decoded `type_name`, or a
/// PROTOCOL's packet, as [`super::decode_traced`] or [`super::decode_packet`] give it) as
/// `carried.type_name`: a delta against `carried.baseline`, else its full form; the value read
/// replaces the bytes. Its reads go into `trace` after the field's line, at their bit offsets in
/// the same input, with paths under the field's (`M.race.hp (changed-bit)`), and the field's
/// line says what it carries. `trace` must hold the reads of `value`'s decode: the offsets, of
/// the lines and of an error, are found from the field's line (without it, an error's offset
/// counts from the field's first byte).
///
/// Errors: `Schema` when `carried` names no BYTES field of the schema, or the type or baseline
/// is wrong (as [`super::decode_delta`] says); the first failed read, its path under the field.
pub fn decode_carried(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    value: &mut Value,
    mut trace: Option<&mut Vec<Entry>>,
    carried: &Carried,
) -> Result<(), DecodeError> {
    let schema_error = |message: String| DecodeError {
        path: type_name.to_string(),
        kind: DecodeErrorKind::Schema(message),
    };
    let encoding_def = ir
        .encodings
        .get(encoding)
        .ok_or_else(|| schema_error(format!("no encoding `{encoding}`")))?;
    let known = ir.schema.structs.values().any(|def| {
        def.fields()
            .any(|f| carried.names(&def.name, &f.name) && is_bytes(&f.ty))
    });
    if !known {
        return Err(schema_error(format!(
            "`{carried}`: no struct, message or RPC has a BYTES field so named"
        )));
    }
    let mut result = Ok(());
    let mut read = |node: Node<'_, '_>| {
        let bytes = match (&*node.value, node.rule) {
            (Value::Bytes(bytes), WireRule::Bytes { utf8: false, .. }) => bytes,
            _ => return,
        };
        if result.is_err() || !node.whole || !carried.names(node.owner, node.field) {
            return;
        }
        match read_carried(
            ir,
            encoding,
            carried,
            bytes,
            node.path,
            trace.as_deref_mut(),
        ) {
            Ok(inner) => *node.value = inner,
            Err(error) => result = Err(error),
        }
    };
    Walk {
        ir,
        encoding: encoding_def,
        carried: None,
        visit: &mut read,
    }
    .root(type_name, value);
    result
}

fn is_bytes(ty: &Type) -> bool {
    match ty {
        Type::Bytes { .. } => true,
        Type::Optional(inner) => is_bytes(inner),
        _ => false,
    }
}

/// One field's bytes as `carried.type_name`; the field's line in `trace` is the last of its
/// `path`, and ends with the bytes.
fn read_carried(
    ir: &Ir,
    encoding: &str,
    carried: &Carried,
    bytes: &[u8],
    path: &str,
    trace: Option<&mut Vec<Entry>>,
) -> Result<Value, DecodeError> {
    let mut inner = Vec::new();
    let traced = trace.is_some().then_some(&mut inner);
    let type_name = carried.type_name.as_str();
    let decoded = match &carried.baseline {
        Some(baseline) => super::decode_delta_traced(
            ir,
            encoding,
            type_name,
            bytes,
            baseline,
            carried.elapsed,
            traced,
        ),
        None => super::decode_traced(ir, encoding, type_name, bytes, traced),
    };
    let line = trace.as_deref().and_then(|trace| {
        let at = trace
            .iter()
            .rposition(|e| e.path == path && e.error.is_none())?;
        let start = trace[at].end.checked_sub(8 * bytes.len() as u64)?;
        Some((at, start))
    });
    let offset = line.map_or(0, |(_, start)| start);
    // `Race.hp (changed-bit)` under `M.race`: `M.race.hp (changed-bit)`.
    let under = |inner: &str| format!("{path}{}", inner.strip_prefix(type_name).unwrap_or(inner));
    if let (Some(trace), Some((at, _))) = (trace, line) {
        let what = match carried.baseline {
            Some(_) => format!("a delta of {type_name}"),
            None => format!("a {type_name}"),
        };
        trace[at].value = format!("{}: {what}", trace[at].value);
        let inner = inner.into_iter().map(|mut entry| {
            entry.path = under(&entry.path);
            entry.start += offset;
            entry.end += offset;
            entry
        });
        trace.splice(at + 1..at + 1, inner);
    }
    decoded.map_err(|mut error| {
        error.path = under(&error.path);
        if let DecodeErrorKind::Wire(wire) = &mut error.kind {
            wire.bit_offset += offset;
            wire.field = Some(error.path.as_str().into());
        }
        error
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let spec = Carried::parse("RaceUpdate.race=Race").unwrap();
        assert_eq!(spec.owner.as_deref(), Some("RaceUpdate"));
        assert!(spec.names("RaceUpdate", "race") && !spec.names("Other", "race"));
        assert_eq!(spec.to_string(), "RaceUpdate.race=Race");
        let spec = Carried::parse("race = Race").unwrap();
        assert!(spec.names("Other", "race") && !spec.names("Other", "lap"));
        let spec = Carried::parse("f.response.value=Race").unwrap();
        assert_eq!(spec.owner.as_deref(), Some("f.response"));
        for wrong in ["race", "=Race", "race=", ".race=Race"] {
            assert!(Carried::parse(wrong).is_err(), "{wrong}");
        }
    }
}
