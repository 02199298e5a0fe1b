//! The bits a wire rule costs: the least (to bound a reader's allocations, and for `idlc
//! report`) and the most, when there is a most.

use crate::ir::{Encoding, Ir, SegmentEncoding, WireItem, WireRule};

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
        WireRule::Huffman { codes } => codes.iter().map(|(_, len)| u64::from(*len)).min().unwrap_or(0),
        WireRule::Float32 => 32,
        WireRule::Float64 => 64,
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
            .map_or(0, |segment| segment_min_bits(ir, encoding, segment, depth + 1)),
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
