//! The mapping part of the IR: the type of everything on one side, in the side's target
//! language (Rust, or C++: the same kinds of type, named as C++ names them).

use indexmap::IndexMap;
use serde::Serialize;

use super::Loc;

/// The target language of a side: the first argument of its `MAPPING(...)` items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub enum Language {
    /// `MAPPING("Rust", ...)`, and a side without mapping items.
    #[default]
    Rust,
    /// `MAPPING("CPP", ...)`: the names and types are C++'s (`double`, `std::vector<Item>`,
    /// a custom collection class); [`RustType`] holds the same kinds of type.
    Cpp,
}

impl Language {
    /// The language as a MAPPING names it: `"Rust"`, `"CPP"`.
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "Rust",
            Language::Cpp => "CPP",
        }
    }

    /// The language a MAPPING's first argument names, if idlc knows it.
    pub fn from_name(name: &str) -> Option<Language> {
        match name {
            "Rust" => Some(Language::Rust),
            "CPP" => Some(Language::Cpp),
            _ => None,
        }
    }
}

/// The types of one side (`--side`), defaults filled in.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SideMapping {
    /// The side's name, if one was requested.
    pub side: Option<String>,
    /// The side's target language. The names below (`rust_name`) are that language's.
    pub language: Language,
    /// Extra derives for every generated type, as Rust paths.
    pub derives: Vec<String>,
    /// Headers a C++ side's generated header includes before its types (`INCLUDE`), in order.
    pub includes: Vec<String>,
    /// Per struct (by IDL name): its Rust name or existing type, and its fields' Rust types.
    pub structs: IndexMap<String, StructMapping>,
    /// Per enum (by IDL name): its Rust name and its variants' names.
    pub enums: IndexMap<String, EnumMapping>,
    /// Per protocol (by IDL name): which half this side gets.
    pub protocols: IndexMap<String, ProtocolRole>,
    /// Per TYPEDEF (by IDL name): the Rust alias and the type it stands for on this side.
    pub typedefs: IndexMap<String, TypedefMapping>,
}

impl SideMapping {
    /// Whether a struct (generated or existing), an enum or a TYPEDEF of the side has the name
    /// `name` in the side's language.
    pub fn names_type(&self, name: &str) -> bool {
        self.structs.values().any(|s| s.rust_name == name)
            || self.enums.values().any(|e| e.rust_name == name)
            || self.typedefs.values().any(|t| t.rust_name == name)
    }

    /// Which half of the protocol `name` this side gets: BOTH when no mapping says.
    pub fn role(&self, protocol: &str) -> ProtocolRole {
        self.protocols
            .get(protocol)
            .copied()
            .unwrap_or(ProtocolRole::Both)
    }
}

/// The Rust form of a TYPEDEF: `pub type Meters = f64;`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypedefMapping {
    /// The alias's name (UpperCamelCase).
    pub rust_name: String,
    /// The Rust type it stands for (the built-in mapping of the typedef's IDL type).
    pub ty: RustType,
}

/// The Rust form of one struct.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructMapping {
    /// The generated type's name (UpperCamelCase), or the existing type's path.
    pub rust_name: String,
    /// Whether the struct is an existing Rust type (no struct is generated).
    pub existing: bool,
    /// Per field (by IDL name).
    pub fields: IndexMap<String, FieldMapping>,
}

/// The Rust form of one enum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnumMapping {
    /// The generated enum's name (UpperCamelCase, escaped).
    pub rust_name: String,
    /// Per enumerator (by IDL name, in declaration order): its variant name (UpperCamelCase,
    /// escaped).
    pub variants: IndexMap<String, String>,
}

/// The Rust form of one field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldMapping {
    /// The Rust field name (snake_case, keywords escaped), or the existing type's field.
    pub rust_name: String,
    /// The Rust type.
    pub ty: RustType,
    /// Where a Mapping file wrote the type; `None` for a built-in type. Not serialized.
    #[serde(skip)]
    pub loc: Option<Loc>,
}

/// A Rust type of a field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum RustType {
    /// `bool`.
    Bool,
    /// `u8`, `i16`, ... : the type's name.
    Int(String),
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `String`.
    String,
    /// `Vec<u8>`.
    Bytes,
    /// `Vec<T>`.
    Vec(Box<RustType>),
    /// A user collection implementing the runtime's collection trait, with its element type.
    Collection {
        /// The collection's path, as written (`MyInventory`, `std::collections::VecDeque<Item>`).
        path: String,
        /// The element type.
        element: Box<RustType>,
    },
    /// `[T; N]`.
    Array(Box<RustType>, u64),
    /// `Option<T>`.
    Option(Box<RustType>),
    /// `Box<T>`: a struct held through an OPTIONAL that leads back to the struct holding it
    /// (`STRUCT Node { OPTIONAL<Node> next; }` is `Option<Box<Node>>`), or written in a mapping.
    Boxed(Box<RustType>),
    /// A generated struct or enum, or an existing type: its Rust name or path.
    Named(String),
    /// A QUATERNION: `idlc_runtime::Quaternion` (C++: `idlc::Quaternion`).
    Quaternion,
    /// A QUATERNION held in a game's own type, its path as written (`glam::Quat`): generated
    /// code converts it to `idlc_runtime::Quaternion` to send it and back when it reads one
    /// (`T: Copy`, `idlc_runtime::Quaternion: From<T>`, `T: From<idlc_runtime::Quaternion>`;
    /// docs/LANGUAGES.md, "Field types").
    QuaternionAs(String),
}

impl std::fmt::Display for RustType {
    /// The type as Rust source: `u16`, `Vec<Item>`, `[f32; 3]`, `Option<glam::Vec3>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RustType::Bool => f.write_str("bool"),
            RustType::Int(name) | RustType::Named(name) | RustType::QuaternionAs(name) => {
                f.write_str(name)
            }
            RustType::F32 => f.write_str("f32"),
            RustType::F64 => f.write_str("f64"),
            RustType::String => f.write_str("String"),
            RustType::Bytes => f.write_str("Vec<u8>"),
            RustType::Vec(element) => write!(f, "Vec<{element}>"),
            RustType::Collection { path, .. } => f.write_str(path),
            RustType::Array(element, len) => write!(f, "[{element}; {len}]"),
            RustType::Option(inner) => write!(f, "Option<{inner}>"),
            RustType::Boxed(inner) => write!(f, "Box<{inner}>"),
            RustType::Quaternion => f.write_str("idlc_runtime::Quaternion"),
        }
    }
}

/// Which half of a protocol a side gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ProtocolRole {
    /// Caller stubs.
    Send,
    /// Handler trait and dispatch.
    Receive,
    /// Both.
    Both,
}
