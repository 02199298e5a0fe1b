//! Byte spans of source text, shared by the three front ends.

use serde::Serialize;

/// A half-open byte range `start..end` inside one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct Span {
    /// First byte of the spanned text.
    pub start: usize,
    /// One past the last byte of the spanned text.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span that covers both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// The span as a `Range`, as codespan-reporting wants it.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

/// An identifier with its span.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Ident {
    /// The identifier's text.
    pub name: String,
    /// Where it stands.
    pub span: Span,
}

impl Ident {
    /// An identifier named `name` at `span`.
    pub fn new(name: impl Into<String>, span: Span) -> Self {
        Ident {
            name: name.into(),
            span,
        }
    }
}
