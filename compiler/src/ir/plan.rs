//! The wire plan: the format of every struct in every encoding, decided once.
//!
//! The encoding part of the IR ([`StructEncoding`]) says what the Encoding file says: each
//! segment's items, with their rules. The plan lowers it into the steps a writer and a reader
//! take, in order, with every decision made that the bytes depend on: which fields travel as one
//! packed word, what a widened field's old slot carries and what its extension does, which
//! structs count their nesting and which travel in their nested form, and, for a
//! PUBLISHABLE_STRUCT, the delta form's changed-bits, blocks, dead-reckoning axes and sequence
//! element deltas. Generated code, the interpreter and `report` walk it; none of them decides a
//! width, an order, a packing or a grouping of its own (docs/ARCHITECTURE.md).
//!
//! The plan is plain data (serde), deterministic, and printed by `idlc ir --plan`.

use std::collections::HashSet;

use indexmap::IndexMap;
use serde::Serialize;

use super::{
    DiffSteps, Encoding, ExtensionPart, FieldEncoding, Ir, StructDef, StructEncoding, StructKind,
    Style, Type, Value, WireItem, WireRule,
};

/// Choices of the consumer that change the steps but never the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PlanOptions {
    /// Whether runs of fixed-width fields of a BITSTREAM's first segment are read and written as
    /// one word (generated code's `merge_fixed_width`; on by default). A reader that packs needs
    /// the whole run's bits before it checks any of its fields, so an input too short for a run
    /// fails at the run's first field.
    pub pack_runs: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions { pack_runs: true }
    }
}

/// The plan of one encoding: every struct of the schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EncodingPlan {
    /// The encoding's name.
    pub name: String,
    /// Bit or byte stream.
    pub style: Style,
    /// Every struct, in schema order.
    pub structs: IndexMap<String, StructPlan>,
}

/// The plan of one struct in one encoding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructPlan {
    /// The IDL name.
    pub name: String,
    /// What kind of struct.
    pub kind: StructKind,
    /// Whether it can contain itself: its reader counts its nesting against the runtime's depth
    /// limit (`enter` / `leave`).
    pub recursive: bool,
    /// Whether another struct holds it and it has a FENCE: held, it travels in its nested form
    /// (each later segment in an extension with its length, WIRE.md "Fences and versions").
    pub nested_form: bool,
    /// Whether it is, or is held by, the element of a `DELTA SEQUENCE`: its elements are
    /// compared as sent to decide which changed.
    pub delta_element: bool,
    /// Whether the last member is a FENCE: a 0 present bit after the last segment.
    pub open_end: bool,
    /// Every field in declaration order, with the types it had over time.
    pub fields: Vec<FieldPlan>,
    /// The full form: per segment, its steps in wire order. A segment after the first is
    /// preceded by its present bit (top-level form) or an extension (nested form).
    pub segments: Vec<Vec<Step>>,
    /// The delta form of a PUBLISHABLE_STRUCT: per segment, its steps in wire order.
    pub delta: Option<Vec<Vec<DeltaStep>>>,
}

impl StructPlan {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&FieldPlan> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Every rule a value of the struct is written with, by field: each field's slot, then each
    /// extension that carries a whole value, in wire order (the last one of a field is the
    /// rule of the type its value has now). An extension of high bits carries raw bits, no
    /// rule of its own.
    pub fn rules(&self) -> impl Iterator<Item = (&str, &WireRule)> {
        let slots = self
            .fields
            .iter()
            .filter_map(|f| Some((f.name.as_str(), f.rule.as_ref()?)));
        let extensions = self
            .segments
            .iter()
            .flatten()
            .filter_map(|step| match step {
                Step::Extension(ExtensionStep {
                    field,
                    carries: Carries::Whole { rule, .. },
                    ..
                }) => Some((field.as_str(), rule)),
                _ => None,
            });
        slots.chain(extensions)
    }
}

/// A field of a struct and its history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldPlan {
    /// The IDL name.
    pub name: String,
    /// The segment that declares it.
    pub segment: usize,
    /// The type it was declared with: the type of its old slot.
    pub ty: Type,
    /// Each EXTEND of it: the segment, and the type from there on.
    pub extends: Vec<(usize, Type)>,
    /// What a reader takes when its segment was not sent.
    pub default: Option<Value>,
    /// The rule of its old slot in this encoding (`None` only in an IR with errors).
    pub rule: Option<WireRule>,
}

impl FieldPlan {
    /// The type its value has: the last EXTEND's, else the declared one.
    pub fn current(&self) -> &Type {
        self.extends.last().map_or(&self.ty, |(_, ty)| ty)
    }

    /// The type whose enumerators an enum slot's index names: the current one, which begins
    /// with the old one's.
    pub fn read_as(&self) -> &Type {
        match (&self.ty, self.current()) {
            (Type::Enum(_), current @ Type::Enum(_)) => current,
            (ty, _) => ty,
        }
    }
}

/// One step of the full form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Step {
    /// A field's slot.
    Field(FieldStep),
    /// Fixed-width fields written and read as one word of `bits` bits, the first field in the
    /// lowest bits.
    Packed {
        /// The run's width: the sum of its fields'.
        bits: u32,
        /// The fields, in wire order; each has a `packed` width.
        fields: Vec<FieldStep>,
    },
    /// What a widened field's EXTEND adds, in the segment of the EXTEND.
    Extension(ExtensionStep),
    /// Zero bits to the next byte boundary.
    Align,
    /// The 32-bit check word.
    Check,
}

/// A field's slot: its rule, and what the slot holds when the field was widened since.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldStep {
    /// The field's IDL name.
    pub field: String,
    /// Its rule.
    pub rule: WireRule,
    /// Its width in a packed word ([`super::packable_bits`]), when it can be packed.
    pub packed: Option<u32>,
    /// How the value is narrowed into the slot, when a later EXTEND widened the field.
    pub narrowing: Option<Narrowing>,
    /// `DIFF(b1, ..., bk)` in the delta form: a changed value travels as its difference of
    /// steps to a reference, the baseline's value (a position in a DEAD_RECKONING block: the
    /// extrapolation; WIRE.md). Full forms ignore it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffPlan>,
}

/// A field's `DIFF(b1, ..., bk)`: its tiers and the steps they take differences of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffPlan {
    /// The tiers, in bits, in order: a difference goes in the first that holds its zigzag.
    pub tiers: Vec<u32>,
    /// The steps of the field's rule.
    pub steps: DiffSteps,
}

/// How a widened field's value is narrowed into an older slot (WIRE.md, "Fences and versions").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Narrowing {
    /// The low `bits` bits (an unsigned widening: the extension carries the bits above).
    LowBits {
        /// The old width.
        bits: u32,
    },
    /// An integer saturated into the old range.
    SaturateInt {
        /// The old range's smallest value.
        min: i128,
        /// The old range's largest value.
        max: i128,
    },
    /// An enumerator's index saturated into the old enum's `count` enumerators.
    SaturateEnum {
        /// The old enum's name.
        old: String,
        /// Its number of enumerators.
        count: u64,
    },
    /// A real saturated into the old NUMERIC range.
    SaturateReal {
        /// The old lower bound.
        min: f64,
        /// The old upper bound.
        max: f64,
        /// Whether `min` is in the range.
        min_inclusive: bool,
        /// Whether `max` is in the range.
        max_inclusive: bool,
    },
    /// A FLOAT64 into a FLOAT32 slot: rounded to the nearest f32 as it is written.
    RoundToF32,
    /// A text's first `max` bytes, cut at a character boundary.
    TruncateString {
        /// The old most bytes.
        max: u64,
    },
    /// A byte string's first `max` bytes.
    TruncateBytes {
        /// The old most bytes.
        max: u64,
    },
    /// A sequence's first `max` elements.
    TruncateSequence {
        /// The old most elements.
        max: u64,
    },
    /// A widening the wire format has no narrowing for (resolve refuses it; a consumer reports
    /// it as an internal error).
    Unsupported {
        /// The old type.
        from: Type,
    },
}

/// The extension of a widened field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtensionStep {
    /// The field's IDL name.
    pub field: String,
    /// The type the field has from this extension on.
    pub to: Type,
    /// What the extension carries.
    pub carries: Carries,
}

impl ExtensionStep {
    /// The rule the extension is written with: the high bits as an unsigned integer of their
    /// width, or the new type's rule.
    pub fn rule(&self) -> WireRule {
        match &self.carries {
            Carries::HighBits { width, .. } => WireRule::Fixed {
                bits: *width,
                signed: false,
            },
            Carries::Whole { rule, .. } => rule.clone(),
        }
    }
}

/// What the extension of a widened field carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Carries {
    /// The `width` bits above the old slot's `low` bits, raw.
    HighBits {
        /// The old slot's width.
        low: u32,
        /// The width added.
        width: u32,
    },
    /// The whole value in `rule`, narrowed into `to` first when a later EXTEND widened it
    /// again.
    Whole {
        /// The rule of the new type.
        rule: WireRule,
        /// How the value is narrowed into this extension.
        narrowing: Option<Narrowing>,
    },
}

/// One step of the delta form of a PUBLISHABLE_STRUCT.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum DeltaStep {
    /// A field sent whole whenever its block is (no changed-bit of its own).
    Field(FieldStep),
    /// A field behind its own changed-bit: sent when its value as sent differs from the
    /// baseline's.
    Changed(FieldStep),
    /// A `DELTA SEQUENCE`: its changed-bit, then the count and the changed or new elements with
    /// their index gaps, each element of a PUBLISHABLE_STRUCT `element` as a delta against the
    /// baseline's element at its index (nested form when the element has FENCEs).
    Sequence {
        /// The field.
        field: FieldStep,
        /// The element's struct, when it is a PUBLISHABLE_STRUCT (delta-coded elements).
        element: Option<String>,
    },
    /// `DELTA { ... }`: one changed-bit, then the steps when any of them changed.
    Block(Vec<DeltaStep>),
    /// `DEAD_RECKONING(limit)`: one changed-bit, then every position and velocity when a
    /// position's extrapolation from the baseline deviates by more than `limit`; when not sent,
    /// the receiver extrapolates the positions.
    DeadReckoning {
        /// The largest deviation allowed.
        limit: f64,
        /// The axes: each a position and its velocity.
        axes: Vec<(FieldStep, FieldStep)>,
    },
    /// What a widened field's EXTEND adds, sent with its field's old slot.
    Extension(ExtensionStep),
    /// Zero bits to the next byte boundary.
    Align,
    /// The 32-bit check word.
    Check,
}

/// The fields of a `DEAD_RECKONING` block's axes in wire order, every position then every
/// velocity, each position with its velocity: a position's DIFF takes its difference to the
/// extrapolation with that velocity, a velocity's to the baseline's (WIRE.md).
pub fn dead_reckoning_fields(
    axes: &[(FieldStep, FieldStep)],
) -> impl Iterator<Item = (&FieldStep, Option<&FieldStep>)> {
    let positions = axes.iter().map(|(p, v)| (p, Some(v)));
    positions.chain(axes.iter().map(|(_, v)| (v, None)))
}

/// The plan of every encoding of `ir`.
pub fn plan(ir: &Ir, options: PlanOptions) -> IndexMap<String, EncodingPlan> {
    let held = Held::of(ir);
    ir.encodings
        .values()
        .map(|encoding| {
            (
                encoding.name.clone(),
                encoding_plan(ir, encoding, &held, options),
            )
        })
        .collect()
}

/// Which structs others hold, computed once per IR.
struct Held<'a> {
    nested_fenced: HashSet<&'a str>,
    compared_as_sent: HashSet<&'a str>,
    recursive: HashSet<&'a str>,
}

impl<'a> Held<'a> {
    fn of(ir: &'a Ir) -> Self {
        Held {
            nested_fenced: super::nesting::nested_fenced_structs(&ir.schema),
            compared_as_sent: super::nesting::compared_as_sent(ir),
            recursive: super::nesting::recursive_structs(&ir.schema),
        }
    }
}

fn encoding_plan(
    ir: &Ir,
    encoding: &Encoding,
    held: &Held<'_>,
    options: PlanOptions,
) -> EncodingPlan {
    let structs = ir
        .schema
        .structs
        .values()
        .filter_map(|def| {
            let layout = encoding.structs.get(&def.name)?;
            let lowering = Lowering {
                ir,
                def,
                style: encoding.style,
                fields: fields(def),
                options,
            };
            Some((def.name.clone(), lowering.struct_plan(layout, held)))
        })
        .collect();
    EncodingPlan {
        name: encoding.name.clone(),
        style: encoding.style,
        structs,
    }
}

fn fields(def: &StructDef) -> Vec<FieldPlan> {
    let mut out: Vec<FieldPlan> = Vec::new();
    for (index, segment) in def.segments.iter().enumerate() {
        for field in &segment.fields {
            out.push(FieldPlan {
                name: field.name.clone(),
                segment: index,
                ty: field.ty.clone(),
                extends: Vec::new(),
                default: field.default.clone(),
                rule: None,
            });
        }
        for extend in &segment.extends {
            if let Some(field) = out.iter_mut().find(|f| f.name == extend.field) {
                field.extends.push((index, extend.to.clone()));
            }
        }
    }
    out
}

/// Gives every field of `fields` the rule of its slot in `items` (its first one).
fn slot_rules(items: &[WireItem], fields: &mut [FieldPlan]) {
    for item in items {
        let encoded: Vec<&FieldEncoding> = match item {
            WireItem::Field(encoded) => vec![encoded],
            WireItem::DeadReckoning(dr) => dr.positions.iter().chain(&dr.velocities).collect(),
            WireItem::DeltaBlock(inner) => {
                slot_rules(inner, fields);
                continue;
            }
            WireItem::Extend(_) | WireItem::Align | WireItem::Check => continue,
        };
        for encoded in encoded {
            if let Some(field) = fields.iter_mut().find(|f| f.name == encoded.field)
                && field.rule.is_none()
            {
                field.rule = Some(encoded.rule.clone());
            }
        }
    }
}

/// Lowers one struct's encoding into its plan.
struct Lowering<'a> {
    ir: &'a Ir,
    def: &'a StructDef,
    style: Style,
    fields: Vec<FieldPlan>,
    options: PlanOptions,
}

impl Lowering<'_> {
    fn struct_plan(mut self, layout: &StructEncoding, held: &Held<'_>) -> StructPlan {
        for segment in &layout.segments {
            slot_rules(&segment.items, &mut self.fields);
        }
        let segments = layout
            .segments
            .iter()
            .enumerate()
            .map(|(index, segment)| self.full_segment(index, &segment.items))
            .collect();
        let delta = (self.def.kind == StructKind::Publishable).then(|| {
            layout
                .segments
                .iter()
                .enumerate()
                .map(|(index, segment)| self.delta_items(index, &segment.items))
                .collect()
        });
        let name = self.def.name.as_str();
        StructPlan {
            name: name.to_string(),
            kind: self.def.kind,
            recursive: held.recursive.contains(name),
            nested_form: held.nested_fenced.contains(name),
            delta_element: held.compared_as_sent.contains(name),
            open_end: self.def.open_end,
            segments,
            delta,
            fields: self.fields,
        }
    }

    /// A segment's full form: blocks opened (a full form sends every field of a DELTA or
    /// DEAD_RECKONING block in order, with no changed-bits), runs packed.
    fn full_segment(&self, segment: usize, items: &[WireItem]) -> Vec<Step> {
        let mut flat = Vec::new();
        self.flatten(segment, items, &mut flat);
        if !self.options.pack_runs || segment != 0 || self.style != Style::Bitstream {
            return flat;
        }
        let mut out = Vec::new();
        let mut run: Vec<FieldStep> = Vec::new();
        let mut bits = 0u32;
        let flush = |run: &mut Vec<FieldStep>, bits: &mut u32, out: &mut Vec<Step>| {
            match run.len() {
                0 => {}
                1 => out.extend(run.drain(..).map(Step::Field)),
                _ => out.push(Step::Packed {
                    bits: *bits,
                    fields: std::mem::take(run),
                }),
            }
            *bits = 0;
        };
        for step in flat {
            match step {
                Step::Field(field) => match field.packed {
                    Some(width) if bits + width <= 64 => {
                        bits += width;
                        run.push(field);
                    }
                    Some(width) => {
                        flush(&mut run, &mut bits, &mut out);
                        bits = width;
                        run.push(field);
                    }
                    _ => {
                        flush(&mut run, &mut bits, &mut out);
                        out.push(Step::Field(field));
                    }
                },
                other => {
                    flush(&mut run, &mut bits, &mut out);
                    out.push(other);
                }
            }
        }
        flush(&mut run, &mut bits, &mut out);
        out
    }

    fn flatten(&self, segment: usize, items: &[WireItem], out: &mut Vec<Step>) {
        for item in items {
            match item {
                WireItem::Field(encoded) => out.push(Step::Field(self.full_step(encoded))),
                WireItem::Extend(extend) => out.push(Step::Extension(self.extension_step(
                    segment,
                    &extend.field,
                    extend.part,
                    &extend.rule,
                ))),
                WireItem::DeltaBlock(inner) => self.flatten(segment, inner, out),
                WireItem::DeadReckoning(dr) => out.extend(
                    dr.positions
                        .iter()
                        .chain(&dr.velocities)
                        .map(|f| Step::Field(self.full_step(f))),
                ),
                WireItem::Align => out.push(Step::Align),
                WireItem::Check => out.push(Step::Check),
            }
        }
    }

    fn delta_items(&self, segment: usize, items: &[WireItem]) -> Vec<DeltaStep> {
        items
            .iter()
            .map(|item| match item {
                WireItem::Field(encoded) => {
                    let step = self.field_step(encoded);
                    match &encoded.rule {
                        WireRule::Sequence { element, .. } if encoded.is_delta_sequence() => {
                            DeltaStep::Sequence {
                                element: self.publishable(element),
                                field: step,
                            }
                        }
                        _ if encoded.delta => DeltaStep::Changed(step),
                        _ => DeltaStep::Field(step),
                    }
                }
                WireItem::Extend(extend) => DeltaStep::Extension(self.extension_step(
                    segment,
                    &extend.field,
                    extend.part,
                    &extend.rule,
                )),
                WireItem::DeltaBlock(inner) => DeltaStep::Block(self.delta_items(segment, inner)),
                WireItem::DeadReckoning(dr) => DeltaStep::DeadReckoning {
                    limit: dr.limit,
                    axes: dr
                        .positions
                        .iter()
                        .zip(&dr.velocities)
                        .map(|(p, v)| (self.field_step(p), self.field_step(v)))
                        .collect(),
                },
                WireItem::Align => DeltaStep::Align,
                WireItem::Check => DeltaStep::Check,
            })
            .collect()
    }

    /// The PUBLISHABLE_STRUCT an element rule is, if it is one.
    fn publishable(&self, element: &WireRule) -> Option<String> {
        match element {
            WireRule::Struct(name)
                if self
                    .ir
                    .schema
                    .structs
                    .get(name)
                    .is_some_and(|s| s.kind == StructKind::Publishable) =>
            {
                Some(name.clone())
            }
            _ => None,
        }
    }

    fn field_plan(&self, name: &str) -> Option<&FieldPlan> {
        self.fields.iter().find(|f| f.name == name)
    }

    fn field_step(&self, encoded: &FieldEncoding) -> FieldStep {
        let field = self.field_plan(&encoded.field);
        let narrowing = field.and_then(|f| {
            let next = f.extends.first().map(|(_, ty)| ty)?;
            Some(self.narrowing(&f.ty, next))
        });
        let rust = self
            .ir
            .mapping
            .structs
            .get(&self.def.name)
            .and_then(|m| m.fields.get(&encoded.field))
            .map(|m| &m.ty);
        // A field widened since cannot be packed: its slot narrows the value first.
        let packed = match (field, rust) {
            (Some(field), Some(rust)) if field.extends.is_empty() => {
                super::packable_bits(&encoded.rule, &field.ty, rust)
            }
            _ => None,
        };
        let steps = field.and_then(|f| encoded.rule.diff_steps(&f.ty));
        let diff = match (&encoded.diff, steps) {
            (Some(tiers), Some(steps)) if narrowing.is_none() => Some(DiffPlan {
                tiers: tiers.clone(),
                steps,
            }),
            _ => None,
        };
        FieldStep {
            field: encoded.field.clone(),
            rule: encoded.rule.clone(),
            packed,
            narrowing,
            diff,
        }
    }

    /// A field's slot in the full form, which has no baseline and ignores DIFF.
    fn full_step(&self, encoded: &FieldEncoding) -> FieldStep {
        FieldStep {
            diff: None,
            ..self.field_step(encoded)
        }
    }

    fn extension_step(
        &self,
        segment: usize,
        name: &str,
        part: ExtensionPart,
        rule: &WireRule,
    ) -> ExtensionStep {
        let field = self.field_plan(name);
        let position = field.and_then(|f| f.extends.iter().position(|(s, _)| *s == segment));
        let (from, to, next) = match (field, position) {
            (Some(f), Some(i)) => {
                let from = if i == 0 { &f.ty } else { &f.extends[i - 1].1 };
                (from.clone(), f.extends[i].1.clone(), f.extends.get(i + 1))
            }
            _ => (Type::Bool, Type::Bool, None),
        };
        let carries = match (part, split_widening(&from, &to)) {
            (ExtensionPart::HighBits { .. }, Some((low, high))) => Carries::HighBits {
                low,
                width: high - low,
            },
            _ => Carries::Whole {
                rule: rule.clone(),
                narrowing: next.map(|(_, next)| self.narrowing(&to, next)),
            },
        };
        ExtensionStep {
            field: name.to_string(),
            to,
            carries,
        }
    }

    /// How a value of the type `next` is narrowed into a slot of the type `slot`.
    fn narrowing(&self, slot: &Type, next: &Type) -> Narrowing {
        if let Some((low, _)) = split_widening(slot, next) {
            return Narrowing::LowBits { bits: low };
        }
        if let Some((min, max)) = slot.int_range() {
            return Narrowing::SaturateInt { min, max };
        }
        match slot {
            Type::Enum(old) => Narrowing::SaturateEnum {
                old: old.clone(),
                count: self
                    .ir
                    .schema
                    .enums
                    .get(old)
                    .map_or(1, |e| e.enumerators.len().max(1)) as u64,
            },
            Type::Numeric {
                min,
                max,
                min_inclusive,
                max_inclusive,
            } => Narrowing::SaturateReal {
                min: *min,
                max: *max,
                min_inclusive: *min_inclusive,
                max_inclusive: *max_inclusive,
            },
            Type::Float32 => Narrowing::RoundToF32,
            Type::String { max: Some(max) } => Narrowing::TruncateString { max: *max },
            Type::Bytes { max: Some(max) } => Narrowing::TruncateBytes { max: *max },
            Type::Sequence { max: Some(max), .. } => Narrowing::TruncateSequence { max: *max },
            other => Narrowing::Unsupported {
                from: other.clone(),
            },
        }
    }
}

/// An unsigned fixed-width widening (`UINT16` to `UINT32`), whose extension carries the high
/// bits: the old and the new widths.
fn split_widening(from: &Type, to: &Type) -> Option<(u32, u32)> {
    match (from, to) {
        (Type::Uint(a), Type::Uint(b)) if a < b => Some((u32::from(*a), u32::from(*b))),
        _ => None,
    }
}
