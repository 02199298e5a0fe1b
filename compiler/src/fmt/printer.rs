//! The printer: the file's tokens and comments, in source order, laid out by the [`Hints`] of
//! its syntax tree. It reprints every token as written (a number keeps its spelling) and every
//! comment; it only changes whitespace, drops the optional `;` after a `}`, writes the `;` of a
//! `FENCE` member, and a list's trailing comma (written when the list is broken over lines,
//! dropped when it fits on one).

use super::hints::Hints;
use super::lines::{INDENT, Line};
use crate::front::lexer::{Language, Lexeme, Token, lexemes};

/// The widest a line may be for an enum's body to stay on it.
pub const MAX_WIDTH: usize = 100;

/// A token or a comment with its byte span.
struct Element<'a> {
    start: usize,
    end: usize,
    /// `None` for a comment.
    token: Option<Token<'a>>,
    /// For a comment: whether it is a `//` comment.
    line_comment: bool,
    /// Where the lexeme before it ends (a dropped `;` included); `None` for the first.
    after: Option<usize>,
}

/// What an open bracket holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Frame {
    /// `{` of an item or a block: members one per line.
    Block,
    /// `{` of an enum's body; `broken` when one enumerator per line. `last` is where its last
    /// element ends.
    List { broken: bool, last: Option<usize> },
    /// `(`, `[` or `<`: never broken.
    Inline,
}

impl Frame {
    /// Whether its elements begin lines.
    fn breaks(self) -> bool {
        matches!(self, Frame::Block | Frame::List { broken: true, .. })
    }
}

/// What was printed last on the current line, for spacing.
#[derive(Debug, Clone, PartialEq)]
enum Prev<'a> {
    Nothing,
    Token(Token<'a>),
    Comment,
}

/// Formats `source`, whose syntax tree gave `hints`, into lines.
pub fn print(source: &str, language: Language, hints: &Hints) -> Vec<Line> {
    let elements = elements(source, language);
    let mut printer = Printer {
        source,
        hints,
        elements: &elements,
        lines: Vec::new(),
        code: String::new(),
        indent: 0,
        stack: Vec::new(),
        need_break: false,
        prev: Prev::Nothing,
        trailing_column: None,
    };
    for index in 0..elements.len() {
        printer.element(index);
    }
    printer.flush(None);
    while printer.lines.last() == Some(&Line::Blank) {
        printer.lines.pop();
    }
    printer.lines
}

/// The tokens and comments of `source`, without the `;` that follow a `}` (optional
/// everywhere).
fn elements(source: &str, language: Language) -> Vec<Element<'_>> {
    let mut elements: Vec<Element<'_>> = Vec::new();
    let mut last_token: Option<Token<'_>> = None;
    let mut after = None;
    for (start, lexeme, end) in lexemes(source, language) {
        let before = after.replace(end);
        match lexeme {
            Lexeme::Token(token) => {
                if token == Token::Semi && last_token == Some(Token::RBrace) {
                    last_token = Some(token);
                    continue;
                }
                last_token = Some(token.clone());
                elements.push(Element {
                    start,
                    end,
                    token: Some(token),
                    line_comment: false,
                    after: before,
                });
            }
            Lexeme::Comment { line } => elements.push(Element {
                start,
                end,
                token: None,
                line_comment: line,
                after: before,
            }),
        }
    }
    elements
}

struct Printer<'s, 'e> {
    source: &'s str,
    hints: &'e Hints,
    elements: &'e [Element<'s>],
    lines: Vec<Line>,
    /// The current line's code; empty when no line is open.
    code: String,
    /// The current line's indentation level.
    indent: usize,
    stack: Vec<Frame>,
    /// The next token begins a line.
    need_break: bool,
    prev: Prev<'s>,
    /// The source column of the trailing `//` comment printed last, while nothing else has been.
    trailing_column: Option<usize>,
}

impl<'s, 'e> Printer<'s, 'e> {
    fn element(&mut self, index: usize) {
        let element = &self.elements[index];
        match &element.token {
            Some(token) => self.token(index, token.clone()),
            None => self.comment(index),
        }
    }

    fn token(&mut self, index: usize, token: Token<'s>) {
        self.trailing_column = None;
        let element = &self.elements[index];
        let (start, end) = (element.start, element.end);
        let innermost = self.stack.last().copied();
        // A list that fits on a line has no trailing comma.
        if token == Token::Comma
            && matches!(innermost, Some(Frame::List { broken: false, .. }))
            && self.next_token(index).is_some_and(is_close)
        {
            return;
        }
        let closing = is_close(&token);
        let popped = if closing { self.stack.pop() } else { None };
        let depth = self.depth();
        let empty = closing && matches!(self.prev, Prev::Token(ref prev) if is_open(prev));
        let begins_line = if closing {
            !empty && popped.is_some_and(Frame::breaks)
        } else {
            innermost.is_none_or(Frame::breaks) && self.hints.line_starts.contains(&start)
        };
        if begins_line || self.need_break {
            // Inside a member, a line break (after a comment) continues one level deeper.
            let continuation = !begins_line && !closing;
            let blank = !closing && self.blank_before(index);
            self.flush(None);
            if blank {
                self.lines.push(Line::Blank);
            }
            self.indent = depth + usize::from(continuation);
            self.need_break = false;
        } else if !self.code.is_empty() && space(&self.prev, &token) {
            self.code.push(' ');
        }
        self.code.push_str(&self.source[start..end]);
        self.prev = Prev::Token(token.clone());
        if is_open(&token) {
            self.open(index, &token);
        }
        let next = self.next_token(index);
        if self.hints.semicolon_after.contains(&end) && next != Some(&Token::Semi) {
            self.code.push(';');
            self.prev = Prev::Token(Token::Semi);
        }
        if let Some(Frame::List {
            broken: true,
            last: Some(last),
        }) = self.stack.last().copied()
            && last == end
            && next != Some(&Token::Comma)
        {
            self.code.push(',');
            self.prev = Prev::Token(Token::Comma);
        }
    }

    /// After an opening bracket: a block, a list (broken or on this line), or inline.
    fn open(&mut self, index: usize, token: &Token<'s>) {
        let before = index
            .checked_sub(1)
            .and_then(|i| self.elements[..=i].iter().rev().find(|e| e.token.is_some()))
            .map(|e| e.end);
        let list = before.and_then(|end| self.hints.lists.get(&end));
        let frame = match (token, list) {
            (Token::LBrace | Token::LParen, Some(&last)) => Frame::List {
                broken: !self.list_fits(index),
                last,
            },
            (Token::LBrace, None) => Frame::Block,
            _ => Frame::Inline,
        };
        self.stack.push(frame);
        let empty = self
            .elements
            .get(index + 1)
            .and_then(|e| e.token.as_ref())
            .is_some_and(is_close);
        if frame.breaks() && !empty {
            self.need_break = true;
        }
    }

    /// Whether the list opened at `index`, and the rest of its member, fit on the current
    /// line: no comment inside, at most [`MAX_WIDTH`] wide.
    fn list_fits(&self, index: usize) -> bool {
        let mut width = self.indent * INDENT + self.code.chars().count();
        let mut prev = self.elements[index].token.clone();
        let mut depth = 1usize;
        for (i, element) in self.elements.iter().enumerate().skip(index + 1) {
            let Some(token) = &element.token else {
                // A comment inside the list breaks it; one after it ends the line.
                return depth == 0 && width <= MAX_WIDTH;
            };
            if depth == 0 && (self.hints.line_starts.contains(&element.start) || is_close(token)) {
                break;
            }
            if is_open(token) {
                depth += 1;
            } else if is_close(token) {
                depth -= 1;
            } else if *token == Token::Comma
                && depth == 1
                && self.next_token(i).is_some_and(is_close)
            {
                continue;
            }
            if prev
                .as_ref()
                .is_none_or(|prev| space(&Prev::Token(prev.clone()), token))
            {
                width += 1;
            }
            width += self.source[element.start..element.end].chars().count();
            prev = Some(token.clone());
        }
        width <= MAX_WIDTH
    }

    fn comment(&mut self, index: usize) {
        let element = &self.elements[index];
        let raw = &self.source[element.start..element.end];
        let text = if element.line_comment {
            raw.trim_end()
        } else {
            raw
        }
        .to_string();
        let newlines = self.newlines_before(index);
        let column = column(self.source, element.start);
        if newlines == 0 && !self.code.is_empty() {
            // On the line of what precedes it: it stays there.
            if element.line_comment {
                self.flush(Some(text));
                self.need_break = true;
                self.trailing_column = Some(column);
            } else {
                self.code.push(' ');
                self.code.push_str(&text);
                self.prev = Prev::Comment;
            }
            return;
        }
        if newlines == 1 && element.line_comment && self.trailing_column == Some(column) {
            self.lines.push(Line::Continuation(text));
            self.need_break = true;
            return;
        }
        self.trailing_column = None;
        let blank = self.blank_before(index);
        self.flush(None);
        if blank {
            self.lines.push(Line::Blank);
        }
        // Before a member (or a `}`), at its indentation; inside a member, one level deeper.
        let depth = self.depth();
        let next = self.elements[index + 1..]
            .iter()
            .find(|e| e.token.is_some());
        let between = match next {
            None => true,
            Some(next) => {
                next.token.as_ref().is_some_and(is_close)
                    || (self.stack.last().copied().is_none_or(Frame::breaks)
                        && self.hints.line_starts.contains(&next.start))
            }
        };
        let indent = if between { depth } else { depth + 1 };
        self.lines.push(Line::Comment { indent, text });
        self.need_break = true;
    }

    /// How many line breaks the source has between the element at `index` and the lexeme
    /// before it.
    fn newlines_before(&self, index: usize) -> usize {
        let element = &self.elements[index];
        element.after.map_or(0, |end| {
            self.source[end..element.start].matches('\n').count()
        })
    }

    /// Whether a blank line goes before the element at `index`: the source has one there, and
    /// it would not open a file or a block.
    fn blank_before(&self, index: usize) -> bool {
        if self.elements[index].after.is_none() || self.newlines_before(index) < 2 {
            return false;
        }
        let code = if self.code.is_empty() {
            match self.lines.last() {
                Some(Line::Code { code, .. }) => code.as_str(),
                Some(Line::Blank) | None => return false,
                Some(_) => "",
            }
        } else {
            self.code.as_str()
        };
        !code.ends_with('{')
    }

    /// Ends the current line, if one is open, with `comment` after its code.
    fn flush(&mut self, comment: Option<String>) {
        if self.code.is_empty() && comment.is_none() {
            return;
        }
        self.lines.push(Line::Code {
            indent: self.indent,
            code: std::mem::take(&mut self.code),
            comment,
        });
        self.prev = Prev::Nothing;
    }

    /// How many open brackets break their elements over lines.
    fn depth(&self) -> usize {
        self.stack.iter().filter(|frame| frame.breaks()).count()
    }

    /// The next token after `index`, comments skipped.
    fn next_token(&self, index: usize) -> Option<&'e Token<'s>> {
        let elements: &'e [Element<'s>] = self.elements;
        elements[index + 1..]
            .iter()
            .find_map(|element| element.token.as_ref())
    }
}

/// The column (in characters) at which byte `offset` of `source` stands.
fn column(source: &str, offset: usize) -> usize {
    let line_start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    source[line_start..offset].chars().count()
}

/// `{`, `(`, `[` or `<`.
fn is_open(token: &Token<'_>) -> bool {
    matches!(
        token,
        Token::LBrace | Token::LParen | Token::LBracket | Token::Lt
    )
}

/// `}`, `)`, `]` or `>`.
fn is_close(token: &Token<'_>) -> bool {
    matches!(
        token,
        Token::RBrace | Token::RParen | Token::RBracket | Token::Gt
    )
}

/// Whether a space separates `prev` and `next` on one line.
fn space(prev: &Prev<'_>, next: &Token<'_>) -> bool {
    use Token::*;
    let Prev::Token(prev) = prev else {
        return true;
    };
    if matches!(
        next,
        Comma | Semi | RParen | RBracket | Gt | Colon | PathSep
    ) || matches!(prev, LParen | LBracket | Lt | PathSep | Minus)
        || (*prev == LBrace && *next == RBrace)
    {
        return false;
    }
    if matches!(next, LParen | LBracket | Lt) {
        return !matches!(prev, Keyword(_) | Ident(_));
    }
    true
}
