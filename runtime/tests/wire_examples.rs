//! The worked examples of docs/WIRE_FORMAT.md, byte for byte.

use idlc_runtime::{
    BitReader, BitWriter, ByteReader, ByteWriter, WireRead, WireWrite, frame, packet_crc,
    protocol_hash, write_delta_sequence, write_fixed, write_huffman,
};

fn example<W: WireWrite>() -> Vec<u8> {
    let mut w = W::default();
    w.write_uint_ranged(17, 0, 119).unwrap();
    w.write_bool(true).unwrap();
    w.write_vlq(300, 7).unwrap();
    w.write_str("hi", Some(16)).unwrap();
    w.write_fixed_point(1.5, -10.0, 10.0, 0.01).unwrap();
    w.write_check().unwrap();
    w.into_bytes()
}

fn read_example<'a, R: WireRead<'a>>(r: &mut R) {
    assert_eq!(r.read_uint_ranged(0, 119), Ok(17));
    assert_eq!(r.read_bool(), Ok(true));
    assert_eq!(r.read_vlq(7), Ok(300));
    assert_eq!(r.read_str(Some(16)), Ok("hi"));
    assert_eq!(r.read_fixed_point(-10.0, 10.0, 0.01), Ok(1.5));
    assert_eq!(r.read_check(), Ok(()));
    assert_eq!(r.expect_end(), Ok(()));
}

#[test]
fn struct_example() {
    let bits = example::<BitWriter>();
    assert_eq!(
        bits,
        [
            0x91, 0xAC, 0x02, 0x02, 0x68, 0x69, 0x7E, 0xF4, 0x06, 0xE6, 0xE8, 0x00
        ]
    );
    read_example(&mut BitReader::new(&bits));
    let bytes = example::<ByteWriter>();
    assert_eq!(
        bytes,
        [
            0x11, 0x01, 0xAC, 0x02, 0x02, 0x68, 0x69, 0x7E, 0x04, 0xDE, 0xC0, 0x1C, 0x1D
        ]
    );
    read_example(&mut ByteReader::new(&bytes));
}

#[test]
fn small_examples() {
    let mut w = BitWriter::new();
    w.write_bits(0b101, 3).unwrap();
    w.write_bits(0x1F, 5).unwrap();
    w.write_bits(0b11, 2).unwrap();
    assert_eq!(w.into_bytes(), [0xFD, 0x03]);

    let mut w = BitWriter::new();
    w.write_vlq(300, 3).unwrap();
    assert_eq!(w.bits_written(), 12);
    assert_eq!(w.into_bytes(), [0xDC, 0x04]);

    let mut w = BitWriter::new();
    w.write_bits(1, 3).unwrap();
    w.write_extension(|w| w.write_bits(0x2A, 6)).unwrap();
    assert_eq!(w.into_bytes(), [0x69, 0xA0, 0x02]);

    let mut w = BitWriter::new();
    write_delta_sequence(
        &mut w,
        &vec![10u64, 20, 30, 40],
        &vec![10, 21, 30, 40, 50],
        |w, n| w.write_count(n, Some(15)),
        |x, base| Ok(x == base),
        |w, &x, _| w.write_bits(x, 8).map(|()| x),
    )
    .unwrap();
    assert_eq!(w.bits_written(), 34);
    assert_eq!(w.into_bytes(), [0x4B, 0x40, 0x54, 0xC8, 0x00]);

    let mut w = ByteWriter::new();
    write_fixed(&mut w, -2i16, -32768, 32767, 16, true).unwrap();
    assert_eq!(w.into_bytes(), [0xFE, 0xFF]);

    let mut w = BitWriter::new();
    write_huffman(&mut w, 2u8, &[(0b0, 1), (0b01, 2), (0b011, 3)]).unwrap();
    assert_eq!(w.bits_written(), 3);
    assert_eq!(w.into_bytes(), [0b011]); // stream bits 1, 1, 0

    assert_eq!(packet_crc(0, b""), 0x6522_DF69);
    let packet = frame(0x0123_4567_89AB_CDEF, &[1, 2]);
    assert_eq!(&packet[4..], &[1, 2]);
    assert_eq!(
        &packet[..4],
        &packet_crc(0x0123_4567_89AB_CDEF, &[1, 2]).to_le_bytes()
    );
    assert_eq!(protocol_hash(b""), 0xcbf2_9ce4_8422_2325);
}
