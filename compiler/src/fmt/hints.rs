//! What the syntax tree tells the printer: where lines begin, which braces hold a
//! comma-separated list, where a `;` belongs. The per-language modules fill one [`Hints`].

use std::collections::{HashMap, HashSet};

use crate::front::idl::ast::EnumDecl;
use crate::front::span::Span;

/// Layout facts of one parsed file, by byte offset into its source.
#[derive(Debug, Default)]
pub struct Hints {
    /// Where the tokens that begin a line start: items, members, enumerators of a broken list.
    pub line_starts: HashSet<usize>,
    /// Comma-separated lists (enum bodies, an RPC's parameters): the end of the token before
    /// their `{` or `(` (the enum's or the RPC's name), with the end of their last element
    /// (`None` when empty).
    pub lists: HashMap<usize, Option<usize>>,
    /// The ends of the tokens after which a `;` belongs (a `FENCE` member written without one).
    pub semicolon_after: HashSet<usize>,
}

impl Hints {
    /// A member (item, field, rule...) that begins a line.
    pub fn line(&mut self, span: Span) {
        self.line_starts.insert(span.start);
    }

    /// A `FENCE` member: a line of its own, ended by `;`.
    pub fn fence(&mut self, span: Span) {
        self.line(span);
        self.semicolon_after.insert(span.end);
    }

    /// An enum's body: a list whose enumerators begin lines when it does not fit on one.
    pub fn enum_list(&mut self, decl: &EnumDecl) {
        self.list(decl.name.span, decl.enumerators.iter().map(|e| e.span));
    }

    /// A list after `name`, whose elements begin lines when it does not fit on one.
    pub fn list(&mut self, name: Span, elements: impl IntoIterator<Item = Span>) {
        let mut last = None;
        for element in elements {
            self.line(element);
            last = Some(element.end);
        }
        self.lists.insert(name.end, last);
    }
}
