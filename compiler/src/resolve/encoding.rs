//! Encoding resolution: joins the Encoding files with the resolved schema into one
//! [`Encoding`] per `ENCODING(NAME)`, the wire layout of every struct with every width computed.
//!
//! # Contract
//!
//! [`resolve_encodings`] returns one [`Encoding`] per encoding name, in the order names first
//! appear across the files (items with the same name, in any file, form one encoding). With no
//! `ENCODING` item at all there is one encoding, `Default`: a BITSTREAM with the built-in
//! defaults. Every struct of the schema (all kinds, RPC parameter lists included) gets a
//! [`StructEncoding`] in every encoding, in schema order, with one [`SegmentEncoding`] per IDL
//! segment. Diagnostics are collected, never fatal: what does not resolve falls back to the
//! defaults, so the IR is always complete (if wrong where there were errors).
//!
//! # Choices (where LANGUAGES.md and WIRE.md leave room)
//!
//! - **Style**: BITSTREAM unless an item says `ENCODING(X) BYTESTREAM;`. Saying the same style
//!   twice is fine; two different styles are an error.
//! - **Rule of a field**: its explicit rule, else the encoding's DEFAULTS rule for its category,
//!   else the built-in default (DESIGN.md). Categories: `INT` (ranged integers), `UINT8`..`INT64`,
//!   `FLOAT32`, `FLOAT64`, `NUMERIC`, `ENUM`, `BOOL`, `SEQUENCE` (the count), `STRING` and `BYTES`
//!   (the length). DEFAULTS apply to every value of the category, also inside SEQUENCE, ARRAY and
//!   OPTIONAL. A DEFAULTS rule that does not fit some value is one error at the rule, with a
//!   secondary label at each field it does not fit; those fields get the built-in default.
//! - **Explicit rules on containers**: on OPTIONAL and ARRAY the rule applies to the value
//!   inside; on SEQUENCE, STRING and BYTES a rule other than `SEQUENCE<T>` is the count or
//!   length rule (`VLQ`, `BIT(n)`, `UINT8`..`UINT64`); a nested struct takes no rule.
//! - **Rules and types**: `BIT(n)` (1..=64) on integers (sent as `v - min`), enums (the index)
//!   and BOOL; `VLQ(n)` (1..=32, default 7) on integers (`INT[a,b]`: offset `v - a`; `INTn`:
//!   zigzag; `UINTn`: plain) and on enums (the index, plain); `UINT8`..`INT64` on integers whose
//!   range fits (sent raw), `UINT8`..`UINT64` on enums whose index fits; `FIXED_POINT(r)` on
//!   NUMERIC only; `FLOAT32`/`FLOAT64` on NUMERIC, FLOAT32 and FLOAT64; `HUFFMAN` on enums, with
//!   exactly one positive weight for every enumerator (a canonical code, ties broken by
//!   enumerator index, at most 64 bits per code).
//! - **Wire order**: within a segment, the members the block mentions come first, in the
//!   block's order; then the EXTENDs the block does not mention, then its unmentioned fields,
//!   both in IDL order. Without FENCEs in the block, each mentioned member goes to its own IDL
//!   segment; with them, the k-th FENCE of the block must come after every mentioned member of
//!   IDL segment k-1 and before any of segment k. ALIGN and CHECK stay in the segment where they
//!   stand (after a FENCE: the segment that FENCE opens).
//! - **Names**: a member name is a field of the target; else, if exactly one field has that
//!   enum or struct type, that field, with warning W0301. A field mentioned twice is an error.
//! - **Targets**: `STRUCT`, `PUBLISHABLE_STRUCT`, `MESSAGE` must match the IDL's kind; `RPC f`
//!   targets the parameter list of RPC `f`. `PROTOCOL P` is accepted when the IDL declares P and
//!   the block is empty (a protocol has no wire items of its own yet); any member is an error.
//! - **DELTA and DEAD_RECKONING** only in a PUBLISHABLE_STRUCT. DELTA blocks may hold fields
//!   (with or without their own DELTA), DEAD_RECKONING blocks, nested DELTA blocks (nested
//!   changed-bits), ALIGN and CHECK; not FENCE or EXTEND. `DELTA SEQUENCE<T> f` (and only that)
//!   is an element-wise sequence delta. DEAD_RECKONING holds N >= 1 positions then N velocities,
//!   all plain NUMERIC fields (no DELTA of their own); its limit, when not written, is the
//!   FIXED_POINT resolution of the first position (an error if that is not FIXED_POINT).
//! - **EXTEND f TO T** in a block must match an IDL `EXTEND f TO T` (T equal after resolving);
//!   its extension carries the high bits for an unsigned fixed-width widening (UINT16 TO
//!   UINT32: the 16 high bits, [`ExtensionPart::HighBits`]), else the whole new value in the
//!   encoding's rule for T ([`ExtensionPart::Whole`]).
//! - **DEFAULT in a block** restates the IDL's: only on a field after a FENCE, and equal to the
//!   IDL's DEFAULT when the IDL gives one.
//! - **BYTESTREAM**: every width is rounded up: ranged integers, BIT(n), enum indexes and fixed
//!   points to 8, 16, 32 or 64 bits; BOOL to 8 bits; raw integers to whole bytes; VLQ keeps its
//!   place but always uses 7-bit groups (a group and its continuation bit make one byte;
//!   `VLQ(n)` with n != 7 gets warning W0302). HUFFMAN is an error in a BYTESTREAM.

mod block;
mod diff;
mod rules;
#[cfg(test)]
mod tests;

pub use rules::CATEGORY_NAMES;

use codespan_reporting::diagnostic::{Diagnostic as CodespanDiagnostic, Label};
use indexmap::IndexMap;

use crate::diagnostics::suggest::did_you_mean;
use crate::diagnostics::{Diagnostic, FileId, codes, primary, secondary};
use crate::front::enc::ast::{self, DefaultRule, EncBody, EncFile, EncMember, Rule, TargetKind};
use crate::front::span::{Ident, Span};
use crate::ir::{
    Encoding, Extend, ExtendEncoding, ExtensionPart, Field, FieldEncoding, Loc, Schema,
    SegmentEncoding, StructDef, StructEncoding, Style, Type, WireItem, WireRule,
};
use rules::{Category, Params, Problem, ProblemInfo};

/// The name of the encoding used when no Encoding file names one.
pub const DEFAULT_ENCODING: &str = "Default";

/// Resolves the Encoding files against `schema`: one [`Encoding`] per encoding name, in order
/// of first appearance (`Default` with built-in rules when there is none), and every
/// diagnostic found. Never fails: what does not resolve gets the defaults.
pub fn resolve_encodings(
    schema: &Schema,
    files: &[(FileId, EncFile)],
) -> (IndexMap<String, Encoding>, Vec<Diagnostic>) {
    let mut grouped: IndexMap<&str, Items<'_>> = IndexMap::new();
    for (file, tree) in files {
        for item in &tree.items {
            let items = grouped.entry(item.encoding.name.as_str()).or_default();
            items.loc.get_or_insert(Loc::new(*file, item.encoding.span));
            match &item.body {
                EncBody::Style(style, span) => items.styles.push((*file, *style, *span)),
                EncBody::Defaults(rules) => {
                    items
                        .defaults
                        .extend(rules.iter().map(|rule| (*file, rule)));
                }
                EncBody::Target(target, members) => {
                    items.targets.push((*file, target, members.as_slice()));
                }
            }
        }
    }
    let mut encodings = IndexMap::new();
    let mut diagnostics = Vec::new();
    if grouped.is_empty() {
        grouped.insert(DEFAULT_ENCODING, Items::default());
    }
    for (name, items) in grouped {
        let mut resolver = EncodingResolver::new(schema);
        let encoding = resolver.encoding(name, &items);
        diagnostics.extend(resolver.diagnostics);
        encodings.insert(name.to_string(), encoding);
    }
    (encodings, diagnostics)
}

/// The items of one encoding name, from every file.
#[derive(Default)]
struct Items<'a> {
    /// Where the encoding is first named.
    loc: Option<Loc>,
    styles: Vec<(FileId, ast::Style, Span)>,
    defaults: Vec<(FileId, &'a DefaultRule)>,
    targets: Vec<(FileId, &'a ast::Target, &'a [EncMember])>,
}

/// A DEFAULTS rule that passed its own checks.
struct DefaultEntry {
    file: FileId,
    span: Span,
    params: Params,
}

/// A field (or EXTEND) whose rule is being computed, for labels.
#[derive(Clone, Copy)]
struct FieldRef<'a> {
    name: &'a str,
    ty: &'a Type,
    loc: Loc,
}

impl<'a> FieldRef<'a> {
    fn of(field: &'a Field) -> Self {
        FieldRef {
            name: &field.name,
            ty: &field.ty,
            loc: field.loc,
        }
    }

    fn what(&self) -> String {
        format!("`{}`", self.name)
    }

    /// "the IDL declares `x` as NUMERIC[..] here", at the field.
    fn label(&self) -> Label<FileId> {
        secondary(self.loc.file, self.loc.span).with_message(format!(
            "the IDL declares `{}` as {} here",
            self.name,
            self.ty.describe()
        ))
    }
}

/// Resolves one encoding.
struct EncodingResolver<'a> {
    schema: &'a Schema,
    style: Style,
    defaults: IndexMap<Category, DefaultEntry>,
    /// DEFAULTS rules that do not fit some values: the fields and what is wrong.
    misfits: IndexMap<Category, Vec<(Loc, String, Problem)>>,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> EncodingResolver<'a> {
    fn new(schema: &'a Schema) -> Self {
        EncodingResolver {
            schema,
            style: Style::Bitstream,
            defaults: IndexMap::new(),
            misfits: IndexMap::new(),
            diagnostics: Vec::new(),
        }
    }

    fn encoding(&mut self, name: &str, items: &Items<'a>) -> Encoding {
        self.style(items);
        self.defaults(items);
        let blocks = self.targets(items);
        let mut structs = IndexMap::new();
        for (struct_name, def) in &self.schema.structs {
            let encoding = match blocks.get(struct_name.as_str()) {
                Some(&(file, members)) => self.struct_block(file, def, members),
                None => self.default_struct(def),
            };
            structs.insert(struct_name.clone(), encoding);
        }
        self.report_misfits();
        Encoding {
            name: name.to_string(),
            style: self.style,
            structs,
            loc: items.loc,
        }
    }

    fn style(&mut self, items: &Items<'_>) {
        let mut first: Option<(FileId, ast::Style, Span)> = None;
        for &(file, style, span) in &items.styles {
            match first {
                None => first = Some((file, style, span)),
                Some((_, same, _)) if same == style => {}
                Some((first_file, first_style, first_span)) => self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_STYLE_CONFLICT)
                        .with_message("conflicting stream styles for one encoding")
                        .with_labels(vec![
                            primary(file, span).with_message(format!("{} here", style_name(style))),
                            secondary(first_file, first_span)
                                .with_message(format!("{} here", style_name(first_style))),
                        ])
                        .with_notes(vec![
                            "an encoding is either a BITSTREAM or a BYTESTREAM: keep one of the two items, or give the other encoding its own name".into(),
                        ]),
                ),
            }
        }
        self.style = match first {
            Some((_, ast::Style::Bytestream, _)) => Style::Bytestream,
            _ => Style::Bitstream,
        };
    }

    fn defaults(&mut self, items: &Items<'_>) {
        let mut seen: IndexMap<Category, (FileId, Span)> = IndexMap::new();
        for &(file, rule) in &items.defaults {
            let name = &rule.category;
            let Some(category) = Category::parse(&name.name) else {
                self.unknown_category(file, name);
                continue;
            };
            if let Some(&(first_file, first_span)) = seen.get(&category) {
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_DUPLICATE_DEFAULT)
                        .with_message(format!("two DEFAULTS rules for {}", name.name))
                        .with_labels(vec![
                            primary(file, rule.span).with_message("second rule"),
                            secondary(first_file, first_span).with_message("first rule"),
                        ])
                        .with_notes(vec![format!(
                            "an encoding has one default rule per category: remove one of the two {} rules",
                            name.name
                        )]),
                );
                continue;
            }
            seen.insert(category, (file, rule.span));
            let Some(params) = self.checked_params(file, &rule.rule) else {
                continue;
            };
            if !category.accepts(&params) {
                let mut notes = vec![category.allowed().to_string()];
                if matches!(params, Params::Sequence(_)) {
                    notes.push("SEQUENCE<T> restates one field's type; a SEQUENCE default is the count rule".into());
                }
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_RULE_TYPE_MISMATCH)
                        .with_message(format!(
                            "{} cannot be the default for {}",
                            rules::describe(&params),
                            name.name
                        ))
                        .with_labels(vec![
                            primary(file, rule.rule.span)
                                .with_message(format!("not a rule for {}", name.name)),
                        ])
                        .with_notes(notes),
                );
                continue;
            }
            self.defaults.insert(
                category,
                DefaultEntry {
                    file,
                    span: rule.rule.span,
                    params,
                },
            );
        }
    }

    fn unknown_category(&mut self, file: FileId, name: &Ident) {
        let mut notes = Vec::new();
        if let Some(note) = did_you_mean(&name.name, rules::CATEGORY_NAMES.iter().copied()) {
            notes.push(note);
        }
        if matches!(name.name.as_str(), "ARRAY" | "OPTIONAL") {
            notes.push(format!(
                "{} takes the rules of the values inside it: set the default of their category",
                name.name
            ));
        }
        notes.push(format!(
            "the categories are {}",
            rules::CATEGORY_NAMES.join(", ")
        ));
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::ENC_UNKNOWN_CATEGORY)
                .with_message(format!("unknown DEFAULTS category `{}`", name.name))
                .with_labels(vec![
                    primary(file, name.span).with_message("not a category"),
                ])
                .with_notes(notes),
        );
    }

    /// The rule's parameters, or None after reporting what is wrong with them.
    fn checked_params(&mut self, file: FileId, rule: &Rule) -> Option<Params> {
        match rules::params(rule) {
            Ok(params) => {
                if self.style == Style::Bytestream {
                    self.bytestream_params(file, rule, &params);
                }
                if self.style == Style::Bytestream && matches!(params, Params::Huffman(_)) {
                    return None;
                }
                Some(params)
            }
            Err(problem) => {
                self.problem(file, rule.span, *problem, Vec::new());
                None
            }
        }
    }

    /// W0303 when `rule` (for a value of type `ty`, written at `span`) sends a NUMERIC whose
    /// range reaches past the largest `f32` as FLOAT32: a value beyond it is sent as it (the
    /// `f32` nearest to an end stands for the end, WIRE_FORMAT.md "Floats").
    fn float32_saturation(
        &mut self,
        file: FileId,
        span: Span,
        ty: &Type,
        rule: &WireRule,
        field: FieldRef<'_>,
    ) {
        let (ty, rule) = match (ty, rule) {
            (Type::Optional(ty), WireRule::Optional(rule))
            | (Type::Array { element: ty, .. }, WireRule::Array { element: rule, .. }) => {
                (ty.as_ref(), rule.as_ref())
            }
            other => other,
        };
        let (Type::Numeric { min, max, .. }, WireRule::Float32) = (ty, rule) else {
            return;
        };
        let largest = f64::from(f32::MAX);
        if *min >= -largest && *max <= largest {
            return;
        }
        self.diagnostics.push(
            CodespanDiagnostic::warning()
                .with_code(codes::ENC_FLOAT32_SATURATES)
                .with_message(format!(
                    "FLOAT32 cannot send every value of {}, which is {}",
                    field.what(),
                    field.ty.describe()
                ))
                .with_labels(vec![
                    primary(file, span).with_message("at most ±3.4028235e38"),
                    field.label(),
                ])
                .with_notes(vec![
                    "a value beyond the largest f32 is sent as it, and arrives as ±3.4028234663852886e38: write FLOAT64, or narrow the range".into(),
                ]),
        );
    }

    /// W0302 for `VLQ(n)`, n != 7, and E0318 for HUFFMAN, in a BYTESTREAM.
    fn bytestream_params(&mut self, file: FileId, rule: &Rule, params: &Params) {
        match params {
            Params::Vlq { group_bits } if *group_bits != rules::VLQ_DEFAULT_GROUP => {
                self.diagnostics.push(
                    CodespanDiagnostic::warning()
                        .with_code(codes::ENC_VLQ_GROUP_IN_BYTESTREAM)
                        .with_message(format!(
                            "VLQ({group_bits}) uses 7-bit groups in a BYTESTREAM"
                        ))
                        .with_labels(vec![primary(file, rule.span).with_message("sent as VLQ(7)")])
                        .with_notes(vec![
                            "a BYTESTREAM sends whole bytes: each VLQ group is 7 payload bits and a continuation bit; write VLQ".into(),
                        ]),
                );
            }
            Params::Huffman(_) => self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_HUFFMAN_BYTESTREAM)
                    .with_message("HUFFMAN in a BYTESTREAM encoding")
                    .with_labels(vec![primary(file, rule.span).with_message("a bit-level code")])
                    .with_notes(vec![
                        "a BYTESTREAM sends whole bytes: use UINT8 or BIT(n) here, or make the encoding a BITSTREAM".into(),
                    ]),
            ),
            _ => {}
        }
    }

    /// Reports a problem at `span` of `file` (or at the problem's own span), with `labels`.
    fn problem(
        &mut self,
        file: FileId,
        span: Span,
        problem: ProblemInfo,
        labels: Vec<Label<FileId>>,
    ) {
        let mut all = vec![primary(file, problem.at.unwrap_or(span)).with_message(problem.label)];
        all.extend(
            problem
                .others
                .into_iter()
                .map(|(span, message)| secondary(file, span).with_message(message)),
        );
        all.extend(labels);
        self.error(
            CodespanDiagnostic::error()
                .with_code(problem.code)
                .with_message(problem.message)
                .with_labels(all)
                .with_notes(problem.notes),
        );
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// The rules of every part of a value of type `ty`: DEFAULTS, else built-in. Bitstream
    /// widths; [`Self::finish`] rounds them.
    fn default_rule(&mut self, ty: &Type, field: FieldRef<'_>) -> WireRule {
        match ty {
            Type::Optional(inner) => WireRule::Optional(Box::new(self.default_rule(inner, field))),
            Type::Array { element, len } => WireRule::Array {
                len: *len,
                element: Box::new(self.default_rule(element, field)),
            },
            Type::Sequence { element, max } => WireRule::Sequence {
                count: Box::new(self.scalar_default(ty, field)),
                max: *max,
                element: Box::new(self.default_rule(element, field)),
                element_delta: false,
            },
            Type::String { max } | Type::Bytes { max } => WireRule::Bytes {
                length: Box::new(self.scalar_default(ty, field)),
                utf8: matches!(ty, Type::String { .. }),
                max: *max,
            },
            _ => self.scalar_default(ty, field),
        }
    }

    /// The DEFAULTS rule of `ty`'s category if it fits, else the built-in one.
    fn scalar_default(&mut self, ty: &Type, field: FieldRef<'_>) -> WireRule {
        let slot = rules::slot_of(ty, self.schema);
        if let Some(category) = Category::of(ty) {
            if let Some(entry) = self.defaults.get(&category) {
                match rules::apply(&entry.params, &slot, ty, &field.what(), self.style) {
                    Ok(rule) => {
                        let (file, span) = (entry.file, entry.span);
                        self.float32_saturation(file, span, ty, &rule, field);
                        return rule;
                    }
                    Err(problem) => {
                        let misfits = self.misfits.entry(category).or_default();
                        let label = field.label().message;
                        if !misfits
                            .iter()
                            .any(|(loc, l, _)| *loc == field.loc && *l == label)
                        {
                            misfits.push((field.loc, label, problem));
                        }
                    }
                }
            }
        }
        rules::builtin(&slot)
    }

    /// The rule of a value of type `ty` with an explicit rule: the rule applies to the value
    /// inside OPTIONAL and ARRAY, to the count or length of SEQUENCE, STRING and BYTES.
    fn explicit_rule(
        &mut self,
        ty: &Type,
        params: &Params,
        field: FieldRef<'_>,
    ) -> Result<WireRule, Problem> {
        match ty {
            Type::Optional(inner) => Ok(WireRule::Optional(Box::new(
                self.explicit_rule(inner, params, field)?,
            ))),
            Type::Array { element, len } => Ok(WireRule::Array {
                len: *len,
                element: Box::new(self.explicit_rule(element, params, field)?),
            }),
            Type::Sequence { element, max } => {
                let count = match params {
                    Params::Sequence(name) => {
                        self.sequence_name(name, element, field)?;
                        self.scalar_default(ty, field)
                    }
                    other => rules::apply(
                        other,
                        &rules::slot_of(ty, self.schema),
                        ty,
                        &field.what(),
                        self.style,
                    )?,
                };
                Ok(WireRule::Sequence {
                    count: Box::new(count),
                    max: *max,
                    element: Box::new(self.default_rule(element, field)),
                    element_delta: false,
                })
            }
            Type::String { max } | Type::Bytes { max } => Ok(WireRule::Bytes {
                length: Box::new(self.explicit_scalar(ty, params, field)?),
                utf8: matches!(ty, Type::String { .. }),
                max: *max,
            }),
            _ => self.explicit_scalar(ty, params, field),
        }
    }

    fn explicit_scalar(
        &self,
        ty: &Type,
        params: &Params,
        field: FieldRef<'_>,
    ) -> Result<WireRule, Problem> {
        if let Params::Sequence(name) = params {
            return Err(ProblemInfo::new(
                codes::ENC_RULE_TYPE_MISMATCH,
                format!(
                    "SEQUENCE<{}> restates a sequence, but {} is {}",
                    name.name,
                    field.what(),
                    ty.describe()
                ),
                "not a SEQUENCE".into(),
                rules::slot_of(ty, self.schema).allowed().to_string(),
            ));
        }
        rules::apply(
            params,
            &rules::slot_of(ty, self.schema),
            ty,
            &field.what(),
            self.style,
        )
    }

    /// `SEQUENCE<Name>` must name the sequence's element type (or a TYPEDEF of it).
    fn sequence_name(
        &self,
        name: &Ident,
        element: &Type,
        field: FieldRef<'_>,
    ) -> Result<(), Problem> {
        let matches = match element {
            Type::Struct(n) | Type::Enum(n) => *n == name.name,
            _ => false,
        } || self
            .schema
            .typedefs
            .get(&name.name)
            .is_some_and(|t| t.ty == *element);
        if matches {
            return Ok(());
        }
        let mut problem = ProblemInfo::new(
            codes::ENC_SEQUENCE_MISMATCH,
            format!(
                "{} is a SEQUENCE of {}, not of `{}`",
                field.what(),
                element.describe(),
                name.name
            ),
            format!("the IDL's element type is {}", element.describe()),
            format!(
                "write SEQUENCE<{}>, or leave the rule out",
                element.describe()
            ),
        );
        problem.at = Some(name.span);
        Err(problem)
    }

    /// Rounds widths in a BYTESTREAM.
    fn finish(&self, rule: WireRule) -> WireRule {
        match self.style {
            Style::Bitstream => rule,
            Style::Bytestream => rules::to_bytestream(rule),
        }
    }

    /// A field with the encoding's defaults.
    fn default_field(&mut self, field: &Field) -> FieldEncoding {
        let rule = self.default_rule(&field.ty, FieldRef::of(field));
        FieldEncoding {
            field: field.name.clone(),
            delta: false,
            diff: None,
            rule: self.finish(rule),
            loc: None,
            rule_loc: self.defaults_loc(&field.ty),
        }
    }

    /// Where the DEFAULTS entry that gives a value of `ty` its rule is written: its category's,
    /// else, for a container, its element's; `None` when the built-in default applies.
    fn defaults_loc(&self, ty: &Type) -> Option<Loc> {
        let own = Category::of(ty)
            .and_then(|category| self.defaults.get(&category))
            .map(|entry| Loc::new(entry.file, entry.span));
        own.or_else(|| match ty {
            Type::Optional(inner)
            | Type::Array { element: inner, .. }
            | Type::Sequence { element: inner, .. } => self.defaults_loc(inner),
            _ => None,
        })
    }

    /// The extension of an IDL EXTEND.
    fn extend_encoding(&mut self, extend: &Extend) -> ExtendEncoding {
        let (part, rule) = match (&extend.from, &extend.to) {
            (Type::Uint(from), Type::Uint(to)) if to > from => (
                ExtensionPart::HighBits {
                    low_bits: u32::from(*from),
                },
                WireRule::Fixed {
                    bits: u32::from(to - from),
                    signed: false,
                },
            ),
            (_, to) => {
                let field = FieldRef {
                    name: &extend.field,
                    ty: to,
                    loc: extend.loc,
                };
                (ExtensionPart::Whole, self.default_rule(to, field))
            }
        };
        ExtendEncoding {
            field: extend.field.clone(),
            part,
            rule: self.finish(rule),
        }
    }

    /// A struct no block mentions: IDL order, EXTENDs first in each segment, defaults.
    fn default_struct(&mut self, def: &StructDef) -> StructEncoding {
        let segments = def
            .segments
            .iter()
            .map(|segment| {
                let mut items: Vec<WireItem> = Vec::new();
                for extend in &segment.extends {
                    items.push(WireItem::Extend(self.extend_encoding(extend)));
                }
                for field in &segment.fields {
                    items.push(WireItem::Field(self.default_field(field)));
                }
                SegmentEncoding { items }
            })
            .collect();
        StructEncoding { segments }
    }

    /// One error per DEFAULTS rule that does not fit some values.
    fn report_misfits(&mut self) {
        const SHOWN: usize = 4;
        let misfits = std::mem::take(&mut self.misfits);
        for (category, mut fields) in misfits {
            let Some(entry) = self.defaults.get(&category) else {
                continue;
            };
            let (file, span) = (entry.file, entry.span);
            let hidden = fields.len().saturating_sub(SHOWN);
            let labels: Vec<Label<FileId>> = fields
                .iter()
                .take(SHOWN)
                .map(|(loc, message, _)| {
                    secondary(loc.file, loc.span).with_message(message.clone())
                })
                .collect();
            if fields.is_empty() {
                continue;
            }
            let (_, _, mut problem) = fields.swap_remove(0);
            problem.notes.push(
                "a DEFAULTS rule applies to every value of its category without a rule of its own: give these fields their own rule, or change the default".into(),
            );
            if hidden > 0 {
                problem.notes.push(format!(
                    "the rule does not fit {hidden} more field(s) either"
                ));
            }
            self.problem(file, span, *problem, labels);
        }
    }

    /// The IDL struct a target names, after checking its kind.
    fn target_struct(&mut self, file: FileId, target: &ast::Target) -> Option<&'a StructDef> {
        let schema = self.schema;
        let name = &target.name;
        let Some(def) = schema.structs.get(&name.name) else {
            let rpc = target.kind == TargetKind::Rpc;
            let candidates = schema
                .structs
                .values()
                .filter(|d| (d.kind == crate::ir::StructKind::RpcParams) == rpc)
                .map(|d| d.name.as_str());
            let mut notes: Vec<String> = did_you_mean(&name.name, candidates).into_iter().collect();
            notes.push(format!(
                "an encoding describes {} that an IDL file declares",
                if rpc { "RPCs" } else { "structs" }
            ));
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_UNKNOWN_TARGET)
                    .with_message(format!(
                        "cannot find {} `{}` in the IDL",
                        if rpc { "RPC" } else { "struct" },
                        name.name
                    ))
                    .with_labels(vec![primary(file, name.span).with_message("not declared")])
                    .with_notes(notes),
            );
            return None;
        };
        let written = match target.kind {
            TargetKind::Struct => crate::ir::StructKind::Struct,
            TargetKind::Publishable => crate::ir::StructKind::Publishable,
            TargetKind::Message => crate::ir::StructKind::Message,
            TargetKind::Rpc | TargetKind::Protocol => crate::ir::StructKind::RpcParams,
        };
        if written != def.kind {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_TARGET_KIND)
                    .with_message(format!(
                        "`{}` is {}, not {}",
                        name.name,
                        kind_phrase(def.kind),
                        kind_phrase(written)
                    ))
                    .with_labels(vec![
                        primary(file, target.span)
                            .with_message(format!("says {}", kind_keyword(written))),
                        secondary(def.loc.file, def.loc.span).with_message(format!(
                            "the IDL declares `{}` as {} here",
                            name.name,
                            kind_keyword(def.kind)
                        )),
                    ])
                    .with_notes(vec![format!(
                        "write `ENCODING(...) {} {}`",
                        kind_keyword(def.kind),
                        name.name
                    )]),
            );
        }
        Some(def)
    }

    /// Checks the targets; returns the block of each struct (the first when there are two).
    fn targets(&mut self, items: &Items<'a>) -> IndexMap<&'a str, (FileId, &'a [EncMember])> {
        let mut blocks: IndexMap<&'a str, (FileId, &'a [EncMember])> = IndexMap::new();
        let mut first_spans: IndexMap<(bool, &'a str), (FileId, Span)> = IndexMap::new();
        for &(file, target, members) in &items.targets {
            let key = if target.kind == TargetKind::Protocol {
                if !self.protocol_target(file, target, members) {
                    continue;
                }
                (true, target.name.name.as_str())
            } else {
                let Some(def) = self.target_struct(file, target) else {
                    continue;
                };
                (false, def.name.as_str())
            };
            if let Some(&(first_file, first_span)) = first_spans.get(&key) {
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_DUPLICATE_TARGET)
                        .with_message(format!(
                            "two blocks for `{}` in one encoding",
                            target.name.name
                        ))
                        .with_labels(vec![
                            primary(file, target.span).with_message("second block"),
                            secondary(first_file, first_span).with_message("first block"),
                        ])
                        .with_notes(vec![
                            "merge the two blocks into one, or give one of them another ENCODING name".into(),
                        ]),
                );
                continue;
            }
            first_spans.insert(key, (file, target.span));
            if !key.0 {
                blocks.insert(key.1, (file, members));
            }
        }
        blocks
    }

    /// `PROTOCOL P { }`: P must be declared; the block must be empty.
    fn protocol_target(
        &mut self,
        file: FileId,
        target: &ast::Target,
        members: &[EncMember],
    ) -> bool {
        let name = &target.name;
        if !self.schema.protocols.contains_key(&name.name) {
            let notes: Vec<String> =
                did_you_mean(&name.name, self.schema.protocols.keys().map(String::as_str))
                    .into_iter()
                    .collect();
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_UNKNOWN_TARGET)
                    .with_message(format!("cannot find PROTOCOL `{}` in the IDL", name.name))
                    .with_labels(vec![primary(file, name.span).with_message("not declared")])
                    .with_notes(notes),
            );
            return false;
        }
        for member in members {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_MEMBER_NOT_ALLOWED)
                    .with_message("a PROTOCOL block takes no members")
                    .with_labels(vec![primary(file, block::member_span(member))
                        .with_message("not allowed here")])
                    .with_notes(vec![format!(
                        "encode the messages and RPCs of `{}` with their own blocks: `ENCODING(...) MESSAGE Name {{ ... }}`, `ENCODING(...) RPC name {{ ... }}`",
                        name.name
                    )]),
            );
        }
        true
    }
}

fn style_name(style: ast::Style) -> &'static str {
    match style {
        ast::Style::Bitstream => "BITSTREAM",
        ast::Style::Bytestream => "BYTESTREAM",
    }
}

fn kind_keyword(kind: crate::ir::StructKind) -> &'static str {
    match kind {
        crate::ir::StructKind::Struct => "STRUCT",
        crate::ir::StructKind::Publishable => "PUBLISHABLE_STRUCT",
        crate::ir::StructKind::Message => "MESSAGE",
        crate::ir::StructKind::RpcParams => "RPC",
        crate::ir::StructKind::RpcResponse => "RPC response",
    }
}

fn kind_phrase(kind: crate::ir::StructKind) -> &'static str {
    match kind {
        crate::ir::StructKind::Struct => "a STRUCT",
        crate::ir::StructKind::Publishable => "a PUBLISHABLE_STRUCT",
        crate::ir::StructKind::Message => "a MESSAGE",
        crate::ir::StructKind::RpcParams => "an RPC",
        crate::ir::StructKind::RpcResponse => "an RPC response",
    }
}
