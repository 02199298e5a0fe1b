//! The rules of check-compat: a stable kebab-case name (what `--format json` prints and what an
//! `// idlc:allow(name)` comment names), a stable diagnostic code, and a one-line description.
//! docs/VERSIONING.md explains each with an example.

use std::fmt;

use crate::diagnostics::codes;

/// One rule of check-compat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A struct, message, RPC, enum or protocol of OLD (or a protocol's entry) is gone in NEW.
    RemovedItem,
    /// A name of OLD stands for another kind of item in NEW (STRUCT became MESSAGE, ...).
    KindChanged,
    /// A field, parameter or EXTEND of OLD is gone in NEW.
    RemovedMember,
    /// A member of OLD changed in NEW: renamed, retyped, its DEFAULT or EXTEND changed, moved.
    ChangedMember,
    /// A FENCE of OLD is gone, or NEW has a FENCE among OLD's members.
    ChangedFence,
    /// NEW adds members after OLD's end without a FENCE before them.
    MissingFence,
    /// NEW has a new member among OLD's members instead of after OLD's end.
    NotExtension,
    /// A new field (or parameter) that a reader of older data cannot fill: it has no DEFAULT.
    MissingDefault,
    /// A new field whose DEFAULT is not a value of its type.
    DefaultOutOfRange,
    /// An EXTEND that does not widen.
    NarrowingExtend,
    /// A nested struct gains fields (or an open end) although OLD did not end it with a FENCE.
    NestedNotOpen,
    /// An enum of OLD changed in place (enumerators added, removed, renamed, renumbered).
    EnumChanged,
    /// A member of OLD is sent differently in an encoding (rule, widths, DELTA, order).
    WireRuleChanged,
    /// An encoding of OLD is missing from NEW's encodings.
    RemovedEncoding,
}

impl Rule {
    /// Every rule, in the order of their codes.
    pub const ALL: [Rule; 14] = [
        Rule::RemovedItem,
        Rule::KindChanged,
        Rule::RemovedMember,
        Rule::ChangedMember,
        Rule::ChangedFence,
        Rule::MissingFence,
        Rule::NotExtension,
        Rule::MissingDefault,
        Rule::DefaultOutOfRange,
        Rule::NarrowingExtend,
        Rule::NestedNotOpen,
        Rule::EnumChanged,
        Rule::WireRuleChanged,
        Rule::RemovedEncoding,
    ];

    /// The rule's stable name, as `// idlc:allow(name)` and `--format json` write it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::RemovedItem => "removed-item",
            Rule::KindChanged => "kind-changed",
            Rule::RemovedMember => "removed-member",
            Rule::ChangedMember => "changed-member",
            Rule::ChangedFence => "changed-fence",
            Rule::MissingFence => "missing-fence",
            Rule::NotExtension => "not-extension",
            Rule::MissingDefault => "missing-default",
            Rule::DefaultOutOfRange => "default-out-of-range",
            Rule::NarrowingExtend => "narrowing-extend",
            Rule::NestedNotOpen => "nested-not-open",
            Rule::EnumChanged => "enum-changed",
            Rule::WireRuleChanged => "wire-rule-changed",
            Rule::RemovedEncoding => "removed-encoding",
        }
    }

    /// The rule's stable diagnostic code (`E06xx`).
    pub fn code(self) -> &'static str {
        match self {
            Rule::RemovedItem => codes::COMPAT_REMOVED_ITEM,
            Rule::KindChanged => codes::COMPAT_KIND_CHANGED,
            Rule::RemovedMember => codes::COMPAT_REMOVED_MEMBER,
            Rule::ChangedMember => codes::COMPAT_CHANGED_MEMBER,
            Rule::ChangedFence => codes::COMPAT_CHANGED_FENCE,
            Rule::MissingFence => codes::COMPAT_MISSING_FENCE,
            Rule::NotExtension => codes::COMPAT_NOT_EXTENSION,
            Rule::MissingDefault => codes::COMPAT_MISSING_DEFAULT,
            Rule::DefaultOutOfRange => codes::COMPAT_DEFAULT_OUT_OF_RANGE,
            Rule::NarrowingExtend => codes::COMPAT_NARROWING_EXTEND,
            Rule::NestedNotOpen => codes::COMPAT_NESTED_NOT_OPEN,
            Rule::EnumChanged => codes::COMPAT_ENUM_CHANGED,
            Rule::WireRuleChanged => codes::COMPAT_WIRE_RULE_CHANGED,
            Rule::RemovedEncoding => codes::COMPAT_REMOVED_ENCODING,
        }
    }

    /// The rule named `name`, if any.
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|rule| rule.name() == name)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn names_and_codes_are_unique_and_round_trip() {
        let mut names = std::collections::HashSet::new();
        let mut codes = std::collections::HashSet::new();
        for rule in Rule::ALL {
            assert!(names.insert(rule.name()), "{rule} twice");
            assert!(codes.insert(rule.code()), "{} twice", rule.code());
            assert_eq!(Rule::from_name(rule.name()), Some(rule));
            assert!(rule.code().starts_with("E06"));
            assert!(
                rule.name()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-')
            );
        }
        assert_eq!(Rule::from_name("no-such-rule"), None);
    }
}
