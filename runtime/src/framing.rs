//! Packet framing: a CRC32 over `protocol id || payload` in front of the payload.
//!
//! The 64-bit protocol id is never sent: both peers know it, and a packet of another protocol or
//! version fails the CRC. Layout: `crc32 (4 bytes, little-endian) || payload`, where the CRC is
//! CRC-32/ISO-HDLC (the zlib / Ethernet CRC, as `crc32fast` computes it) over the 8
//! little-endian bytes of the protocol id followed by the payload.

use crate::error::{DecodeError, DecodeErrorKind};

/// Bytes framing adds in front of a payload.
///
/// ```
/// assert_eq!(idlc_runtime::FRAME_HEADER_BYTES, 4);
/// ```
pub const FRAME_HEADER_BYTES: usize = 4;

/// The CRC32 of a packet: over `protocol_id.to_le_bytes()` then `payload`.
///
/// ```
/// use idlc_runtime::packet_crc;
/// assert_eq!(packet_crc(0, b""), 0x6522_DF69); // CRC-32 of eight zero bytes
/// ```
#[must_use]
pub fn packet_crc(protocol_id: u64, payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&protocol_id.to_le_bytes());
    hasher.update(payload);
    hasher.finalize()
}

/// Frames `payload`: the CRC32 of `protocol id || payload` (4 bytes, little-endian), then the
/// payload.
///
/// ```
/// use idlc_runtime::{frame, unframe};
/// let packet = frame(0x1234, b"hello");
/// assert_eq!(packet.len(), 4 + 5);
/// assert_eq!(unframe(0x1234, &packet).unwrap(), b"hello");
/// ```
#[must_use]
pub fn frame(protocol_id: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(FRAME_HEADER_BYTES + payload.len());
    frame_into(protocol_id, payload, &mut out);
    out
}

/// [`frame`], appending to `out` (reuse one buffer across packets).
///
/// ```
/// use idlc_runtime::{frame, frame_into};
/// let mut out = Vec::new();
/// frame_into(7, b"abc", &mut out);
/// assert_eq!(out, frame(7, b"abc"));
/// ```
pub fn frame_into(protocol_id: u64, payload: &[u8], out: &mut Vec<u8>) {
    out.reserve(FRAME_HEADER_BYTES + payload.len());
    out.extend_from_slice(&packet_crc(protocol_id, payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// Checks a framed packet and returns its payload. Fewer than 4 bytes is
/// [`DecodeErrorKind::UnexpectedEnd`]; a wrong CRC (corruption, or another protocol id) is
/// [`DecodeErrorKind::CrcMismatch`] at bit 0.
///
/// ```
/// use idlc_runtime::{frame, unframe, DecodeErrorKind};
/// let packet = frame(1, b"data");
/// assert_eq!(unframe(2, &packet).unwrap_err().kind, DecodeErrorKind::CrcMismatch);
/// assert_eq!(unframe(1, &packet[..3]).unwrap_err().kind, DecodeErrorKind::UnexpectedEnd);
/// ```
pub fn unframe(protocol_id: u64, packet: &[u8]) -> Result<&[u8], DecodeError> {
    let Some((crc, payload)) = packet.split_first_chunk::<FRAME_HEADER_BYTES>() else {
        return Err(DecodeError::new(
            DecodeErrorKind::UnexpectedEnd,
            packet.len() as u64 * 8,
        ));
    };
    if u32::from_le_bytes(*crc) != packet_crc(protocol_id, payload) {
        return Err(DecodeError::new(DecodeErrorKind::CrcMismatch, 0));
    }
    Ok(payload)
}

/// A stable 64-bit hash (FNV-1a) for deriving protocol ids from the normalized schema text, so
/// every implementation computes the same id.
///
/// ```
/// use idlc_runtime::protocol_hash;
/// assert_eq!(protocol_hash(b""), 0xcbf2_9ce4_8422_2325);
/// assert_eq!(protocol_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
/// ```
#[must_use]
pub const fn protocol_hash(bytes: &[u8]) -> u64 {
    fnv1a(FNV_OFFSET_BASIS, bytes)
}

/// Where FNV-1a ([`protocol_hash`]) starts.
pub(crate) const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over `bytes`, continued from the state `hash`: the hash of a text given in pieces.
pub(crate) const fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    let mut rest = bytes;
    while let [byte, tail @ ..] = rest {
        hash ^= *byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        rest = tail;
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_covers_id_and_payload() {
        let packet = frame(42, &[1, 2, 3]);
        assert_eq!(unframe(42, &packet), Ok(&[1u8, 2, 3][..]));
        for i in 0..packet.len() {
            for bit in 0..8 {
                let mut bad = packet.clone();
                bad[i] ^= 1 << bit;
                assert_eq!(
                    unframe(42, &bad).unwrap_err().kind,
                    DecodeErrorKind::CrcMismatch
                );
            }
        }
        assert_eq!(
            unframe(43, &packet).unwrap_err(),
            DecodeError::new(DecodeErrorKind::CrcMismatch, 0)
        );
        let empty = frame(9, &[]);
        assert_eq!(empty.len(), 4);
        assert_eq!(unframe(9, &empty), Ok(&[][..]));
        assert_eq!(
            unframe(9, &[]).unwrap_err(),
            DecodeError::new(DecodeErrorKind::UnexpectedEnd, 0)
        );
        // Known value: CRC-32 of "123456789" is 0xCBF43926; with an id prefix it differs.
        let mut h = crc32fast::Hasher::new();
        h.update(b"123456789");
        assert_eq!(h.finalize(), 0xCBF4_3926);
        assert_ne!(packet_crc(0, b"123456789"), 0xCBF4_3926);
    }
}
