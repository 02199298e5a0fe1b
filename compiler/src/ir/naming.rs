//! Names both the resolution of mappings (resolve/names.rs) and the backends need, here so that
//! no backend reaches back into `resolve`: Rust's keywords and C++'s reserved words, and their
//! escapes.

/// Keywords of every Rust edition (strict and reserved) that a raw identifier can stand for.
const RAW_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Words that are not valid identifiers and cannot be raw identifiers either.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Whether `word` is a Rust keyword (including those that cannot be raw identifiers).
pub fn is_keyword(word: &str) -> bool {
    RAW_KEYWORDS.contains(&word) || NOT_RAW.contains(&word)
}

/// Makes `ident` usable as a Rust identifier: keywords become raw identifiers (`r#type`), words
/// that cannot be raw get a `_` suffix (`self_`). Other identifiers are returned unchanged.
pub fn escape(ident: &str) -> String {
    if NOT_RAW.contains(&ident) {
        format!("{ident}_")
    } else if RAW_KEYWORDS.contains(&ident) {
        format!("r#{ident}")
    } else {
        ident.to_owned()
    }
}

/// C++'s reserved words (C++20, which a C++17 header must not take either).
const CPP_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
];

/// Makes `ident` usable as a C++ identifier: a reserved word gets a `_` suffix (`class_`).
pub fn cpp_escape(ident: &str) -> String {
    if CPP_KEYWORDS.contains(&ident) {
        format!("{ident}_")
    } else {
        ident.to_owned()
    }
}

/// Whether `ident` is a C++ reserved word.
pub fn is_cpp_keyword(ident: &str) -> bool {
    CPP_KEYWORDS.contains(&ident)
}

/// The name of an encoding's type in generated code (the Rust backend's marker, the C++
/// backend's tag struct): the encoding's own name unless `taken` says a backend cannot give it,
/// else `<Name>Encoding` in UpperCamelCase (`<Name>Encoding2`, ... while that is taken too); the
/// built-in encoding is `BuiltinEncoding`. Both backends pass what their code already names, so
/// that one schema gets the same names in both where it can.
pub fn encoding_type_name(encoding: &str, taken: impl Fn(&str) -> bool) -> String {
    if encoding == "Default" {
        return "BuiltinEncoding".to_string();
    }
    if !taken(encoding) {
        return encoding.to_string();
    }
    let base = format!("{}Encoding", heck::AsUpperCamelCase(encoding));
    let mut name = base.clone();
    let mut suffix = 2;
    while taken(&name) {
        name = format!("{base}{suffix}");
        suffix += 1;
    }
    name
}
