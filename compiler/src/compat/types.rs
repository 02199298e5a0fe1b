//! Questions about IR types that the rules ask: which structs are nested, whether one type
//! widens another, whether a DEFAULT is a value of its type.

use std::collections::HashMap;

use indexmap::IndexMap;

use crate::ir::{EntryKind, EnumDef, Loc, Schema, StructKind, Type, Value};

/// How deep types are followed; the front ends refuse deeper nesting long before this.
const MAX_DEPTH: u32 = 256;

/// The structs that stand inside another struct (a field, a SEQUENCE or ARRAY element, an
/// OPTIONAL, an EXTEND's type, an RPC's response other than a bare struct), each with one
/// place that nests it.
#[derive(Debug, Default)]
pub(super) struct Nested {
    uses: HashMap<String, Loc>,
}

impl Nested {
    /// Adds the nested structs of `schema`.
    pub(super) fn collect(&mut self, schema: &Schema) {
        for def in schema.structs.values() {
            for segment in &def.segments {
                for field in &segment.fields {
                    self.add_type(&field.ty, field.loc, 0);
                }
                for extend in &segment.extends {
                    self.add_type(&extend.to, extend.loc, 0);
                }
            }
        }
        for protocol in schema.protocols.values() {
            for entry in &protocol.entries {
                if let EntryKind::Rpc {
                    returns: Some(ty), ..
                } = &entry.kind
                {
                    // A bare struct response is framed on its own, like a message.
                    if !matches!(ty, Type::Struct(_)) {
                        self.add_type(ty, protocol.loc, 0);
                    }
                }
            }
        }
    }

    fn add_type(&mut self, ty: &Type, at: Loc, depth: u32) {
        if depth > MAX_DEPTH {
            return;
        }
        match ty {
            Type::Struct(name) => {
                self.uses.entry(name.clone()).or_insert(at);
            }
            Type::Sequence { element, .. } | Type::Array { element, .. } => {
                self.add_type(element, at, depth + 1);
            }
            Type::Optional(inner) => self.add_type(inner, at, depth + 1),
            _ => {}
        }
    }

    /// A place that nests the struct `name`, if some struct does.
    pub(super) fn use_of(&self, name: &str) -> Option<Loc> {
        self.uses.get(name).copied()
    }
}

/// The IDL keyword of a struct kind (`RPC` for a parameter list).
pub(super) fn kind_name(kind: StructKind) -> &'static str {
    kind.keyword()
}

/// What a member of a struct of this kind is called.
pub(super) fn member_word(kind: StructKind) -> &'static str {
    match kind {
        StructKind::RpcParams => "parameter",
        _ => "field",
    }
}

/// The inclusive range of an integer type, computed without overflow on any width.
pub(super) fn int_bounds(ty: &Type) -> Option<(i128, i128)> {
    match *ty {
        Type::Uint(bits) if (1..=64).contains(&bits) => Some((0, (1i128 << bits) - 1)),
        Type::Int(bits) if (1..=64).contains(&bits) => {
            Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
        }
        Type::IntRange { min, max } => Some((min, max)),
        _ => None,
    }
}

/// Whether every value of `from` is a value of `to` and `to` differs: what EXTEND demands.
/// Enums are looked up in `enums` (both are NEW's when checking an EXTEND of NEW).
pub(super) fn widens(from: &Type, to: &Type, enums: &IndexMap<String, EnumDef>) -> bool {
    from != to && holds(to, from, enums)
}

/// Whether `outer` holds every value of `inner` (equal types hold each other).
pub(super) fn holds(outer: &Type, inner: &Type, enums: &IndexMap<String, EnumDef>) -> bool {
    if outer == inner {
        return true;
    }
    if let (Some((a, b)), Some((c, d))) = (int_bounds(inner), int_bounds(outer)) {
        return c <= a && b <= d;
    }
    let bound_holds = |inner: &Option<u64>, outer: &Option<u64>| match (inner, outer) {
        (_, None) => true,
        (Some(i), Some(o)) => o >= i,
        (None, Some(_)) => false,
    };
    match (inner, outer) {
        (Type::Float32, Type::Float64) => true,
        (
            Type::Numeric {
                min: a,
                max: b,
                min_inclusive: a_in,
                max_inclusive: b_in,
            },
            Type::Numeric {
                min: c,
                max: d,
                min_inclusive: c_in,
                max_inclusive: d_in,
            },
        ) => {
            let low = c < a || (c == a && (*c_in || !*a_in));
            let high = b < d || (b == d && (*d_in || !*b_in));
            low && high
        }
        (Type::String { max: i }, Type::String { max: o })
        | (Type::Bytes { max: i }, Type::Bytes { max: o }) => bound_holds(i, o),
        (
            Type::Sequence {
                element: ie,
                max: i,
            },
            Type::Sequence {
                element: oe,
                max: o,
            },
        ) => ie == oe && bound_holds(i, o),
        (Type::Enum(i), Type::Enum(o)) => enum_begins_with(enums.get(o), enums.get(i)),
        _ => false,
    }
}

/// Whether `outer` begins with all of `inner`'s enumerators: same names, values and order.
pub(super) fn enum_begins_with(outer: Option<&EnumDef>, inner: Option<&EnumDef>) -> bool {
    match (outer, inner) {
        (Some(outer), Some(inner)) => {
            outer.enumerators.len() >= inner.enumerators.len()
                && outer
                    .enumerators
                    .iter()
                    .zip(&inner.enumerators)
                    .all(|(o, i)| o == i)
        }
        _ => false,
    }
}

/// Whether a new field of this type must say its DEFAULT: sequences, arrays, optionals and
/// structs have one of their own (empty, absent, their fields' defaults).
pub(super) fn needs_default(ty: &Type) -> bool {
    !matches!(
        ty,
        Type::Sequence { .. } | Type::Array { .. } | Type::Optional(_) | Type::Struct(_)
    )
}

/// Whether `value` is a value of `ty`.
pub(super) fn value_fits(ty: &Type, value: &Value, enums: &IndexMap<String, EnumDef>) -> bool {
    match (ty, value) {
        (Type::Bool, Value::Bool(_)) => true,
        (_, Value::Int(v)) if int_bounds(ty).is_some() => {
            int_bounds(ty).is_some_and(|(min, max)| (min..=max).contains(v))
        }
        (Type::Float32 | Type::Float64, Value::Int(_)) => true,
        (Type::Float32 | Type::Float64, Value::Real(v)) => v.is_finite(),
        (
            Type::Numeric {
                min,
                max,
                min_inclusive,
                max_inclusive,
            },
            Value::Int(_) | Value::Real(_),
        ) => {
            let v = match value {
                Value::Int(v) => *v as f64,
                Value::Real(v) => *v,
                _ => f64::NAN,
            };
            let above = if *min_inclusive { v >= *min } else { v > *min };
            let below = if *max_inclusive { v <= *max } else { v < *max };
            above && below
        }
        (Type::String { max }, Value::Str(s)) | (Type::Bytes { max }, Value::Str(s)) => {
            max.is_none_or(|max| s.len() as u64 <= max)
        }
        (Type::Enum(e), Value::Enumerator(name)) => enums
            .get(e)
            .is_some_and(|def| def.enumerators.iter().any(|x| &x.name == name)),
        _ => false,
    }
}

/// How the IDL writes a value.
pub(super) fn describe_value(value: &Value) -> String {
    match value {
        Value::Int(v) => v.to_string(),
        Value::Real(v) => {
            let text = v.to_string();
            if text.contains(['.', 'e', 'E', 'N', 'i']) {
                text
            } else {
                format!("{text}.")
            }
        }
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => format!("{s:?}"),
        Value::Enumerator(name) => name.clone(),
    }
}

/// A DEFAULT to suggest for a new field of type `ty`.
pub(super) fn example_default(ty: &Type, enums: &IndexMap<String, EnumDef>) -> String {
    match ty {
        Type::Bool => "false".into(),
        Type::String { .. } | Type::Bytes { .. } => "\"\"".into(),
        Type::Enum(name) => enums
            .get(name)
            .and_then(|def| def.enumerators.first())
            .map_or_else(|| "<an enumerator>".into(), |e| e.name.clone()),
        Type::Numeric { min, max, .. } => {
            // Zero if the range holds it, else the nearer end (no clamp: it panics on NaN).
            let value = if *min > 0.0 {
                *min
            } else if *max < 0.0 {
                *max
            } else {
                0.0
            };
            describe_value(&Value::Real(value))
        }
        _ => int_bounds(ty)
            .map(|(min, max)| 0i128.clamp(min, max.max(min)).to_string())
            .unwrap_or_else(|| "0".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Enumerator;

    fn numeric(min: f64, max: f64, min_inclusive: bool, max_inclusive: bool) -> Type {
        Type::Numeric {
            min,
            max,
            min_inclusive,
            max_inclusive,
        }
    }

    fn enum_def(name: &str, names: &[&str]) -> (String, EnumDef) {
        let enumerators = names
            .iter()
            .zip(0..)
            .map(|(n, value)| Enumerator {
                name: n.to_string(),
                value,
            })
            .collect();
        (
            name.to_string(),
            EnumDef {
                name: name.to_string(),
                enumerators,
                loc: Loc::default(),
            },
        )
    }

    #[test]
    fn widening_of_integers_and_numerics() {
        let enums = IndexMap::new();
        let range = |min, max| Type::IntRange { min, max };
        assert!(widens(&Type::Uint(16), &Type::Uint(32), &enums));
        assert!(widens(&range(0, 50), &range(0, 100), &enums));
        assert!(!widens(&range(0, 100), &range(0, 50), &enums));
        assert!(!widens(&range(0, 100), &range(0, 100), &enums));
        assert!(widens(&Type::Uint(8), &Type::Int(16), &enums));
        assert!(!widens(&Type::Int(8), &Type::Uint(16), &enums));
        assert!(widens(
            &numeric(0.0, 1.0, true, false),
            &numeric(0.0, 1.0, true, true),
            &enums
        ));
        assert!(!widens(
            &numeric(0.0, 1.0, true, true),
            &numeric(0.0, 1.0, true, false),
            &enums
        ));
        assert!(widens(&Type::Float32, &Type::Float64, &enums));
        assert!(!widens(&Type::Float64, &Type::Float32, &enums));
        assert!(widens(
            &Type::String { max: Some(8) },
            &Type::String { max: None },
            &enums
        ));
        assert!(!widens(
            &Type::Bytes { max: None },
            &Type::Bytes { max: Some(8) },
            &enums
        ));
        assert!(!widens(&Type::Int(0), &Type::Uint(200), &enums));
    }

    #[test]
    fn widening_of_enums() {
        let enums: IndexMap<String, EnumDef> = [
            enum_def("Mood", &["Calm", "Happy"]),
            enum_def("Mood2", &["Calm", "Happy", "Angry"]),
            enum_def("Other", &["Happy", "Calm", "Angry"]),
        ]
        .into_iter()
        .collect();
        let e = |name: &str| Type::Enum(name.into());
        assert!(widens(&e("Mood"), &e("Mood2"), &enums));
        assert!(!widens(&e("Mood2"), &e("Mood"), &enums));
        assert!(!widens(&e("Mood"), &e("Other"), &enums));
        assert!(!widens(&e("Mood"), &e("Missing"), &enums));
    }

    #[test]
    fn defaults_fit_their_types() {
        let enums: IndexMap<String, EnumDef> = [enum_def("Mood", &["Calm"])].into_iter().collect();
        let range = Type::IntRange { min: 1, max: 9 };
        assert!(value_fits(&range, &Value::Int(1), &enums));
        assert!(!value_fits(&range, &Value::Int(0), &enums));
        assert!(!value_fits(
            &numeric(0.0, 1.0, true, false),
            &Value::Real(1.0),
            &enums
        ));
        assert!(value_fits(
            &Type::Enum("Mood".into()),
            &Value::Enumerator("Calm".into()),
            &enums
        ));
        assert!(!value_fits(
            &Type::Enum("Mood".into()),
            &Value::Enumerator("Angry".into()),
            &enums
        ));
        assert!(!value_fits(
            &Type::String { max: Some(2) },
            &Value::Str("abc".into()),
            &enums
        ));
        assert_eq!(example_default(&range, &enums), "1");
        assert_eq!(example_default(&Type::Enum("Mood".into()), &enums), "Calm");
        assert_eq!(describe_value(&Value::Real(1.0)), "1.");
        assert_eq!(describe_value(&Value::Real(0.5)), "0.5");
    }
}
