//! What NEW adds to OLD, for the summary check-compat prints when the change is compatible and
//! the `changes` of its JSON document.

use std::fmt;

use crate::ir::Loc;

/// One compatible change, and where NEW makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// What changed.
    pub kind: ChangeKind,
    /// Where in NEW: the new field, the EXTEND, the closing FENCE, the new entry's or item's
    /// declaration; `None` for what has no place (an encoding of the built-in `Default`).
    pub loc: Option<Loc>,
}

impl Change {
    /// A change made at `loc` in NEW.
    pub(crate) fn at(kind: ChangeKind, loc: impl Into<Option<Loc>>) -> Change {
        Change {
            kind,
            loc: loc.into(),
        }
    }

    /// The change's kind as JSON names it: `field-added`, `field-widened`, `open-end-added`,
    /// `entry-added`, `item-added` or `encoding-added`.
    pub fn name(&self) -> &'static str {
        match &self.kind {
            ChangeKind::FieldAdded { .. } => "field-added",
            ChangeKind::FieldWidened { .. } => "field-widened",
            ChangeKind::OpenEndAdded { .. } => "open-end-added",
            ChangeKind::EntryAdded { .. } => "entry-added",
            ChangeKind::ItemAdded {
                kind: "ENCODING", ..
            } => "encoding-added",
            ChangeKind::ItemAdded { .. } => "item-added",
        }
    }

    /// What changed, by name: `Owner.field` for a field or EXTEND, `Owner` for an open end,
    /// `Protocol.Name` for a protocol entry, the item's or encoding's name.
    pub fn item(&self) -> String {
        match &self.kind {
            ChangeKind::FieldAdded { owner, field, .. }
            | ChangeKind::FieldWidened { owner, field, .. } => format!("{owner}.{field}"),
            ChangeKind::OpenEndAdded { owner, .. } => owner.clone(),
            ChangeKind::EntryAdded { protocol, name, .. } => format!("{protocol}.{name}"),
            ChangeKind::ItemAdded { name, .. } => name.clone(),
        }
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

/// What a compatible change is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    /// A new field (or RPC parameter) after a FENCE.
    FieldAdded {
        /// The struct, message or RPC.
        owner: String,
        /// Its keyword (`STRUCT`, `RPC`, ...).
        kind: &'static str,
        /// The new field.
        field: String,
        /// Its type, as the IDL writes it.
        ty: String,
    },
    /// An `EXTEND field TO type` after a FENCE.
    FieldWidened {
        /// The struct, message or RPC.
        owner: String,
        /// The widened field.
        field: String,
        /// Its type before.
        from: String,
        /// Its type after.
        to: String,
    },
    /// A struct, message or RPC that NEW ends with a FENCE (an open end) where OLD did not.
    OpenEndAdded {
        /// The struct, message or RPC.
        owner: String,
        /// Its keyword (`STRUCT`, `RPC`, ...).
        kind: &'static str,
    },
    /// A message or RPC appended to a protocol.
    EntryAdded {
        /// The protocol.
        protocol: String,
        /// `MESSAGE Name` or `RPC name`.
        entry: String,
        /// The message's or RPC's name.
        name: String,
        /// Its id.
        id: u32,
    },
    /// A new top-level item (type, protocol) or encoding.
    ItemAdded {
        /// `STRUCT`, `ENUM`, `PROTOCOL`, `ENCODING`, ...
        kind: &'static str,
        /// Its name.
        name: String,
    },
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChangeKind::FieldAdded {
                owner,
                kind,
                field,
                ty,
            } => {
                let word = if *kind == "RPC" { "parameter" } else { "field" };
                write!(f, "added {word} {owner}.{field} ({ty})")
            }
            ChangeKind::FieldWidened {
                owner,
                field,
                from,
                to,
            } => write!(f, "widened {owner}.{field} from {from} to {to}"),
            ChangeKind::OpenEndAdded { owner, kind } => {
                write!(f, "opened {kind} {owner}: it ends with a FENCE now")
            }
            ChangeKind::EntryAdded {
                protocol,
                entry,
                id,
                ..
            } => write!(f, "added {entry} to PROTOCOL {protocol} (id {id})"),
            ChangeKind::ItemAdded { kind, name } => write!(f, "added {kind} {name}"),
        }
    }
}

/// A one-line count of the changes: `2 fields added, 1 widened, 1 type added`.
pub fn tally(changes: &[Change]) -> String {
    let parts = [
        ("field-added", "field added", "fields added"),
        ("field-widened", "field widened", "fields widened"),
        ("open-end-added", "open end added", "open ends added"),
        (
            "entry-added",
            "protocol entry added",
            "protocol entries added",
        ),
        ("item-added", "item added", "items added"),
        ("encoding-added", "encoding added", "encodings added"),
    ];
    let said: Vec<String> = parts
        .iter()
        .filter_map(|(name, one, many)| {
            let n = changes.iter().filter(|c| c.name() == *name).count();
            (n > 0).then(|| format!("{n} {}", if n == 1 { one } else { many }))
        })
        .collect();
    if said.is_empty() {
        "no changes".into()
    } else {
        said.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_counts_each_kind() {
        assert_eq!(tally(&[]), "no changes");
        let changes = [
            ChangeKind::FieldAdded {
                owner: "A".into(),
                kind: "STRUCT",
                field: "x".into(),
                ty: "UINT8".into(),
            },
            ChangeKind::FieldAdded {
                owner: "f".into(),
                kind: "RPC",
                field: "y".into(),
                ty: "BOOL".into(),
            },
            ChangeKind::ItemAdded {
                kind: "ENUM",
                name: "E".into(),
            },
            ChangeKind::ItemAdded {
                kind: "ENCODING",
                name: "S2C".into(),
            },
        ]
        .map(|kind| Change::at(kind, None));
        assert_eq!(
            tally(&changes),
            "2 fields added, 1 item added, 1 encoding added"
        );
        assert_eq!(changes[1].to_string(), "added parameter f.y (BOOL)");
        assert_eq!(
            (changes[1].name(), changes[1].item().as_str()),
            ("field-added", "f.y")
        );
        assert_eq!(
            (changes[3].name(), changes[3].item().as_str()),
            ("encoding-added", "S2C")
        );
    }
}
