//! Rules 3 to 5 on what NEW adds after OLD's end (its tail): a FENCE before anything new; then
//! only EXTENDs to wider types and new fields with a DEFAULT of their type; a nested struct
//! grows only through OLD's open end.

use super::align::Member;
use super::changes::ChangeKind;
use super::types::{
    describe_value, example_default, holds, kind_name, member_word, needs_default, value_fits,
    widens,
};
use super::{Anchor, Checker, Rule, Violation};
use crate::ir::{Extend, Field, StructDef, Type};

impl Checker<'_> {
    /// Rules 3 to 5 on what NEW adds after OLD's end.
    pub(super) fn tail(
        &mut self,
        old: &StructDef,
        new: &StructDef,
        old_members: &[Member<'_>],
        tail: &[Member<'_>],
        open_end_kept: bool,
    ) {
        let Some(first) = tail.first() else {
            return;
        };
        let first_loc = first.loc(new);
        let fenced = open_end_kept || matches!(first, Member::Fence { .. });
        if !fenced {
            let mut violation = Violation::new(
                Rule::MissingFence,
                format!(
                    "{} is added to `{}` without a FENCE before it",
                    first.describe(),
                    new.name
                ),
                Anchor::At(first_loc),
            )
            .primary(first_loc, "new in NEW");
            if let Some(last) = old_members.last() {
                violation = violation.secondary(last.loc(old), "OLD ends here");
            } else {
                violation = violation.note(
                    "a FENCE needs a member before it: an empty struct cannot gain members compatibly",
                );
            }
            let what = match first {
                Member::Field { field, .. } => format!("`{}`", field.name),
                other => other.describe(),
            };
            self.report(violation.help(format!("add FENCE before {what}")));
        }
        if let Some(at) = self.nested.use_of(&old.name).filter(|_| !old.open_end) {
            let grows = tail.iter().any(|m| !matches!(m, Member::Fence { .. }));
            let message = if grows {
                format!(
                    "`{}` is nested in another struct and gains members, but OLD did not end it with a FENCE",
                    new.name
                )
            } else {
                format!(
                    "`{}` is nested in another struct and NEW ends it with a FENCE that OLD does not have",
                    new.name
                )
            };
            self.report(
                Violation::new(Rule::NestedNotOpen, message, Anchor::At(first_loc))
                    .primary(first_loc, "new in NEW")
                    .secondary(at, format!("`{}` is nested here", new.name))
                    .secondary(old.loc, "OLD has no FENCE at its end")
                    .note("an old reader cannot skip the unknown end of a nested struct; only the open extension point of a struct that ends with a FENCE can grow")
                    .help(format!(
                        "leave `{}` as OLD has it; put the new data in a new field of the struct that holds it, after a FENCE",
                        new.name
                    )),
            );
        }
        for member in tail {
            match member {
                Member::Field { field, .. } => self.new_field(new, field),
                Member::Extend { extend, .. } => self.new_extend(new, extend),
                Member::Fence { .. } => {}
            }
        }
        if new.open_end && !old.open_end {
            let fence = new.fence_locs.last().copied().unwrap_or(new.loc);
            self.change(
                ChangeKind::OpenEndAdded {
                    owner: new.name.clone(),
                    kind: kind_name(new.kind),
                },
                fence,
            );
        }
    }

    fn new_field(&mut self, new: &StructDef, field: &Field) {
        let enums = &self.new.schema.enums;
        let word = member_word(new.kind);
        match &field.default {
            None if needs_default(&field.ty) => {
                let example = example_default(&field.ty, enums);
                self.report(
                    Violation::new(
                        Rule::MissingDefault,
                        format!("new {word} `{}.{}` has no DEFAULT", new.name, field.name),
                        Anchor::At(field.loc),
                    )
                    .primary(field.loc, "no DEFAULT")
                    .note("a new reader of an old writer's data fills a new field with its DEFAULT")
                    .help(format!(
                        "give `{}` a DEFAULT: `{} {} DEFAULT = {example};`",
                        field.name,
                        field.ty.describe(),
                        field.name
                    )),
                );
            }
            Some(value) if !value_fits(&field.ty, value, enums) => {
                let example = example_default(&field.ty, enums);
                self.report(
                    Violation::new(
                        Rule::DefaultOutOfRange,
                        format!(
                            "the DEFAULT {} of new {word} `{}.{}` is not a value of {}",
                            describe_value(value),
                            new.name,
                            field.name,
                            field.ty.describe()
                        ),
                        Anchor::At(field.loc),
                    )
                    .primary(field.loc, "DEFAULT outside the type")
                    .help(format!(
                        "give `{}` a DEFAULT inside {}, such as {example}",
                        field.name,
                        field.ty.describe()
                    )),
                );
            }
            _ => {}
        }
        self.change(
            ChangeKind::FieldAdded {
                owner: new.name.clone(),
                kind: kind_name(new.kind),
                field: field.name.clone(),
                ty: field.ty.describe(),
            },
            field.loc,
        );
    }

    fn new_extend(&mut self, new: &StructDef, extend: &Extend) {
        let enums = &self.new.schema.enums;
        if widens(&extend.from, &extend.to, enums) {
            self.change(
                ChangeKind::FieldWidened {
                    owner: new.name.clone(),
                    field: extend.field.clone(),
                    from: extend.from.describe(),
                    to: extend.to.describe(),
                },
                extend.loc,
            );
            return;
        }
        let message = if holds(&extend.from, &extend.to, enums) {
            format!(
                "EXTEND may only widen: {} is narrower than {}",
                extend.to.describe(),
                extend.from.describe()
            )
        } else {
            format!(
                "EXTEND may only widen: {} does not hold every value of {}",
                extend.to.describe(),
                extend.from.describe()
            )
        };
        self.report(
            Violation::new(Rule::NarrowingExtend, message, Anchor::At(extend.loc))
                .primary(
                    extend.loc,
                    format!("`{}` is {} before", extend.field, extend.from.describe()),
                )
                .help(wider_hint(&extend.from)),
        );
    }
}

/// What a wider type of `ty` looks like.
fn wider_hint(ty: &Type) -> String {
    match ty {
        Type::Numeric { .. } => format!(
            "EXTEND it to a NUMERIC range that contains {} (ends included where they were)",
            ty.describe()
        ),
        Type::Enum(name) => format!(
            "EXTEND it to an enum that begins with all of `{name}`'s enumerators, in order, with their values"
        ),
        _ => format!(
            "EXTEND it to a type that holds every value of {}",
            ty.describe()
        ),
    }
}
