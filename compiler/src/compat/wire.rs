//! Rule 7: in every encoding of OLD, every member of OLD keeps its exact wire items in NEW: the
//! same rule with the same widths, the same DELTA and DIFF tiers, the same place among the
//! others.
//!
//! A violation points at what NEW's Encoding files say (DESIGN.md "CLI"), the IDL member as a
//! second place: a changed rule at the rule the member writes, else at the DEFAULTS entry that
//! gives it; a changed DELTA at the member; what has no line of its own (a built-in rule, an
//! EXTEND's extension) at the encoding's first `ENCODING(NAME)`; a changed order at the first
//! member out of place. Only an encoding without files (`Default`) points into the IDL.

use std::collections::HashSet;

use super::{Anchor, Checker, Rule, Violation};
use crate::ir::{
    Encoding, ExtendEncoding, FieldEncoding, Loc, SegmentEncoding, StructDef, Style, Type,
    WireItem, WireRule,
};

/// One item of a segment's wire layout, flattened (blocks become open and close markers).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit<'a> {
    Field(&'a FieldEncoding),
    Position(&'a FieldEncoding),
    Velocity(&'a FieldEncoding),
    Extend(&'a ExtendEncoding),
    DeltaOpen,
    DeltaClose,
    DeadReckoning(f64),
    DeadReckoningEnd,
    Align,
    Check,
}

impl Unit<'_> {
    /// Whether both send the same bits: equal but for where the Encoding files say so.
    fn same_wire(&self, other: &Unit<'_>) -> bool {
        let same = |a: &FieldEncoding, b: &FieldEncoding| {
            a.field == b.field && a.delta == b.delta && a.rule == b.rule && a.diff == b.diff
        };
        match (self, other) {
            (Unit::Field(a), Unit::Field(b))
            | (Unit::Position(a), Unit::Position(b))
            | (Unit::Velocity(a), Unit::Velocity(b)) => same(a, b),
            _ => self == other,
        }
    }

    /// Where NEW's Encoding files say how the unit is sent, as far as it differs from `old`:
    /// the rule's place when the rule changed, else the member's (DELTA is written there).
    fn enc_loc(&self, old: &Unit<'_>) -> Option<Loc> {
        match (self, old) {
            (
                Unit::Field(new) | Unit::Position(new) | Unit::Velocity(new),
                Unit::Field(old) | Unit::Position(old) | Unit::Velocity(old),
            ) if new.rule != old.rule => new.rule_loc.or(new.loc),
            (Unit::Field(new) | Unit::Position(new) | Unit::Velocity(new), _) => {
                new.loc.or(new.rule_loc)
            }
            _ => None,
        }
    }

    /// Where the Encoding files name the member the unit sends, if they do.
    fn member_loc(&self) -> Option<Loc> {
        match self {
            Unit::Field(f) | Unit::Position(f) | Unit::Velocity(f) => f.loc,
            _ => None,
        }
    }

    /// The member the unit sends, if it sends one: (is an EXTEND, name).
    fn member(&self) -> Option<(bool, &str)> {
        match self {
            Unit::Field(f) | Unit::Position(f) | Unit::Velocity(f) => Some((false, &f.field)),
            Unit::Extend(e) => Some((true, &e.field)),
            _ => None,
        }
    }
}

fn flatten(items: &[WireItem]) -> Vec<Unit<'_>> {
    let mut out = Vec::new();
    flatten_into(items, &mut out, 0);
    out
}

fn flatten_into<'a>(items: &'a [WireItem], out: &mut Vec<Unit<'a>>, depth: u32) {
    for item in items {
        match item {
            WireItem::Field(f) => out.push(Unit::Field(f)),
            WireItem::Extend(e) => out.push(Unit::Extend(e)),
            WireItem::DeltaBlock(inner) => {
                out.push(Unit::DeltaOpen);
                // The front ends refuse blocks nested this deep long before.
                if depth < 256 {
                    flatten_into(inner, out, depth + 1);
                }
                out.push(Unit::DeltaClose);
            }
            WireItem::DeadReckoning(dr) => {
                out.push(Unit::DeadReckoning(dr.limit));
                out.extend(dr.positions.iter().map(Unit::Position));
                out.extend(dr.velocities.iter().map(Unit::Velocity));
                out.push(Unit::DeadReckoningEnd);
            }
            WireItem::Align => out.push(Unit::Align),
            WireItem::Check => out.push(Unit::Check),
        }
    }
}

/// How a unit sends its member, for messages: `FIXED_POINT(0.01) in 21 bits, DELTA`.
fn describe_unit(unit: &Unit<'_>) -> String {
    match unit {
        Unit::Field(f) => with_delta(with_diff(f), f.delta),
        Unit::Position(f) => format!("{} (DEAD_RECKONING position)", with_diff(f)),
        Unit::Velocity(f) => format!("{} (DEAD_RECKONING velocity)", with_diff(f)),
        Unit::Extend(e) => format!("an extension of {}", describe_rule(&e.rule)),
        _ => String::new(),
    }
}

/// A field's rule, after its `DIFF(..)` if it has one.
pub(super) fn with_diff(f: &FieldEncoding) -> String {
    match &f.diff {
        Some(tiers) => {
            let tiers: Vec<String> = tiers.iter().map(u32::to_string).collect();
            format!("DIFF({}) {}", tiers.join(", "), describe_rule(&f.rule))
        }
        None => describe_rule(&f.rule),
    }
}

fn with_delta(rule: String, delta: bool) -> String {
    if delta { format!("DELTA {rule}") } else { rule }
}

/// A wire rule as the Encoding language writes it, with its widths.
pub(super) fn describe_rule(rule: &WireRule) -> String {
    describe_rule_at(rule, 0)
}

fn describe_rule_at(rule: &WireRule, depth: u32) -> String {
    if depth > 64 {
        return "...".into();
    }
    let inner = |r: &WireRule| describe_rule_at(r, depth + 1);
    match rule {
        WireRule::Bool { bits: 1 } => "BOOL".into(),
        WireRule::Bool { bits } => format!("BIT({bits}) BOOL"),
        WireRule::Ranged { min, max, bits } => format!("BIT({bits}) of [{min},{max}]"),
        WireRule::Fixed { bits, signed } => {
            format!("{}{bits}", if *signed { "INT" } else { "UINT" })
        }
        WireRule::Vlq {
            group_bits,
            min,
            max,
            ..
        } => format!("VLQ({group_bits}) of [{min},{max}]"),
        WireRule::EnumIndex { count, bits } => format!("BIT({bits}) of {count} enumerators"),
        WireRule::Huffman { codes } => {
            let lengths: Vec<String> = codes.iter().map(|(_, len)| len.to_string()).collect();
            format!("HUFFMAN (code lengths {})", lengths.join(","))
        }
        WireRule::FixedPoint {
            resolution, bits, ..
        } => format!(
            "FIXED_POINT({}) in {bits} bits",
            crate::ir::real_text(*resolution)
        ),
        WireRule::Float32 => "FLOAT32".into(),
        WireRule::Float64 => "FLOAT64".into(),
        WireRule::Quaternion => "4 x FLOAT32".into(),
        WireRule::SmallestThree { bits } => format!("SMALLEST_THREE({bits})"),
        WireRule::Bytes { length, utf8, max } => format!(
            "{}{} length {}",
            if *utf8 { "STRING" } else { "BYTES" },
            max.map(|m| format!("<{m}>")).unwrap_or_default(),
            inner(length)
        ),
        WireRule::Sequence {
            count,
            max,
            element,
            element_delta,
        } => format!(
            "SEQUENCE{} count {} of {}{}",
            max.map(|m| format!("<{m}>")).unwrap_or_default(),
            inner(count),
            inner(element),
            if *element_delta {
                " (element-wise DELTA)"
            } else {
                ""
            }
        ),
        WireRule::Array { len, element } => format!("ARRAY {len} of {}", inner(element)),
        WireRule::Optional(value) => format!("OPTIONAL {}", inner(value)),
        WireRule::Struct(name) => name.clone(),
    }
}

impl Checker<'_> {
    /// Rule 7 for every encoding of OLD.
    pub(super) fn wire(&mut self) {
        let (old, new) = (self.old, self.new);
        for (name, old_encoding) in &old.encodings {
            let Some(new_encoding) = new.encodings.get(name) else {
                let mut violation = Violation::new(
                    Rule::RemovedEncoding,
                    format!("encoding `{name}` of OLD is missing from NEW"),
                    Anchor::Named(name.clone()),
                )
                .note("peers that speak it could no longer talk to NEW")
                .help(format!(
                    "give NEW's encoding files an `ENCODING({name})` too (pass both with --encoding OLD.enc NEW.enc)"
                ));
                if let Some(loc) = old_encoding.loc {
                    violation = violation.primary(loc, "OLD's encoding");
                }
                self.report(violation);
                continue;
            };
            if old_encoding.style != new_encoding.style {
                let style = |s: Style| match s {
                    Style::Bitstream => "BITSTREAM",
                    Style::Bytestream => "BYTESTREAM",
                };
                let message = format!(
                    "encoding `{name}` is a {} in OLD and a {} in NEW",
                    style(old_encoding.style),
                    style(new_encoding.style)
                );
                let anchor = new_encoding
                    .loc
                    .map_or_else(|| Anchor::Named(name.clone()), Anchor::At);
                let mut violation = Violation::new(Rule::WireRuleChanged, message, anchor).help(
                    format!("keep `ENCODING({name}) {};`", style(old_encoding.style)),
                );
                if let Some(loc) = new_encoding.loc {
                    violation = violation.primary(loc, "NEW's encoding");
                }
                if let Some(loc) = old_encoding.loc {
                    violation = violation.secondary(loc, "OLD's encoding");
                }
                self.report(violation);
                continue;
            }
            for (struct_name, old_def) in &old.schema.structs {
                let Some(new_def) = new.schema.structs.get(struct_name) else {
                    continue;
                };
                let (Some(old_layout), Some(new_layout)) = (
                    old_encoding.structs.get(struct_name),
                    new_encoding.structs.get(struct_name),
                ) else {
                    continue;
                };
                let segments = old_def.segments.len().min(old_layout.segments.len());
                for k in 0..segments {
                    let empty = SegmentEncoding::default();
                    let new_segment = new_layout.segments.get(k).unwrap_or(&empty);
                    self.compare_segment(
                        (old_encoding, old_def, &old_layout.segments[k]),
                        (new_encoding, new_def, new_segment),
                        k,
                    );
                }
            }
        }
    }

    fn compare_segment(
        &mut self,
        (old_encoding, old_def, old_segment): (&Encoding, &StructDef, &SegmentEncoding),
        (new_encoding, new_def, new_segment): (&Encoding, &StructDef, &SegmentEncoding),
        segment: usize,
    ) {
        let old_units = flatten(&old_segment.items);
        let new_units = flatten(&new_segment.items);
        let mut changed = false;
        for unit in &old_units {
            let Some((is_extend, member)) = unit.member() else {
                continue;
            };
            let Some(new_unit) = new_units
                .iter()
                .find(|u| u.member() == Some((is_extend, member)))
            else {
                continue;
            };
            if unit.same_wire(new_unit) {
                continue;
            }
            // A member whose type changed is reported as such; its rule follows.
            let old_ty = old_def.field(member).map(|(_, f)| &f.ty);
            let new_ty = new_def.field(member).map(|(_, f)| &f.ty);
            if !is_extend && old_ty != new_ty {
                continue;
            }
            // So is one whose enum changed in place, and an EXTEND to another type.
            if old_ty.is_some_and(|ty| mentions(ty, &self.changed_enums, 0)) {
                continue;
            }
            if is_extend
                && extend_to(old_def, segment, member) != extend_to(new_def, segment, member)
            {
                continue;
            }
            changed = true;
            let (at, old_at) = (field_loc(new_def, member), field_loc(old_def, member));
            let what = if is_extend {
                format!("the extension of `{}.{member}`", new_def.name)
            } else {
                format!("`{}.{member}`", new_def.name)
            };
            let (before, after) = (describe_unit(unit), describe_unit(new_unit));
            let detail = if before == after {
                format!("sent as {before} in both, with other parameters")
            } else {
                format!("sent as {before} in OLD and as {after} in NEW")
            };
            self.report(
                wire_violation(
                    format!("{what} changed in encoding `{}`: {detail}", new_encoding.name),
                    Place {
                        enc: new_unit.enc_loc(unit).or(new_encoding.loc),
                        decl: at,
                        says: format!("{after} in NEW's `{}`", new_encoding.name),
                    },
                    Place {
                        enc: unit.enc_loc(new_unit).or(old_encoding.loc),
                        decl: old_at,
                        says: format!("{before} in OLD's `{}`", old_encoding.name),
                    },
                    member,
                )
                .note("an old reader reads the bits an old writer would have sent")
                .help(format!(
                    "keep OLD's rule for `{member}` in `{}`; a new rule can only come with a new field after a FENCE",
                    new_encoding.name
                )),
            );
        }
        if changed || self.changed_structs.contains(&old_def.name) {
            return;
        }
        // The order of OLD's members and the blocks around them: NEW's items of members OLD
        // does not have are left out (they are reported as new members, if misplaced).
        let known: Vec<(bool, &str)> = old_units.iter().filter_map(Unit::member).collect();
        let shape = |units: &'_ [Unit<'_>]| -> Vec<(String, Option<Loc>)> {
            units
                .iter()
                .filter(|u| u.member().is_none_or(|m| known.contains(&m)))
                .map(|u| {
                    let name = match u.member() {
                        Some((true, name)) => format!("EXTEND {name}"),
                        Some((false, name)) => name.to_string(),
                        None => format!("{u:?}"),
                    };
                    (name, u.member_loc())
                })
                .collect()
        };
        let (old_shape, new_shape) = (shape(&old_units), shape(&new_units));
        let names = |shape: &[(String, Option<Loc>)]| -> Vec<String> {
            shape.iter().map(|(name, _)| name.clone()).collect()
        };
        if names(&old_shape) == names(&new_shape) {
            return;
        }
        // A member of OLD missing from NEW is reported by the schema's rules.
        if known
            .iter()
            .any(|m| !new_units.iter().any(|u| u.member() == Some(*m)))
        {
            return;
        }
        // The first member (or block) out of place, where the Encoding files name it.
        let first = old_shape
            .iter()
            .zip(&new_shape)
            .position(|(a, b)| a.0 != b.0)
            .unwrap_or(old_shape.len().min(new_shape.len()));
        let place = |shape: &[(String, Option<Loc>)], encoding: &Encoding| {
            shape.get(first).and_then(|(_, loc)| *loc).or(encoding.loc)
        };
        self.report(
            wire_violation(
                format!(
                    "the wire layout of version {} of `{}` changed in encoding `{}`: order, DELTA or DEAD_RECKONING blocks, ALIGN or CHECK",
                    segment + 1,
                    new_def.name,
                    new_encoding.name
                ),
                Place {
                    enc: place(&new_shape, new_encoding),
                    decl: new_def.loc,
                    says: format!("laid out differently in NEW's `{}`", new_encoding.name),
                },
                Place {
                    enc: place(&old_shape, old_encoding),
                    decl: old_def.loc,
                    says: format!("as in OLD's `{}`", old_encoding.name),
                },
                &new_def.name,
            )
            .help(format!(
                "keep the block of `{}` in `{}` as OLD has it up to OLD's end",
                new_def.name, new_encoding.name
            )),
        );
    }
}

/// Where one version says how something is sent.
struct Place {
    /// In the version's Encoding files, if they have a place for it.
    enc: Option<Loc>,
    /// The IDL's declaration.
    decl: Loc,
    /// What the version sends there.
    says: String,
}

/// A violation of rule 7 at NEW's Encoding files, with the IDL's declaration of `name` as a
/// second place (only at the declaration for an encoding without files), and OLD's place.
fn wire_violation(message: String, new: Place, old: Place, name: &str) -> Violation {
    let violation = Violation::new(
        Rule::WireRuleChanged,
        message,
        Anchor::At(new.enc.unwrap_or(new.decl)),
    );
    let violation = match new.enc {
        Some(at) => violation
            .primary(at, new.says)
            .secondary(new.decl, format!("`{name}` is declared here")),
        None => violation.primary(new.decl, new.says),
    };
    violation.secondary(old.enc.unwrap_or(old.decl), old.says)
}

/// The type the EXTEND of `field` in `segment` widens to.
fn extend_to<'d>(def: &'d StructDef, segment: usize, field: &str) -> Option<&'d Type> {
    def.segments
        .get(segment)?
        .extends
        .iter()
        .find(|e| e.field == field)
        .map(|e| &e.to)
}

/// Whether `ty` is, or holds, one of the enums named in `names`.
fn mentions(ty: &Type, names: &HashSet<String>, depth: u32) -> bool {
    match ty {
        Type::Enum(name) => names.contains(name),
        Type::Sequence { element, .. } | Type::Array { element, .. } | Type::Optional(element) => {
            depth < 64 && mentions(element, names, depth + 1)
        }
        _ => false,
    }
}

fn field_loc(def: &StructDef, name: &str) -> Loc {
    def.field(name).map_or(def.loc, |(_, field)| field.loc)
}
