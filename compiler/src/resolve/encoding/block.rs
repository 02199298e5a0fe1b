//! One target block of an encoding: member names, FENCE positions, DELTA and DEAD_RECKONING
//! blocks, EXTENDs and restated DEFAULTs, turned into the struct's segments in wire order.

use std::collections::HashMap;

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;

use super::diff::Baseline;
use super::{EncodingResolver, FieldRef, Params};
use crate::diagnostics::suggest::did_you_mean;
use crate::diagnostics::{FileId, codes, primary, secondary};
use crate::front::common::{Literal, NumberRef, NumberValue, TypeExpr, TypeKind};
use crate::front::enc::ast::{DeadReckoningBlock, EncExtend, EncField, EncMember};
use crate::front::span::{Ident, Span};
use crate::ir::{
    DeadReckoning, Field, FieldEncoding, SegmentEncoding, StructDef, StructEncoding, StructKind,
    Type, Value, WireItem, WireRule,
};
use crate::resolve::number_of;

/// The span of a member, for labels.
pub(super) fn member_span(member: &EncMember) -> Span {
    match member {
        EncMember::Field(f) => f.span,
        EncMember::Delta(d) => d.span,
        EncMember::DeadReckoning(d) => d.span,
        EncMember::Extend(e) => e.span,
        EncMember::Fence(span) | EncMember::Align(span) | EncMember::Check(span) => *span,
    }
}

/// The first `len` bytes of `span`: the keyword a block starts with.
fn keyword(span: Span, len: usize) -> Span {
    Span::new(span.start, span.start.saturating_add(len).min(span.end))
}

/// The state of one target block being resolved.
struct Block<'a> {
    file: FileId,
    def: &'a StructDef,
    /// The FENCEs the block writes at its top level.
    fences: Vec<Span>,
    /// Fields mentioned so far, with the span of the first mention.
    mentioned: HashMap<&'a str, Span>,
    /// IDL EXTENDs mentioned so far: (field, segment).
    extends: HashMap<(&'a str, usize), Span>,
    /// Whether "DELTA needs a PUBLISHABLE_STRUCT" was reported for this block.
    delta_reported: bool,
    /// The items of each segment so far.
    segments: Vec<Vec<WireItem>>,
}

impl Block<'_> {
    fn publishable(&self) -> bool {
        self.def.kind == StructKind::Publishable
    }

    /// The segment an item without a field of its own (ALIGN, CHECK, an empty block) goes to.
    fn current(&self, fences_before: usize, last: usize) -> usize {
        fences_before
            .max(last)
            .min(self.segments.len().saturating_sub(1))
    }

    fn push(&mut self, segment: usize, item: WireItem) {
        if let Some(items) = self.segments.get_mut(segment) {
            items.push(item);
        }
    }
}

/// A field a block mentions, for the FENCE checks.
#[derive(Clone, Copy)]
struct Mention<'a> {
    field: &'a Field,
    segment: usize,
    span: Span,
}

impl<'a> EncodingResolver<'a> {
    /// The wire layout of `def` from its block `members` in `file`.
    pub(super) fn struct_block(
        &mut self,
        file: FileId,
        def: &'a StructDef,
        members: &'a [EncMember],
    ) -> StructEncoding {
        let mut b = Block {
            file,
            def,
            fences: members
                .iter()
                .filter_map(|m| match m {
                    EncMember::Fence(span) => Some(*span),
                    _ => None,
                })
                .collect(),
            mentioned: HashMap::new(),
            extends: HashMap::new(),
            delta_reported: false,
            segments: vec![Vec::new(); def.segments.len()],
        };
        self.extra_fences(&b);
        let mut fences_before = 0;
        let mut last = 0;
        for member in members {
            match member {
                EncMember::Fence(_) => fences_before += 1,
                EncMember::Field(f) => {
                    let Some(mention) = self.mention(&mut b, &f.name) else {
                        continue;
                    };
                    self.placement(&b, mention, fences_before);
                    let item =
                        WireItem::Field(self.field_rule(&mut b, f, mention, Baseline::OwnDelta));
                    b.push(mention.segment, item);
                    last = mention.segment;
                }
                EncMember::Delta(block) => {
                    self.require_publishable(&mut b, keyword(block.span, "DELTA".len()), "DELTA");
                    let mut mentions = Vec::new();
                    let items = self.inner_members(&mut b, &block.members, &mut mentions);
                    let segment = self.block_segment(&b, &mentions, fences_before, last);
                    b.push(segment, WireItem::DeltaBlock(items));
                    last = segment;
                }
                EncMember::DeadReckoning(block) => {
                    let mut mentions = Vec::new();
                    let item = self.dead_reckoning(&mut b, block, &mut mentions);
                    let segment = self.block_segment(&b, &mentions, fences_before, last);
                    b.push(segment, item);
                    last = segment;
                }
                EncMember::Extend(extend) => {
                    if let Some(segment) = self.extend_member(&mut b, extend, fences_before) {
                        last = segment;
                    }
                }
                EncMember::Align(_) => {
                    let segment = b.current(fences_before, last);
                    b.push(segment, WireItem::Align);
                }
                EncMember::Check(_) => {
                    let segment = b.current(fences_before, last);
                    b.push(segment, WireItem::Check);
                }
            }
        }
        // What the block does not mention: EXTENDs, then fields, in IDL order.
        for (index, segment) in def.segments.iter().enumerate() {
            for extend in &segment.extends {
                if !b.extends.contains_key(&(extend.field.as_str(), index)) {
                    let item = WireItem::Extend(self.extend_encoding(extend));
                    b.push(index, item);
                }
            }
            for field in &segment.fields {
                if !b.mentioned.contains_key(field.name.as_str()) {
                    let item = WireItem::Field(self.default_field(field));
                    b.push(index, item);
                }
            }
        }
        StructEncoding {
            segments: b
                .segments
                .into_iter()
                .map(|items| SegmentEncoding { items })
                .collect(),
        }
    }

    /// FENCEs beyond the IDL's.
    fn extra_fences(&mut self, b: &Block<'_>) {
        let idl_fences = b.def.segments.len().saturating_sub(1) + usize::from(b.def.open_end);
        for &span in b.fences.iter().skip(idl_fences) {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_FENCE_MISPLACED)
                    .with_message(format!(
                        "more FENCEs than the IDL's `{}` has ({idl_fences})",
                        b.def.name
                    ))
                    .with_labels(vec![
                        primary(b.file, span).with_message("no IDL FENCE matches this one"),
                        secondary(b.def.loc.file, b.def.loc.span)
                            .with_message(format!("the IDL declares `{}` here", b.def.name)),
                    ])
                    .with_notes(vec![
                        "an encoding may restate the IDL's FENCEs, not add new ones: remove this FENCE, or add it to the IDL first".into(),
                    ]),
            );
        }
    }

    /// Resolves a member name to a field of the target.
    fn mention(&mut self, b: &mut Block<'a>, name: &Ident) -> Option<Mention<'a>> {
        let def = b.def;
        let (segment, field) = match def.field(&name.name) {
            Some(found) => found,
            None => self.by_type_name(b, name)?,
        };
        if let Some(&first) = b.mentioned.get(field.name.as_str()) {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_DUPLICATE_MEMBER)
                    .with_message(format!("field `{}` is mentioned twice", field.name))
                    .with_labels(vec![
                        primary(b.file, name.span).with_message("mentioned again"),
                        secondary(b.file, first).with_message("first mentioned here"),
                        FieldRef::of(field).label(),
                    ])
                    .with_notes(vec![
                        "a field has one rule and one place on the wire: remove one of the two"
                            .into(),
                    ]),
            );
            return None;
        }
        b.mentioned.insert(&field.name, name.span);
        Some(Mention {
            field,
            segment,
            span: name.span,
        })
    }

    /// A name that is no field: the one field of that enum or struct type, with a warning.
    fn by_type_name(&mut self, b: &Block<'a>, name: &Ident) -> Option<(usize, &'a Field)> {
        let def = b.def;
        let typed: Vec<(usize, &'a Field)> = def
            .segments
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.fields.iter().map(move |f| (i, f)))
            .filter(|(_, f)| matches!(&f.ty, Type::Enum(n) | Type::Struct(n) if *n == name.name))
            .collect();
        match typed.as_slice() {
            [(segment, field)] => {
                self.diagnostics.push(
                    CodespanDiagnostic::warning()
                        .with_code(codes::ENC_TYPE_NAME_FOR_FIELD)
                        .with_message(format!(
                            "`{}` is the type of field `{}`; write `{}`",
                            name.name, field.name, field.name
                        ))
                        .with_labels(vec![
                            primary(b.file, name.span)
                                .with_message(format!("resolves to the field `{}`", field.name)),
                            FieldRef::of(field).label(),
                        ])
                        .with_notes(vec![
                            "a member names a field; a type name is accepted only while exactly one field has that type".into(),
                        ]),
                );
                Some((*segment, *field))
            }
            // Its type had an error, reported already.
            [] if def.is_unresolved(&name.name) => None,
            [] => {
                let mut notes: Vec<String> =
                    did_you_mean(&name.name, def.fields().map(|f| f.name.as_str()))
                        .into_iter()
                        .collect();
                notes.push(format!(
                    "the fields of `{}` are {}",
                    def.name,
                    super::rules::list(def.fields().map(|f| f.name.as_str()))
                ));
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_UNKNOWN_FIELD)
                        .with_message(format!("`{}` has no field `{}`", def.name, name.name))
                        .with_labels(vec![
                            primary(b.file, name.span).with_message("no such field"),
                            secondary(def.loc.file, def.loc.span)
                                .with_message(format!("the IDL declares `{}` here", def.name)),
                        ])
                        .with_notes(notes),
                );
                None
            }
            many => {
                let names = super::rules::list(many.iter().map(|(_, f)| f.name.as_str()));
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_UNKNOWN_FIELD)
                        .with_message(format!("`{}` has no field `{}`", def.name, name.name))
                        .with_labels(
                            std::iter::once(
                                primary(b.file, name.span).with_message("no such field"),
                            )
                            .chain(many.iter().map(|(_, f)| FieldRef::of(f).label()))
                            .collect(),
                        )
                        .with_notes(vec![format!(
                            "`{}` is the type of {names}: write the name of the field you mean",
                            name.name
                        )]),
                );
                None
            }
        }
    }

    /// The block's k-th FENCE must follow every mentioned member of IDL segment k-1 and precede
    /// every one of segment k.
    fn placement(&mut self, b: &Block<'_>, mention: Mention<'_>, fences_before: usize) {
        let want = mention.segment.min(b.fences.len());
        if fences_before == want {
            return;
        }
        let name = &mention.field.name;
        let (fence, message, fix, idl) = if fences_before < want {
            let fence = fences_before + 1;
            (
                fence,
                format!(
                    "`{name}` stands before FENCE {fence} of the block, but the IDL declares it after its FENCE {fence}"
                ),
                "move it after the FENCE",
                format!(
                    "the IDL declares `{name}` after its FENCE {} here",
                    mention.segment
                ),
            )
        } else {
            let fence = want + 1;
            (
                fence,
                format!(
                    "`{name}` stands after FENCE {fence} of the block, but the IDL declares it before its FENCE {fence}"
                ),
                "move it before the FENCE",
                if mention.segment == 0 {
                    format!("the IDL declares `{name}` before any FENCE here")
                } else {
                    format!(
                        "the IDL declares `{name}` after its FENCE {} here",
                        mention.segment
                    )
                },
            )
        };
        let mut labels = vec![primary(b.file, mention.span).with_message(fix)];
        if let Some(&span) = b.fences.get(fence - 1) {
            labels
                .push(secondary(b.file, span).with_message(format!("FENCE {fence} of the block")));
        }
        labels.push(secondary(mention.field.loc.file, mention.field.loc.span).with_message(idl));
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::ENC_FENCE_MISPLACED)
                .with_message(message)
                .with_labels(labels)
                .with_notes(vec![
                    "an encoding cannot move a field across a FENCE: its FENCEs must stand where the IDL's do".into(),
                ]),
        );
    }

    /// DELTA and DEAD_RECKONING need a baseline: a PUBLISHABLE_STRUCT. Reported once a block.
    fn require_publishable(&mut self, b: &mut Block<'_>, span: Span, what: &str) {
        if b.publishable() || b.delta_reported {
            return;
        }
        b.delta_reported = true;
        let def = b.def;
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::ENC_NOT_PUBLISHABLE)
                .with_message(format!(
                    "{what} needs a PUBLISHABLE_STRUCT, and `{}` is {}",
                    def.name,
                    super::kind_phrase(def.kind)
                ))
                .with_labels(vec![
                    primary(b.file, span).with_message(format!("{what} here")),
                    secondary(def.loc.file, def.loc.span).with_message(format!(
                        "the IDL declares `{}` as {} here",
                        def.name,
                        super::kind_keyword(def.kind)
                    )),
                ])
                .with_notes(vec![format!(
                    "DELTA and DEAD_RECKONING send changes against the state the receiver holds, which only a PUBLISHABLE_STRUCT has: declare `{}` as PUBLISHABLE_STRUCT in the IDL, or remove {what}",
                    def.name
                )]),
        );
    }

    /// The encoding of one mentioned field: its rule, DELTA, DIFF (`baseline` says what gives
    /// it one) and restated DEFAULT.
    fn field_rule(
        &mut self,
        b: &mut Block<'_>,
        f: &EncField,
        mention: Mention<'_>,
        baseline: Baseline,
    ) -> FieldEncoding {
        let field = mention.field;
        let fref = FieldRef::of(field);
        if let Some(span) = f.delta {
            self.require_publishable(b, span, "DELTA");
        }
        let mut element_delta = false;
        let mut rule = None;
        let mut rule_loc = None;
        if let Some(written) = &f.rule {
            if let Some(params) = self.checked_params(b.file, written) {
                match self.explicit_rule(&field.ty, &params, fref) {
                    Ok(resolved) => {
                        self.float32_saturation(b.file, written.span, &field.ty, &resolved, fref);
                        element_delta = f.delta.is_some() && matches!(params, Params::Sequence(_));
                        rule = Some(resolved);
                        rule_loc = Some(crate::ir::Loc::new(b.file, written.span));
                    }
                    Err(problem) => {
                        self.problem(b.file, written.span, *problem, vec![fref.label()])
                    }
                }
            }
        }
        let mut rule = match rule {
            Some(rule) => rule,
            None => {
                rule_loc = self.defaults_loc(&field.ty);
                self.default_rule(&field.ty, fref)
            }
        };
        if let WireRule::Sequence {
            element_delta: slot,
            ..
        } = &mut rule
        {
            *slot = element_delta;
        }
        if let Some(literal) = &f.default {
            self.check_default(b, literal, mention);
        }
        let rule = self.finish(rule);
        FieldEncoding {
            field: field.name.clone(),
            delta: f.delta.is_some(),
            diff: self.diff_tiers(b.file, b.def, f, field, &rule, baseline),
            rule,
            loc: Some(crate::ir::Loc::new(b.file, f.span)),
            rule_loc,
        }
    }

    /// A DEFAULT in a block restates the IDL's, after a FENCE.
    fn check_default(&mut self, b: &Block<'_>, literal: &Literal, mention: Mention<'_>) {
        let field = mention.field;
        if mention.segment == 0 {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_DEFAULT_BEFORE_FENCE)
                    .with_message(format!("DEFAULT on `{}`, which is before any FENCE", field.name))
                    .with_labels(vec![
                        primary(b.file, literal.span()).with_message("DEFAULT here"),
                        secondary(field.loc.file, field.loc.span).with_message(format!(
                            "the IDL declares `{}` before any FENCE here",
                            field.name
                        )),
                    ])
                    .with_notes(vec![
                        "a DEFAULT is what a reader fills in when an older sender did not send the field; only fields after a FENCE have one: remove it".into(),
                    ]),
            );
            return;
        }
        let Some(value) = &field.default else {
            // The IDL lacks the DEFAULT it needs; the IDL's own diagnostic says so.
            return;
        };
        if self.literal_matches(literal, value) {
            return;
        }
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::ENC_DEFAULT_MISMATCH)
                .with_message(format!(
                    "DEFAULT of `{}` differs from the IDL's",
                    field.name
                ))
                .with_labels(vec![
                    primary(b.file, literal.span())
                        .with_message(format!("the encoding says {}", describe_literal(literal))),
                    secondary(field.loc.file, field.loc.span).with_message(format!(
                        "the IDL's DEFAULT of `{}` is {}",
                        field.name,
                        value.describe()
                    )),
                ])
                .with_notes(vec![format!(
                    "a DEFAULT belongs to the IDL; an encoding may only restate it: write DEFAULT={} or leave it out",
                    value.describe()
                )]),
        );
    }

    fn literal_matches(&self, literal: &Literal, value: &Value) -> bool {
        let written = match literal {
            Literal::Number(n) => match n.value {
                NumberValue::Int(v) => Value::Int(v),
                NumberValue::Real(v) => Value::Real(v),
            },
            Literal::Bool(v, _) => Value::Bool(*v),
            Literal::Str(s) => Value::Str(s.value.clone()),
            Literal::Name(name) => match self.schema.consts.get(&name.name) {
                Some(c) => c.value.clone(),
                None => Value::Enumerator(name.name.clone()),
            },
            Literal::Negated(negated) => {
                match self
                    .schema
                    .consts
                    .get(&negated.name.name)
                    .map(|c| c.value.negated())
                {
                    Some(Some(value)) => value,
                    // Not a numeric CONST: nothing matches it.
                    _ => return false,
                }
            }
        };
        match (&written, value) {
            (Value::Int(a), Value::Real(b)) | (Value::Real(b), Value::Int(a)) => *a as f64 == *b,
            _ => written == *value,
        }
    }

    /// The members of a DELTA block, recursively.
    fn inner_members(
        &mut self,
        b: &mut Block<'a>,
        members: &'a [EncMember],
        mentions: &mut Vec<Mention<'a>>,
    ) -> Vec<WireItem> {
        let mut items = Vec::new();
        for member in members {
            match member {
                EncMember::Field(f) => {
                    if let Some(mention) = self.mention(b, &f.name) {
                        mentions.push(mention);
                        items.push(WireItem::Field(self.field_rule(
                            b,
                            f,
                            mention,
                            Baseline::Block,
                        )));
                    }
                }
                EncMember::Delta(block) => {
                    let inner = self.inner_members(b, &block.members, mentions);
                    items.push(WireItem::DeltaBlock(inner));
                }
                EncMember::DeadReckoning(block) => {
                    items.push(self.dead_reckoning(b, block, mentions));
                }
                EncMember::Align(_) => items.push(WireItem::Align),
                EncMember::Check(_) => items.push(WireItem::Check),
                EncMember::Fence(span) => self.not_allowed(
                    b.file,
                    *span,
                    "a FENCE inside a DELTA block",
                    "a FENCE stands at the top level of the block: end the DELTA block before it, start another after it",
                ),
                EncMember::Extend(extend) => self.not_allowed(
                    b.file,
                    extend.span,
                    "an EXTEND inside a DELTA block",
                    "an EXTEND stands at the top level of the block, after the FENCE of its segment",
                ),
            }
        }
        items
    }

    fn not_allowed(&mut self, file: FileId, span: Span, message: &str, note: &str) {
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::ENC_MEMBER_NOT_ALLOWED)
                .with_message(message.to_string())
                .with_labels(vec![primary(file, span).with_message("not allowed here")])
                .with_notes(vec![note.to_string()]),
        );
    }

    /// `DEAD_RECKONING(limit) { positions; velocities; }`
    fn dead_reckoning(
        &mut self,
        b: &mut Block<'a>,
        block: &'a DeadReckoningBlock,
        mentions: &mut Vec<Mention<'a>>,
    ) -> WireItem {
        let head = keyword(block.span, "DEAD_RECKONING".len());
        self.require_publishable(b, head, "DEAD_RECKONING");
        let shape_note = "write N positions, then one velocity per position in the same order, all NUMERIC: DEAD_RECKONING(0.02) { x; y; vx; vy; }";
        let mut fields: Vec<FieldEncoding> = Vec::new();
        let mut written = 0usize;
        let mut first_position: Option<&'a Field> = None;
        for member in &block.members {
            let EncMember::Field(f) = member else {
                self.shape_error(
                    b.file,
                    member_span(member),
                    "a DEAD_RECKONING block holds only fields",
                    "not a field",
                    shape_note,
                );
                continue;
            };
            written += 1;
            if let Some(delta) = f.delta {
                self.shape_error(
                    b.file,
                    delta,
                    "DELTA inside a DEAD_RECKONING block",
                    "not allowed here",
                    "the block is sent as a whole when the extrapolation drifts: put DELTA around the block, not inside it",
                );
            }
            let Some(mention) = self.mention(b, &f.name) else {
                continue;
            };
            if written == 1 {
                first_position = Some(mention.field);
            }
            if !matches!(mention.field.ty, Type::Numeric { .. }) {
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_DEAD_RECKONING_NOT_NUMERIC)
                        .with_message(format!(
                            "DEAD_RECKONING on `{}`, which is {}",
                            mention.field.name,
                            mention.field.ty.describe()
                        ))
                        .with_labels(vec![
                            primary(b.file, f.name.span).with_message("not a NUMERIC"),
                            FieldRef::of(mention.field).label(),
                        ])
                        .with_notes(vec![
                            "dead reckoning extrapolates position + velocity * time: its fields are NUMERIC".into(),
                        ]),
                );
            }
            mentions.push(mention);
            fields.push(self.field_rule(b, f, mention, Baseline::Block));
        }
        if written < 2 || written % 2 != 0 {
            self.shape_error(
                b.file,
                head,
                &format!("DEAD_RECKONING needs N positions then N velocities, and this block has {written} field(s)"),
                "an even number of fields, at least 2",
                shape_note,
            );
        }
        let limit = self.dead_reckoning_limit(b, block, head, first_position, fields.first());
        let velocities = fields.split_off(fields.len() / 2);
        WireItem::DeadReckoning(DeadReckoning {
            limit,
            positions: fields,
            velocities,
        })
    }

    fn dead_reckoning_limit(
        &mut self,
        b: &Block<'_>,
        block: &DeadReckoningBlock,
        head: Span,
        first: Option<&Field>,
        first_rule: Option<&FieldEncoding>,
    ) -> f64 {
        if let Some(limit) = block.limit {
            let value = match limit.value {
                NumberValue::Int(v) => v as f64,
                NumberValue::Real(v) => v,
            };
            if !(value.is_finite() && value > 0.0) {
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_BAD_PARAMETER)
                        .with_message("the DEAD_RECKONING limit must be greater than 0")
                        .with_labels(vec![primary(b.file, limit.span).with_message("not a positive distance")])
                        .with_notes(vec![
                            "the limit is the largest error of the extrapolation before the block is sent again, e.g. DEAD_RECKONING(0.02)".into(),
                        ]),
                );
            }
            return value;
        }
        match (first, first_rule.map(|f| &f.rule)) {
            (_, Some(WireRule::FixedPoint { resolution, .. })) => *resolution,
            (Some(field), _) => {
                self.error(
                    CodespanDiagnostic::error()
                        .with_code(codes::ENC_DEAD_RECKONING_NO_LIMIT)
                        .with_message("DEAD_RECKONING without a limit needs a FIXED_POINT first position")
                        .with_labels(vec![
                            primary(b.file, head).with_message("no limit"),
                            FieldRef::of(field).label(),
                        ])
                        .with_notes(vec![format!(
                            "without `(limit)` the limit is the resolution of the first position; write DEAD_RECKONING(limit), or FIXED_POINT(resolution) {}",
                            field.name
                        )]),
                );
                0.0
            }
            (None, _) => 0.0,
        }
    }

    fn shape_error(&mut self, file: FileId, span: Span, message: &str, label: &str, note: &str) {
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::ENC_DEAD_RECKONING_SHAPE)
                .with_message(message.to_string())
                .with_labels(vec![primary(file, span).with_message(label.to_string())])
                .with_notes(vec![note.to_string()]),
        );
    }

    /// The segment of a DELTA or DEAD_RECKONING block: that of its fields, which must all be
    /// in one segment, and in the right place relative to the block's FENCEs.
    fn block_segment(
        &mut self,
        b: &Block<'_>,
        mentions: &[Mention<'_>],
        fences_before: usize,
        last: usize,
    ) -> usize {
        let Some(first) = mentions.first() else {
            return b.current(fences_before, last);
        };
        if let Some(other) = mentions.iter().find(|m| m.segment != first.segment) {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_BLOCK_SPANS_FENCE)
                    .with_message(format!(
                        "a block holds `{}` from segment {} and `{}` from segment {} of `{}`",
                        first.field.name, first.segment, other.field.name, other.segment, b.def.name
                    ))
                    .with_labels(vec![
                        primary(b.file, other.span)
                            .with_message(format!("segment {}", other.segment)),
                        secondary(b.file, first.span)
                            .with_message(format!("segment {}", first.segment)),
                        secondary(other.field.loc.file, other.field.loc.span).with_message(
                            format!(
                                "the IDL declares `{}` after its FENCE {} here",
                                other.field.name,
                                other.segment.max(first.segment)
                            ),
                        ),
                    ])
                    .with_notes(vec![
                        "a DELTA or DEAD_RECKONING block is sent as one unit, and a reader of an older version could not skip part of it: split the block at the FENCE".into(),
                    ]),
            );
        }
        self.placement(b, *first, fences_before);
        first.segment
    }

    /// `EXTEND f TO T` restating an IDL EXTEND; returns its segment.
    fn extend_member(
        &mut self,
        b: &mut Block<'a>,
        extend: &EncExtend,
        fences_before: usize,
    ) -> Option<usize> {
        let def = b.def;
        let to = self.type_of(&extend.ty);
        let idl: Vec<(usize, &'a crate::ir::Extend)> = def
            .segments
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.extends.iter().map(move |x| (i, x)))
            .filter(|(_, x)| x.field == extend.field.name)
            .collect();
        let found = to
            .as_ref()
            .and_then(|to| idl.iter().find(|(_, x)| x.to == *to).copied());
        let Some((segment, idl_extend)) = found else {
            self.extend_mismatch(b, extend, to.as_ref(), &idl);
            return None;
        };
        let key = (idl_extend.field.as_str(), segment);
        if let Some(&first) = b.extends.get(&key) {
            self.error(
                CodespanDiagnostic::error()
                    .with_code(codes::ENC_DUPLICATE_MEMBER)
                    .with_message(format!(
                        "EXTEND of `{}` is written twice",
                        extend.field.name
                    ))
                    .with_labels(vec![
                        primary(b.file, extend.span).with_message("written again"),
                        secondary(b.file, first).with_message("first written here"),
                    ])
                    .with_notes(vec!["remove one of the two".into()]),
            );
            return None;
        }
        b.extends.insert(key, extend.span);
        if let Some(field) = def.field(&idl_extend.field).map(|(_, f)| f) {
            let mention = Mention {
                field,
                segment,
                span: extend.span,
            };
            self.placement(b, mention, fences_before);
        }
        let item = WireItem::Extend(self.extend_encoding(idl_extend));
        b.push(segment, item);
        Some(segment)
    }

    fn extend_mismatch(
        &mut self,
        b: &Block<'_>,
        extend: &EncExtend,
        to: Option<&Type>,
        idl: &[(usize, &crate::ir::Extend)],
    ) {
        let def = b.def;
        let name = &extend.field.name;
        let mut labels = vec![];
        let (message, label, note) = match (to, idl.first()) {
            (None, _) => (
                format!("cannot resolve the type of `EXTEND {name}`"),
                "not a type the IDL declares".to_string(),
                "write the type as the IDL's EXTEND does".to_string(),
            ),
            (Some(_), None) => {
                if let Some((_, field)) = def.field(name) {
                    labels.push(FieldRef::of(field).label());
                }
                (
                    format!("the IDL does not EXTEND `{name}` in `{}`", def.name),
                    "no matching EXTEND in the IDL".to_string(),
                    format!(
                        "an encoding restates the IDL's EXTENDs: write `EXTEND {name} TO ...;` after a FENCE in the IDL first"
                    ),
                )
            }
            (Some(to), Some((_, first))) => {
                for (_, x) in idl {
                    labels.push(secondary(x.loc.file, x.loc.span).with_message(format!(
                        "the IDL extends `{name}` to {} here",
                        x.to.describe()
                    )));
                }
                (
                    format!(
                        "the IDL extends `{name}` to {}, not to {}",
                        first.to.describe(),
                        to.describe()
                    ),
                    format!("{} here", to.describe()),
                    format!("write `EXTEND {name} TO {};`", first.to.describe()),
                )
            }
        };
        let mut all = vec![primary(b.file, extend.ty.span).with_message(label)];
        all.extend(labels);
        self.error(
            CodespanDiagnostic::error()
                .with_code(codes::ENC_EXTEND_MISMATCH)
                .with_message(message)
                .with_labels(all)
                .with_notes(vec![note]),
        );
    }

    /// The IR type of a type restated in an EXTEND (None if it does not resolve).
    fn type_of(&self, ty: &TypeExpr) -> Option<Type> {
        let schema = self.schema;
        let number = |n: &NumberRef| -> Option<NumberValue> {
            match n {
                NumberRef::Literal(n) => Some(n.value),
                NumberRef::Const(name) => number_of(&schema.consts.get(&name.name)?.value),
                NumberRef::Negated(negated) => {
                    number_of(&schema.consts.get(&negated.name.name)?.value.negated()?)
                }
            }
        };
        let int = |n: &NumberRef| match number(n)? {
            NumberValue::Int(v) => Some(v),
            NumberValue::Real(_) => None,
        };
        let real = |n: &NumberRef| {
            Some(match number(n)? {
                NumberValue::Int(v) => v as f64,
                NumberValue::Real(v) => v,
            })
        };
        let bound = |n: Option<&NumberRef>| -> Option<Option<u64>> {
            match n {
                None => Some(None),
                Some(n) => u64::try_from(int(n)?).ok().map(Some),
            }
        };
        Some(match &ty.kind {
            TypeKind::Primitive(p) => crate::resolve::primitive_type(*p),
            TypeKind::IntRange(range) => {
                let min = int(&range.min)?;
                let max = int(&range.max)?;
                Type::IntRange {
                    min: if range.min_inclusive {
                        min
                    } else {
                        min.checked_add(1)?
                    },
                    max: if range.max_inclusive {
                        max
                    } else {
                        max.checked_sub(1)?
                    },
                }
            }
            TypeKind::Numeric(range) => Type::Numeric {
                min: real(&range.min)?,
                max: real(&range.max)?,
                min_inclusive: range.min_inclusive,
                max_inclusive: range.max_inclusive,
            },
            TypeKind::String(max) => Type::String {
                max: bound(max.as_ref())?,
            },
            TypeKind::Bytes(max) => Type::Bytes {
                max: bound(max.as_ref())?,
            },
            TypeKind::Sequence(element, max) => Type::Sequence {
                element: Box::new(self.type_of(element)?),
                max: bound(max.as_ref())?,
            },
            TypeKind::Array(element, len) => Type::Array {
                element: Box::new(self.type_of(element)?),
                len: bound(Some(len))??,
            },
            TypeKind::Optional(inner) => Type::Optional(Box::new(self.type_of(inner)?)),
            TypeKind::Quaternion => Type::Quaternion,
            TypeKind::Named(name) => {
                if schema.structs.contains_key(&name.name) {
                    Type::Struct(name.name.clone())
                } else if schema.enums.contains_key(&name.name) {
                    Type::Enum(name.name.clone())
                } else {
                    schema.typedefs.get(&name.name)?.ty.clone()
                }
            }
        })
    }
}

fn describe_literal(literal: &Literal) -> String {
    match literal {
        Literal::Number(n) => match n.value {
            NumberValue::Int(v) => v.to_string(),
            NumberValue::Real(v) => v.to_string(),
        },
        Literal::Bool(v, _) => v.to_string(),
        Literal::Str(s) => format!("{:?}", s.value),
        Literal::Name(name) => name.name.clone(),
        Literal::Negated(negated) => format!("-{}", negated.name.name),
    }
}
