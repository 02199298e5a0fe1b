//! A link: one session over every protocol a side sends (or receives) to the same peer
//! (WIRE_FORMAT.md, "Session packets"). Generated code makes the union protocol of a link's
//! members; these are the ids it is framed with and the item ids its packets carry.

use crate::framing::{FNV_OFFSET_BASIS, fnv1a};

/// The id of one version of a link: the FNV-1a hash ([`crate::protocol_hash`]) of
/// `"idlc link 1\n"` followed by the version id of each member protocol (u64 little-endian), in
/// the order of the link's members. A session packet of the link is framed with its
/// [`crate::session_id`], as one of a protocol is.
///
/// ```
/// use idlc_runtime::link_id;
/// assert_ne!(link_id(&[1, 2]), link_id(&[2, 1]));
/// assert_ne!(link_id(&[1, 2]), link_id(&[1, 2, 0]));
/// ```
#[must_use]
pub const fn link_id(member_ids: &[u64]) -> u64 {
    const PREFIX: &[u8] = b"idlc link 1\n";
    let mut hash = fnv1a(FNV_OFFSET_BASIS, PREFIX);
    let mut i = 0;
    while i < member_ids.len() {
        hash = fnv1a(hash, &member_ids[i].to_le_bytes());
        i += 1;
    }
    hash
}

/// The item id, in a packet of a link of `members` protocols, of the entry `entry` of the
/// member `member` (its index among the link's members): `entry * members + member`, so that
/// the ids of the first members stay the same when a member is added at the end.
///
/// ```
/// use idlc_runtime::{link_item_id, link_member};
/// assert_eq!(link_item_id(3, 1, 2), 7);
/// assert_eq!(link_member(7, 2), (1, 3));
/// ```
#[must_use]
pub const fn link_item_id(entry: u32, member: u32, members: u32) -> u32 {
    entry.wrapping_mul(members).wrapping_add(member)
}

/// The member (index) and its entry id that the link item id `id` names: `(id % members, id /
/// members)`. `members` 0 reads as 1.
#[must_use]
pub const fn link_member(id: u32, members: u32) -> (u32, u32) {
    let members = if members == 0 { 1 } else { members };
    (id % members, id / members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol_hash;

    #[test]
    fn the_link_id_is_the_hash_of_its_text() {
        let mut text = b"idlc link 1\n".to_vec();
        for id in [7u64, u64::MAX] {
            text.extend_from_slice(&id.to_le_bytes());
        }
        assert_eq!(link_id(&[7, u64::MAX]), protocol_hash(&text));
        assert_eq!(link_id(&[]), protocol_hash(b"idlc link 1\n"));
    }

    #[test]
    fn item_ids_split_back() {
        for members in 1..5 {
            for member in 0..members {
                for entry in 0..40 {
                    let id = link_item_id(entry, member, members);
                    assert_eq!(link_member(id, members), (member, entry));
                }
            }
        }
    }
}
