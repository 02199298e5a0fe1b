//! The tuned encoding as an Encoding file: the input file with each tuned member's `DIFF`
//! clause replaced, removed or written, and every other byte as it was.

use crate::diagnostics::FileId;
use crate::front::enc::{self, ast};
use crate::front::span::Span;

/// One member's new `DIFF`: the member (its span in the file) and its tiers (`None`: no DIFF).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The whole member, as the IR's `FieldEncoding::loc` gives it.
    pub member: Span,
    /// The tiers to write.
    pub tiers: Option<Vec<u32>>,
}

/// `DIFF(b1, ..., bk)`.
pub fn diff_clause(tiers: &[u32]) -> String {
    let tiers: Vec<String> = tiers.iter().map(u32::to_string).collect();
    format!("DIFF({})", tiers.join(", "))
}

/// `source`, the Encoding file `file`, with `edits` made: an existing `DIFF(..)` is replaced (or
/// removed with the space after it), a new one written before the member's rule, else before
/// its name. `Err` names a member that is not a field of the file (the file changed since it
/// was compiled).
pub fn rewrite(file: FileId, source: &str, edits: &[Edit]) -> Result<String, String> {
    let (parsed, _) = enc::parse(file, source);
    let mut fields = Vec::new();
    for item in &parsed.items {
        if let ast::EncBody::Target(_, members) = &item.body {
            collect(members, &mut fields);
        }
    }
    // (start, end, replacement), applied from the end so earlier offsets stay true.
    let mut changes: Vec<(usize, usize, String)> = Vec::new();
    for edit in edits {
        let Some(field) = fields.iter().find(|f| f.span == edit.member) else {
            return Err(format!(
                "no field member at bytes {}..{}",
                edit.member.start, edit.member.end
            ));
        };
        changes.push(change(source, field, edit.tiers.as_deref()));
    }
    changes.sort_by_key(|&(start, _, _)| std::cmp::Reverse(start));
    let mut out = source.to_string();
    for (start, end, text) in changes {
        out.replace_range(start..end, &text);
    }
    Ok(out)
}

fn collect<'a>(members: &'a [ast::EncMember], out: &mut Vec<&'a ast::EncField>) {
    for member in members {
        match member {
            ast::EncMember::Field(f) => out.push(f),
            ast::EncMember::Delta(block) => collect(&block.members, out),
            ast::EncMember::DeadReckoning(block) => collect(&block.members, out),
            _ => {}
        }
    }
}

fn change(source: &str, field: &ast::EncField, tiers: Option<&[u32]>) -> (usize, usize, String) {
    match (&field.diff, tiers) {
        (Some(diff), Some(tiers)) => (diff.span.start, diff.span.end, diff_clause(tiers)),
        (Some(diff), None) => {
            let rest = source.get(diff.span.end..).unwrap_or_default();
            let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            (diff.span.start, diff.span.end + spaces, String::new())
        }
        (None, Some(tiers)) => {
            let at = field
                .rule
                .as_ref()
                .map_or(field.name.span, |r| r.span)
                .start;
            (at, at, format!("{} ", diff_clause(tiers)))
        }
        (None, None) => (field.span.start, field.span.start, String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "ENCODING(E) PUBLISHABLE_STRUCT S {\n  DELTA DIFF(2, 5) FIXED_POINT(0.01) x;\n  DELTA { y; BIT(4) hp; }\n  DELTA DIFF(3) BIT(7) n;\n};\n";

    fn member(text: &str) -> Span {
        let start = SOURCE.find(text).unwrap();
        Span::new(start, start + text.len())
    }

    #[test]
    fn replaces_writes_and_removes_diff_clauses() {
        let edits = [
            Edit {
                member: member("DELTA DIFF(2, 5) FIXED_POINT(0.01) x"),
                tiers: Some(vec![1, 4, 9]),
            },
            Edit {
                member: member("y"),
                tiers: Some(vec![3]),
            },
            Edit {
                member: member("BIT(4) hp"),
                tiers: Some(vec![2]),
            },
            Edit {
                member: member("DELTA DIFF(3) BIT(7) n"),
                tiers: None,
            },
        ];
        let out = rewrite(FileId::default(), SOURCE, &edits).unwrap();
        assert_eq!(
            out,
            "ENCODING(E) PUBLISHABLE_STRUCT S {\n  DELTA DIFF(1, 4, 9) FIXED_POINT(0.01) x;\n  DELTA { DIFF(3) y; DIFF(2) BIT(4) hp; }\n  DELTA BIT(7) n;\n};\n"
        );
    }

    #[test]
    fn a_member_that_is_not_there_is_an_error() {
        let edits = [Edit {
            member: Span::new(0, 3),
            tiers: None,
        }];
        assert!(rewrite(FileId::default(), SOURCE, &edits).is_err());
    }
}
