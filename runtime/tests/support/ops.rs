//! Primitive write operations with their expected read-back, for property tests and for the
//! fuzz corpus.

use idlc_runtime::{
    DecodeError, EncodeError, FixedPoint, WireRead, WireWrite, bits_required, zigzag_encode,
};

/// One primitive write, holding what is needed to check its read-back.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Bits(u64, u32),
    Bool(bool),
    UintRanged(u64, u64, u64),
    IntRanged(i64, i64, i64),
    Vlq(u64, u32),
    VlqSigned(i64, u32),
    /// Value, group bits, type bits (value fits the type).
    VlqWidth(u64, u32, u32),
    VlqRanged(i64, i64, i64, u32),
    F32(u32),
    F64(u64),
    /// Value, min, max, resolution (valid parameters, value in range).
    Fixed(f64, f64, f64, f64),
    Enum(u64, u64),
    Presence(bool),
    Align,
    Bytes(Vec<u8>, Option<u64>),
    Str(String, Option<u64>),
    Check,
    /// An extension holding `bits` bits of a value; `None` = absent.
    Extension(Option<(u64, u32)>),
}

impl Op {
    pub fn write<W: WireWrite>(&self, w: &mut W) -> Result<(), EncodeError> {
        match self {
            Op::Bits(v, n) => w.write_bits(*v, *n),
            Op::Bool(b) => w.write_bool(*b),
            Op::UintRanged(v, a, b) => w.write_uint_ranged(*v, *a, *b),
            Op::IntRanged(v, a, b) => w.write_int_ranged(*v, *a, *b),
            Op::Vlq(v, n) => w.write_vlq(*v, *n),
            Op::VlqSigned(v, n) => w.write_vlq_signed(*v, *n),
            Op::VlqWidth(v, n, _) => w.write_vlq(*v, *n),
            Op::VlqRanged(v, a, b, n) => w.write_vlq_ranged(*v, *a, *b, *n),
            Op::F32(bits) => w.write_f32(f32::from_bits(*bits)),
            Op::F64(bits) => w.write_f64(f64::from_bits(*bits)),
            Op::Fixed(v, a, b, r) => w.write_fixed_point(*v, *a, *b, *r),
            Op::Enum(i, c) => w.write_enum_index(*i, *c),
            Op::Presence(p) => w.write_presence(*p),
            Op::Align => w.align(),
            Op::Bytes(b, max) => w.write_bytes(b, *max),
            Op::Str(s, max) => w.write_str(s, *max),
            Op::Check => w.write_check(),
            Op::Extension(None) => w.write_bool(false),
            Op::Extension(Some((v, n))) => w.write_extension(|w| w.write_bits(*v, *n)),
        }
    }

    /// Reads the op back and compares; `Err(message)` on a mismatch.
    pub fn read_check<'a, R: WireRead<'a>>(&self, r: &mut R) -> Result<(), String> {
        let e = |e: DecodeError| format!("{self:?}: {e}");
        let ok = match self {
            Op::Bits(v, n) => r.read_bits(*n).map_err(e)? == *v,
            Op::Bool(b) => r.read_bool().map_err(e)? == *b,
            Op::UintRanged(v, a, b) => r.read_uint_ranged(*a, *b).map_err(e)? == *v,
            Op::IntRanged(v, a, b) => r.read_int_ranged(*a, *b).map_err(e)? == *v,
            Op::Vlq(v, n) => r.read_vlq(*n).map_err(e)? == *v,
            Op::VlqSigned(v, n) => r.read_vlq_signed(*n).map_err(e)? == *v,
            Op::VlqWidth(v, n, t) => r.read_vlq_width(*n, *t).map_err(e)? == *v,
            Op::VlqRanged(v, a, b, n) => r.read_vlq_ranged(*a, *b, *n).map_err(e)? == *v,
            Op::F32(bits) => r.read_f32().map_err(e)?.to_bits() == *bits,
            Op::F64(bits) => r.read_f64().map_err(e)?.to_bits() == *bits,
            Op::Fixed(v, a, b, res) => {
                let got = r.read_fixed_point(*a, *b, *res).map_err(e)?;
                let fp = FixedPoint::new(*a, *b, *res).ok_or("bad params")?;
                let expected = fp.round_trip(*v).map_err(|k| k.to_string())?;
                got.to_bits() == expected.to_bits() && within_half_step(*v, got, *a, *b, *res)
            }
            Op::Enum(i, c) => r.read_enum_index(*c).map_err(e)? == *i,
            Op::Presence(p) => r.read_presence().map_err(e)? == *p,
            Op::Align => r.align().is_ok(),
            Op::Bytes(b, max) => r.read_bytes(*max).map_err(e)? == &b[..],
            Op::Str(s, max) => r.read_str(*max).map_err(e)? == s,
            Op::Check => r.read_check().is_ok(),
            Op::Extension(x) => {
                r.read_extension(|r| r.read_bits(x.map_or(0, |(_, n)| n)))
                    .map_err(e)?
                    == x.map(|(v, _)| v)
            }
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{self:?} read back differently"))
        }
    }

    /// Bits this op takes in a BITSTREAM, where that is easy to say (None otherwise).
    pub fn bit_size(&self) -> Option<u64> {
        Some(match self {
            Op::Bits(_, n) => (*n).into(),
            Op::Bool(_) | Op::Presence(_) => 1,
            Op::UintRanged(_, a, b) => bits_required(*a, *b).into(),
            Op::Vlq(v, n) => idlc_runtime::vlq_bits(*v, *n),
            Op::VlqSigned(v, n) => idlc_runtime::vlq_bits(zigzag_encode(*v), *n),
            Op::F32(_) | Op::Check => 32,
            Op::F64(_) => 64,
            _ => return None,
        })
    }
}

/// The fixed-point error bound of WIRE.md: `|decoded - v| <= r / 2`, allowing for the rounding
/// of the f64 operations involved (a few ulps of the largest magnitude).
pub fn within_half_step(v: f64, decoded: f64, min: f64, max: f64, res: f64) -> bool {
    let magnitude = v.abs().max(min.abs()).max(max.abs()).max(decoded.abs());
    let slack = 8.0 * f64::EPSILON * magnitude;
    (decoded - v).abs() <= res / 2.0 + slack
}
