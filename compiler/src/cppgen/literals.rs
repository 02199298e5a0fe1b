//! C++ literals that read back as exactly the value the IR holds.

use super::unsupported;
use crate::codegen::CodegenError;

/// An integer bound as the runtime's range arguments take it (an `idlc::Int128`, which any
/// built-in integer converts to).
pub(super) fn int128(v: i128) -> Result<String, CodegenError> {
    if i64::try_from(v).is_ok() || u64::try_from(v).is_ok() {
        Ok(int_literal(v))
    } else {
        Err(unsupported("a range beyond 64 bits"))
    }
}

/// An integer literal: `u`-suffixed above `INT64_MAX`, and `INT64_MIN` spelled so that no literal
/// overflows.
pub(super) fn int_literal(v: i128) -> String {
    if v == i128::from(i64::MIN) {
        "(-9223372036854775807 - 1)".into()
    } else if v > i128::from(i64::MAX) {
        format!("{v}u")
    } else {
        v.to_string()
    }
}

/// A `double` literal that reads back as the same double.
pub(super) fn double(v: f64) -> String {
    let text = format!("{v:?}");
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}

/// A `float` literal that reads back as the same float.
pub(super) fn single(v: f32) -> String {
    let text = format!("{v:?}");
    if text.contains(['.', 'e', 'E']) {
        format!("{text}f")
    } else {
        format!("{text}.0f")
    }
}

/// A C++ string literal of `text`: printable ASCII as it is, every other byte as an octal escape
/// (three digits, so that no digit after it joins the escape).
pub(super) fn string_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for byte in text.bytes() {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' '..=b'~' => out.push(char::from(byte)),
            _ => out.push_str(&format!("\\{byte:03o}")),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_keep_their_values() {
        assert_eq!(int_literal(-5), "-5");
        assert_eq!(int_literal(i128::from(u64::MAX)), "18446744073709551615u");
        assert_eq!(
            int_literal(i128::from(i64::MIN)),
            "(-9223372036854775807 - 1)"
        );
        assert_eq!(double(1.0), "1.0");
        assert_eq!(double(0.1), "0.1");
        assert_eq!(single(0.1), "0.1f");
        assert_eq!(single(3.0), "3.0f");
        assert_eq!(string_literal("a\"b\\\u{e9}1"), "\"a\\\"b\\\\\\303\\2511\"");
    }
}
