//! Reliable items: the sender's outbox (resent until a packet carrying them is acknowledged)
//! and the receiver's in-order buffer of reliable messages.

use std::collections::BTreeMap;

use super::error::SessionError;
use super::header::Sequence;

/// An item of the outbox, with the packet that carried it last.
#[derive(Debug, Clone)]
pub struct Queued<T> {
    /// The item.
    pub item: T,
    /// The sequence of the last packet that carried it; `None` before its first send.
    pub last_sent: Option<Sequence>,
}

/// The reliable items not yet acknowledged, oldest first, by key.
#[derive(Debug, Clone)]
pub struct Outbox<T> {
    next_key: u64,
    queued: BTreeMap<u64, Queued<T>>,
}

impl<T> Default for Outbox<T> {
    fn default() -> Self {
        Outbox {
            next_key: 0,
            queued: BTreeMap::new(),
        }
    }
}

impl<T> Outbox<T> {
    /// Queues an item; returns its key.
    pub fn push(&mut self, item: T) -> u64 {
        let key = self.next_key;
        self.next_key += 1;
        self.queued.insert(
            key,
            Queued {
                item,
                last_sent: None,
            },
        );
        key
    }

    /// Drops the item of `key` (its packet was acknowledged); returns it.
    pub fn remove(&mut self, key: u64) -> Option<T> {
        self.queued.remove(&key).map(|q| q.item)
    }

    /// The keys of the items for which `due` says yes, oldest first.
    pub fn due(&self, mut due: impl FnMut(&Queued<T>) -> bool) -> Vec<u64> {
        self.queued
            .iter()
            .filter(|(_, q)| due(q))
            .map(|(&key, _)| key)
            .collect()
    }

    /// The item of `key`.
    #[must_use]
    pub fn get(&self, key: u64) -> Option<&Queued<T>> {
        self.queued.get(&key)
    }

    /// Records that the packet `sequence` carried the item of `key`.
    pub fn sent(&mut self, key: u64, sequence: Sequence) {
        if let Some(queued) = self.queued.get_mut(&key) {
            queued.last_sent = Some(sequence);
        }
    }

    /// How many queued items `what` counts.
    pub fn count(&self, what: impl Fn(&T) -> bool) -> usize {
        self.queued.values().filter(|q| what(&q.item)).count()
    }
}

/// Reliable messages received, delivered in index order, each once. Holds those that came
/// before the ones they follow, at most `cap`.
#[derive(Debug, Clone)]
pub struct InOrder<T> {
    cap: u16,
    next: u16,
    waiting: BTreeMap<u16, T>,
}

impl<T> InOrder<T> {
    /// A buffer for a peer with at most `cap` reliable messages unacknowledged.
    #[must_use]
    pub fn new(cap: usize) -> Self {
        InOrder {
            cap: u16::try_from(cap.max(1)).unwrap_or(u16::MAX).min(0x4000),
            next: 0,
            waiting: BTreeMap::new(),
        }
    }

    /// Whether the message of `index` is new (`true`), delivered or waiting already (`false`),
    /// or beyond the peer's queue (an error). Changes nothing.
    pub fn check(&self, index: u16) -> Result<bool, SessionError> {
        let ahead = index.wrapping_sub(self.next);
        if ahead >= 0x8000 {
            return Ok(false);
        }
        if ahead >= self.cap {
            return Err(SessionError::ForgedIndex(index));
        }
        Ok(!self.waiting.contains_key(&ahead))
    }

    /// Keeps the message of `index` (after [`InOrder::check`] said it is new).
    pub fn insert(&mut self, index: u16, message: T) {
        let ahead = index.wrapping_sub(self.next);
        if ahead < self.cap {
            self.waiting.insert(ahead, message);
        }
    }

    /// The next message in order, if it came.
    pub fn pop(&mut self) -> Option<T> {
        let message = self.waiting.remove(&0)?;
        self.next = self.next.wrapping_add(1);
        self.waiting = core::mem::take(&mut self.waiting)
            .into_iter()
            .map(|(ahead, m)| (ahead - 1, m))
            .collect();
        Some(message)
    }

    /// Messages waiting for the ones before them.
    #[must_use]
    pub fn len(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_come_out_in_order_once() {
        let mut buffer = InOrder::new(4);
        let mut out = Vec::new();
        for index in [1u16, 0, 1, 3, 2, 0] {
            if buffer.check(index).unwrap() {
                buffer.insert(index, index);
            }
            while let Some(m) = buffer.pop() {
                out.push(m);
            }
        }
        assert_eq!(out, vec![0, 1, 2, 3]);
        assert_eq!(buffer.check(8), Err(SessionError::ForgedIndex(8)));
        assert_eq!(buffer.check(2), Ok(false));
    }

    #[test]
    fn the_outbox_keeps_order_and_forgets_acknowledged_items() {
        let mut outbox = Outbox::default();
        let a = outbox.push('a');
        let b = outbox.push('b');
        outbox.sent(a, 7);
        assert_eq!(outbox.due(|q| q.last_sent.is_none()), vec![b]);
        assert_eq!(outbox.remove(a), Some('a'));
        assert_eq!(outbox.count(|&c| c == 'b'), 1);
        assert!(outbox.get(b).is_some());
    }
}
