//! Rust names of IDL names: types and enumerators UpperCamelCase, fields snake_case (heck), Rust
//! keywords escaped.
//!
//! - A Rust keyword becomes a raw identifier: `type` → `r#type`.
//! - The words that cannot be raw identifiers (`self`, `Self`, `super`, `crate`, `_`) get a `_`
//!   suffix: `self` → `self_`, `Self` → `Self_`.
//! - A name that heck turns into nothing (`_`, `__`) keeps its IDL spelling (then escaped).
//! - Acronyms follow heck: `HTTPServer` → `HttpServer` / `http_server`; digits stay attached to
//!   the word before them: `vec3` → `Vec3`.
//!
//! The conversion is a pure function of the IDL name. Two IDL names that become the same Rust name
//! are an error of mapping resolution ([`find_clashes`] finds them), never renamed silently.

use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::ir::naming::{cpp_escape, escape};

/// `converted`, or `original` when the conversion left nothing (`_` → ``), then escaped for
/// the target language.
fn finish(converted: String, original: &str, escape: fn(&str) -> String) -> String {
    if converted.is_empty() {
        escape(original)
    } else {
        escape(&converted)
    }
}

/// The Rust name of an IDL struct or enum: UpperCamelCase, escaped.
pub fn type_name(idl: &str) -> String {
    finish(idl.to_upper_camel_case(), idl, escape)
}

/// The Rust name of an IDL field or RPC parameter: snake_case, escaped.
pub fn field_name(idl: &str) -> String {
    finish(idl.to_snake_case(), idl, escape)
}

/// The Rust name of an IDL enumerator: UpperCamelCase, escaped.
pub fn variant_name(idl: &str) -> String {
    type_name(idl)
}

/// The C++ name of an IDL struct or enum: UpperCamelCase as in Rust, a reserved word escaped.
pub fn cpp_type_name(idl: &str) -> String {
    finish(idl.to_upper_camel_case(), idl, cpp_escape)
}

/// The C++ name of an IDL field or RPC parameter: snake_case as in Rust, a reserved word
/// escaped (`class_`).
pub fn cpp_field_name(idl: &str) -> String {
    finish(idl.to_snake_case(), idl, cpp_escape)
}

/// The C++ name of an IDL enumerator: UpperCamelCase, as Rust's variants.
pub fn cpp_variant_name(idl: &str) -> String {
    cpp_type_name(idl)
}

/// The clashes among `rust_names` (the Rust names of IDL names, in declaration order): for every
/// name that an earlier one already has, `(index of the first, index of this one)`.
pub fn find_clashes<S: AsRef<str>>(rust_names: &[S]) -> Vec<(usize, usize)> {
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut clashes = Vec::new();
    for (index, name) in rust_names.iter().enumerate() {
        match first.get(name.as_ref()) {
            Some(&earlier) => clashes.push((earlier, index)),
            None => {
                first.insert(name.as_ref(), index);
            }
        }
    }
    clashes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::naming::is_keyword;

    #[test]
    fn cases() {
        assert_eq!(type_name("character"), "Character");
        assert_eq!(type_name("my_struct"), "MyStruct");
        assert_eq!(type_name("Character"), "Character");
        assert_eq!(field_name("animation_frame"), "animation_frame");
        assert_eq!(field_name("animationFrame"), "animation_frame");
        assert_eq!(field_name("CharacterId"), "character_id");
        assert_eq!(variant_name("STANDING"), "Standing");
        assert_eq!(variant_name("walking"), "Walking");
    }

    #[test]
    fn acronyms() {
        assert_eq!(type_name("HTTPServer"), "HttpServer");
        assert_eq!(field_name("HTTPServer"), "http_server");
        assert_eq!(field_name("userID"), "user_id");
        assert_eq!(type_name("IOError"), "IoError");
    }

    #[test]
    fn digits() {
        assert_eq!(type_name("vec3"), "Vec3");
        assert_eq!(type_name("Vec3"), "Vec3");
        assert_eq!(field_name("x2"), "x2");
        assert_eq!(field_name("pos2d"), "pos2d");
        assert_eq!(type_name("u8_pair"), "U8Pair");
        assert_eq!(variant_name("LEVEL_1"), "Level1");
    }

    #[test]
    fn keywords() {
        assert_eq!(field_name("type"), "r#type");
        assert_eq!(field_name("match"), "r#match");
        assert_eq!(field_name("Type"), "r#type");
        assert_eq!(field_name("async"), "r#async");
        assert_eq!(field_name("gen"), "r#gen");
        assert_eq!(field_name("self"), "self_");
        assert_eq!(field_name("super"), "super_");
        assert_eq!(field_name("crate"), "crate_");
        assert_eq!(field_name("_"), "__");
        assert_eq!(field_name("__"), "__");
        assert_eq!(type_name("self"), "Self_");
        assert_eq!(variant_name("SELF"), "Self_");
        // An UpperCamelCase name is never a lowercase keyword.
        assert_eq!(type_name("type"), "Type");
        // Not keywords: left alone.
        assert_eq!(field_name("union"), "union");
        assert_eq!(escape("r#x"), "r#x");
        assert!(is_keyword("Self"));
        assert!(!is_keyword("angle"));
    }

    #[test]
    fn clashes() {
        let idl = ["fooBar", "x", "foo_bar", "FooBar", "y"];
        let rust: Vec<String> = idl.iter().map(|n| field_name(n)).collect();
        assert_eq!(find_clashes(&rust), vec![(0, 2), (0, 3)]);
        let types: Vec<String> = ["foo_bar", "FooBar", "Other"]
            .iter()
            .map(|n| type_name(n))
            .collect();
        assert_eq!(find_clashes(&types), vec![(0, 1)]);
        let none: Vec<String> = ["a", "b"].iter().map(|n| field_name(n)).collect();
        assert!(find_clashes(&none).is_empty());
        // Escaping keeps clashes visible: `self` and `self_` are both `self_`.
        assert_eq!(
            find_clashes(&[field_name("self"), field_name("self_")]),
            vec![(0, 1)]
        );
    }
}
