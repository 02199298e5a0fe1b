//! `idlc decode --format explain`: the fields a decode read, one line each (bit offset, width,
//! raw bits, decoded value), and where decoding failed and why.

use std::fmt::Write as _;

use crate::ir::Style;

/// One thing the decoder read (a value, a count, a present bit, padding), or its failure.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The field path (`Character.inventory[2].item_id`), with a note for what is not a value
    /// (` (count)`, ` (present)`, ` (segment 1)`, ...).
    pub path: String,
    /// The bit offset where the read started (from the start of the input).
    pub start: u64,
    /// The bit offset where it ended.
    pub end: u64,
    /// The decoded value, briefly.
    pub value: String,
    /// Why decoding failed here, for the last entry of a failed decode.
    pub error: Option<String>,
    /// Whether the raw bits are bytes (a STRING's or BYTES' length, padding and content),
    /// shown in hex.
    pub bytes: bool,
}

impl Entry {
    /// The entry of a failed read: the runtime's error, at its bit offset.
    pub fn failure(path: &str, error: idlc_runtime::DecodeError) -> Entry {
        Entry {
            path: path.to_string(),
            start: error.bit_offset,
            end: error.bit_offset,
            value: String::new(),
            error: Some(error.kind.as_str().to_string()),
            bytes: false,
        }
    }
}

/// The bits `start..end` of `data` (LSB-first, as a BITSTREAM numbers them), at most 64.
fn bits_at(data: &[u8], start: u64, end: u64) -> Option<u64> {
    let width = end.checked_sub(start)?;
    if width > 64 {
        return None;
    }
    let mut value = 0u64;
    for i in 0..width {
        let bit = start + i;
        let byte = data.get(usize::try_from(bit / 8).ok()?)?;
        if byte >> (bit % 8) & 1 == 1 {
            value |= 1 << i;
        }
    }
    Some(value)
}

/// The raw bits of an entry: binary (most significant first, as the value they form) for up
/// to 32 bits of a BITSTREAM, else the bytes they cover in hex (the first 12).
fn raw(data: &[u8], style: Style, start: u64, end: u64, bytes: bool) -> String {
    let width = end.saturating_sub(start);
    if width == 0 {
        return "-".to_string();
    }
    if style == Style::Bitstream && width <= 32 && !bytes {
        if let Some(value) = bits_at(data, start, end) {
            let digits = usize::try_from(width).unwrap_or(32);
            return format!("{value:0digits$b}");
        }
    }
    let first = usize::try_from(start / 8).unwrap_or(usize::MAX);
    let last = usize::try_from(end.div_ceil(8)).unwrap_or(usize::MAX);
    let bytes = data.get(first..last.min(data.len())).unwrap_or(&[]);
    let mut text: Vec<String> = bytes.iter().take(12).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > 12 {
        text.push("…".to_string());
    }
    text.join(" ")
}

/// The table of `entries` over the input `data`, one line per entry.
pub fn render(entries: &[Entry], data: &[u8], style: Style) -> String {
    let path_width = entries
        .iter()
        .map(|e| e.path.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(5, 60);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>6} {:>5}  {:<34} {:<path_width$}  value",
        "bit", "bits", "raw", "field"
    );
    for entry in entries {
        match &entry.error {
            Some(error) => {
                let _ = writeln!(
                    out,
                    "{:>6} {:>5}  {:<34} {:<path_width$}  error: {error}",
                    entry.start, "", "", entry.path
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{:>6} {:>5}  {:<34} {:<path_width$}  {}",
                    entry.start,
                    entry.end.saturating_sub(entry.start),
                    raw(data, style, entry.start, entry.end, entry.bytes),
                    entry.path,
                    entry.value
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_bits_are_lsb_first() {
        // 0b101 in 3 bits, then 0x1F in 5 bits: FD.
        assert_eq!(raw(&[0xFD], Style::Bitstream, 0, 3, false), "101");
        assert_eq!(raw(&[0xFD], Style::Bitstream, 3, 8, false), "11111");
        assert_eq!(raw(&[0xFD, 0x03], Style::Bytestream, 0, 16, false), "fd 03");
        assert_eq!(raw(&[0xFD, 0x03], Style::Bitstream, 0, 16, true), "fd 03");
        assert_eq!(bits_at(&[0xFD], 0, 16), None);
    }
}
