//! A game's tick loop with generated code, importing neither `WireWrite` nor `WireRead`: the
//! methods a game calls on the writers and readers it holds (`clear`, `finish`, `into_bytes`,
//! `bits_written`, `truncate`; `bits_read`, `bits_remaining`, `finish`, `expect_end`) are
//! inherent (issue 30, item 8: `BitWriter::clear` was E0599 without the trait in scope). This
//! file must not import either trait: it compiles only while those methods are inherent.

use idlc_runtime::{BitReader, BitWriter, ByteReader, ByteWriter, DecodeErrorKind};
use idlc_tests::naval as n;

fn fleet(tick: u32) -> n::Fleet {
    n::Fleet {
        tick,
        time_left_s: 600,
        ships: vec![n::Ship {
            id: 7,
            x: 12.5,
            hull: 1.0,
            turrets: vec![n::Turret::default(); 2],
            ..n::Ship::default()
        }],
    }
}

#[test]
fn a_reused_bit_writer_and_its_reader_need_no_trait_import() {
    let mut w = BitWriter::with_capacity(256);
    let mut sizes = Vec::new();
    for tick in 0..3 {
        w.clear();
        assert_eq!(w.bits_written(), 0);
        fleet(tick).encode(&mut w).expect("a fleet encodes");
        let bits = w.bits_written();
        let packet = w.finish().to_vec();
        assert_eq!(packet.len() as u64, bits.div_ceil(8));
        sizes.push(packet.len());

        let mut r = BitReader::new(&packet);
        assert_eq!(n::Fleet::decode(&mut r).expect("decodes"), fleet(tick));
        assert_eq!(r.bits_read(), bits);
        assert_eq!(r.bits_remaining(), packet.len() as u64 * 8 - bits);
        r.finish().expect("zero padding");
        r.expect_end().expect("nothing after the fleet");
    }
    assert_eq!(sizes[0], sizes[2]);
    assert!(w.capacity() >= 256, "clear keeps the allocation");

    // A message that did not fit is taken back; the writer goes on from there.
    let before = w.bits_written();
    fleet(9).encode(&mut w).expect("a fleet encodes");
    w.truncate(before);
    assert_eq!(w.bits_written(), before);
    let bytes = w.into_bytes();
    assert_eq!(bytes.len() as u64, before.div_ceil(8));

    // A trailing byte is refused by `expect_end`.
    let mut longer = bytes.clone();
    longer.push(0);
    let mut r = BitReader::new(&longer);
    n::Fleet::decode(&mut r).expect("decodes");
    let e = r.expect_end().unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::TrailingBytes);
}

#[test]
fn a_byte_writer_and_its_reader_need_no_trait_import() {
    let mut w = ByteWriter::with_capacity(64);
    let now = fleet(2);
    idlc_runtime::Codec::<n::NAVAL_S2S>::encode_to(&now, &mut w).expect("encodes");
    let bits = w.bits_written();
    assert_eq!(bits % 8, 0);
    let packet = w.finish().to_vec();
    let mut r = ByteReader::new(&packet);
    let back: n::Fleet = idlc_runtime::Codec::<n::NAVAL_S2S>::decode_from(&mut r).expect("decodes");
    assert_eq!(back, now);
    assert_eq!((r.bits_read(), r.bits_remaining()), (bits, 0));
    r.finish().expect("a byte stream has no padding");
    r.expect_end().expect("nothing after the fleet");

    w.truncate(8);
    assert_eq!(w.bits_written(), 8);
    w.clear();
    assert_eq!(w.bits_written(), 0);
    assert!(w.capacity() >= 64);
    assert_eq!(w.into_bytes(), Vec::<u8>::new());
}
