//! The seed's compatible pair: Character v1 (character.idl, MYENCODINGA) and v2
//! (character_v2.idl, MYENCODINGA extended: FENCE, EXTEND character_id TO UINT32, some_data
//! DEFAULT=23). A v1 reader reads what v2 writes (the low 16 bits of the id, no some_data); a v2
//! reader reads what v1 writes (some_data = 23).

mod common;

use common::{v2_item, v2_of};
use idlc_tests::{character_client as v1, character_v2_client as v2};
use proptest::prelude::*;

/// The v1 fields of a v2 Character equal `c`'s (`c`'s id widened), bit for bit.
fn assert_same_v1_fields(c: &v1::Character, n: &v2::Character) -> Result<(), TestCaseError> {
    prop_assert_eq!(n.character_id, u32::from(c.character_id));
    prop_assert_eq!(n.x.to_bits(), c.x.to_bits());
    prop_assert_eq!(n.y.to_bits(), c.y.to_bits());
    prop_assert_eq!(n.z.to_bits(), c.z.to_bits());
    prop_assert_eq!(n.vx.to_bits(), c.vx.to_bits());
    prop_assert_eq!(n.vy.to_bits(), c.vy.to_bits());
    prop_assert_eq!(n.vz.to_bits(), c.vz.to_bits());
    prop_assert_eq!(n.angle.to_bits(), c.angle.to_bits());
    prop_assert_eq!(n.anim.index(), c.anim.index());
    prop_assert_eq!(n.animation_frame, c.animation_frame);
    prop_assert_eq!(
        &n.inventory,
        &c.inventory.iter().map(v2_item).collect::<Vec<_>>()
    );
    Ok(())
}

fn sample() -> v1::Character {
    v1::Character {
        character_id: 1,
        x: 1234.56,
        y: -9999.99,
        z: 42.0,
        vx: 1.25,
        vy: -9.5,
        vz: 0.01,
        angle: 271.5,
        anim: v1::Animation::Running,
        animation_frame: 77,
        inventory: vec![
            v1::Item {
                item_id: 10,
                kind: v1::ItemKind::Grenade,
                count: 4,
                durability: 0.25,
            },
            v1::Item {
                item_id: 11,
                kind: v1::ItemKind::Key,
                count: 1,
                durability: 1.0,
            },
        ],
    }
}

#[test]
fn new_writer_old_reader() {
    let new = v2_of(&sample(), 70000, 99);
    let bytes = new.to_bytes_with::<v2::MYENCODINGA>().unwrap();
    let old = v1::Character::from_bytes_with::<v1::MYENCODINGA>(&bytes).unwrap();
    assert_eq!(old.character_id, 4464);
    assert_eq!(u32::from(old.character_id), 70000 & 0xFFFF);
    // Everything else is what v2 itself reads back.
    let back = v2::Character::from_bytes_with::<v2::MYENCODINGA>(&bytes).unwrap();
    assert_eq!(back.character_id, 70000);
    assert_eq!(back.some_data, 99);
    let old_seen_by_v2 = v2::Character {
        character_id: 70000,
        some_data: 99,
        ..v2_of(&old, 0, 0)
    };
    assert_eq!(old_seen_by_v2, back);
}

#[test]
fn old_writer_new_reader() {
    let old = sample();
    let bytes = old.to_bytes_with::<v1::MYENCODINGA>().unwrap();
    let new = v2::Character::from_bytes_with::<v2::MYENCODINGA>(&bytes).unwrap();
    assert_eq!(new.some_data, 23);
    assert_eq!(new.character_id, 1);
    let back = v1::Character::from_bytes_with::<v1::MYENCODINGA>(&bytes).unwrap();
    assert_same_v1_fields(&back, &new).unwrap();
}

/// The old writer's bytes are the new writer's bytes up to the FENCE: same prefix.
#[test]
fn the_stream_is_the_same_up_to_the_fence() {
    let old = sample();
    let old_bytes = old.to_bytes_with::<v1::MYENCODINGA>().unwrap();
    let new_bytes = v2_of(&old, 1, 23)
        .to_bytes_with::<v2::MYENCODINGA>()
        .unwrap();
    assert!(new_bytes.len() > old_bytes.len());
    // The last byte of the old stream holds zero padding where the new one has its present bit.
    let full = old_bytes.len() - 1;
    assert_eq!(new_bytes[..full], old_bytes[..full]);
}

proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 512, ..Default::default() })]

    #[test]
    fn both_directions(c in common::character(), id in any::<u32>(), some_data in any::<u32>()) {
        // v2 -> v1: the low 16 bits of the id, the rest as v2 reads it.
        let new = v2_of(&c, id, some_data);
        let bytes = new.to_bytes_with::<v2::MYENCODINGA>().unwrap();
        let by_new = v2::Character::from_bytes_with::<v2::MYENCODINGA>(&bytes).unwrap();
        prop_assert_eq!(by_new.character_id, id);
        prop_assert_eq!(by_new.some_data, some_data);
        let by_old = v1::Character::from_bytes_with::<v1::MYENCODINGA>(&bytes).unwrap();
        prop_assert_eq!(u32::from(by_old.character_id), id & 0xFFFF);
        assert_same_v1_fields(&by_old, &v2::Character { character_id: id & 0xFFFF, ..by_new })?;

        // v1 -> v2: some_data = 23, the same id.
        let bytes = c.to_bytes_with::<v1::MYENCODINGA>().unwrap();
        let by_new = v2::Character::from_bytes_with::<v2::MYENCODINGA>(&bytes).unwrap();
        prop_assert_eq!(by_new.some_data, 23);
        let by_old = v1::Character::from_bytes_with::<v1::MYENCODINGA>(&bytes).unwrap();
        assert_same_v1_fields(&by_old, &by_new)?;
        // And the new reader's value, written by the new writer, reads the same in the old one.
        let rewritten = by_new.to_bytes_with::<v2::MYENCODINGA>().unwrap();
        let again = v1::Character::from_bytes_with::<v1::MYENCODINGA>(&rewritten).unwrap();
        prop_assert_eq!(again, by_old);
    }
}
