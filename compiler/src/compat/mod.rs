//! check-compat: whether NEW is a fenced backward-compatible extension of OLD.
//!
//! A consumer of the IR, like codegen and report: it reads two [`Ir`]s (OLD and NEW) and never
//! a syntax tree. [`compile_pair`] builds the two IRs into one
//! [`SourceMap`](crate::diagnostics::SourceMap), so that one diagnostic can point into both
//! versions; [`check`] compares them and returns every
//! [`Violation`] (never only the first) and, for the summary, every [`Change`];
//! [`acknowledge`] turns the violations that NEW acknowledges with an
//! `// idlc:allow(rule): reason` comment into notes.
//!
//! The rules (DESIGN.md "check-compat", docs/VERSIONING.md), for every struct, message, RPC
//! (its parameter struct), enum and protocol of OLD:
//!
//! 1. NEW has it, with the same name and kind ([`Rule::RemovedItem`], [`Rule::KindChanged`]);
//! 2. NEW repeats OLD's members exactly, in order, up to OLD's end: names, types, ranges,
//!    DEFAULTs, EXTENDs and FENCEs ([`Rule::RemovedMember`], [`Rule::ChangedMember`],
//!    [`Rule::ChangedFence`], [`Rule::NotExtension`], [`Rule::NarrowingExtend`]);
//! 3. after that, NEW has a FENCE before anything new ([`Rule::MissingFence`]);
//! 4. after that FENCE, only EXTENDs to wider types and new fields with a DEFAULT of their type
//!    ([`Rule::NarrowingExtend`], [`Rule::MissingDefault`], [`Rule::DefaultOutOfRange`]);
//! 5. a struct nested anywhere (in OLD or NEW) gains members only if OLD ended it with a FENCE
//!    ([`Rule::NestedNotOpen`]);
//! 6. an enum never changes in place ([`Rule::EnumChanged`]): it grows through `EXTEND f TO E2`;
//! 7. every member of OLD keeps its exact wire items in every encoding of OLD
//!    ([`Rule::WireRuleChanged`], [`Rule::RemovedEncoding`]).
//!
//! Protocols keep OLD's entries in order and append new ones after a FENCE. New top-level types
//! are always allowed.
//!
//! Members are aligned with a diff (similar's Myers) on their names, so that one removed or
//! inserted field is one violation, not one per field after it.
//!
//! Modules: `align` (members flattened and aligned), `members` (rule 2), `extension` (rules 3
//! to 5), `items` (rules 1 and 6), `protocols`, `wire` (rule 7), `allow` (acknowledged
//! breaks), `changes` (the summary), [`normalize`] (`--diff`), [`render`] (JSON, GitHub).

mod align;
mod allow;
mod changes;
mod extension;
mod items;
mod load;
mod members;
pub mod normalize;
mod protocols;
pub mod prove;
pub mod render;
mod rules;
mod types;
mod wire;

pub use allow::{AllowComment, acknowledge, allow_comments};
pub use changes::{Change, ChangeKind, tally};
pub use load::{Pair, compile_pair};
pub use rules::Rule;

use codespan_reporting::diagnostic::Severity;

use crate::diagnostics::{Diagnostic, primary, secondary};
use crate::ir::{Ir, Loc};

/// One way in which NEW is not a compatible extension of OLD.
#[derive(Debug, Clone)]
pub struct Violation {
    /// The rule broken.
    pub rule: Rule,
    /// What is wrong, in one sentence (without the rule's name).
    pub message: String,
    /// The diagnostic: an error, or a note once acknowledged. Its primary label is in NEW (for
    /// a member NEW no longer has, on the item that lost it, with OLD's member beside it), and
    /// in OLD only for an item NEW no longer has at all.
    pub diagnostic: Diagnostic,
    /// Where in NEW an `// idlc:allow(rule)` comment acknowledges it.
    pub anchor: Anchor,
    /// The comment that acknowledged it, if one did.
    pub acknowledged: Option<AllowComment>,
}

/// Where in NEW a violation can be acknowledged.
#[derive(Debug, Clone, PartialEq)]
pub enum Anchor {
    /// On the line of this place, or in the comment lines right above it.
    At(Loc),
    /// Anywhere in NEW's files, with the item's name: `// idlc:allow(removed-item Name)`. For
    /// what has no place in NEW (a removed top-level item, a removed encoding).
    Named(String),
}

impl Violation {
    /// A violation of `rule`, to be acknowledged at `anchor`.
    pub(crate) fn new(rule: Rule, message: impl Into<String>, anchor: Anchor) -> Violation {
        let message = message.into();
        let diagnostic = Diagnostic::error()
            .with_code(rule.code())
            .with_message(format!("{}: {message}", rule.name()));
        Violation {
            rule,
            message,
            diagnostic,
            anchor,
            acknowledged: None,
        }
    }

    /// Adds a primary label.
    pub(crate) fn primary(mut self, loc: Loc, text: impl std::fmt::Display) -> Violation {
        self.diagnostic
            .labels
            .push(primary(loc.file, loc.span).with_message(text));
        self
    }

    /// Adds a secondary label.
    pub(crate) fn secondary(mut self, loc: Loc, text: impl std::fmt::Display) -> Violation {
        self.diagnostic
            .labels
            .push(secondary(loc.file, loc.span).with_message(text));
        self
    }

    /// Adds a note (rendered `= text`).
    pub(crate) fn note(mut self, text: impl Into<String>) -> Violation {
        self.diagnostic.notes.push(text.into());
        self
    }

    /// Adds how to fix it (rendered `= help: text`).
    pub(crate) fn help(mut self, text: impl AsRef<str>) -> Violation {
        self.diagnostic
            .notes
            .push(format!("help: {}", text.as_ref()));
        self
    }

    /// Whether the violation still fails the check (it is not acknowledged).
    pub fn is_error(&self) -> bool {
        self.diagnostic.severity >= Severity::Error
    }

    /// The primary label's place, if the violation has one.
    pub fn primary_loc(&self) -> Option<Loc> {
        self.diagnostic
            .labels
            .iter()
            .find(|label| label.style == codespan_reporting::diagnostic::LabelStyle::Primary)
            .map(|label| {
                Loc::new(
                    label.file_id,
                    crate::front::span::Span::new(label.range.start, label.range.end),
                )
            })
    }
}

/// What [`check`] found.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Every violation, in the order found (OLD's declaration order).
    pub violations: Vec<Violation>,
    /// What NEW adds to OLD, for the summary of a compatible change.
    pub changes: Vec<Change>,
}

impl Outcome {
    /// Whether NEW is accepted: no violation, or only acknowledged ones.
    pub fn is_compatible(&self) -> bool {
        !self.violations.iter().any(Violation::is_error)
    }

    /// The diagnostics of the violations, in order.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.violations
            .iter()
            .map(|v| v.diagnostic.clone())
            .collect()
    }
}

/// Compares OLD with NEW: every violation of the rules, and what NEW adds. Never panics, on any
/// pair of IRs (also partial ones, from inputs with errors).
pub fn check(old: &Ir, new: &Ir) -> Outcome {
    let mut checker = Checker::new(old, new);
    checker.items();
    checker.protocols();
    checker.wire();
    checker.added_items();
    checker.out
}

/// The state of one comparison.
pub(crate) struct Checker<'a> {
    old: &'a Ir,
    new: &'a Ir,
    /// Structs used inside another struct (in OLD or NEW), with one place that uses them.
    nested: types::Nested,
    /// Enums reported as changed in place: the rules of the fields that use them follow.
    changed_enums: std::collections::HashSet<String>,
    /// Structs whose members break a rule: their wire layout is not compared.
    changed_structs: std::collections::HashSet<String>,
    out: Outcome,
}

impl<'a> Checker<'a> {
    fn new(old: &'a Ir, new: &'a Ir) -> Self {
        let mut nested = types::Nested::default();
        nested.collect(&old.schema);
        nested.collect(&new.schema);
        Checker {
            old,
            new,
            nested,
            changed_enums: std::collections::HashSet::new(),
            changed_structs: std::collections::HashSet::new(),
            out: Outcome::default(),
        }
    }

    fn report(&mut self, violation: Violation) {
        self.out.violations.push(violation);
    }

    fn change(&mut self, kind: ChangeKind, loc: impl Into<Option<Loc>>) {
        self.out.changes.push(Change::at(kind, loc));
    }
}

#[cfg(test)]
mod tests;
