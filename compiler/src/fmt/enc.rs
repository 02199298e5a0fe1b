//! The Encoding's layout: items, default rules and members one per line, blocks nested.

use super::hints::Hints;
use crate::front::enc::ast::{EncBody, EncFile, EncMember};

/// The layout facts of an Encoding file.
pub fn hints(file: &EncFile) -> Hints {
    let mut hints = Hints::default();
    for item in &file.items {
        hints.line(item.span);
        match &item.body {
            EncBody::Style(..) => {}
            EncBody::Defaults(rules) => {
                for rule in rules {
                    hints.line(rule.span);
                }
            }
            EncBody::Target(_, members) => self::members(&mut hints, members),
        }
    }
    hints
}

fn members(hints: &mut Hints, members: &[EncMember]) {
    for member in members {
        match member {
            EncMember::Field(field) => hints.line(field.span),
            EncMember::Delta(block) => {
                hints.line(block.span);
                self::members(hints, &block.members);
            }
            EncMember::DeadReckoning(block) => {
                hints.line(block.span);
                self::members(hints, &block.members);
            }
            EncMember::Fence(span) => hints.fence(*span),
            EncMember::Extend(extend) => hints.line(extend.span),
            EncMember::Align(span) | EncMember::Check(span) => hints.line(*span),
        }
    }
}
