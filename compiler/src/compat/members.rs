//! Rule 2 for one struct, message or RPC parameter list: NEW repeats OLD's members exactly, in
//! order, up to OLD's end. What NEW has after the last member aligned with OLD is its tail, the
//! extension, which `extension.rs` checks against rules 3 to 5.

use std::collections::HashSet;

use super::align::{Key, Member, align, members, version};
use super::types::{describe_value, holds, member_word, widens};
use super::{Anchor, Checker, Rule, Violation};
use crate::ir::{Field, StructDef};

impl Checker<'_> {
    /// Checks NEW's `new` against OLD's `old` (same name; kinds are checked by the caller).
    pub(super) fn check_struct(&mut self, old: &StructDef, new: &StructDef) {
        let before = self.out.violations.len();
        self.compare_members(old, new);
        if self.out.violations.len() > before {
            self.changed_structs.insert(old.name.clone());
        }
    }

    fn compare_members(&mut self, old: &StructDef, new: &StructDef) {
        let old_members = members(old);
        let new_members = members(new);
        let alignment = align(&old_members, &new_members);
        for &(i, j) in &alignment.equal {
            self.compare(old, new, old_members[i], new_members[j]);
        }
        for &(i, j) in &alignment.renamed {
            self.renamed(old, old_members[i], new_members[j]);
        }
        // Where NEW's tail starts: after the last member aligned with one of OLD.
        let aligned_end = alignment
            .equal
            .iter()
            .chain(&alignment.renamed)
            .map(|&(_, j)| j + 1)
            .max()
            .unwrap_or(0);
        // A member deleted here and inserted there moved.
        let mut moved_old = HashSet::new();
        let mut moved_new = HashSet::new();
        for &j in &alignment.inserted {
            let key = new_members[j].key();
            if key == Key::Fence {
                continue;
            }
            if let Some(&i) = alignment
                .deleted
                .iter()
                .find(|&&i| old_members[i].key() == key && !moved_old.contains(&i))
            {
                moved_old.insert(i);
                moved_new.insert(j);
                self.moved(old, new, old_members[i], new_members[j]);
            }
        }
        for &i in alignment.deleted.iter().filter(|i| !moved_old.contains(i)) {
            self.deleted(old, new, old_members[i]);
        }
        let mut tail = Vec::new();
        for &j in alignment.inserted.iter().filter(|j| !moved_new.contains(j)) {
            if j >= aligned_end {
                tail.push(new_members[j]);
            } else {
                self.inserted(old, new, &old_members, new_members[j]);
            }
        }
        let open_end_kept = old.open_end
            && alignment
                .equal
                .iter()
                .any(|&(i, _)| i + 1 == old_members.len());
        self.tail(old, new, &old_members, &tail, open_end_kept);
    }

    /// Two members with the same key: a field's type and DEFAULT, an EXTEND's type.
    fn compare(&mut self, old: &StructDef, new: &StructDef, a: Member<'_>, b: Member<'_>) {
        match (a, b) {
            (Member::Field { field: f, .. }, Member::Field { field: g, .. }) => {
                if f.ty != g.ty {
                    self.type_changed(new, f, g);
                }
                if f.default != g.default {
                    let show = |d: &Option<crate::ir::Value>| {
                        d.as_ref()
                            .map_or_else(|| "none".to_string(), describe_value)
                    };
                    let keep = f.default.as_ref().map_or_else(
                        || "remove the DEFAULT".to_string(),
                        |d| format!("keep `DEFAULT = {}`", describe_value(d)),
                    );
                    self.report(
                        Violation::new(
                            Rule::ChangedMember,
                            format!(
                                "the DEFAULT of `{}.{}` changed from {} to {}",
                                new.name,
                                g.name,
                                show(&f.default),
                                show(&g.default)
                            ),
                            Anchor::At(g.loc),
                        )
                        .primary(g.loc, format!("DEFAULT {} in NEW", show(&g.default)))
                        .secondary(f.loc, format!("DEFAULT {} in OLD", show(&f.default)))
                        .note("a new reader fills an old writer's data with the DEFAULT: readers of both versions must agree on it")
                        .help(keep),
                    );
                }
            }
            (Member::Extend { extend: e, .. }, Member::Extend { extend: x, .. }) => {
                if e.to == x.to {
                    return;
                }
                let narrower = holds(&e.to, &x.to, &self.new.schema.enums);
                let violation = if narrower {
                    Violation::new(
                        Rule::NarrowingExtend,
                        format!(
                            "EXTEND may only widen: {} is narrower than {}",
                            x.to.describe(),
                            e.to.describe()
                        ),
                        Anchor::At(x.loc),
                    )
                    .primary(
                        x.loc,
                        format!("`{}` extended to {} in NEW", x.field, x.to.describe()),
                    )
                    .secondary(e.loc, format!("extended to {} in OLD", e.to.describe()))
                    .help(format!(
                        "keep `EXTEND {} TO {};`: a writer of OLD sends values NEW could not read",
                        e.field,
                        e.to.describe()
                    ))
                } else {
                    Violation::new(
                        Rule::ChangedMember,
                        format!(
                            "`EXTEND {} TO {}` of `{}` is now `EXTEND {} TO {}`",
                            e.field,
                            e.to.describe(),
                            new.name,
                            x.field,
                            x.to.describe()
                        ),
                        Anchor::At(x.loc),
                    )
                    .primary(x.loc, "changed in NEW")
                    .secondary(e.loc, "as OLD has it")
                    .help(format!(
                        "keep `EXTEND {} TO {};` and widen further with `EXTEND {} TO {};` after a new FENCE at the end of `{}`",
                        e.field,
                        e.to.describe(),
                        x.field,
                        x.to.describe(),
                        old.name
                    ))
                };
                self.report(violation);
            }
            _ => {}
        }
    }

    fn type_changed(&mut self, new: &StructDef, f: &Field, g: &Field) {
        let enums = &self.new.schema.enums;
        let (from, to) = (f.ty.describe(), g.ty.describe());
        let help = if widens(&f.ty, &g.ty, enums) {
            format!(
                "keep `{from} {};` and widen it with `EXTEND {} TO {to};` after a new FENCE at the end of `{}`",
                f.name, f.name, new.name
            )
        } else if widens(&g.ty, &f.ty, enums) {
            format!(
                "{to} is narrower than {from}: an old writer sends values a new reader would reject; keep {from}"
            )
        } else {
            format!(
                "keep `{from} {}`; to send something else, add a new field after a new FENCE",
                f.name
            )
        };
        self.report(
            Violation::new(
                Rule::ChangedMember,
                format!(
                    "the type of `{}.{}` changed from {from} to {to}",
                    new.name, g.name
                ),
                Anchor::At(g.loc),
            )
            .primary(g.loc, format!("{to} in NEW"))
            .secondary(f.loc, format!("{from} in OLD"))
            .help(help),
        );
    }

    fn renamed(&mut self, old: &StructDef, a: Member<'_>, b: Member<'_>) {
        let (Member::Field { field: f, .. }, Member::Field { field: g, .. }) = (a, b) else {
            return;
        };
        let word = member_word(old.kind);
        self.report(
            Violation::new(
                Rule::ChangedMember,
                format!(
                    "{word} `{}` of `{}` is renamed to `{}`",
                    f.name, old.name, g.name
                ),
                Anchor::At(g.loc),
            )
            .primary(g.loc, format!("`{}` in NEW", g.name))
            .secondary(f.loc, format!("`{}` in OLD", f.name))
            .note("the bits do not change, but the generated code and the Encoding files name the field")
            .help(format!(
                "keep the name `{}`, or acknowledge the rename with `// idlc:allow(changed-member): reason`",
                f.name
            )),
        );
    }

    fn moved(&mut self, old: &StructDef, new: &StructDef, a: Member<'_>, b: Member<'_>) {
        let (from, to) = match (a, b) {
            (Member::Field { segment: s, .. }, Member::Field { segment: t, .. })
            | (Member::Extend { segment: s, .. }, Member::Extend { segment: t, .. }) => (s, t),
            _ => (0, 0),
        };
        let across = if from == to {
            String::new()
        } else {
            format!(" from {} to {}", version(from), version(to))
        };
        let new_loc = b.loc(new);
        self.report(
            Violation::new(
                Rule::ChangedMember,
                format!("{} of `{}` moved{across}", b.describe(), new.name),
                Anchor::At(new_loc),
            )
            .primary(new_loc, "here in NEW")
            .secondary(a.loc(old), "here in OLD")
            .note("members are sent in order: a reader of the other version would read it in another one's place")
            .help(format!("keep OLD's order of `{}`", old.name)),
        );
        if let (Member::Field { field: f, .. }, Member::Field { field: g, .. }) = (a, b) {
            if f.ty != g.ty {
                self.type_changed(new, f, g);
            }
        }
    }

    fn deleted(&mut self, old: &StructDef, new: &StructDef, member: Member<'_>) {
        let loc = member.loc(old);
        let word = member_word(old.kind);
        let violation = match member {
            Member::Field { field, .. } => Violation::new(
                Rule::RemovedMember,
                format!("{word} `{}` of `{}` is gone", field.name, old.name),
                Anchor::At(new.loc),
            )
            .primary(
                new.loc,
                format!("`{}` in NEW has no `{}`", new.name, field.name),
            )
            .secondary(loc, format!("OLD declares `{}` here", field.name))
            .help(format!(
                "keep `{} {};`: an old writer sends it and an old reader expects it",
                field.ty.describe(),
                field.name
            )),
            Member::Extend { extend, .. } => Violation::new(
                Rule::RemovedMember,
                format!(
                    "`EXTEND {} TO {}` of `{}` is gone",
                    extend.field,
                    extend.to.describe(),
                    old.name
                ),
                Anchor::At(new.loc),
            )
            .primary(new.loc, format!("`{}` in NEW", new.name))
            .secondary(loc, "OLD has it here")
            .help(format!(
                "keep `EXTEND {} TO {};` where OLD has it",
                extend.field,
                extend.to.describe()
            )),
            Member::Fence { index } => {
                let closing = old.open_end && index + 1 == old.segments.len();
                let message = if closing {
                    format!(
                        "the FENCE that ends `{}` (its open extension point) is gone",
                        old.name
                    )
                } else {
                    format!(
                        "the FENCE before {} of `{}` is gone: the members after it would move into an earlier version",
                        version(index + 1),
                        old.name
                    )
                };
                Violation::new(Rule::ChangedFence, message, Anchor::At(new.loc))
                    .primary(new.loc, format!("`{}` in NEW", new.name))
                    .secondary(loc, "OLD has this FENCE")
                    .help("keep every FENCE of OLD where it is")
            }
        };
        self.report(violation);
    }

    fn inserted(
        &mut self,
        old: &StructDef,
        new: &StructDef,
        old_members: &[Member<'_>],
        member: Member<'_>,
    ) {
        let loc = member.loc(new);
        let mut violation = match member {
            Member::Fence { .. } => Violation::new(
                Rule::ChangedFence,
                format!(
                    "a FENCE among OLD's members of `{}`: the members after it would move into a later version",
                    new.name
                ),
                Anchor::At(loc),
            )
            .primary(loc, "not in OLD")
            .help(format!(
                "remove it; a new FENCE goes after OLD's last member of `{}`",
                new.name
            )),
            _ => Violation::new(
                Rule::NotExtension,
                format!(
                    "{} is new but stands among OLD's members of `{}`",
                    member.describe(),
                    new.name
                ),
                Anchor::At(loc),
            )
            .primary(loc, "inserted here")
            .help(format!(
                "move {} to the end of `{}`, after a new FENCE",
                member.describe(),
                new.name
            )),
        };
        if let Some(last) = old_members.last() {
            violation = violation.secondary(last.loc(old), "OLD ends here");
        }
        self.report(violation);
    }
}
