//! Byte offsets of the compiler and the line / UTF-16 positions of LSP, both ways.

use lsp_types::{Position, Range};

/// Where the lines of one text begin, for converting offsets to positions.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// The index of `text`.
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// The position of byte `offset` (clamped to the text, and to a character boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let start = self.starts[line];
        let character: usize = self.text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(line as u32, character as u32)
    }

    /// The range of bytes `start..end`.
    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }

    /// The byte offset of `position` (clamped to its line and to the text).
    pub fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let line_end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        let mut units = 0u32;
        for (i, c) in self.text[start..line_end].char_indices() {
            if units >= position.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        line_end
    }

    /// The range of the whole text.
    pub fn whole(&self) -> Range {
        self.range(0, self.text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\n\u{e9}\u{1f600}x\n";
        let index = LineIndex::new(text);
        assert_eq!(index.position(0), Position::new(0, 0));
        assert_eq!(index.position(3), Position::new(1, 0));
        // é is 2 bytes, 1 unit; 😀 is 4 bytes, 2 units.
        assert_eq!(index.position(9), Position::new(1, 3));
        assert_eq!(index.offset(Position::new(1, 3)), 9);
        assert_eq!(index.offset(Position::new(9, 0)), text.len());
        assert_eq!(index.position(99), Position::new(2, 0));
    }
}
