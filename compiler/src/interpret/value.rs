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

use crate::ir::plan::StructPlan;
use crate::ir::{self, Encoding, Ir, Type, WireRule, response_struct_name};

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

/// A QUATERNION's components' keys, in wire order.
pub(super) const AXES: [&str; 4] = ["x", "y", "z", "w"];

/// A quaternion as a value: an object of four FLOAT32s, x, y, z, w (kept as `f32`, every bit
/// pattern).
pub(super) fn quaternion_value(q: &idlc_runtime::Quaternion) -> Value {
    let fields: IndexMap<String, Value> = AXES
        .iter()
        .zip(q.to_array())
        .map(|(axis, v)| ((*axis).to_string(), Value::Float32(v)))
        .collect();
    Value::Struct(fields)
}

/// A value as a number, whatever its JSON form (`"NaN"`, `"inf"` and `"-inf"` included).
pub(super) fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Float(v) => Some(*v),
        Value::Float32(v) => Some(f64::from(*v)),
        Value::Int(v) => Some(*v as f64),
        Value::Str(s) if s == "NaN" => Some(f64::NAN),
        Value::Str(s) if s == "inf" => Some(f64::INFINITY),
        Value::Str(s) if s == "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
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
        Type::IntRange { .. } | Type::Numeric { .. } => match ty.zero_substitute() {
            Some(substitute) => literal(ty, &substitute),
            None if matches!(ty, Type::IntRange { .. }) => Value::Int(0),
            None => Value::Float(0.0),
        },
        Type::Float32 | Type::Float64 => Value::Float(0.0),
        Type::Quaternion => quaternion_value(&idlc_runtime::Quaternion::IDENTITY),
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

/// `value` as `idlc decode` prints it: on a step of the FIXED_POINT `rule`, the f64 nearest the
/// shortest decimal that names that step (`-39.52`, not `-39.519999999999996`), so JSON and
/// explain print the decimal and `idlc encode` of it sends the same step; any other value (a
/// raw float, a dead-reckoning extrapolation off every step) as it is.
///
/// The decimals are searched upward from those the step's exact decimal can have (`min + q *
/// resolution`, or `max`: the most decimals of the three as written) until the decimal, read
/// back, quantizes to the same step. Starting from the resolution's alone could name a
/// neighbour inside the step (`-39.52` for the step `-39.515` of `[-180.005, ...]` at 0.01).
pub(super) fn shortest_step(rule: &WireRule, value: f64) -> f64 {
    let WireRule::FixedPoint {
        min,
        max,
        resolution,
        ..
    } = rule
    else {
        return value;
    };
    let Some(fp) = rule.fixed_point() else {
        return value;
    };
    let Ok(step) = fp.quantize(value) else {
        return value;
    };
    if fp.dequantize(step).to_bits() != value.to_bits() {
        return value;
    }
    let least = [*min, *max, *resolution]
        .into_iter()
        .map(decimals)
        .max()
        .unwrap_or(0);
    (least..=least + 17)
        .find_map(|d| {
            let decimal: f64 = format!("{value:.d$}").parse().ok()?;
            // `-0.00` reads as -0.0: the same step, printed without its sign.
            let decimal = if decimal == 0.0 { 0.0 } else { decimal };
            (fp.quantize(decimal) == Ok(step)).then_some(decimal)
        })
        .unwrap_or(value)
}

/// The decimals of `x` as written (its shortest round-trip form has no more).
fn decimals(x: f64) -> usize {
    let text = x.abs().to_string();
    text.split_once('.')
        .map_or(0, |(_, fraction)| fraction.len())
}

/// [`Value::brief`] of a value read with `rule`: a FIXED_POINT value at [`shortest_step`].
pub(super) fn brief_as_read(rule: &WireRule, value: &Value) -> String {
    match value {
        Value::Float(v) => Value::Float(shortest_step(rule, *v)).brief(),
        other => other.brief(),
    }
}

/// A BYTES field whose bytes are a value of another type, in the same encoding.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    /// The struct, message or RPC (its parameter list) that holds the field; `None`: any.
    pub owner: Option<String>,
    /// The BYTES (or `OPTIONAL<BYTES>`) field.
    pub field: String,
    /// The type the bytes are.
    pub type_name: String,
    /// The state the receiver holds, when the bytes are a delta of `type_name` (a
    /// PUBLISHABLE_STRUCT) against it; without one they are its full form.
    pub baseline: Option<Value>,
    /// Seconds since the baseline, which dead reckoning extrapolates over.
    pub elapsed: f64,
}

impl Carried {
    /// Parses `[STRUCT.]FIELD=TYPE` (the full form; set `baseline` for a delta).
    pub fn parse(text: &str) -> Result<Carried, String> {
        let wrong = || format!("`{text}` is not [STRUCT.]FIELD=TYPE");
        let (path, type_name) = text.split_once('=').ok_or_else(wrong)?;
        // An RPC's response struct is `f.response`: the field follows the last dot.
        let (owner, field) = match path.rsplit_once('.') {
            Some((owner, field)) => (Some(owner.trim()), field.trim()),
            None => (None, path.trim()),
        };
        let type_name = type_name.trim();
        if field.is_empty() || type_name.is_empty() || owner.is_some_and(str::is_empty) {
            return Err(wrong());
        }
        Ok(Carried {
            owner: owner.map(str::to_string),
            field: field.to_string(),
            type_name: type_name.to_string(),
            baseline: None,
            elapsed: 0.0,
        })
    }

    /// Whether this names the field `field` of the struct `owner`.
    pub(super) fn names(&self, owner: &str, field: &str) -> bool {
        self.field == field && self.owner.as_deref().is_none_or(|o| o == owner)
    }
}

impl fmt::Display for Carried {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(owner) = &self.owner {
            write!(f, "{owner}.")?;
        }
        write!(f, "{}={}", self.field, self.type_name)
    }
}

/// `value`, a decoded `type_name` (a struct, message, RPC parameter list, or a PROTOCOL's
/// packet as [`super::decode_packet`] gives it) in `encoding`, as `idlc decode` prints it: every
/// FIXED_POINT value at its shortest step decimal (`shortest_step`), in the value a BYTES field carries too (`carried`,
/// after [`super::decode_carried`]).
pub fn printable(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    value: &Value,
    carried: Option<&Carried>,
) -> Value {
    let mut out = value.clone();
    if let Some(encoding) = ir.encodings.get(encoding) {
        let mut shorten = |node: Node<'_, '_>| {
            if let Value::Float(v) = node.value {
                *v = shortest_step(node.rule, *v);
            }
        };
        Walk {
            ir,
            encoding,
            carried,
            visit: &mut shorten,
        }
        .root(type_name, &mut out);
    }
    out
}

/// A value inside a decoded value, with the rule it was read with (what [`Walk`] visits).
pub(super) struct Node<'r, 'v> {
    /// The struct that holds the field.
    pub owner: &'r str,
    /// The field.
    pub field: &'r str,
    /// Whether this is the field's value itself (or an OPTIONAL's), not an element of it.
    pub whole: bool,
    /// Its path as the decoder names it in errors and explain lines (`S.list[2]`, in a packet
    /// `P.items[0] M.v`).
    pub path: &'v str,
    /// The rule it was read with.
    pub rule: &'r WireRule,
    /// The value.
    pub value: &'v mut Value,
}

/// Structs deeper than this are left as they are (no decoder gives them).
const MAX_WALK_DEPTH: u32 = 2 * idlc_runtime::MAX_DECODE_DEPTH;

/// A walk over a decoded value along the encoding's rules, visiting every value before what it
/// holds.
pub(super) struct Walk<'a, 'f> {
    pub ir: &'a Ir,
    pub encoding: &'a Encoding,
    /// A BYTES field whose bytes were replaced with the value they carry: walked as its type.
    pub carried: Option<&'a Carried>,
    pub visit: &'f mut dyn FnMut(Node<'_, '_>),
}

impl Walk<'_, '_> {
    /// Walks `value`, a decoded `root`: a struct, or a packet of a PROTOCOL or a link (each
    /// item's value).
    pub fn root(&mut self, root: &str, value: &mut Value) {
        if !crate::ir::protocol::names_packets(self.ir, root) {
            self.structure(root, &mut root.to_string(), value, 0);
            return;
        }
        let Value::Struct(packet) = value else {
            return;
        };
        let Some(Value::List(items)) = packet.get_mut("items") else {
            return;
        };
        for (index, item) in items.iter_mut().enumerate() {
            let Value::Struct(item) = item else {
                continue;
            };
            let Some(Value::Str(name)) = item.get("name") else {
                continue;
            };
            let name = match item.get("kind") {
                Some(Value::Str(kind)) if kind == "response" => response_struct_name(name),
                _ => name.clone(),
            };
            if let Some(body) = item.get_mut("value") {
                let mut path = format!("{} {name}", item_path(root, index));
                self.structure(&name, &mut path, body, 0);
            }
        }
    }

    fn structure(&mut self, name: &str, path: &mut String, value: &mut Value, depth: u32) {
        let plan = self
            .ir
            .plan(&self.encoding.name)
            .and_then(|plan| plan.structs.get(name));
        let (Some(layout), Value::Struct(fields)) = (plan, value) else {
            return;
        };
        if depth > MAX_WALK_DEPTH {
            return;
        }
        for (field, rule) in field_rules(layout) {
            let Some(value) = fields.get_mut(field) else {
                continue;
            };
            let len = path.len();
            path.push('.');
            path.push_str(field);
            self.node(name, field, true, rule, path, value, depth);
            path.truncate(len);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        owner: &str,
        field: &str,
        whole: bool,
        rule: &WireRule,
        path: &mut String,
        value: &mut Value,
        depth: u32,
    ) {
        (self.visit)(Node {
            owner,
            field,
            whole,
            path,
            rule,
            value,
        });
        match (rule, value) {
            (WireRule::Optional(_), Value::Null) => {}
            // `[value]` is the `Some` of an OPTIONAL<OPTIONAL<T>>.
            (WireRule::Optional(inner), Value::List(items))
                if matches!(**inner, WireRule::Optional(_)) =>
            {
                if let [item] = items.as_mut_slice() {
                    self.node(owner, field, whole, inner, path, item, depth);
                }
            }
            (WireRule::Optional(inner), value) => {
                self.node(owner, field, whole, inner, path, value, depth);
            }
            (
                WireRule::Sequence { element, .. } | WireRule::Array { element, .. },
                Value::List(items),
            ) => {
                for (index, item) in items.iter_mut().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{index}]"));
                    self.node(owner, field, false, element, path, item, depth);
                    path.truncate(len);
                }
            }
            (WireRule::Struct(name), value) => self.structure(name, path, value, depth + 1),
            (WireRule::Bytes { .. }, value @ Value::Struct(_)) => {
                if let Some(carried) = self.carried.filter(|c| whole && c.names(owner, field)) {
                    self.structure(&carried.type_name, path, value, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// The rule each field of a struct is read with: its slot's, or for a field widened by a whole
/// EXTEND that EXTEND's (the type its value has).
fn field_rules(plan: &StructPlan) -> IndexMap<&str, &WireRule> {
    plan.rules().collect()
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

/// The path of a packet's item in errors and explain lines: `P.items[2]`, as in its JSON.
pub(super) fn item_path(protocol: &str, index: usize) -> String {
    format!("{protocol}.items[{index}]")
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

    fn fixed(min: f64, max: f64, resolution: f64) -> WireRule {
        WireRule::FixedPoint {
            min,
            max,
            min_inclusive: true,
            max_inclusive: true,
            resolution,
            first: 0,
            steps: 0,
            bits: 0,
        }
    }

    #[test]
    fn a_step_prints_as_its_own_decimal() {
        let printed = |rule: &WireRule, step: u64| {
            let value = rule.fixed_point().unwrap().dequantize(step);
            (value.to_string(), shortest_step(rule, value).to_string())
        };
        let rule = fixed(-180.0, 180.0, 0.01);
        assert_eq!(
            printed(&rule, 14048),
            ("-39.52000000000001".into(), "-39.52".into())
        );
        // The step -39.515 is not printed as -39.52, which lies inside it (at its edge).
        let rule = fixed(-180.005, 180.0, 0.01);
        assert_eq!(printed(&rule, 14049).1, "-39.515");
        // The top step of [0, 0.35] at 0.1 is max itself; those below it have one decimal.
        let rule = fixed(0.0, 0.35, 0.1);
        assert_eq!(printed(&rule, 4).1, "0.35");
        assert_eq!(
            printed(&rule, 3),
            ("0.30000000000000004".into(), "0.3".into())
        );
        // Off every step (an extrapolation) as it is; zero without a sign.
        assert_eq!(shortest_step(&rule, 0.123), 0.123);
        assert_eq!(printed(&fixed(-1.0, 1.0, 0.1), 10).1, "0");
        assert_eq!(shortest_step(&WireRule::Float64, 0.1 + 0.2), 0.1 + 0.2);
    }

    #[test]
    fn non_finite_floats_are_strings() {
        assert_eq!(Value::Float(f64::NAN).to_string(), "\"NaN\"");
        assert_eq!(Value::Float(f64::NEG_INFINITY).to_string(), "\"-inf\"");
        assert_eq!(Value::Bytes(vec![1, 2]).to_string(), "[1,2]");
    }
}
