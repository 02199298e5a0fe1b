//! What NEW adds to OLD, for the summary check-compat prints when the change is compatible.

use std::fmt;

/// One compatible change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
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

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::FieldAdded {
                owner,
                kind,
                field,
                ty,
            } => {
                let word = if *kind == "RPC" { "parameter" } else { "field" };
                write!(f, "added {word} {owner}.{field} ({ty})")
            }
            Change::FieldWidened {
                owner,
                field,
                from,
                to,
            } => write!(f, "widened {owner}.{field} from {from} to {to}"),
            Change::OpenEndAdded { owner, kind } => {
                write!(f, "opened {kind} {owner}: it ends with a FENCE now")
            }
            Change::EntryAdded {
                protocol,
                entry,
                id,
                ..
            } => write!(f, "added {entry} to PROTOCOL {protocol} (id {id})"),
            Change::ItemAdded { kind, name } => write!(f, "added {kind} {name}"),
        }
    }
}

/// A one-line count of the changes: `2 fields added, 1 widened, 1 type added`.
pub fn tally(changes: &[Change]) -> String {
    let count = |p: fn(&Change) -> bool| changes.iter().filter(|c| p(c)).count();
    let parts = [
        (
            count(|c| matches!(c, Change::FieldAdded { .. })),
            "field added",
            "fields added",
        ),
        (
            count(|c| matches!(c, Change::FieldWidened { .. })),
            "field widened",
            "fields widened",
        ),
        (
            count(|c| matches!(c, Change::OpenEndAdded { .. })),
            "open end added",
            "open ends added",
        ),
        (
            count(|c| matches!(c, Change::EntryAdded { .. })),
            "protocol entry added",
            "protocol entries added",
        ),
        (
            count(|c| matches!(c, Change::ItemAdded { kind, .. } if *kind != "ENCODING")),
            "item added",
            "items added",
        ),
        (
            count(|c| {
                matches!(
                    c,
                    Change::ItemAdded {
                        kind: "ENCODING",
                        ..
                    }
                )
            }),
            "encoding added",
            "encodings added",
        ),
    ];
    let said: Vec<String> = parts
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
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
            Change::FieldAdded {
                owner: "A".into(),
                kind: "STRUCT",
                field: "x".into(),
                ty: "UINT8".into(),
            },
            Change::FieldAdded {
                owner: "f".into(),
                kind: "RPC",
                field: "y".into(),
                ty: "BOOL".into(),
            },
            Change::ItemAdded {
                kind: "ENUM",
                name: "E".into(),
            },
        ];
        assert_eq!(tally(&changes), "2 fields added, 1 item added");
        assert_eq!(changes[1].to_string(), "added parameter f.y (BOOL)");
    }
}
