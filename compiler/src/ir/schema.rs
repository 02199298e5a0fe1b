//! The schema part of the IR: the IDL's types, resolved.

use indexmap::IndexMap;
use serde::Serialize;

use super::Loc;

/// Every named type and protocol of the IDL files, in declaration order.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Schema {
    /// Structs (all three kinds) and RPC parameter lists, by name.
    pub structs: IndexMap<String, StructDef>,
    /// Enums (top level and inline), by name.
    pub enums: IndexMap<String, EnumDef>,
    /// Typedefs, by name, with the type they stand for (already expanded in fields).
    pub typedefs: IndexMap<String, TypedefDef>,
    /// CONSTs, by name.
    pub consts: IndexMap<String, ConstDef>,
    /// Protocols, by name.
    pub protocols: IndexMap<String, ProtocolDef>,
}

/// What kind of struct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum StructKind {
    /// `STRUCT`: plain data.
    Struct,
    /// `PUBLISHABLE_STRUCT`: replicated state; may be delta-coded.
    Publishable,
    /// `MESSAGE`: sent on its own inside a protocol.
    Message,
    /// The parameter list of an RPC, as a struct named after the RPC.
    RpcParams,
    /// The response of an RPC `f(..) -> T`: a struct named [`response_struct_name`]`(f)` with
    /// one field, `value: T`, so that the response is encoded like any struct (by the
    /// encoding's DEFAULTS).
    RpcResponse,
}

impl StructKind {
    /// The IDL keyword of the kind (`RPC` for a parameter list, `RPC response` for a response).
    pub fn keyword(self) -> &'static str {
        match self {
            StructKind::Struct => "STRUCT",
            StructKind::Publishable => "PUBLISHABLE_STRUCT",
            StructKind::Message => "MESSAGE",
            StructKind::RpcParams => "RPC",
            StructKind::RpcResponse => "RPC response",
        }
    }
}

/// The IDL name of the struct that carries the response of the RPC `rpc`: `rpc.response` (a
/// name no IDL item can take; its Rust name is `<Rpc>Response`).
pub fn response_struct_name(rpc: &str) -> String {
    format!("{rpc}.response")
}

/// The alias a generated module declares for its default encoding's marker.
pub const DEFAULT_ENCODING_ALIAS: &str = "DefaultEncoding";

/// The Rust types a generated module declares for the protocol `idl`: its unit struct, then
/// its `Message` and `Response` enums, its `Handler` trait, its `Sender` and `Receiver`.
pub fn protocol_type_names(idl: &str) -> [String; 6] {
    let base = heck::AsUpperCamelCase(idl).to_string();
    [
        base.clone(),
        format!("{base}Message"),
        format!("{base}Response"),
        format!("{base}Handler"),
        format!("{base}Sender"),
        format!("{base}Receiver"),
    ]
}

/// The one field of an RPC's response struct.
pub const RESPONSE_FIELD: &str = "value";

/// A struct, message, publishable struct or RPC parameter list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructDef {
    /// The IDL name.
    pub name: String,
    /// What kind.
    pub kind: StructKind,
    /// The fields between fences: segment 0 is the first version.
    pub segments: Vec<Segment>,
    /// Whether the last member is a FENCE: an open extension point (WIRE.md).
    pub open_end: bool,
    /// The protocol the struct was declared in, if any.
    pub protocol: Option<String>,
    /// Where it was declared.
    #[serde(skip)]
    pub loc: Loc,
    /// Where each FENCE was written, in order: entry k is the FENCE before segment k + 1, and
    /// with [`StructDef::open_end`] the last entry is the closing FENCE. For diagnostics of later
    /// stages (check-compat); may be shorter in an IR built by hand.
    #[serde(skip)]
    pub fence_locs: Vec<Loc>,
    /// Fields declared with a type that had an error (reported by the IDL's resolver): left out
    /// of `segments`, and named here so that an encoding or mapping naming one is not reported
    /// again as naming an unknown field. Empty in an IR without errors.
    #[serde(skip)]
    pub unresolved: Vec<String>,
}

impl StructDef {
    /// All fields in declaration order, across segments.
    pub fn fields(&self) -> impl Iterator<Item = &Field> {
        self.segments.iter().flat_map(|s| s.fields.iter())
    }

    /// Whether `name` is a field declared with a type that had an error ([`Self::unresolved`]).
    pub fn is_unresolved(&self, name: &str) -> bool {
        self.unresolved.iter().any(|n| n == name)
    }

    /// The IDL type the field `name` has now: its last EXTEND's, else the declared one.
    pub fn current_type(&self, name: &str) -> Option<&Type> {
        let extended = self
            .segments
            .iter()
            .flat_map(|s| &s.extends)
            .rfind(|e| e.field == name)
            .map(|e| &e.to);
        extended.or_else(|| self.field(name).map(|(_, f)| &f.ty))
    }

    /// The field named `name`, with the index of its segment.
    pub fn field(&self, name: &str) -> Option<(usize, &Field)> {
        self.segments
            .iter()
            .enumerate()
            .find_map(|(i, s)| s.fields.iter().find(|f| f.name == name).map(|f| (i, f)))
    }
}

/// The members of a struct between two fences.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Segment {
    /// EXTENDs of fields of earlier segments, in order.
    pub extends: Vec<Extend>,
    /// New fields, in order.
    pub fields: Vec<Field>,
}

/// A field of a struct.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The IDL name.
    pub name: String,
    /// The IDL type, typedefs expanded.
    pub ty: Type,
    /// The value a reader uses when the sender did not send the field (fields after a fence).
    pub default: Option<Value>,
    /// Where it was declared.
    #[serde(skip)]
    pub loc: Loc,
}

/// `EXTEND field TO type`: the field keeps its old slot; the extension carries the rest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extend {
    /// The widened field.
    pub field: String,
    /// Its type before this extension.
    pub from: Type,
    /// Its type from this segment on.
    pub to: Type,
    /// Where it was written.
    #[serde(skip)]
    pub loc: Loc,
}

/// An IDL type, resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Type {
    /// `BOOL`.
    Bool,
    /// `UINT8` .. `UINT64`: the bit width.
    Uint(u8),
    /// `INT8` .. `INT64`: the bit width.
    Int(u8),
    /// `FLOAT32`.
    Float32,
    /// `FLOAT64`.
    Float64,
    /// `INT[a,b]`, normalized to inclusive bounds.
    IntRange {
        /// The smallest value.
        min: i128,
        /// The largest value.
        max: i128,
    },
    /// `NUMERIC[a,b]`.
    Numeric {
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
        /// Whether `min` itself is allowed.
        min_inclusive: bool,
        /// Whether `max` itself is allowed.
        max_inclusive: bool,
    },
    /// `STRING<max>`: UTF-8 text of at most `max` bytes.
    String {
        /// The longest allowed, in bytes.
        max: Option<u64>,
    },
    /// `BYTES<max>`.
    Bytes {
        /// The longest allowed, in bytes.
        max: Option<u64>,
    },
    /// `SEQUENCE<T, max>`.
    Sequence {
        /// The element type.
        element: Box<Type>,
        /// The most elements allowed.
        max: Option<u64>,
    },
    /// `ARRAY<T, len>`.
    Array {
        /// The element type.
        element: Box<Type>,
        /// The exact element count.
        len: u64,
    },
    /// `OPTIONAL<T>`.
    Optional(Box<Type>),
    /// `QUATERNION`: a unit quaternion `(x, y, z, w)`, a rotation.
    Quaternion,
    /// A struct, by name.
    Struct(String),
    /// An enum, by name.
    Enum(String),
}

impl Type {
    /// The value a field of this type takes without a DEFAULT when zero is no value of its
    /// range: an integer range's lower end; a NUMERIC range's lower end, or its middle when that
    /// end is open. `None` when zero is a value, or the type has no range. Every backend's
    /// struct defaults and absent-segment values start from it.
    pub fn zero_substitute(&self) -> Option<Value> {
        match self {
            Type::IntRange { min, max } if !(*min..=*max).contains(&0) => Some(Value::Int(*min)),
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
                match (above && below, min_inclusive) {
                    (true, _) => None,
                    (false, true) => Some(Value::Real(*min)),
                    (false, false) => Some(Value::Real(min + (max - min) / 2.0)),
                }
            }
            _ => None,
        }
    }

    /// The integer range of an integer type (fixed width or ranged), inclusive.
    pub fn int_range(&self) -> Option<(i128, i128)> {
        match *self {
            Type::Uint(bits) => Some((0, (1i128 << bits) - 1)),
            Type::Int(bits) => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
            Type::IntRange { min, max } => Some((min, max)),
            _ => None,
        }
    }

    /// How the IDL writes this type, for messages.
    pub fn describe(&self) -> String {
        match self {
            Type::Bool => "BOOL".into(),
            Type::Uint(bits) => format!("UINT{bits}"),
            Type::Int(bits) => format!("INT{bits}"),
            Type::Float32 => "FLOAT32".into(),
            Type::Float64 => "FLOAT64".into(),
            Type::IntRange { min, max } => format!("INT[{min},{max}]"),
            Type::Numeric {
                min,
                max,
                min_inclusive,
                max_inclusive,
            } => format!(
                "NUMERIC{}{},{}{}",
                if *min_inclusive { '[' } else { '(' },
                real_text(*min),
                real_text(*max),
                if *max_inclusive { ']' } else { ')' }
            ),
            Type::String { max: None } => "STRING".into(),
            Type::String { max: Some(n) } => format!("STRING<{n}>"),
            Type::Bytes { max: None } => "BYTES".into(),
            Type::Bytes { max: Some(n) } => format!("BYTES<{n}>"),
            Type::Sequence { element, max: None } => format!("SEQUENCE<{}>", element.describe()),
            Type::Sequence {
                element,
                max: Some(n),
            } => format!("SEQUENCE<{},{n}>", element.describe()),
            Type::Array { element, len } => format!("ARRAY<{},{len}>", element.describe()),
            Type::Optional(inner) => format!("OPTIONAL<{}>", inner.describe()),
            Type::Quaternion => "QUATERNION".into(),
            Type::Struct(name) | Type::Enum(name) => name.clone(),
        }
    }
}

/// A DEFAULT or CONST value, resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Value {
    /// An integer.
    Int(i128),
    /// A real number.
    Real(f64),
    /// `true` / `false`.
    Bool(bool),
    /// A string.
    Str(String),
    /// An enumerator, by name.
    Enumerator(String),
}

impl Value {
    /// `-self` for a number (a CONST negated, `-MAX_SPEED`); None for any other value.
    pub fn negated(&self) -> Option<Value> {
        match self {
            Value::Int(v) => Some(Value::Int(-v)),
            Value::Real(v) => Some(Value::Real(-v)),
            _ => None,
        }
    }

    /// The value as a message shows it: `3`, `0.5`, `true`, `"text"`, `Idle`.
    pub fn describe(&self) -> String {
        match self {
            Value::Int(v) => v.to_string(),
            Value::Real(v) => v.to_string(),
            Value::Bool(v) => v.to_string(),
            Value::Str(s) => format!("{s:?}"),
            Value::Enumerator(name) => name.clone(),
        }
    }
}

/// An enum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnumDef {
    /// The IDL name.
    pub name: String,
    /// The enumerators in declaration order; on the wire an enumerator is its index here.
    pub enumerators: Vec<Enumerator>,
    /// Where it was declared.
    #[serde(skip)]
    pub loc: Loc,
}

/// One enumerator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Enumerator {
    /// The IDL name.
    pub name: String,
    /// Its numeric value (explicit, or one more than the previous).
    pub value: i64,
}

/// A typedef.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypedefDef {
    /// The IDL name.
    pub name: String,
    /// The type it stands for.
    pub ty: Type,
    /// Where it was declared.
    #[serde(skip)]
    pub loc: Loc,
}

/// A CONST.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConstDef {
    /// The IDL name.
    pub name: String,
    /// Its value.
    pub value: Value,
    /// Where it was declared.
    #[serde(skip)]
    pub loc: Loc,
}

/// A protocol: messages and RPCs with ids, split into versions by fences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtocolDef {
    /// The IDL name.
    pub name: String,
    /// Messages and RPCs in declaration order; ids follow it from 0.
    pub entries: Vec<ProtocolEntry>,
    /// How many fences the protocol has (versions = fences + 1).
    pub fences: usize,
    /// Where it was declared.
    #[serde(skip)]
    pub loc: Loc,
    /// Where each FENCE of the protocol's list was written, in order (for diagnostics of later
    /// stages; may be shorter in an IR built by hand).
    #[serde(skip)]
    pub fence_locs: Vec<Loc>,
}

/// A message or RPC of a protocol.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProtocolEntry {
    /// The message id.
    pub id: u32,
    /// The version (segment) it belongs to.
    pub segment: usize,
    /// What it is.
    pub kind: EntryKind,
}

/// A protocol entry's kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum EntryKind {
    /// A struct or message sent on its own, by struct name.
    Message(String),
    /// An RPC: its parameters are the struct of the same name (kind `RpcParams`).
    Rpc {
        /// The RPC's name (and the name of its parameter struct).
        name: String,
        /// The response type of a request.
        returns: Option<Type>,
    },
}

/// A range end or a resolution as a diagnostic shows it: `0.01`, `-10000`, or `1e300` where the plain form would
/// run to dozens of digits.
pub fn real_text(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1e16 || (magnitude != 0.0 && magnitude < 1e-6) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}
