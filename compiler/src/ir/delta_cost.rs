//! The bits a PUBLISHABLE_STRUCT's delta form costs against a baseline (WIRE_FORMAT.md section
//! 5): when nothing changed, when one *unit* changes, and when everything does.
//!
//! A unit is what one changed-bit covers: a `DELTA` field, a `DELTA { ... }` block, a
//! `DEAD_RECKONING` block or a `DELTA SEQUENCE`. Fields outside every unit are sent in full in
//! every delta, as the generated encoder does. A unit inside a block is only written when its
//! block is, so "one unit changes" sends the blocks around it too, with their other units'
//! changed-bits at 0.

use std::collections::HashMap;

use serde::Serialize;

use super::cost::{self, Cost};
use super::{Encoding, FieldEncoding, Ir, StructKind, Style, WireItem, WireRule};

/// What the delta form of a PUBLISHABLE_STRUCT costs in one encoding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeltaCost {
    /// Nothing changed since the baseline: every changed-bit 0 (dead reckoning within its
    /// limit), every field outside a unit in full.
    pub unchanged: Cost,
    /// One row per unit, in wire order: the whole delta when only that unit changed.
    pub units: Vec<DeltaUnit>,
    /// Every unit sent (a DELTA SEQUENCE with every element listed): the most a delta costs.
    pub worst: Cost,
}

/// One changed-bit's unit and what a delta costs when only it changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeltaUnit {
    /// The fields it covers, in wire order.
    pub fields: Vec<String>,
    /// What kind of unit.
    pub kind: UnitKind,
    /// The segment (0 before the first FENCE).
    pub segment: usize,
    /// The whole delta when only this unit changed (for a DELTA SEQUENCE: one element changed
    /// or added).
    pub cost: Cost,
}

/// What a changed-bit covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum UnitKind {
    /// `DELTA rule f`.
    Field,
    /// `DELTA { ... }`.
    Block,
    /// `DEAD_RECKONING(dev) { ... }`: sent when a position drifts beyond the limit.
    DeadReckoning,
    /// `DELTA SEQUENCE<T> f`.
    Sequence,
}

/// The delta cost of the PUBLISHABLE_STRUCT `name` in `encoding`; `None` for another kind of
/// struct or one the encoding does not lay out.
pub fn delta_cost(ir: &Ir, encoding: &Encoding, name: &str) -> Option<DeltaCost> {
    Walk { ir, encoding }.delta_cost(name, 0)
}

/// Recursion through DELTA SEQUENCEs of publishable elements deeper than this counts as
/// unbounded.
const MAX_DEPTH: usize = 16;

#[derive(Clone, Copy)]
struct Walk<'a> {
    ir: &'a Ir,
    encoding: &'a Encoding,
}

/// Which units a delta sends, by their number in wire order (depth first).
enum Sent<'s> {
    None,
    Only(&'s [usize]),
    All,
}

impl Sent<'_> {
    fn contains(&self, unit: usize) -> bool {
        match self {
            Sent::None => false,
            Sent::Only(units) => units.contains(&unit),
            Sent::All => true,
        }
    }
}

/// A unit found while walking, with the units around it.
struct Found {
    unit: DeltaUnit,
    /// This unit's number and those of the blocks around it.
    path: Vec<usize>,
}

impl<'a> Walk<'a> {
    fn delta_cost(self, name: &str, depth: usize) -> Option<DeltaCost> {
        let def = self.ir.schema.structs.get(name)?;
        if def.kind != StructKind::Publishable {
            return None;
        }
        let layout = self.encoding.structs.get(name)?;
        if depth > MAX_DEPTH {
            return Some(DeltaCost {
                unchanged: Cost::unbounded(0),
                units: Vec::new(),
                worst: Cost::unbounded(0),
            });
        }
        let segments: Vec<&[WireItem]> = layout.segments.iter().map(|s| &s.items[..]).collect();
        let mut found = Vec::new();
        let mut next = 0;
        for (segment, items) in segments.iter().enumerate() {
            self.units(items, segment, &mut Vec::new(), &mut next, &mut found);
        }
        // The innermost unit of every field (inner units come after their block).
        let owner: HashMap<&str, usize> = found
            .iter()
            .flat_map(|f| {
                let number = f.path.last().copied().unwrap_or_default();
                f.unit
                    .fields
                    .iter()
                    .map(move |field| (field.as_str(), number))
            })
            .collect();
        let total = |sent: &Sent<'_>| {
            let mut next = 0;
            let mut total = Cost::ZERO;
            for (index, items) in segments.iter().enumerate() {
                if index > 0 {
                    total += self.bit();
                }
                total += self.items(items, sent, &owner, &mut next, depth);
            }
            if def.open_end {
                total += self.bit();
            }
            total
        };
        let units = found
            .iter()
            .map(|Found { unit, path }| DeltaUnit {
                cost: total(&Sent::Only(path)),
                ..unit.clone()
            })
            .collect();
        Some(DeltaCost {
            unchanged: total(&Sent::None),
            units,
            worst: total(&Sent::All),
        })
    }

    /// A changed-bit: a byte in a BYTESTREAM.
    fn bit(self) -> Cost {
        Cost::fixed(cost::presence_bits(self.encoding.style))
    }

    /// Numbers the units of `items` depth first, as [`Walk::items`] does.
    fn units(
        self,
        items: &[WireItem],
        segment: usize,
        outer: &mut Vec<usize>,
        next: &mut usize,
        found: &mut Vec<Found>,
    ) {
        for item in items {
            let (kind, fields) = match item {
                WireItem::Field(f) if f.delta => (
                    if f.is_delta_sequence() {
                        UnitKind::Sequence
                    } else {
                        UnitKind::Field
                    },
                    vec![f.field.clone()],
                ),
                WireItem::DeltaBlock(inner) => {
                    let number = *next;
                    *next += 1;
                    let mut fields = Vec::new();
                    collect_fields(inner, &mut fields);
                    // A block of units only is sent when one of them is: no row of its own.
                    let plain = inner
                        .iter()
                        .any(|item| matches!(item, WireItem::Field(f) if !f.delta));
                    if plain {
                        let path: Vec<usize> = outer.iter().copied().chain([number]).collect();
                        found.push(Found {
                            unit: unit(UnitKind::Block, fields, segment),
                            path,
                        });
                    }
                    outer.push(number);
                    self.units(inner, segment, outer, next, found);
                    outer.pop();
                    continue;
                }
                WireItem::DeadReckoning(dr) => (
                    UnitKind::DeadReckoning,
                    dr.positions
                        .iter()
                        .chain(&dr.velocities)
                        .map(|f| f.field.clone())
                        .collect(),
                ),
                _ => continue,
            };
            let path = outer.iter().copied().chain([*next]).collect();
            *next += 1;
            found.push(Found {
                unit: unit(kind, fields, segment),
                path,
            });
        }
    }

    /// The bits of `items` when the units in `sent` are sent; `owner` gives the unit of every
    /// field in one.
    fn items(
        self,
        items: &[WireItem],
        sent: &Sent<'_>,
        owner: &HashMap<&str, usize>,
        next: &mut usize,
        depth: usize,
    ) -> Cost {
        let mut total = Cost::ZERO;
        for item in items {
            total += match item {
                WireItem::Field(f) if f.delta => {
                    let number = *next;
                    *next += 1;
                    if !sent.contains(number) {
                        self.bit()
                    } else if f.is_delta_sequence() {
                        self.bit() + self.sequence(&f.rule, matches!(sent, Sent::All), depth)
                    } else {
                        self.bit() + self.field(f)
                    }
                }
                WireItem::DeltaBlock(inner) => {
                    let number = *next;
                    *next += 1;
                    if sent.contains(number) {
                        self.bit() + self.items(inner, sent, owner, next, depth)
                    } else {
                        // Skip the numbers of the units inside.
                        let _ = self.items(inner, &Sent::None, owner, next, depth);
                        self.bit()
                    }
                }
                WireItem::DeadReckoning(dr) => {
                    let number = *next;
                    *next += 1;
                    if sent.contains(number) {
                        let fields = dr.positions.iter().chain(&dr.velocities);
                        self.bit() + fields.map(|f| self.field(f)).sum::<Cost>()
                    } else {
                        self.bit()
                    }
                }
                WireItem::Field(f) => self.field(f),
                // An extension goes with its field's old slot.
                WireItem::Extend(e)
                    if owner
                        .get(e.field.as_str())
                        .is_some_and(|n| !sent.contains(*n)) =>
                {
                    Cost::ZERO
                }
                _ => cost::item_cost(self.ir, self.encoding, item),
            };
        }
        total
    }

    /// A field sent in a delta: with DIFF, from its cheapest tier to the escape and the
    /// value in full ([`diff_cost`]); else its rule's bits.
    fn field(self, f: &FieldEncoding) -> Cost {
        let full = cost::cost(self.ir, self.encoding, &f.rule);
        match (&f.diff, &f.rule) {
            (Some(tiers), WireRule::SmallestThree { bits }) => {
                smallest_three_diff_cost(self.encoding.style, tiers, *bits, full)
            }
            (Some(tiers), _) => diff_cost(self.encoding.style, tiers, full),
            (None, _) => full,
        }
    }

    /// A sent DELTA SEQUENCE after its changed-bit: the count, the number of listed elements,
    /// their index gaps and the elements. `every`: every element listed (the worst case);
    /// otherwise one element changed or added.
    fn sequence(self, rule: &WireRule, every: bool, depth: usize) -> Cost {
        let WireRule::Sequence {
            count,
            max,
            element,
            ..
        } = rule
        else {
            return cost::cost(self.ir, self.encoding, rule);
        };
        let count = cost::cost(self.ir, self.encoding, count);
        let element = self.element(element, depth);
        if every {
            // From an emptied sequence (no listed element) to `max` listed, each with the
            // largest gap: a bound, not always reached.
            let listed = max.map_or(Cost::unbounded(0), |max| {
                Cost::range(0, self.width(bits(max)))
                    + (self.gap(max.saturating_sub(1)) + element).times(max)
            });
            return count + Cost { min: 0, ..listed };
        }
        let listed_width = Cost {
            min: self.width(1),
            max: max.map(|max| self.width(bits(max))),
        };
        let gap = Cost {
            min: self.gap(0).min,
            max: max.and_then(|max| self.gap(max.saturating_sub(1)).max),
        };
        count + listed_width + gap + element
    }

    /// A listed element: delta-encoded against the baseline's element when it is a
    /// PUBLISHABLE_STRUCT (one of its units changed, or in full when new), else in full.
    fn element(self, rule: &WireRule, depth: usize) -> Cost {
        let full = cost::cost(self.ir, self.encoding, rule);
        let WireRule::Struct(name) = rule else {
            return full;
        };
        match self.delta_cost(name, depth + 1) {
            Some(delta) => {
                let least = delta
                    .units
                    .iter()
                    .map(|u| u.cost.min)
                    .min()
                    .unwrap_or(delta.unchanged.min);
                Cost {
                    min: least.min(full.min),
                    max: match (delta.worst.max, full.max) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    },
                }
            }
            None => full,
        }
    }

    /// The index gap `gap` (WIRE_FORMAT.md section 5).
    fn gap(self, gap: u64) -> Cost {
        Cost::fixed(match self.encoding.style {
            Style::Bytestream => 8 * groups(gap, 7),
            Style::Bitstream if gap == 0 => 1,
            Style::Bitstream => 1 + 4 * groups(gap - 1, 3),
        })
    }

    /// A value of `bits` bits as written: `byte_width` bytes in a BYTESTREAM.
    fn width(self, bits: u32) -> u64 {
        match self.encoding.style {
            Style::Bitstream => u64::from(bits),
            Style::Bytestream => 8 * idlc_runtime::byte_width(bits) as u64,
        }
    }
}

/// What a field with `DIFF(tiers)` costs after its changed-bit, whose value in full costs
/// `full`: tier i's selector (i + 1 bits, a byte in a BYTESTREAM) and its bits (the smallest
/// of 1, 2, 4, 8 bytes in a BYTESTREAM), or the escape's selector and the value in full.
pub fn diff_cost(style: Style, tiers: &[u32], full: Cost) -> Cost {
    let escape = Cost::fixed(diff_escape_bits(style, tiers.len())) + full;
    tiers
        .iter()
        .enumerate()
        .map(|(i, &bits)| Cost::fixed(diff_tier_bits(style, i, bits)))
        .fold(escape, |all, tier| Cost {
            min: all.min.min(tier.min),
            max: all.max.map(|m| m.max(tier.min)),
        })
}

/// The bits of a difference sent in tier `index` (from 0) of `bits` bits: its selector
/// (`index` ones and a zero; a byte in a BYTESTREAM) and the difference (the smallest of 1, 2,
/// 4, 8 bytes that holds `bits` in a BYTESTREAM).
///
/// ```
/// use idlc::ir::{Style, delta_cost::diff_tier_bits};
/// assert_eq!(diff_tier_bits(Style::Bitstream, 1, 5), 2 + 5);
/// assert_eq!(diff_tier_bits(Style::Bytestream, 1, 5), 8 + 8);
/// ```
pub fn diff_tier_bits(style: Style, index: usize, bits: u32) -> u64 {
    match style {
        Style::Bitstream => index as u64 + 1 + u64::from(bits),
        Style::Bytestream => 8 + 8 * idlc_runtime::byte_width(bits) as u64,
    }
}

/// The bits of the escape's selector of `count` tiers (`count` ones; a byte in a BYTESTREAM),
/// which the value in full follows.
///
/// ```
/// use idlc::ir::{Style, delta_cost::diff_escape_bits};
/// assert_eq!(diff_escape_bits(Style::Bitstream, 3), 3);
/// assert_eq!(diff_escape_bits(Style::Bytestream, 3), 8);
/// ```
pub fn diff_escape_bits(style: Style, count: usize) -> u64 {
    match style {
        Style::Bitstream => count as u64,
        Style::Bytestream => 8,
    }
}

/// What `DIFF(tiers) SMALLEST_THREE(bits)` costs after its changed-bit, whose code in full
/// costs `full`: the same-index bit (a byte in a BYTESTREAM), then the three components each
/// by [`diff_cost`] of its n bits, or the whole code.
pub fn smallest_three_diff_cost(style: Style, tiers: &[u32], bits: u32, full: Cost) -> Cost {
    let flag = Cost::fixed(if style == Style::Bytestream { 8 } else { 1 });
    let width = if style == Style::Bytestream {
        8 * idlc_runtime::byte_width(bits) as u64
    } else {
        u64::from(bits)
    };
    let component = diff_cost(style, tiers, Cost::fixed(width));
    let same = component + component + component;
    let (whole, same) = (flag + full, flag + same);
    Cost {
        min: whole.min.min(same.min),
        max: whole.max.zip(same.max).map(|(a, b)| a.max(b)),
    }
}

fn unit(kind: UnitKind, fields: Vec<String>, segment: usize) -> DeltaUnit {
    DeltaUnit {
        fields,
        kind,
        segment,
        cost: Cost::ZERO,
    }
}

fn collect_fields(items: &[WireItem], out: &mut Vec<String>) {
    for item in items {
        match item {
            WireItem::Field(f) => out.push(f.field.clone()),
            WireItem::DeltaBlock(inner) => collect_fields(inner, out),
            WireItem::DeadReckoning(dr) => out.extend(
                dr.positions
                    .iter()
                    .chain(&dr.velocities)
                    .map(|f| f.field.clone()),
            ),
            _ => {}
        }
    }
}

/// `bits_required(0, n)`.
fn bits(n: u64) -> u32 {
    idlc_runtime::bits_required(0, n)
}

/// The VLQ groups of `group_bits` bits that `value` takes (at least one).
fn groups(value: u64, group_bits: u32) -> u64 {
    u64::from(bits(value).max(1).div_ceil(group_bits))
}
