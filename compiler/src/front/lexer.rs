//! The lexer shared by the three languages (logos).
//!
//! Words are classified as keywords per language: a word that is a keyword of the Encoding
//! language (`VLQ`) is a plain identifier in an IDL file. The lexer never fails: text it cannot
//! read becomes a [`Token::Error`], which the parser reports with its span.

use logos::Logos;
use std::fmt;

/// Which language a file is written in; decides which words are keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// `.idl`: what is sent.
    Idl,
    /// `.enc`: how it is sent.
    Encoding,
    /// `.map`: which Rust types each side uses.
    Mapping,
}

/// What is wrong with text the lexer could not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LexError {
    /// A character that starts no token.
    UnexpectedCharacter,
    /// An integer literal that does not fit in 64 bits (signed or unsigned).
    IntegerTooLarge,
    /// A string literal with an escape other than `\"`, `\\`, `\n`, `\t`.
    BadEscape,
    /// A string literal without its closing quote.
    UnterminatedString,
    /// A `/*` comment without its closing `*/`.
    UnterminatedComment,
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LexError::UnexpectedCharacter => "unexpected character",
            LexError::IntegerTooLarge => "integer literal does not fit in 64 bits",
            LexError::BadEscape => "unknown escape in string literal",
            LexError::UnterminatedString => "string literal is not closed",
            LexError::UnterminatedComment => "block comment is not closed",
        })
    }
}

/// The raw tokens, before words are sorted into keywords and identifiers.
#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
enum Raw<'a> {
    /// `// ...` to the end of the line: trivia, which only the formatter reads.
    #[regex(r"//[^\n]*", allow_greedy = true)]
    LineComment,
    /// `/* ... */`: trivia, which only the formatter reads.
    #[regex(r"/\*([^*]|\*+[^*/])*\*+/")]
    BlockComment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Word(&'a str),
    #[regex(r"-?[0-9][0-9_]*", |lex| parse_int(lex.slice()))]
    #[regex(r"-?0[xX][0-9a-fA-F_]+", |lex| parse_int(lex.slice()))]
    Int(Option<i128>),
    #[regex(r"-?[0-9][0-9_]*\.[0-9_]*([eE][+-]?[0-9]+)?", |lex| parse_real(lex.slice()), priority = 4)]
    #[regex(r"-?[0-9][0-9_]*[eE][+-]?[0-9]+", |lex| parse_real(lex.slice()), priority = 4)]
    Real(f64),
    #[regex(r#""([^"\\\n]|\\[^\n])*""#, |lex| unescape(lex.slice()))]
    Str(Option<String>),
    #[regex(r#""([^"\\\n]|\\[^\n])*"#, priority = 1)]
    UnterminatedStr,
    #[regex(r"/\*([^*]|\*+[^*/])*\**", priority = 1)]
    UnterminatedComment,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token("::")]
    PathSep,
    #[token(":")]
    Colon,
    #[token("=")]
    Eq,
    #[token("=>")]
    FatArrow,
    #[token("->")]
    Arrow,
    /// A `-` that does not start a number: the negation of a CONST (`-MAX_SPEED`).
    #[token("-")]
    Minus,
}

fn parse_int(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let digits = digits.replace('_', "");
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i128::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i128>().ok()?,
    };
    let value = if negative { -magnitude } else { magnitude };
    (i128::from(i64::MIN)..=i128::from(u64::MAX))
        .contains(&value)
        .then_some(value)
}

fn parse_real(text: &str) -> Option<f64> {
    let value: f64 = text.replace('_', "").parse().ok()?;
    value.is_finite().then_some(value)
}

fn unescape(text: &str) -> Option<String> {
    let inner = text.get(1..text.len() - 1)?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '"' => '"',
            '\\' => '\\',
            'n' => '\n',
            't' => '\t',
            _ => return None,
        });
    }
    Some(out)
}

/// A keyword of one of the languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Keyword {
    Import,
    Const,
    Typedef,
    /// `ENUM`, or `enum` in lowercase.
    Enum,
    Struct,
    PublishableStruct,
    Message,
    Fence,
    Extend,
    To,
    Default,
    Protocol,
    Rpc,
    Bool,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Int,
    Numeric,
    String,
    Bytes,
    Sequence,
    Array,
    Optional,
    Quaternion,
    True,
    False,
    Encoding,
    Defaults,
    Bitstream,
    Bytestream,
    Delta,
    DeadReckoning,
    Align,
    Check,
    Vlq,
    Bit,
    FixedPoint,
    Huffman,
    SmallestThree,
    Diff,
    Mapping,
    Derive,
    Include,
    Send,
    Receive,
    Both,
}

const TYPE_KEYWORDS: &[(&str, Keyword)] = &[
    ("BOOL", Keyword::Bool),
    ("UINT8", Keyword::Uint8),
    ("UINT16", Keyword::Uint16),
    ("UINT32", Keyword::Uint32),
    ("UINT64", Keyword::Uint64),
    ("INT8", Keyword::Int8),
    ("INT16", Keyword::Int16),
    ("INT32", Keyword::Int32),
    ("INT64", Keyword::Int64),
    ("FLOAT32", Keyword::Float32),
    ("FLOAT64", Keyword::Float64),
    ("INT", Keyword::Int),
    ("NUMERIC", Keyword::Numeric),
    ("STRING", Keyword::String),
    ("BYTES", Keyword::Bytes),
    ("SEQUENCE", Keyword::Sequence),
    ("ARRAY", Keyword::Array),
    ("OPTIONAL", Keyword::Optional),
    ("QUATERNION", Keyword::Quaternion),
];

const IDL_KEYWORDS: &[(&str, Keyword)] = &[
    ("IMPORT", Keyword::Import),
    ("CONST", Keyword::Const),
    ("TYPEDEF", Keyword::Typedef),
    ("ENUM", Keyword::Enum),
    ("enum", Keyword::Enum),
    ("STRUCT", Keyword::Struct),
    ("PUBLISHABLE_STRUCT", Keyword::PublishableStruct),
    ("MESSAGE", Keyword::Message),
    ("FENCE", Keyword::Fence),
    ("EXTEND", Keyword::Extend),
    ("TO", Keyword::To),
    ("DEFAULT", Keyword::Default),
    ("PROTOCOL", Keyword::Protocol),
    ("RPC", Keyword::Rpc),
    ("true", Keyword::True),
    ("false", Keyword::False),
];

const ENCODING_KEYWORDS: &[(&str, Keyword)] = &[
    ("ENCODING", Keyword::Encoding),
    ("DEFAULTS", Keyword::Defaults),
    ("STRUCT", Keyword::Struct),
    ("PUBLISHABLE_STRUCT", Keyword::PublishableStruct),
    ("MESSAGE", Keyword::Message),
    ("PROTOCOL", Keyword::Protocol),
    ("RPC", Keyword::Rpc),
    ("ENUM", Keyword::Enum),
    ("BITSTREAM", Keyword::Bitstream),
    ("BYTESTREAM", Keyword::Bytestream),
    ("DELTA", Keyword::Delta),
    ("DEAD_RECKONING", Keyword::DeadReckoning),
    ("FENCE", Keyword::Fence),
    ("EXTEND", Keyword::Extend),
    ("TO", Keyword::To),
    ("DEFAULT", Keyword::Default),
    ("ALIGN", Keyword::Align),
    ("CHECK", Keyword::Check),
    ("VLQ", Keyword::Vlq),
    ("BIT", Keyword::Bit),
    ("FIXED_POINT", Keyword::FixedPoint),
    ("HUFFMAN", Keyword::Huffman),
    ("SMALLEST_THREE", Keyword::SmallestThree),
    ("DIFF", Keyword::Diff),
    ("true", Keyword::True),
    ("false", Keyword::False),
];

const MAPPING_KEYWORDS: &[(&str, Keyword)] = &[
    ("MAPPING", Keyword::Mapping),
    ("STRUCT", Keyword::Struct),
    ("PUBLISHABLE_STRUCT", Keyword::PublishableStruct),
    ("MESSAGE", Keyword::Message),
    ("ENUM", Keyword::Enum),
    ("enum", Keyword::Enum),
    ("DERIVE", Keyword::Derive),
    ("INCLUDE", Keyword::Include),
    ("PROTOCOL", Keyword::Protocol),
    ("SEND", Keyword::Send),
    ("RECEIVE", Keyword::Receive),
    ("BOTH", Keyword::Both),
];

impl Language {
    /// The keyword `word` stands for in this language, if any.
    pub fn keyword(self, word: &str) -> Option<Keyword> {
        self.table()
            .find(|(text, _)| *text == word)
            .map(|&(_, keyword)| keyword)
    }

    /// Every keyword of this language, as written (`enum` and `ENUM` both).
    pub fn keywords(self) -> impl Iterator<Item = &'static str> {
        self.table().map(|&(text, _)| text)
    }

    /// The keywords of the built-in types (`BOOL` .. `QUATERNION`), which the IDL and the
    /// Encoding language share.
    pub fn type_keywords() -> impl Iterator<Item = &'static str> {
        TYPE_KEYWORDS.iter().map(|&(text, _)| text)
    }

    fn table(self) -> impl Iterator<Item = &'static (&'static str, Keyword)> {
        let (own, types): (&[(&str, Keyword)], bool) = match self {
            Language::Idl => (IDL_KEYWORDS, true),
            Language::Encoding => (ENCODING_KEYWORDS, true),
            Language::Mapping => (MAPPING_KEYWORDS, false),
        };
        let types: &[(&str, Keyword)] = if types { TYPE_KEYWORDS } else { &[] };
        own.iter().chain(types)
    }
}

/// A token as the parsers see it.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum Token<'a> {
    Keyword(Keyword),
    Ident(&'a str),
    Int(i128),
    Real(f64),
    Str(String),
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Lt,
    Gt,
    Comma,
    Semi,
    PathSep,
    Colon,
    Eq,
    FatArrow,
    Arrow,
    /// `-` before a name (IDL and Encoding; in a Mapping, an unexpected character).
    Minus,
    /// Text the lexer could not read; the parser reports it.
    Error(LexError),
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Keyword(k) => write!(f, "keyword `{k:?}`"),
            Token::Ident(name) => write!(f, "identifier `{name}`"),
            Token::Int(value) => write!(f, "integer `{value}`"),
            Token::Real(value) => write!(f, "number `{value}`"),
            Token::Str(_) => f.write_str("string literal"),
            Token::Error(error) => write!(f, "{error}"),
            other => write!(f, "`{}`", punctuation(other)),
        }
    }
}

fn punctuation(token: &Token<'_>) -> &'static str {
    match token {
        Token::LBrace => "{",
        Token::RBrace => "}",
        Token::LParen => "(",
        Token::RParen => ")",
        Token::LBracket => "[",
        Token::RBracket => "]",
        Token::Lt => "<",
        Token::Gt => ">",
        Token::Comma => ",",
        Token::Semi => ";",
        Token::PathSep => "::",
        Token::Colon => ":",
        Token::Eq => "=",
        Token::FatArrow => "=>",
        Token::Arrow => "->",
        Token::Minus => "-",
        _ => "?",
    }
}

/// A token with its byte span, in the triple form lalrpop's external lexers use.
pub type Spanned<'a> = Result<(usize, Token<'a>, usize), LexError>;

/// What the lexer reads: a token, or a comment (trivia: the parsers never see it).
#[derive(Debug, Clone, PartialEq)]
pub enum Lexeme<'a> {
    /// A token the parsers read.
    Token(Token<'a>),
    /// A comment; `line` is true for `// ...`, false for `/* ... */`.
    Comment {
        /// Whether it is a `//` comment (it ends at the end of its line).
        line: bool,
    },
}

/// Splits `source` into tokens of `language`. Never fails: unreadable text becomes
/// [`Token::Error`]. Comments are left out: see [`lexemes`] for them.
pub fn tokens(source: &str, language: Language) -> impl Iterator<Item = Spanned<'_>> {
    lexemes(source, language).filter_map(|(start, lexeme, end)| match lexeme {
        Lexeme::Token(token) => Some(Ok((start, token, end))),
        Lexeme::Comment { .. } => None,
    })
}

/// Splits `source` into tokens and comments of `language`, each with its byte span, in source
/// order; whitespace is all that is left out. Never fails, as [`tokens`].
pub fn lexemes(
    source: &str,
    language: Language,
) -> impl Iterator<Item = (usize, Lexeme<'_>, usize)> {
    let mut lexer = Raw::lexer(source);
    std::iter::from_fn(move || {
        let raw = lexer.next()?;
        let span = lexer.span();
        let token = match raw {
            Ok(Raw::LineComment) => {
                return Some((span.start, Lexeme::Comment { line: true }, span.end));
            }
            Ok(Raw::BlockComment) => {
                return Some((span.start, Lexeme::Comment { line: false }, span.end));
            }
            Ok(Raw::Word(word)) => match language.keyword(word) {
                Some(keyword) => Token::Keyword(keyword),
                None => Token::Ident(word),
            },
            Ok(Raw::Int(Some(value))) => Token::Int(value),
            Ok(Raw::Int(None)) => Token::Error(LexError::IntegerTooLarge),
            Ok(Raw::Real(value)) => Token::Real(value),
            Ok(Raw::Str(Some(text))) => Token::Str(text),
            Ok(Raw::Str(None)) => Token::Error(LexError::BadEscape),
            Ok(Raw::UnterminatedStr) => Token::Error(LexError::UnterminatedString),
            Ok(Raw::UnterminatedComment) => Token::Error(LexError::UnterminatedComment),
            Ok(Raw::LBrace) => Token::LBrace,
            Ok(Raw::RBrace) => Token::RBrace,
            Ok(Raw::LParen) => Token::LParen,
            Ok(Raw::RParen) => Token::RParen,
            Ok(Raw::LBracket) => Token::LBracket,
            Ok(Raw::RBracket) => Token::RBracket,
            Ok(Raw::Lt) => Token::Lt,
            Ok(Raw::Gt) => Token::Gt,
            Ok(Raw::Comma) => Token::Comma,
            Ok(Raw::Semi) => Token::Semi,
            Ok(Raw::PathSep) => Token::PathSep,
            Ok(Raw::Colon) => Token::Colon,
            Ok(Raw::Eq) => Token::Eq,
            Ok(Raw::FatArrow) => Token::FatArrow,
            Ok(Raw::Arrow) => Token::Arrow,
            // No Mapping names a number.
            Ok(Raw::Minus) if language == Language::Mapping => {
                Token::Error(LexError::UnexpectedCharacter)
            }
            Ok(Raw::Minus) => Token::Minus,
            Err(()) => Token::Error(LexError::UnexpectedCharacter),
        };
        Some((span.start, Lexeme::Token(token), span.end))
    })
}
