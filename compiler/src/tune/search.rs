//! The best tiers of one field for its samples: an exact search.
//!
//! What a sample costs depends only on the bits its difference's zigzag needs (the first tier
//! that holds it) and, on the escape, on its full write. So the samples are counted by that
//! width ([`Histogram`]), and a dynamic program over increasing tier widths finds, for every
//! count of tiers up to [`MAX_TIERS`], the cheapest tiers; the cheapest of those, or no DIFF
//! at all, is the choice ([`best`]). Costs are the IR's ([`diff_tier_bits`],
//! [`diff_escape_bits`]): a selector of `i + 1` bits and `b_i` bits in a BITSTREAM, a byte and
//! the smallest of 1, 2, 4, 8 bytes in a BYTESTREAM.

use crate::interpret::DiffSample;
use crate::ir::Style;
use crate::ir::delta_cost::{diff_escape_bits, diff_tier_bits};

/// The most tiers the search tries: more never paid on the traces we measured (each costs
/// every later tier and the escape one more selector bit).
pub const MAX_TIERS: usize = 4;

/// A field's samples counted by the width of their difference's zigzag.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    /// Per width `w` (0..=128): how many samples need `w` bits.
    counts: Vec<u64>,
    /// Per width: the sum of those samples' full writes, in bits.
    full: Vec<u64>,
}

impl Histogram {
    /// Counts `samples`.
    pub fn of<'s>(samples: impl IntoIterator<Item = &'s DiffSample>) -> Self {
        let mut h = Histogram {
            counts: vec![0; 129],
            full: vec![0; 129],
        };
        for sample in samples {
            let w = zigzag_bits(sample.difference) as usize;
            if let (Some(count), Some(full)) = (h.counts.get_mut(w), h.full.get_mut(w)) {
                *count += 1;
                *full += sample.full_bits;
            }
        }
        h
    }

    /// How many samples.
    pub fn len(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bits these samples cost with `tiers` (`None`: without DIFF, each in full).
    pub fn cost(&self, style: Style, tiers: Option<&[u32]>) -> u64 {
        let Some(tiers) = tiers else {
            return self.full.iter().sum();
        };
        let mut total = 0;
        for (w, (&count, &full)) in self.counts.iter().zip(&self.full).enumerate() {
            let tier = tiers.iter().position(|&b| w as u32 <= b);
            total += match tier {
                Some(i) => count * diff_tier_bits(style, i, tiers[i]),
                None => count * diff_escape_bits(style, tiers.len()) + full,
            };
        }
        total
    }
}

/// The bits `zigzag(d)` needs.
fn zigzag_bits(d: i128) -> u32 {
    let zz = ((d << 1) ^ (d >> 127)) as u128;
    128 - zz.leading_zeros()
}

/// The tiers that send `histogram` in the fewest bits, each from 1 to `width` bits, increasing,
/// at most [`MAX_TIERS`]; `None` when no tiers beat sending every value in full. Ties go to
/// fewer tiers, then to narrower ones; in a BYTESTREAM each tier is as wide as its bytes.
pub fn best(style: Style, width: u32, histogram: &Histogram) -> (Option<Vec<u32>>, u64) {
    let mut best: (Option<Vec<u32>>, u64) = (None, histogram.cost(style, None));
    let width = width.min(64) as usize;
    if width == 0 || histogram.is_empty() {
        return best;
    }
    // Prefix sums over widths 0..=w: counts, and full bits above w (the escapes of a last
    // tier of w bits).
    let counts = &histogram.counts;
    let count_upto = |w: usize| counts.iter().take(w + 1).sum::<u64>();
    let above = |w: usize| {
        let count: u64 = counts.iter().skip(w + 1).sum();
        let full: u64 = histogram.full.iter().skip(w + 1).sum();
        (count, full)
    };
    // cost[b]: the cheapest bits of the samples of widths <= b with tiers 0..=i, the last of b
    // bits; from[i][b] the previous tier's width, to rebuild the tiers.
    let mut from: Vec<Vec<usize>> = Vec::new();
    let mut cost: Vec<Option<u64>> = vec![None; width + 1];
    for i in 0..MAX_TIERS {
        let mut next: Vec<Option<u64>> = vec![None; width + 1];
        let mut back = vec![0; width + 1];
        for b in (1..=width).filter(|&b| whole_bytes(style, b, width)) {
            let tier = diff_tier_bits(style, i, b as u32);
            if i == 0 {
                next[b] = Some(count_upto(b) * tier);
                continue;
            }
            for (prev, before) in cost.iter().enumerate().take(b).skip(1) {
                let Some(before) = *before else { continue };
                let here = before + (count_upto(b) - count_upto(prev)) * tier;
                if next[b].is_none_or(|c| here < c) {
                    next[b] = Some(here);
                    back[b] = prev;
                }
            }
        }
        from.push(back);
        for (b, tiers_cost) in next.iter().enumerate().skip(1) {
            let Some(tiers_cost) = *tiers_cost else {
                continue;
            };
            let (count, full) = above(b);
            let total = tiers_cost + count * diff_escape_bits(style, i + 1) + full;
            if total < best.1 {
                best = (Some(rebuild(&from, i, b)), total);
            }
        }
        cost = next;
    }
    best
}

/// Whether a tier of `b` bits is worth trying: any in a BITSTREAM; in a BYTESTREAM only the
/// widest of its bytes (8, 16, 32 bits, or the field's width), which costs what a narrower
/// one of the same bytes costs and holds more.
fn whole_bytes(style: Style, b: usize, width: usize) -> bool {
    style == Style::Bitstream || b == width || [8, 16, 32].contains(&b)
}

/// The tiers of the path ending with tier `i` of `b` bits.
fn rebuild(from: &[Vec<usize>], i: usize, b: usize) -> Vec<u32> {
    let mut tiers = vec![b as u32];
    let mut b = b;
    for back in from.iter().take(i + 1).skip(1).rev() {
        b = back[b];
        tiers.push(b as u32);
    }
    tiers.reverse();
    tiers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(differences: &[(i128, u64)]) -> Histogram {
        let samples: Vec<DiffSample> = differences
            .iter()
            .map(|&(difference, full_bits)| DiffSample {
                structure: "S".into(),
                field: "x".into(),
                difference,
                full_bits,
            })
            .collect();
        Histogram::of(&samples)
    }

    /// Every increasing tier list of up to `MAX_TIERS` tiers of 1..=width bits.
    fn all_tiers(width: u32) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = vec![Vec::new()];
        let mut frontier: Vec<Vec<u32>> = vec![Vec::new()];
        for _ in 0..MAX_TIERS {
            let mut next = Vec::new();
            for tiers in &frontier {
                let low = tiers.last().map_or(1, |&b| b + 1);
                for b in low..=width {
                    let mut t = tiers.clone();
                    t.push(b);
                    next.push(t);
                }
            }
            out.extend(next.iter().cloned());
            frontier = next;
        }
        out.remove(0);
        out
    }

    #[test]
    fn the_search_finds_the_cheapest_of_all_tiers() {
        let h = samples(&[
            (0, 21),
            (3, 21),
            (-7, 21),
            (8, 21),
            (40, 21),
            (-300, 21),
            (5000, 21),
            (1, 21),
            (2, 21),
        ]);
        for style in [Style::Bitstream, Style::Bytestream] {
            let (tiers, bits) = best(style, 12, &h);
            assert_eq!(h.cost(style, tiers.as_deref()), bits);
            let cheapest = all_tiers(12)
                .iter()
                .map(|t| h.cost(style, Some(t)))
                .chain([h.cost(style, None)])
                .min()
                .unwrap();
            assert_eq!(bits, cheapest, "{style:?}: {tiers:?}");
        }
    }

    #[test]
    fn large_differences_keep_the_full_write() {
        let h = samples(&[(1 << 20, 21), (-(1 << 20), 21)]);
        assert_eq!(best(Style::Bitstream, 21, &h), (None, 42));
    }

    #[test]
    fn costs_follow_the_wire() {
        let h = samples(&[(0, 21), (3, 21), (100, 21)]);
        // DIFF(2, 5): 0 in tier 1 (1 + 2), 3 (zigzag 6, 3 bits) in tier 2 (2 + 5), 100 escaped
        // (2 + 21).
        assert_eq!(h.cost(Style::Bitstream, Some(&[2, 5])), 3 + 7 + 23);
        assert_eq!(h.cost(Style::Bitstream, None), 63);
        assert_eq!(zigzag_bits(0), 0);
        assert_eq!(zigzag_bits(-1), 1);
        assert_eq!(zigzag_bits(3), 3);
    }
}
