//! The unified diffs the tools print: a stale generated file (`idlc gen --check`), an
//! unformatted schema (`idlc fmt --check`), two versions' canonical texts (`idlc check-compat
//! --diff`), and the edit scripts check-compat aligns members with.

use std::fmt::Write as _;
use std::hash::Hash;

use similar::algorithms::{Capture, Compact, Replace, myers};
use similar::udiff::UnifiedHunkHeader;
use similar::{DiffOp, group_diff_ops};

/// Lines of context around each hunk, as `diff -u`.
const CONTEXT: usize = 3;

/// The edit script from `old` to `new` by Myers' algorithm: what
/// `similar::capture_diff_slices(Algorithm::Myers, ..)` gives, without that call's dispatch,
/// which compiles all six of similar's algorithms for every element type (with
/// `similar::TextDiff`, 40% of the compiler's LLVM IR: `cargo llvm-lines -p idlc --lib --profile test`).
pub fn edit_script<T: Eq + Hash>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let mut hook = Compact::new(Replace::new(Capture::new()), old, new);
    match myers::diff(&mut hook, old, 0..old.len(), new, 0..new.len()) {
        Ok(()) => hook.into_inner().into_inner().into_ops(),
        Err(never) => match never {},
    }
}

/// A unified diff (`--- OLD_NAME` / `+++ NEW_NAME`, then hunks with three lines of context) of
/// two texts, line by line; empty when they are equal. The text `similar::TextDiff`'s
/// `unified_diff` writes, from [`edit_script`].
#[must_use]
pub fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let mut out = String::new();
    for hunk in group_diff_ops(edit_script(&old_lines, &new_lines), CONTEXT) {
        if out.is_empty() {
            let _ = writeln!(out, "--- {old_name}\n+++ {new_name}");
        }
        let _ = writeln!(out, "{}", UnifiedHunkHeader::new(&hunk));
        for change in hunk
            .iter()
            .flat_map(|op| op.iter_changes(&old_lines, &new_lines))
        {
            let line = change.value();
            let _ = write!(out, "{}{line}", change.tag());
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::unified_diff;

    /// Each case with the text `similar::TextDiff::from_lines(old, new).unified_diff()` wrote.
    #[test]
    fn the_diffs_are_textdiffs() {
        let cases = [
            ("same\n", "same\n", ""),
            (
                "a\nb\nc\n",
                "a\nB\nc\n",
                "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
            ),
            ("", "x\n", "@@ -0,0 +1 @@\n+x\n"),
            ("x\n", "", "@@ -1 +0,0 @@\n-x\n"),
            (
                "a\r\nb\r\n",
                "a\r\nc\r\n",
                "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n",
            ),
            (
                "a\nb\nc",
                "a\nb\nc\nd",
                "@@ -1,3 +1,4 @@\n a\n b\n-c\n\\ No newline at end of file\n+c\n+d\n\\ No newline at end of file\n",
            ),
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n",
                "0\n1\n2\n3\n4\n5\n6\n7\nX\n9\n10\n11\n12\n13\n14\n15\n",
                "@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -5,10 +6,11 @@\n 5\n 6\n 7\n-8\n+X\n 9\n 10\n 11\n 12\n 13\n 14\n+15\n",
            ),
        ];
        for (old, new, hunks) in cases {
            let headers = if hunks.is_empty() {
                ""
            } else {
                "--- old\n+++ new\n"
            };
            assert_eq!(
                unified_diff(old, new, "old", "new"),
                format!("{headers}{hunks}"),
                "{old:?} -> {new:?}"
            );
        }
    }
}
