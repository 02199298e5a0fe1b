//! The interpreter's dynamic value, its JSON form, and the values a reader gives to fields that
//! were not sent (DEFAULTs).
//!
//! JSON form (docs/INTERPRETER.md): a struct is an object keyed by the IDL field names, an enum
//! the enumerator's IDL name, an absent OPTIONAL `null`, a SEQUENCE or ARRAY an array, BYTES an
//! array of numbers (0..=255), a STRING a string, integers numbers, reals numbers except the
//! non-finite ones, which are the strings `"NaN"`, `"inf"` and `"-inf"` (JSON has no number for
//! them).

use std::fmt;

use indexmap::IndexMap;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::ir::{self, Ir, Type};

/// A value of any IDL type, as the interpreter reads and writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An absent OPTIONAL (JSON `null`).
    Null,
    /// A BOOL.
    Bool(bool),
    /// Any integer (every IDL integer fits an `i128`).
    Int(i128),
    /// A FLOAT64 or NUMERIC (or a FLOAT32 given as JSON).
    Float(f64),
    /// A FLOAT32 read raw, kept as `f32` so that every bit pattern (NaN payloads included)
    /// survives a decode and re-encode, as in generated code.
    Float32(f32),
    /// A STRING (and, from JSON, an enumerator name before it is checked against its type).
    Str(String),
    /// BYTES.
    Bytes(Vec<u8>),
    /// A SEQUENCE or ARRAY.
    List(Vec<Value>),
    /// A struct: field values by IDL field name, in declaration order.
    Struct(IndexMap<String, Value>),
    /// An enumerator, by IDL name.
    Enum(String),
}

impl Value {
    /// The value as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        // Serializing a Value into a serde_json::Value cannot fail: every key is a string and
        // every number finite (non-finite ones are strings).
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// A short, one-line rendering for `idlc decode --format explain` (strings quoted, long
    /// contents cut).
    pub fn brief(&self) -> String {
        let text = match self {
            Value::Str(s) => format!("{s:?}"),
            Value::Enum(name) => name.clone(),
            Value::Bytes(bytes) => {
                let hex: String = bytes.iter().take(16).map(|b| format!("{b:02x}")).collect();
                if bytes.len() > 16 {
                    format!("0x{hex}… ({} bytes)", bytes.len())
                } else {
                    format!("0x{hex}")
                }
            }
            Value::List(items) => format!("[{} items]", items.len()),
            Value::Struct(fields) => format!("{{{} fields}}", fields.len()),
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        if text.chars().count() > 60 {
            let cut: String = text.chars().take(57).collect();
            format!("{cut}…")
        } else {
            text
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_string(self) {
            Ok(text) => f.write_str(&text),
            Err(_) => Err(fmt::Error),
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(v) => {
                if let Ok(v) = i64::try_from(*v) {
                    serializer.serialize_i64(v)
                } else if let Ok(v) = u64::try_from(*v) {
                    serializer.serialize_u64(v)
                } else {
                    serializer.serialize_i128(*v)
                }
            }
            Value::Float(v) if v.is_nan() => serializer.serialize_str("NaN"),
            Value::Float(v) if v.is_infinite() => {
                serializer.serialize_str(if *v > 0.0 { "inf" } else { "-inf" })
            }
            Value::Float(v) => serializer.serialize_f64(*v),
            Value::Float32(v) => Value::Float(f64::from(*v)).serialize(serializer),
            Value::Str(s) | Value::Enum(s) => serializer.serialize_str(s),
            Value::Bytes(bytes) => {
                let mut seq = serializer.serialize_seq(Some(bytes.len()))?;
                for b in bytes {
                    seq.serialize_element(b)?;
                }
                seq.end()
            }
            Value::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Struct(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (name, value) in fields {
                    map.serialize_entry(name, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        i128::try_from(v)
            .map(Value::Int)
            .map_err(|_| E::custom("integer too large"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        // The size hint comes from the input: never reserve on its word.
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = IndexMap::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            if fields.insert(key.clone(), value).is_some() {
                return Err(de::Error::custom(format!("duplicate field `{key}`")));
            }
        }
        Ok(Value::Struct(fields))
    }
}

/// The value a reader gives a field that was not sent, as generated code does: its DEFAULT if
/// the IDL gives one, else the zero value if the field's range holds it, else the range's lower
/// end (its middle when the lower end is open); a struct's fields each take theirs, an enum its
/// first enumerator.
pub fn default_value(ir: &Ir, ty: &Type, default: Option<&ir::Value>) -> Value {
    default_guarded(ir, ty, default, 0)
}

fn default_guarded(ir: &Ir, ty: &Type, default: Option<&ir::Value>, depth: u32) -> Value {
    if let Some(value) = default {
        return literal(ty, value);
    }
    match ty {
        Type::Bool => Value::Bool(false),
        Type::Uint(_) | Type::Int(_) => Value::Int(0),
        Type::IntRange { min, max } => {
            Value::Int(if (*min..=*max).contains(&0) { 0 } else { *min })
        }
        Type::Float32 | Type::Float64 => Value::Float(0.0),
        Type::Numeric {
            min,
            max,
            min_inclusive,
            max_inclusive,
        } => {
            let above = if *min_inclusive {
                *min <= 0.0
            } else {
                *min < 0.0
            };
            let below = if *max_inclusive {
                0.0 <= *max
            } else {
                0.0 < *max
            };
            Value::Float(if above && below {
                0.0
            } else if *min_inclusive {
                *min
            } else {
                min + (max - min) / 2.0
            })
        }
        Type::String { .. } => Value::Str(String::new()),
        Type::Bytes { .. } => Value::Bytes(Vec::new()),
        Type::Sequence { .. } => Value::List(Vec::new()),
        Type::Array { element, len } => {
            let item = default_guarded(ir, element, None, depth + 1);
            // An ARRAY's length is the schema's: bounded by what the schema author wrote.
            let len = usize::try_from(*len).unwrap_or(0).min(1 << 16);
            Value::List(vec![item; len])
        }
        Type::Optional(_) => Value::Null,
        Type::Enum(name) => Value::Enum(
            ir.schema
                .enums
                .get(name)
                .and_then(|e| e.enumerators.first())
                .map(|e| e.name.clone())
                .unwrap_or_default(),
        ),
        Type::Struct(name) => {
            let mut fields = IndexMap::new();
            // Direct containment is acyclic (resolution rejects it); the guard only protects
            // against a broken IR.
            let def = if depth < 64 {
                ir.schema.structs.get(name)
            } else {
                None
            };
            if let Some(def) = def {
                for field in def.fields() {
                    fields.insert(
                        field.name.clone(),
                        default_guarded(ir, &field.ty, field.default.as_ref(), depth + 1),
                    );
                }
            }
            Value::Struct(fields)
        }
    }
}

fn literal(ty: &Type, value: &ir::Value) -> Value {
    let real = matches!(ty, Type::Float32 | Type::Float64 | Type::Numeric { .. });
    match value {
        ir::Value::Int(v) if real => Value::Float(*v as f64),
        ir::Value::Int(v) => Value::Int(*v),
        ir::Value::Real(v) => Value::Float(*v),
        ir::Value::Bool(b) => Value::Bool(*b),
        ir::Value::Str(s) if matches!(ty, Type::Bytes { .. }) => {
            Value::Bytes(s.as_bytes().to_vec())
        }
        ir::Value::Str(s) => Value::Str(s.clone()),
        ir::Value::Enumerator(name) => Value::Enum(name.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let text = r#"{"a":1,"b":[true,null],"c":"x","d":-2.5,"e":18446744073709551615}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), text);
    }

    #[test]
    fn non_finite_floats_are_strings() {
        assert_eq!(Value::Float(f64::NAN).to_string(), "\"NaN\"");
        assert_eq!(Value::Float(f64::NEG_INFINITY).to_string(), "\"-inf\"");
        assert_eq!(Value::Bytes(vec![1, 2]).to_string(), "[1,2]");
    }
}
