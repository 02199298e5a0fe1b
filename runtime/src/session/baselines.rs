//! The snapshot states a side keeps, by the sequence of the packet that carried them: the
//! sender's mirrors (what the peer holds once it has a packet) and the receiver's states.

use std::collections::VecDeque;

use super::header::Sequence;

/// A kept snapshot state.
#[derive(Debug, Clone)]
pub struct Kept<T> {
    /// The sequence of the packet that carried it.
    pub sequence: Sequence,
    /// Its message id.
    pub id: u32,
    /// The tick of the state (the sender's count; the receiver keeps its own sum of deltas).
    pub tick: u32,
    /// Whether the peer acknowledged the packet (the sender's side).
    pub acked: bool,
    /// The state.
    pub value: T,
}

/// At most `cap` kept states, the oldest dropped first.
#[derive(Debug, Clone)]
pub struct Baselines<T> {
    cap: usize,
    kept: VecDeque<Kept<T>>,
}

impl<T> Baselines<T> {
    /// A ring of at most `cap` states (at least 1, at most 16384: sequences must not wrap
    /// within it).
    #[must_use]
    pub fn new(cap: usize) -> Self {
        Baselines {
            cap: cap.clamp(1, 16384),
            kept: VecDeque::new(),
        }
    }

    /// Keeps a state; drops the oldest when the ring is full.
    pub fn insert(&mut self, kept: Kept<T>) {
        if self.kept.len() == self.cap {
            self.kept.pop_front();
        }
        self.kept.push_back(kept);
    }

    /// The state of message `id` carried by the packet `sequence`.
    #[must_use]
    pub fn get(&self, sequence: Sequence, id: u32) -> Option<&Kept<T>> {
        self.kept
            .iter()
            .rev()
            .find(|k| k.sequence == sequence && k.id == id)
    }

    /// Marks the states carried by the packet `sequence` as acknowledged.
    pub fn acknowledge(&mut self, sequence: Sequence) {
        for kept in self.kept.iter_mut().filter(|k| k.sequence == sequence) {
            kept.acked = true;
        }
    }

    /// The newest acknowledged state of message `id`: the baseline of its next delta.
    #[must_use]
    pub fn newest_acked(&self, id: u32) -> Option<&Kept<T>> {
        self.kept.iter().rev().find(|k| k.id == id && k.acked)
    }

    /// States kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.kept.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(sequence: Sequence, id: u32) -> Kept<u8> {
        Kept {
            sequence,
            id,
            tick: 0,
            acked: false,
            value: sequence as u8,
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_and_finds_acknowledged_ones() {
        let mut ring = Baselines::new(3);
        for s in 0..5 {
            ring.insert(kept(s, 1));
        }
        assert_eq!(ring.len(), 3);
        assert!(ring.get(1, 1).is_none());
        assert_eq!(ring.get(3, 1).map(|k| k.value), Some(3));
        assert!(ring.newest_acked(1).is_none());
        ring.acknowledge(2);
        ring.acknowledge(3);
        assert_eq!(ring.newest_acked(1).map(|k| k.sequence), Some(3));
        assert!(ring.newest_acked(2).is_none());
    }
}
