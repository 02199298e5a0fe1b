//! The session header in front of a session packet's items: sequence, ack and ack bits
//! (WIRE_FORMAT.md, "Session packets"), the session id a packet is framed with, and modular
//! sequence comparison.

use crate::error::{DecodeError, DecodeErrorKind};
use crate::framing::{protocol_hash, unframe};

/// Bytes of the session header, in both styles.
pub const SESSION_HEADER_BYTES: usize = 8;

/// The number of a packet in a session: +1 per packet, wrapping at 65536.
pub type Sequence = u16;

/// Whether `a` is newer than `b`, modulo 65536: `(a - b) mod 65536` is in `1..32768`.
///
/// ```
/// use idlc_runtime::sequence_newer;
/// assert!(sequence_newer(1, 0));
/// assert!(sequence_newer(0, 65535)); // across the wrap
/// assert!(!sequence_newer(0, 0));
/// assert!(!sequence_newer(40000, 100)); // more than half the circle back
/// ```
#[must_use]
pub const fn sequence_newer(a: Sequence, b: Sequence) -> bool {
    let distance = a.wrapping_sub(b);
    distance != 0 && distance < 0x8000
}

/// The id a session packet of the protocol version `protocol_id` is framed with: distinct from
/// the plain packet's, so neither reader accepts the other's packets.
///
/// ```
/// use idlc_runtime::session_id;
/// assert_ne!(session_id(7), 7);
/// assert_ne!(session_id(7), session_id(8));
/// ```
#[must_use]
pub const fn session_id(protocol_id: u64) -> u64 {
    const PREFIX: &[u8] = b"idlc session 1\n";
    let mut text = [0u8; PREFIX.len() + 8];
    let id = protocol_id.to_le_bytes();
    let mut i = 0;
    while i < text.len() {
        text[i] = if i < PREFIX.len() {
            PREFIX[i]
        } else {
            id[i - PREFIX.len()]
        };
        i += 1;
    }
    protocol_hash(&text)
}

/// Which of `versions` (protocol ids, oldest first) frames the session packet `packet`: the
/// index of the newest that does, or `None`. What a server asks of a new peer's first packet.
///
/// ```
/// use idlc_runtime::{SessionHeader, session_id, session_version, frame};
/// let packet = frame(session_id(11), &SessionHeader::FIRST.to_bytes());
/// assert_eq!(session_version(&[10, 11, 12], &packet), Some(1));
/// assert_eq!(session_version(&[10], &packet), None);
/// ```
#[must_use]
pub fn session_version(versions: &[u64], packet: &[u8]) -> Option<usize> {
    versions
        .iter()
        .rposition(|&version| unframe(session_id(version), packet).is_ok())
}

/// The header of a session packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SessionHeader {
    /// This packet's sequence.
    pub sequence: Sequence,
    /// The newest sequence received from the peer (65535 with no bits when none was).
    pub ack: Sequence,
    /// Bit `i` set: the sequence `ack - 1 - i` was received too.
    pub ack_bits: u32,
}

impl SessionHeader {
    /// The header of a session's first packet, before anything was received.
    pub const FIRST: SessionHeader = SessionHeader {
        sequence: 0,
        ack: Sequence::MAX,
        ack_bits: 0,
    };

    /// The 8 bytes on the wire: sequence, ack (u16 LE), ack bits (u32 LE).
    #[must_use]
    pub fn to_bytes(&self) -> [u8; SESSION_HEADER_BYTES] {
        let mut out = [0; SESSION_HEADER_BYTES];
        out[..2].copy_from_slice(&self.sequence.to_le_bytes());
        out[2..4].copy_from_slice(&self.ack.to_le_bytes());
        out[4..].copy_from_slice(&self.ack_bits.to_le_bytes());
        out
    }

    /// Splits an unframed session payload into its header and its items; fewer than 8 bytes is
    /// [`DecodeErrorKind::UnexpectedEnd`].
    ///
    /// ```
    /// use idlc_runtime::SessionHeader;
    /// let header = SessionHeader { sequence: 9, ack: 3, ack_bits: 0b101 };
    /// let mut payload = header.to_bytes().to_vec();
    /// payload.push(0x80);
    /// assert_eq!(SessionHeader::split(&payload).unwrap(), (header, &[0x80u8][..]));
    /// assert!(SessionHeader::split(&payload[..7]).is_err());
    /// ```
    pub fn split(payload: &[u8]) -> Result<(SessionHeader, &[u8]), DecodeError> {
        let Some((bytes, items)) = payload.split_first_chunk::<SESSION_HEADER_BYTES>() else {
            return Err(DecodeError::new(
                DecodeErrorKind::UnexpectedEnd,
                payload.len() as u64 * 8,
            ));
        };
        let header = SessionHeader {
            sequence: u16::from_le_bytes([bytes[0], bytes[1]]),
            ack: u16::from_le_bytes([bytes[2], bytes[3]]),
            ack_bits: u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]),
        };
        Ok((header, items))
    }

    /// The sequences this header acknowledges: `ack`, then each `ack - 1 - i` whose bit is set.
    pub fn acknowledged(&self) -> impl Iterator<Item = Sequence> + '_ {
        let bits = (0..32u16)
            .filter(|i| self.ack_bits >> i & 1 == 1)
            .map(|i| self.ack.wrapping_sub(1 + i));
        core::iter::once(self.ack).chain(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_round_trips_and_lists_its_acks() {
        let header = SessionHeader {
            sequence: 65535,
            ack: 1,
            ack_bits: 0b11 | 1 << 31,
        };
        let bytes = header.to_bytes();
        assert_eq!(SessionHeader::split(&bytes).unwrap().0, header);
        let acked: Vec<Sequence> = header.acknowledged().collect();
        assert_eq!(acked, vec![1, 0, 65535, 1u16.wrapping_sub(32)]);
    }

    #[test]
    fn newer_is_modular() {
        for a in [0u16, 1, 32767, 32768, 65535] {
            assert!(sequence_newer(a.wrapping_add(1), a));
            assert!(!sequence_newer(a, a.wrapping_add(1)));
            assert!(sequence_newer(a.wrapping_add(32767), a));
            assert!(!sequence_newer(a.wrapping_add(32768), a));
        }
    }
}
