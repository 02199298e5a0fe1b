//! Protocols: NEW keeps OLD's messages and RPCs in order (their ids), with OLD's FENCEs, and
//! appends new entries after a FENCE. The structs of the entries are checked as structs.

use std::collections::HashSet;

use similar::DiffTag;

use super::changes::ChangeKind;
use super::items::{entry_name, item_of};
use super::{Anchor, Checker, Rule, Violation};
use crate::diagnostics::text_diff::edit_script;
use crate::ir::{EntryKind, Loc, ProtocolDef, ProtocolEntry, Schema};

/// An entry or a FENCE of a protocol's list.
#[derive(Debug, Clone, Copy)]
enum Item<'a> {
    Entry(&'a ProtocolEntry),
    /// The FENCE with this index.
    Fence(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Entry(&'a str),
    Fence,
}

impl<'a> Item<'a> {
    fn key(&self) -> Key<'a> {
        match self {
            Item::Entry(entry) => Key::Entry(entry_name(&entry.kind)),
            Item::Fence(_) => Key::Fence,
        }
    }

    fn loc(&self, schema: &Schema, protocol: &ProtocolDef) -> Loc {
        match self {
            Item::Entry(entry) => schema
                .structs
                .get(entry_name(&entry.kind))
                .map_or(protocol.loc, |def| def.loc),
            Item::Fence(index) => protocol
                .fence_locs
                .get(*index)
                .copied()
                .unwrap_or(protocol.loc),
        }
    }

    fn describe(&self) -> String {
        match self {
            Item::Entry(entry) => describe_entry(entry),
            Item::Fence(_) => "FENCE".into(),
        }
    }
}

fn describe_entry(entry: &ProtocolEntry) -> String {
    match &entry.kind {
        EntryKind::Message(name) => format!("MESSAGE `{name}`"),
        EntryKind::Rpc { name, .. } => format!("RPC `{name}`"),
    }
}

fn items(protocol: &ProtocolDef) -> Vec<Item<'_>> {
    let mut out = Vec::new();
    let mut segment = 0;
    for entry in &protocol.entries {
        while segment < entry.segment {
            out.push(Item::Fence(segment));
            segment += 1;
        }
        out.push(Item::Entry(entry));
    }
    while segment < protocol.fences {
        out.push(Item::Fence(segment));
        segment += 1;
    }
    out
}

impl Checker<'_> {
    /// Every protocol of OLD against NEW's.
    pub(super) fn protocols(&mut self) {
        let (old, new) = (self.old, self.new);
        for (name, old_protocol) in &old.schema.protocols {
            match new.schema.protocols.get(name) {
                Some(new_protocol) => self.check_protocol(old_protocol, new_protocol),
                None => match item_of(&new.schema, name) {
                    Some((kind, loc)) => {
                        self.kind_changed(name, "PROTOCOL", old_protocol.loc, kind, loc);
                    }
                    None => self.removed("PROTOCOL", name, old_protocol.loc),
                },
            }
        }
    }

    fn check_protocol(&mut self, old: &ProtocolDef, new: &ProtocolDef) {
        let (old_schema, new_schema) = (&self.old.schema, &self.new.schema);
        let old_items = items(old);
        let new_items = items(new);
        let old_keys: Vec<Key<'_>> = old_items.iter().map(Item::key).collect();
        let new_keys: Vec<Key<'_>> = new_items.iter().map(Item::key).collect();
        let mut equal = Vec::new();
        let mut deleted = Vec::new();
        let mut inserted = Vec::new();
        for op in edit_script(&old_keys, &new_keys) {
            let (tag, olds, news) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => equal.extend(olds.zip(news)),
                DiffTag::Delete => deleted.extend(olds),
                DiffTag::Insert => inserted.extend(news),
                DiffTag::Replace => {
                    deleted.extend(olds);
                    inserted.extend(news);
                }
            }
        }
        for &(i, j) in &equal {
            if let (Item::Entry(a), Item::Entry(b)) = (old_items[i], new_items[j]) {
                self.compare_entries(old, new, a, b);
            }
        }
        let aligned_end = equal.iter().map(|&(_, j)| j + 1).max().unwrap_or(0);
        let mut moved_old = HashSet::new();
        let mut moved_new = HashSet::new();
        for &j in &inserted {
            let key = new_keys[j];
            if key == Key::Fence {
                continue;
            }
            if let Some(&i) = deleted
                .iter()
                .find(|&&i| old_keys[i] == key && !moved_old.contains(&i))
            {
                moved_old.insert(i);
                moved_new.insert(j);
                let (Item::Entry(a), Item::Entry(b)) = (old_items[i], new_items[j]) else {
                    continue;
                };
                let at = new_items[j].loc(new_schema, new);
                self.report(
                    Violation::new(
                        Rule::ChangedMember,
                        format!(
                            "{} moved in PROTOCOL `{}`: its id changes from {} to {}",
                            describe_entry(b),
                            new.name,
                            a.id,
                            b.id
                        ),
                        Anchor::At(at),
                    )
                    .primary(at, format!("id {} in NEW", b.id))
                    .secondary(
                        old_items[i].loc(old_schema, old),
                        format!("id {} in OLD", a.id),
                    )
                    .help(format!("keep OLD's order of `{}`", old.name)),
                );
            }
        }
        for &i in deleted.iter().filter(|i| !moved_old.contains(i)) {
            let at = old_items[i].loc(old_schema, old);
            let violation = match old_items[i] {
                Item::Entry(entry) => Violation::new(
                    Rule::RemovedItem,
                    format!(
                        "{} (id {}) is gone from PROTOCOL `{}`",
                        describe_entry(entry),
                        entry.id,
                        old.name
                    ),
                    Anchor::At(new.loc),
                )
                .primary(new.loc, format!("`{}` in NEW", new.name))
                .secondary(at, "OLD has it here")
                .note(
                    "an old sender still sends it, and the ids of the entries after it would shift",
                )
                .help(format!("keep {} in `{}`", describe_entry(entry), old.name)),
                Item::Fence(index) => Violation::new(
                    Rule::ChangedFence,
                    format!("FENCE {} of PROTOCOL `{}` is gone", index + 1, old.name),
                    Anchor::At(new.loc),
                )
                .primary(new.loc, format!("`{}` in NEW", new.name))
                .secondary(at, "OLD has this FENCE")
                .help("keep every FENCE of OLD where it is"),
            };
            self.report(violation);
        }
        let mut tail = Vec::new();
        for &j in inserted.iter().filter(|j| !moved_new.contains(j)) {
            if j >= aligned_end {
                tail.push(new_items[j]);
                continue;
            }
            let at = new_items[j].loc(new_schema, new);
            let violation = match new_items[j] {
                Item::Fence(_) => Violation::new(
                    Rule::ChangedFence,
                    format!("a FENCE among OLD's entries of PROTOCOL `{}`", new.name),
                    Anchor::At(at),
                )
                .primary(at, "not in OLD")
                .help("remove it; a new FENCE goes after OLD's last entry"),
                item => Violation::new(
                    Rule::NotExtension,
                    format!(
                        "{} is new but stands among OLD's entries of PROTOCOL `{}`: {}",
                        item.describe(),
                        new.name,
                        if new_items[j + 1..aligned_end]
                            .iter()
                            .any(|later| !matches!(later, Item::Fence(_)))
                        {
                            "the ids of the entries after it shift"
                        } else {
                            "before OLD's last FENCE, it changes the versions OLD has"
                        }
                    ),
                    Anchor::At(at),
                )
                .primary(at, "inserted here")
                .help(format!(
                    "move {} to the end of `{}`, after a new FENCE",
                    item.describe(),
                    new.name
                )),
            };
            self.report(violation);
        }
        let Some(first) = tail.first() else {
            return;
        };
        let ends_fenced = matches!(old_items.last(), Some(Item::Fence(_)))
            && equal.iter().any(|&(i, _)| i + 1 == old_items.len());
        if !ends_fenced && !matches!(first, Item::Fence(_)) {
            let at = first.loc(new_schema, new);
            let mut violation = Violation::new(
                Rule::MissingFence,
                format!(
                    "{} is appended to PROTOCOL `{}` without a FENCE before it",
                    first.describe(),
                    new.name
                ),
                Anchor::At(at),
            )
            .primary(at, "new in NEW");
            if let Some(last) = old_items.last() {
                violation = violation.secondary(last.loc(old_schema, old), "OLD ends here");
            }
            self.report(violation.help(format!("add FENCE before {}", first.describe())));
        }
        for item in tail {
            if let Item::Entry(entry) = item {
                self.change(
                    ChangeKind::EntryAdded {
                        protocol: new.name.clone(),
                        entry: describe_entry(entry).replace('`', ""),
                        name: entry_name(&entry.kind).to_string(),
                        id: entry.id,
                    },
                    item.loc(new_schema, new),
                );
            }
        }
    }

    fn compare_entries(
        &mut self,
        old: &ProtocolDef,
        new: &ProtocolDef,
        a: &ProtocolEntry,
        b: &ProtocolEntry,
    ) {
        let name = entry_name(&b.kind);
        let at = self
            .new
            .schema
            .structs
            .get(name)
            .map_or(new.loc, |def| def.loc);
        let old_at = self
            .old
            .schema
            .structs
            .get(name)
            .map_or(old.loc, |def| def.loc);
        match (&a.kind, &b.kind) {
            (EntryKind::Rpc { returns: r, .. }, EntryKind::Rpc { returns: s, .. }) if r != s => {
                let show = |t: &Option<crate::ir::Type>| {
                    t.as_ref()
                        .map_or_else(|| "no response".to_string(), |t| t.describe())
                };
                self.report(
                    Violation::new(
                        Rule::ChangedMember,
                        format!(
                            "the response of RPC `{name}` changed from {} to {}",
                            show(r),
                            show(s)
                        ),
                        Anchor::At(at),
                    )
                    .primary(at, format!("{} in NEW", show(s)))
                    .secondary(old_at, format!("{} in OLD", show(r)))
                    .help(format!(
                        "keep `-> {}`; add a new RPC after a FENCE for the new response",
                        show(r)
                    )),
                );
            }
            (EntryKind::Message(_), EntryKind::Rpc { .. })
            | (EntryKind::Rpc { .. }, EntryKind::Message(_)) => {
                let kind = |k: &EntryKind| match k {
                    EntryKind::Message(_) => "MESSAGE",
                    EntryKind::Rpc { .. } => "RPC",
                };
                // The struct check reports it when both are structs of the schema.
                if !(self.old.schema.structs.contains_key(name)
                    && self.new.schema.structs.contains_key(name))
                {
                    self.kind_changed(name, kind(&a.kind), old_at, kind(&b.kind), at);
                }
            }
            _ => {}
        }
    }
}
