//! Lua literals: strings, numbers, integers beyond 2^53, and the values of DEFAULTs.

use std::fmt::Write as _;

use crate::interpret::Value;

/// A Lua string literal of `text` (quotes, backslashes and every byte outside printable ASCII
/// escaped as `\ddd`, so that the script is ASCII whatever the names).
pub fn string(text: &str) -> String {
    let mut out = String::from("\"");
    for byte in text.bytes() {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(byte)),
            _ => {
                let _ = write!(out, "\\{byte:03}");
            }
        }
    }
    out.push('"');
    out
}

/// A Lua number literal of `value` that reads back as the same double (`math.huge` for the
/// infinities; a NaN never reaches here: no range or rule holds one).
pub fn real(value: f64) -> String {
    if value == f64::INFINITY {
        "math.huge".to_string()
    } else if value == f64::NEG_INFINITY {
        "-math.huge".to_string()
    } else if value.is_nan() {
        "(0 / 0)".to_string()
    } else {
        // Rust's `{:?}` is the shortest text that reads back as the same double.
        format!("{value:?}")
    }
}

/// Whether every integer of `min..=max` is exact in a Lua 5.2 number (a double).
pub fn exact_in_double(min: i128, max: i128) -> bool {
    const LIMIT: i128 = 1 << 52;
    -LIMIT <= min && max <= LIMIT
}

/// The Int64 (`signed`) or UInt64 of the 64-bit two's complement pattern of `value`.
pub fn wide(value: i128, signed: bool) -> String {
    // The low 64 bits: the pattern of an i64 or a u64 alike.
    let bits = (value & i128::from(u64::MAX)) as u64;
    let (low, high) = (bits & 0xFFFF_FFFF, bits >> 32);
    let class = if signed { "Int64" } else { "UInt64" };
    format!("{class}.new({low}, {high})")
}

/// A plain integer as a Lua number (exact below 2^53; a larger bound is compared with values
/// that are).
pub fn number(value: i128) -> String {
    format!("{value}")
}

/// The Lua value a decoder gives for `value` (a DEFAULT): numbers, booleans, strings, tables.
pub fn value(value: &Value) -> String {
    match value {
        Value::Null => "nil".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(v) if exact_in_double(*v, *v) => number(*v),
        Value::Int(v) => wide(*v, *v < 0),
        Value::Float(v) => real(*v),
        Value::Float32(v) => real(f64::from(*v)),
        Value::Str(s) | Value::Enum(s) => string(s),
        Value::Bytes(bytes) => {
            let items: Vec<String> = bytes.iter().map(u8::to_string).collect();
            format!("{{ {} }}", items.join(", "))
        }
        Value::List(items) => {
            let items: Vec<String> = items.iter().map(self::value).collect();
            format!("{{ {} }}", items.join(", "))
        }
        Value::Struct(fields) => {
            let items: Vec<String> = fields
                .iter()
                .map(|(name, v)| format!("[{}] = {}", string(name), self::value(v)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(string("a\"b\\c\n"), "\"a\\\"b\\\\c\\010\"");
        assert_eq!(real(0.01), "0.01");
        assert_eq!(real(-512.0), "-512.0");
        assert_eq!(wide(-1, true), "Int64.new(4294967295, 4294967295)");
        assert_eq!(wide(1 << 40, false), "UInt64.new(0, 256)");
    }
}
