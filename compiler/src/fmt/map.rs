//! The Mapping's layout: items and members one per line, restated enums as lists.

use super::hints::Hints;
use crate::front::map::ast::{MapBody, MapFile, MapMember};

/// The layout facts of a Mapping file.
pub fn hints(file: &MapFile) -> Hints {
    let mut hints = Hints::default();
    for item in &file.items {
        hints.line(item.span);
        if let MapBody::Target { members, .. } = &item.body {
            for member in members {
                match member {
                    MapMember::Field { span, .. } | MapMember::Rename { span, .. } => {
                        hints.line(*span)
                    }
                    MapMember::Enum { decl, span, .. } => {
                        hints.line(*span);
                        hints.enum_list(decl);
                    }
                }
            }
        }
    }
    hints
}
