//! The bits a wire rule costs: the least (to bound a reader's allocations, and for `idlc
//! report`) and the most, when there is a most.
//!
//! Two views:
//! - [`min_bits`] is what a *reader* can count on: the fewest bits any writer, of this version
//!   or an older one, can send for a value (a nested struct counts only its first segment, as
//!   an old writer stops there). Generated decoders use it to check a count against the bits
//!   left before they allocate.
//! - [`cost`], [`max_bits`] and [`struct_cost`] describe the *full* (non-delta) form that
//!   `to_bytes` sends: every segment with its present bit, the open end's bit, DELTA and
//!   DEAD_RECKONING fields with their rules and no changed-bits. `idlc report` prints them.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use super::{Encoding, Ir, SegmentEncoding, Style, WireItem, WireRule};

/// The fewest bits a value sent with `rule` can take in `encoding` (BITSTREAM widths; a
/// BYTESTREAM never takes fewer).
pub fn min_bits(ir: &Ir, encoding: &Encoding, rule: &WireRule) -> u64 {
    min_bits_guarded(ir, encoding, rule, 0)
}

fn min_bits_guarded(ir: &Ir, encoding: &Encoding, rule: &WireRule, depth: u32) -> u64 {
    // Direct containment is acyclic (resolution rejects it), so depth stays small; the guard
    // only keeps a broken IR from recursing forever.
    if depth > 64 {
        return 0;
    }
    match rule {
        WireRule::Bool { bits }
        | WireRule::Ranged { bits, .. }
        | WireRule::Fixed { bits, .. }
        | WireRule::EnumIndex { bits, .. }
        | WireRule::FixedPoint { bits, .. } => u64::from(*bits),
        WireRule::Vlq { group_bits, .. } => u64::from(*group_bits) + 1,
        WireRule::Huffman { codes } => codes
            .iter()
            .map(|(_, len)| u64::from(*len))
            .min()
            .unwrap_or(0),
        WireRule::Float32 => 32,
        WireRule::Float64 => 64,
        WireRule::Quaternion => 128,
        WireRule::SmallestThree { bits } => {
            super::smallest_three_bits(*bits, super::Style::Bitstream)
        }
        WireRule::Bytes { length, .. } | WireRule::Sequence { count: length, .. } => {
            min_bits_guarded(ir, encoding, length, depth + 1)
        }
        WireRule::Array { len, element } => {
            len.saturating_mul(min_bits_guarded(ir, encoding, element, depth + 1))
        }
        WireRule::Optional(_) => 1,
        WireRule::Struct(name) => encoding
            .structs
            .get(name)
            .and_then(|s| s.segments.first())
            .map_or(0, |segment| {
                segment_min_bits(ir, encoding, segment, depth + 1)
            }),
    }
}

fn segment_min_bits(ir: &Ir, encoding: &Encoding, segment: &SegmentEncoding, depth: u32) -> u64 {
    segment
        .items
        .iter()
        .map(|item| item_min_bits(ir, encoding, item, depth))
        .fold(0u64, u64::saturating_add)
}

fn item_min_bits(ir: &Ir, encoding: &Encoding, item: &WireItem, depth: u32) -> u64 {
    match item {
        WireItem::Field(f) => min_bits_guarded(ir, encoding, &f.rule, depth),
        WireItem::Extend(e) => min_bits_guarded(ir, encoding, &e.rule, depth),
        WireItem::DeltaBlock(items) => items
            .iter()
            .map(|i| item_min_bits(ir, encoding, i, depth))
            .fold(0, u64::saturating_add),
        WireItem::DeadReckoning(dr) => dr
            .positions
            .iter()
            .chain(&dr.velocities)
            .map(|f| min_bits_guarded(ir, encoding, &f.rule, depth))
            .fold(0, u64::saturating_add),
        WireItem::Align => 0,
        WireItem::Check => 32,
    }
}

/// A number of bits: at least `min`, at most `max` (`None`: no upper bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Cost {
    /// The fewest bits.
    pub min: u64,
    /// The most bits; `None` when there is no bound (an unbounded STRING or SEQUENCE, a
    /// recursive struct).
    pub max: Option<u64>,
}

impl Cost {
    /// Nothing.
    pub const ZERO: Cost = Cost::fixed(0);

    /// Exactly `bits`.
    pub const fn fixed(bits: u64) -> Cost {
        Cost {
            min: bits,
            max: Some(bits),
        }
    }

    /// From `min` to `max` bits.
    pub const fn range(min: u64, max: u64) -> Cost {
        Cost {
            min,
            max: Some(max),
        }
    }

    /// At least `min` bits, with no upper bound.
    pub const fn unbounded(min: u64) -> Cost {
        Cost { min, max: None }
    }

    /// Whether the cost is one exact number.
    pub fn is_fixed(self) -> bool {
        self.max == Some(self.min)
    }

    /// The same cost in whole bytes, rounded up.
    pub fn bytes(self) -> Cost {
        Cost {
            min: self.min.div_ceil(8),
            max: self.max.map(|m| m.div_ceil(8)),
        }
    }

    /// `n` times this cost (saturating); nothing when `n` is 0, even if unbounded.
    pub fn times(self, n: u64) -> Cost {
        if n == 0 {
            return Cost::ZERO;
        }
        Cost {
            min: self.min.saturating_mul(n),
            max: self.max.map(|m| m.saturating_mul(n)),
        }
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;

    fn add(self, other: Cost) -> Cost {
        Cost {
            min: self.min.saturating_add(other.min),
            max: match (self.max, other.max) {
                (Some(a), Some(b)) => Some(a.saturating_add(b)),
                _ => None,
            },
        }
    }
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        *self = *self + other;
    }
}

impl std::iter::Sum for Cost {
    fn sum<I: Iterator<Item = Cost>>(iter: I) -> Cost {
        iter.fold(Cost::ZERO, |a, b| a + b)
    }
}

/// `21`, `8..24`, or `8..` when unbounded.
impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max {
            Some(max) if max == self.min => write!(f, "{max}"),
            Some(max) => write!(f, "{}..{max}", self.min),
            None => write!(f, "{}..", self.min),
        }
    }
}

/// The most bits a value sent with `rule` takes in its full form in `encoding`; `None` when
/// there is no bound.
pub fn max_bits(ir: &Ir, encoding: &Encoding, rule: &WireRule) -> Option<u64> {
    cost(ir, encoding, rule).max
}

/// The bits a value sent with `rule` takes in its full (non-delta) form in `encoding`.
pub fn cost(ir: &Ir, encoding: &Encoding, rule: &WireRule) -> Cost {
    Walk::new(ir, encoding).rule(rule)
}

/// The bits an item of a segment takes in the full form: a DELTA block or a DEAD_RECKONING
/// block is its fields, without changed-bits.
pub fn item_cost(ir: &Ir, encoding: &Encoding, item: &WireItem) -> Cost {
    Walk::new(ir, encoding).item(item)
}

/// The bits the struct `name` takes in its full (non-delta) form in `encoding`: every segment,
/// a present bit before each one after the first, and the open end's present bit. `None` when
/// the encoding has no such struct.
pub fn struct_cost(ir: &Ir, encoding: &Encoding, name: &str) -> Option<Cost> {
    encoding.structs.get(name)?;
    Some(Walk::new(ir, encoding).structure(name))
}

/// The bits of a present bit (of a segment, an open end, an OPTIONAL): a whole byte in a
/// BYTESTREAM.
pub fn presence_bits(style: Style) -> u64 {
    match style {
        Style::Bitstream => 1,
        Style::Bytestream => 8,
    }
}

/// The zero bits of an ALIGN: up to 7 in a BITSTREAM, none in a BYTESTREAM.
pub fn align_cost(style: Style) -> Cost {
    match style {
        Style::Bitstream => Cost::range(0, 7),
        Style::Bytestream => Cost::ZERO,
    }
}

/// The bits of a CHECK marker.
pub const CHECK_BITS: u64 = 32;

/// Nested structs deeper than this are counted as "at least 0, unbounded": only a broken IR
/// gets there (recursion goes through OPTIONAL or SEQUENCE, which the visited set cuts).
const MAX_DEPTH: usize = 64;

/// One cost computation: the structs being computed (to cut recursion) and the structs done.
struct Walk<'a> {
    ir: &'a Ir,
    encoding: &'a Encoding,
    /// The structs whose cost is being computed, outermost first.
    visiting: Vec<&'a str>,
    /// Costs of structs computed without meeting recursion: they hold wherever the struct sits.
    done: HashMap<&'a str, Cost>,
    /// Whether the computation under way met a struct already being computed.
    cut: bool,
}

impl<'a> Walk<'a> {
    fn new(ir: &'a Ir, encoding: &'a Encoding) -> Self {
        Walk {
            ir,
            encoding,
            visiting: Vec::new(),
            done: HashMap::new(),
            cut: false,
        }
    }

    fn presence(&self) -> Cost {
        Cost::fixed(presence_bits(self.encoding.style))
    }

    fn rule(&mut self, rule: &'a WireRule) -> Cost {
        match rule {
            WireRule::Bool { bits }
            | WireRule::Ranged { bits, .. }
            | WireRule::Fixed { bits, .. }
            | WireRule::EnumIndex { bits, .. }
            | WireRule::FixedPoint { bits, .. } => Cost::fixed(u64::from(*bits)),
            WireRule::Vlq {
                group_bits,
                max_groups,
                ..
            } => {
                let group = u64::from(*group_bits) + 1;
                Cost::range(group, group.saturating_mul(u64::from((*max_groups).max(1))))
            }
            WireRule::Huffman { codes } => {
                let lengths = codes.iter().map(|(_, len)| u64::from(*len));
                Cost::range(
                    lengths.clone().min().unwrap_or(0),
                    lengths.max().unwrap_or(0),
                )
            }
            WireRule::Float32 => Cost::fixed(32),
            WireRule::Float64 => Cost::fixed(64),
            WireRule::Quaternion => Cost::fixed(128),
            WireRule::SmallestThree { bits } => {
                Cost::fixed(super::smallest_three_bits(*bits, self.encoding.style))
            }
            WireRule::Bytes { length, max, .. } => {
                let length = self.rule(length);
                let align = align_cost(self.encoding.style);
                let payload = match max {
                    Some(max) => Cost::range(0, max.saturating_mul(8)),
                    None => Cost::unbounded(0),
                };
                length + align + payload
            }
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            } => {
                let count = self.rule(count);
                let element = self.rule(element);
                let elements = match max {
                    Some(max) => Cost {
                        min: 0,
                        max: element.times(*max).max,
                    },
                    None => Cost::unbounded(0),
                };
                count + elements
            }
            WireRule::Array { len, element } => self.rule(element).times(*len),
            WireRule::Optional(inner) => {
                let inner = self.rule(inner);
                self.presence()
                    + Cost {
                        min: 0,
                        max: inner.max,
                    }
            }
            WireRule::Struct(name) => self.structure(name),
        }
    }

    fn item(&mut self, item: &'a WireItem) -> Cost {
        match item {
            WireItem::Field(f) => self.rule(&f.rule),
            WireItem::Extend(e) => self.rule(&e.rule),
            WireItem::DeltaBlock(items) => items.iter().map(|i| self.item(i)).sum(),
            WireItem::DeadReckoning(dr) => dr
                .positions
                .iter()
                .chain(&dr.velocities)
                .map(|f| self.rule(&f.rule))
                .sum(),
            WireItem::Align => align_cost(self.encoding.style),
            WireItem::Check => Cost::fixed(CHECK_BITS),
        }
    }

    fn structure(&mut self, name: &'a str) -> Cost {
        if let Some(&done) = self.done.get(name) {
            return done;
        }
        if self.visiting.contains(&name) || self.visiting.len() >= MAX_DEPTH {
            self.cut = true;
            return Cost::unbounded(0);
        }
        let Some(encoding) = self.encoding.structs.get(name) else {
            return Cost::ZERO;
        };
        let open_end = self
            .ir
            .schema
            .structs
            .get(name)
            .is_some_and(|def| def.open_end);
        let outer_cut = std::mem::replace(&mut self.cut, false);
        self.visiting.push(name);
        let mut total = Cost::ZERO;
        for (index, segment) in encoding.segments.iter().enumerate() {
            if index > 0 {
                total += self.presence();
            }
            for item in &segment.items {
                total += self.item(item);
            }
        }
        if open_end {
            total += self.presence();
        }
        self.visiting.pop();
        if !self.cut {
            self.done.insert(name, total);
        }
        self.cut |= outer_cut;
        total
    }
}
