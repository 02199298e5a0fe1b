//! Members of a struct flattened (per segment: a FENCE, the EXTENDs, the fields; the open end
//! as a last FENCE) and OLD's aligned with NEW's on their names with a diff (similar's Myers),
//! so that a removed or inserted member is one difference, not one per member after it.

use std::collections::HashSet;

use similar::DiffTag;

use crate::diagnostics::text_diff::edit_script;
use crate::ir::{Extend, Field, Loc, StructDef};

/// One member of a struct, flattened.
#[derive(Debug, Clone, Copy)]
pub(super) enum Member<'a> {
    /// A field declared in `segment`.
    Field { field: &'a Field, segment: usize },
    /// An EXTEND in `segment`.
    Extend { extend: &'a Extend, segment: usize },
    /// The FENCE before segment `index + 1` (the open end when it is the last).
    Fence { index: usize },
}

/// What members are aligned on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Key<'a> {
    Field(&'a str),
    Extend(&'a str),
    Fence,
}

impl<'a> Member<'a> {
    pub(super) fn key(&self) -> Key<'a> {
        match self {
            Member::Field { field, .. } => Key::Field(&field.name),
            Member::Extend { extend, .. } => Key::Extend(&extend.field),
            Member::Fence { .. } => Key::Fence,
        }
    }

    pub(super) fn loc(&self, def: &StructDef) -> Loc {
        match self {
            Member::Field { field, .. } => field.loc,
            Member::Extend { extend, .. } => extend.loc,
            Member::Fence { index } => fence_loc(def, *index),
        }
    }

    /// How the member reads in a message: `` `x` ``, `` `EXTEND x TO T` ``, `FENCE`.
    pub(super) fn describe(&self) -> String {
        match self {
            Member::Field { field, .. } => format!("`{}`", field.name),
            Member::Extend { extend, .. } => {
                format!("`EXTEND {} TO {}`", extend.field, extend.to.describe())
            }
            Member::Fence { .. } => "FENCE".into(),
        }
    }
}

/// The members of `def`, flattened.
pub(super) fn members(def: &StructDef) -> Vec<Member<'_>> {
    let mut out = Vec::new();
    for (segment, members) in def.segments.iter().enumerate() {
        if segment > 0 {
            out.push(Member::Fence { index: segment - 1 });
        }
        out.extend(
            members
                .extends
                .iter()
                .map(|extend| Member::Extend { extend, segment }),
        );
        out.extend(
            members
                .fields
                .iter()
                .map(|field| Member::Field { field, segment }),
        );
    }
    if def.open_end {
        out.push(Member::Fence {
            index: def.segments.len().saturating_sub(1),
        });
    }
    out
}

/// Where the FENCE before segment `index + 1` was written (the struct, if the IR does not say).
fn fence_loc(def: &StructDef, index: usize) -> Loc {
    def.fence_locs.get(index).copied().unwrap_or(def.loc)
}

/// "version 2" for segment 1.
pub(super) fn version(segment: usize) -> String {
    format!("version {}", segment + 1)
}

/// The result of aligning OLD's members with NEW's.
#[derive(Default)]
pub(super) struct Alignment {
    /// Pairs with the same key: (OLD index, NEW index).
    pub(super) equal: Vec<(usize, usize)>,
    /// Fields of OLD renamed in NEW: (OLD index, NEW index).
    pub(super) renamed: Vec<(usize, usize)>,
    /// OLD members not aligned with any of NEW.
    pub(super) deleted: Vec<usize>,
    /// NEW members not aligned with any of OLD.
    pub(super) inserted: Vec<usize>,
}

/// Aligns OLD's members with NEW's on their keys; a field replaced by one of the same type
/// whose name is new, while its own name is gone, is a rename.
pub(super) fn align(old: &[Member<'_>], new: &[Member<'_>]) -> Alignment {
    let old_keys: Vec<Key<'_>> = old.iter().map(Member::key).collect();
    let new_keys: Vec<Key<'_>> = new.iter().map(Member::key).collect();
    let old_names: HashSet<Key<'_>> = old_keys.iter().copied().collect();
    let new_names: HashSet<Key<'_>> = new_keys.iter().copied().collect();
    let mut alignment = Alignment::default();
    for op in edit_script(&old_keys, &new_keys) {
        let (tag, olds, news) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => alignment.equal.extend(olds.zip(news)),
            DiffTag::Delete => alignment.deleted.extend(olds),
            DiffTag::Insert => alignment.inserted.extend(news),
            DiffTag::Replace => {
                let pairs = olds.len().min(news.len());
                for (i, j) in olds.clone().zip(news.clone()) {
                    let rename = match (old[i], new[j]) {
                        (Member::Field { field: f, .. }, Member::Field { field: g, .. }) => {
                            !new_names.contains(&Key::Field(&f.name))
                                && !old_names.contains(&Key::Field(&g.name))
                                && f.ty == g.ty
                        }
                        _ => false,
                    };
                    if rename {
                        alignment.renamed.push((i, j));
                    } else {
                        alignment.deleted.push(i);
                        alignment.inserted.push(j);
                    }
                }
                alignment.deleted.extend(olds.skip(pairs));
                alignment.inserted.extend(news.skip(pairs));
            }
        }
    }
    alignment.deleted.sort_unstable();
    alignment.inserted.sort_unstable();
    alignment
}
