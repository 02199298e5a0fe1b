//! Rules 1 and 6: every struct, message, RPC, enum and protocol of OLD is in NEW with its kind;
//! enums do not change in place. And the new top-level items, for the summary.

use std::collections::HashSet;

use super::changes::{Change, ChangeKind};
use super::types::kind_name;
use super::{Anchor, Checker, Rule, Violation};
use crate::ir::{EntryKind, EnumDef, Loc, Schema, StructDef};

/// What a name stands for in a schema, and where it was declared.
pub(super) fn item_of(schema: &Schema, name: &str) -> Option<(&'static str, Loc)> {
    if let Some(def) = schema.structs.get(name) {
        return Some((kind_name(def.kind), def.loc));
    }
    if let Some(def) = schema.enums.get(name) {
        return Some(("ENUM", def.loc));
    }
    if let Some(def) = schema.protocols.get(name) {
        return Some(("PROTOCOL", def.loc));
    }
    if let Some(def) = schema.typedefs.get(name) {
        return Some(("TYPEDEF", def.loc));
    }
    schema.consts.get(name).map(|def| ("CONST", def.loc))
}

/// "a STRUCT", "an ENUM".
fn article(kind: &str) -> String {
    let vowel = kind.starts_with(['A', 'E', 'I', 'O', 'U']);
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

/// The name of a protocol entry.
pub(super) fn entry_name(kind: &EntryKind) -> &str {
    match kind {
        EntryKind::Message(name) | EntryKind::Rpc { name, .. } => name,
    }
}

impl Checker<'_> {
    /// Structs and enums of OLD against NEW's.
    pub(super) fn items(&mut self) {
        let (old, new) = (self.old, self.new);
        // An RPC's response struct is checked with its RPC (the protocol's check compares the
        // response types).
        let structs = old
            .schema
            .structs
            .iter()
            .filter(|(_, def)| def.kind != crate::ir::StructKind::RpcResponse);
        for (name, old_def) in structs {
            match new.schema.structs.get(name) {
                Some(new_def) => {
                    if new_def.kind != old_def.kind {
                        self.kind_changed(
                            name,
                            kind_name(old_def.kind),
                            old_def.loc,
                            kind_name(new_def.kind),
                            new_def.loc,
                        );
                    }
                    self.check_struct(old_def, new_def);
                }
                None => match item_of(&new.schema, name) {
                    Some((kind, loc)) => {
                        self.kind_changed(name, kind_name(old_def.kind), old_def.loc, kind, loc);
                    }
                    // The protocol's check reports an entry that is gone from it.
                    None if self.is_entry_of_kept_protocol(old_def) => {}
                    None => self.removed(kind_name(old_def.kind), name, old_def.loc),
                },
            }
        }
        for (name, old_enum) in &old.schema.enums {
            match new.schema.enums.get(name) {
                Some(new_enum) => self.check_enum(old_enum, new_enum),
                None => match item_of(&new.schema, name) {
                    Some((kind, loc)) => self.kind_changed(name, "ENUM", old_enum.loc, kind, loc),
                    None => self.removed("ENUM", name, old_enum.loc),
                },
            }
        }
    }

    /// Whether `def` is a message or RPC of a protocol of OLD that NEW still has.
    fn is_entry_of_kept_protocol(&self, def: &StructDef) -> bool {
        let Some(protocol) = &def.protocol else {
            return false;
        };
        let listed = self.old.schema.protocols.get(protocol).is_some_and(|p| {
            p.entries
                .iter()
                .any(|entry| entry_name(&entry.kind) == def.name)
        });
        listed && self.new.schema.protocols.contains_key(protocol)
    }

    pub(super) fn removed(&mut self, kind: &str, name: &str, loc: Loc) {
        self.report(
            Violation::new(
                Rule::RemovedItem,
                format!("{kind} `{name}` is gone"),
                Anchor::Named(name.to_string()),
            )
            .primary(loc, format!("OLD declares `{name}` here; NEW does not"))
            .note("an old writer still sends it, and an old reader still expects it")
            .help(format!("keep {kind} `{name}` as OLD has it")),
        );
    }

    pub(super) fn kind_changed(
        &mut self,
        name: &str,
        old_kind: &str,
        old_loc: Loc,
        new_kind: &str,
        new_loc: Loc,
    ) {
        self.report(
            Violation::new(
                Rule::KindChanged,
                format!(
                    "`{name}` is {} in OLD and {} in NEW",
                    article(old_kind),
                    article(new_kind)
                ),
                Anchor::At(new_loc),
            )
            .primary(new_loc, format!("{new_kind} in NEW"))
            .secondary(old_loc, format!("{old_kind} in OLD"))
            .help(format!(
                "keep `{name}` {}; declare the {new_kind} under a new name",
                article(old_kind)
            )),
        );
    }

    /// Rule 6: an enum of OLD is the same in NEW.
    fn check_enum(&mut self, old: &EnumDef, new: &EnumDef) {
        if old.enumerators == new.enumerators {
            return;
        }
        let old_names: HashSet<&str> = old.enumerators.iter().map(|e| e.name.as_str()).collect();
        let new_names: HashSet<&str> = new.enumerators.iter().map(|e| e.name.as_str()).collect();
        let mut what = Vec::new();
        let added: Vec<String> = new
            .enumerators
            .iter()
            .filter(|e| !old_names.contains(e.name.as_str()))
            .map(|e| format!("`{}`", e.name))
            .collect();
        if !added.is_empty() {
            what.push(format!("{} added", added.join(", ")));
        }
        let removed: Vec<String> = old
            .enumerators
            .iter()
            .filter(|e| !new_names.contains(e.name.as_str()))
            .map(|e| format!("`{}`", e.name))
            .collect();
        if !removed.is_empty() {
            what.push(format!("{} removed", removed.join(", ")));
        }
        for e in &old.enumerators {
            if let Some(n) = new.enumerators.iter().find(|n| n.name == e.name) {
                if n.value != e.value {
                    what.push(format!(
                        "`{}` renumbered from {} to {}",
                        e.name, e.value, n.value
                    ));
                }
            }
        }
        let old_order: Vec<&str> = old
            .enumerators
            .iter()
            .map(|e| e.name.as_str())
            .filter(|n| new_names.contains(n))
            .collect();
        let new_order: Vec<&str> = new
            .enumerators
            .iter()
            .map(|e| e.name.as_str())
            .filter(|n| old_names.contains(n))
            .collect();
        if old_order != new_order {
            what.push("enumerators reordered".to_string());
        }
        if what.is_empty() {
            what.push("enumerators changed".to_string());
        }
        let appended = new.enumerators.len() > old.enumerators.len()
            && new
                .enumerators
                .iter()
                .zip(&old.enumerators)
                .all(|(n, o)| n == o);
        let help = if appended {
            let all: Vec<&str> = new.enumerators.iter().map(|e| e.name.as_str()).collect();
            format!(
                "keep `{}` as OLD has it; declare `ENUM {}2 {{ {} }}` and write `EXTEND field TO {}2;` after a new FENCE in each struct that uses `{}`",
                old.name,
                old.name,
                all.join(", "),
                old.name,
                old.name
            )
        } else {
            format!(
                "keep `{}` exactly as OLD has it: an enumerator is sent as its index",
                old.name
            )
        };
        self.changed_enums.insert(old.name.clone());
        self.report(
            Violation::new(
                Rule::EnumChanged,
                format!("enum `{}` changed in place: {}", new.name, what.join("; ")),
                Anchor::At(new.loc),
            )
            .primary(new.loc, "changed in NEW")
            .secondary(old.loc, "as OLD declares it")
            .note("enums gain enumerators only through EXTEND of the fields that use them")
            .help(help),
        );
    }

    /// The top-level items NEW adds, for the summary.
    pub(super) fn added_items(&mut self) {
        let (old, new) = (self.old, self.new);
        let appended: HashSet<String> = self
            .out
            .changes
            .iter()
            .filter_map(|change| match change {
                Change {
                    kind: ChangeKind::EntryAdded { name, .. },
                    ..
                } => Some(name.clone()),
                _ => None,
            })
            .collect();
        let mut added = Vec::new();
        for (name, def) in &new.schema.structs {
            if item_of(&old.schema, name).is_none()
                && !appended.contains(name)
                && !matches!(
                    def.kind,
                    crate::ir::StructKind::RpcParams | crate::ir::StructKind::RpcResponse
                )
            {
                added.push((kind_name(def.kind), name.clone(), Some(def.loc)));
            }
        }
        for (name, def) in &new.schema.enums {
            if item_of(&old.schema, name).is_none() {
                added.push(("ENUM", name.clone(), Some(def.loc)));
            }
        }
        for (name, def) in &new.schema.protocols {
            if item_of(&old.schema, name).is_none() {
                added.push(("PROTOCOL", name.clone(), Some(def.loc)));
            }
        }
        for (name, encoding) in &new.encodings {
            if !old.encodings.contains_key(name) {
                added.push(("ENCODING", name.clone(), encoding.loc));
            }
        }
        for (kind, name, loc) in added {
            self.change(ChangeKind::ItemAdded { kind, name }, loc);
        }
    }
}
