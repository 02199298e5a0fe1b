//! Which packets each side received: the receiver's window of sequences (what its headers
//! acknowledge) and the sender's log of the packets it sent (what an acknowledgement frees).

use std::collections::VecDeque;

use super::error::SessionError;
use super::header::{Sequence, SessionHeader, sequence_newer};

/// The sequences received from the peer: the newest and a bit per each of the 32 before it.
#[derive(Debug, Clone, Default)]
pub struct ReceivedLog {
    newest: Option<Sequence>,
    bits: u32,
}

impl ReceivedLog {
    /// Whether a packet of `sequence` may be read: an error for a duplicate or for one older
    /// than the 32 sequences before the newest (stale). Records nothing.
    pub fn check(&self, sequence: Sequence) -> Result<(), SessionError> {
        let Some(newest) = self.newest else {
            return Ok(());
        };
        if sequence == newest {
            return Err(SessionError::Duplicate(sequence));
        }
        if sequence_newer(sequence, newest) {
            return Ok(());
        }
        let back = newest.wrapping_sub(sequence);
        if back > 32 {
            return Err(SessionError::Stale(sequence));
        }
        if self.bits >> (back - 1) & 1 == 1 {
            return Err(SessionError::Duplicate(sequence));
        }
        Ok(())
    }

    /// Records `sequence` as received (after [`ReceivedLog::check`] allowed it).
    pub fn record(&mut self, sequence: Sequence) {
        let Some(newest) = self.newest else {
            self.newest = Some(sequence);
            return;
        };
        if sequence_newer(sequence, newest) {
            let shift = u32::from(sequence.wrapping_sub(newest));
            let moved = if shift >= 32 { 0 } else { self.bits << shift };
            let old_newest = if shift <= 32 { 1u32 << (shift - 1) } else { 0 };
            self.bits = moved | old_newest;
            self.newest = Some(sequence);
        } else {
            let back = u32::from(newest.wrapping_sub(sequence));
            if (1..=32).contains(&back) {
                self.bits |= 1 << (back - 1);
            }
        }
    }

    /// The header fields acknowledging what was received, for a packet of `sequence`.
    #[must_use]
    pub fn header(&self, sequence: Sequence) -> SessionHeader {
        match self.newest {
            Some(ack) => SessionHeader {
                sequence,
                ack,
                ack_bits: self.bits,
            },
            None => SessionHeader {
                sequence,
                ..SessionHeader::FIRST
            },
        }
    }
}

/// A packet this side sent: its sequence, whether the peer acknowledged it, and the keys of the
/// reliable items it carried.
#[derive(Debug, Clone)]
pub struct SentPacket {
    /// The packet's sequence.
    pub sequence: Sequence,
    /// Whether the peer acknowledged it.
    pub acked: bool,
    /// The reliable items it carried ([`super::reliable::Outbox`] keys).
    pub items: Vec<u64>,
}

/// The packets sent lately, oldest first, at most [`SentLog::CAPACITY`]; and how many were sent
/// in all, which tells a forged acknowledgement from one of an evicted packet.
#[derive(Debug, Clone, Default)]
pub struct SentLog {
    packets: VecDeque<SentPacket>,
    total: u64,
}

impl SentLog {
    /// Packets remembered: an item whose packet left the log is resent.
    pub const CAPACITY: usize = 256;

    /// The sequence of the next packet.
    #[must_use]
    pub fn next_sequence(&self) -> Sequence {
        self.total as Sequence
    }

    /// Records a packet sent with the next sequence, carrying the reliable items `items`.
    pub fn push(&mut self, items: Vec<u64>) -> Sequence {
        let sequence = self.next_sequence();
        if self.packets.len() == Self::CAPACITY {
            self.packets.pop_front();
        }
        self.packets.push_back(SentPacket {
            sequence,
            acked: false,
            items,
        });
        self.total += 1;
        sequence
    }

    /// Whether a packet of `sequence` was ever sent (by the count sent so far).
    #[must_use]
    pub fn was_sent(&self, sequence: Sequence) -> bool {
        if self.total == 0 {
            return false;
        }
        let last = self.next_sequence().wrapping_sub(1);
        if sequence_newer(sequence, last) {
            return false;
        }
        u64::from(last.wrapping_sub(sequence)) < self.total
    }

    /// Checks that `header` acknowledges no sequence after the last this side sent (a forged or
    /// corrupt acknowledgement): the error names the first. One before the first packet is let
    /// through and ignored: a peer that has received nothing acknowledges 65535 with no bits,
    /// which after a wrap is a real sequence. Changes nothing.
    pub fn check(&self, header: &SessionHeader) -> Result<(), SessionError> {
        let last = self.next_sequence().wrapping_sub(1);
        match header.acknowledged().find(|&s| sequence_newer(s, last)) {
            Some(sequence) => Err(SessionError::AckNotSent(sequence)),
            None => Ok(()),
        }
    }

    /// Marks the packets `header` acknowledges; returns the reliable item keys they carried and
    /// the sequences newly acknowledged.
    pub fn acknowledge(&mut self, header: &SessionHeader) -> (Vec<u64>, Vec<Sequence>) {
        let mut items = Vec::new();
        let mut sequences = Vec::new();
        for sequence in header.acknowledged() {
            if let Some(packet) = self.find_mut(sequence)
                && !packet.acked
            {
                packet.acked = true;
                items.append(&mut packet.items);
                sequences.push(sequence);
            }
        }
        (items, sequences)
    }

    /// The packet of `sequence`, while remembered.
    #[must_use]
    pub fn find(&self, sequence: Sequence) -> Option<&SentPacket> {
        let at = self.index_of(sequence)?;
        self.packets.get(at)
    }

    fn find_mut(&mut self, sequence: Sequence) -> Option<&mut SentPacket> {
        let at = self.index_of(sequence)?;
        self.packets.get_mut(at)
    }

    fn index_of(&self, sequence: Sequence) -> Option<usize> {
        let first = self.packets.front()?.sequence;
        let at = usize::from(sequence.wrapping_sub(first));
        (at < self.packets.len()).then_some(at)
    }

    /// Packets sent after the packet of `sequence` (0 for the last one).
    #[must_use]
    pub fn sent_since(&self, sequence: Sequence) -> u16 {
        self.next_sequence()
            .wrapping_sub(sequence)
            .saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_takes_reordered_packets_and_refuses_duplicates() {
        let mut log = ReceivedLog::default();
        for s in [5u16, 3, 7, 6] {
            log.check(s).unwrap();
            log.record(s);
        }
        assert_eq!(log.check(3), Err(SessionError::Duplicate(3)));
        assert_eq!(log.check(7), Err(SessionError::Duplicate(7)));
        log.check(4).unwrap();
        let header = log.header(0);
        assert_eq!((header.ack, header.ack_bits), (7, 0b1011));
        log.record(7 + 40);
        assert_eq!(log.check(7), Err(SessionError::Stale(7)));
        assert_eq!(log.header(0).ack_bits, 0);
        log.record(48);
        assert_eq!(log.header(0).ack_bits, 1);
    }

    #[test]
    fn the_window_crosses_the_wrap() {
        let mut log = ReceivedLog::default();
        for s in [65534u16, 65535, 0, 1] {
            log.check(s).unwrap();
            log.record(s);
        }
        let header = log.header(0);
        assert_eq!((header.ack, header.ack_bits), (1, 0b111));
    }

    #[test]
    fn acks_of_packets_never_sent_are_refused() {
        let mut log = SentLog::default();
        assert!(log.check(&SessionHeader::FIRST).is_ok());
        let forged = SessionHeader {
            sequence: 0,
            ack: 0,
            ack_bits: 0,
        };
        assert_eq!(log.check(&forged), Err(SessionError::AckNotSent(0)));
        log.push(vec![1]);
        log.push(vec![2, 3]);
        assert!(log.check(&forged).is_ok());
        let both = SessionHeader {
            ack: 1,
            ack_bits: 1,
            ..forged
        };
        assert!(log.check(&both).is_ok());
        assert_eq!(log.acknowledge(&both), (vec![2, 3, 1], vec![1, 0]));
        assert_eq!(log.acknowledge(&both), (vec![], vec![]));
        // Nothing received yet, from a peer whose first packet crossed ours.
        assert!(log.check(&SessionHeader::FIRST).is_ok());
        let ahead = SessionHeader { ack: 2, ..both };
        assert_eq!(log.check(&ahead), Err(SessionError::AckNotSent(2)));
        assert_eq!(log.sent_since(0), 1);
    }
}
