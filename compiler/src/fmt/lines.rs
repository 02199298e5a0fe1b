//! The printer's output lines, and how they become text: 2-space indentation, and the trailing
//! comments of consecutive lines aligned in one column (as gofmt aligns them).

/// Spaces per indentation level.
pub const INDENT: usize = 2;

/// One line of formatted output.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// An empty line between members or items.
    Blank,
    /// Code, maybe followed by a `//` comment.
    Code {
        /// Indentation level.
        indent: usize,
        /// The code (block comments inside it included).
        code: String,
        /// A trailing comment, if the line ends with one.
        comment: Option<String>,
    },
    /// A comment on a line of its own.
    Comment {
        /// Indentation level.
        indent: usize,
        /// The comment as written (a block comment may span lines).
        text: String,
    },
    /// A `//` comment that continues the trailing comment of the line above, in its column.
    Continuation(String),
}

/// The text of `lines`, each ended by a newline.
pub fn render(lines: &[Line]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        let Line::Code {
            indent: group_indent,
            comment: Some(_),
            ..
        } = &lines[i]
        else {
            render_line(&mut out, &lines[i], 0);
            i += 1;
            continue;
        };
        // A run of lines with trailing comments (and their continuations) at one indentation:
        // the comments start two columns after the longest code.
        let mut end = i;
        let mut width = 0;
        while let Some(line) = lines.get(end) {
            match line {
                Line::Code {
                    indent,
                    code,
                    comment: Some(_),
                } if indent == group_indent => {
                    width = width.max(indent * INDENT + code.chars().count());
                }
                Line::Continuation(_) => {}
                _ => break,
            }
            end += 1;
        }
        for line in &lines[i..end] {
            render_line(&mut out, line, width + 2);
        }
        i = end;
    }
    out
}

fn render_line(out: &mut String, line: &Line, column: usize) {
    match line {
        Line::Blank => {}
        Line::Code {
            indent,
            code,
            comment,
        } => {
            push_indent(out, *indent);
            out.push_str(code);
            if let Some(comment) = comment {
                let used = indent * INDENT + code.chars().count();
                let pad = column.saturating_sub(used).max(1);
                out.extend(std::iter::repeat_n(' ', pad));
                out.push_str(comment);
            }
        }
        Line::Comment { indent, text } => {
            push_indent(out, *indent);
            out.push_str(text);
        }
        Line::Continuation(text) => {
            out.extend(std::iter::repeat_n(' ', column));
            out.push_str(text);
        }
    }
    out.push('\n');
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent * INDENT));
}
