//! A serializer under test, seen the same way for every crate: encode one value into a writer
//! that is reused from message to message, decode one value from a message's bytes.

use std::ops::Range;

use crate::BenchError;
use crate::measure::Job;

/// One serializer on values of its own model type.
pub trait Format {
    /// The name in the tables.
    const NAME: &'static str;
    /// The values it encodes (its own model type).
    type Value;
    /// Encoder state reused from message to message (a buffer).
    type Writer: Default;
    /// Decoder state reused from message to message (often nothing).
    type Reader: Default;

    /// Encodes `value` as one message into `w`, replacing what `w` held, and returns the
    /// message's bytes.
    fn encode<'w>(w: &'w mut Self::Writer, value: &Self::Value) -> Result<&'w [u8], BenchError>;

    /// Decodes one message into an owned value (validated as far as the format validates).
    fn decode(r: &mut Self::Reader, bytes: &[u8]) -> Result<Self::Value, BenchError>;

    /// Decodes one message into `out`, a value reused from message to message, reusing the
    /// memory it owns where the crate has an API for that (idlc's `from_bytes_in_place`,
    /// prost's `clear` + `merge`); by default a new value replaces it.
    fn decode_into(
        r: &mut Self::Reader,
        bytes: &[u8],
        out: &mut Self::Value,
    ) -> Result<(), BenchError> {
        *out = Self::decode(r, bytes)?;
        Ok(())
    }
}

/// Messages stored back to back: the concatenated bytes and each message's range.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Encoded {
    bytes: Vec<u8>,
    spans: Vec<Range<usize>>,
}

impl Encoded {
    /// Appends one message.
    pub fn push(&mut self, message: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(message);
        self.spans.push(start..self.bytes.len());
    }

    /// The messages, in order.
    pub fn messages(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.spans.iter().map(|span| &self.bytes[span.clone()])
    }

    /// The concatenated messages.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there is no message.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The size of the concatenated messages compressed by zstd at level 3.
    pub fn zstd_len(&self) -> Result<usize, BenchError> {
        zstd::bulk::compress(&self.bytes, 3)
            .map(|c| c.len())
            .map_err(BenchError::with("zstd"))
    }
}

/// Encodes every value as its own message (outside the timed loops: the copies cost).
pub fn encode_all<F: Format>(values: &[F::Value]) -> Result<Encoded, BenchError> {
    let mut w = F::Writer::default();
    let mut out = Encoded::default();
    for value in values {
        out.push(F::encode(&mut w, value)?);
    }
    Ok(out)
}

/// Decodes every message of `encoded` and checks that the values equal `expected`, one by one.
pub fn verify<F: Format>(encoded: &Encoded, expected: &[F::Value]) -> Result<(), BenchError>
where
    F::Value: PartialEq + std::fmt::Debug,
{
    if encoded.len() != expected.len() {
        return Err(BenchError::new(format!(
            "{}: {} messages for {} values",
            F::NAME,
            encoded.len(),
            expected.len()
        )));
    }
    let mut r = F::Reader::default();
    for (i, (message, want)) in encoded.messages().zip(expected).enumerate() {
        let got = F::decode(&mut r, message)?;
        if &got != want {
            return Err(BenchError::new(format!(
                "{}: value {i} decodes to something else:\n{got:?}\ninstead of\n{want:?}",
                F::NAME
            )));
        }
    }
    Ok(())
}

/// [`verify`] through [`Format::decode_into`], every message into one reused value.
pub fn verify_into<F: Format>(encoded: &Encoded, expected: &[F::Value]) -> Result<(), BenchError>
where
    F::Value: PartialEq + std::fmt::Debug + Default,
{
    let mut r = F::Reader::default();
    let mut held = F::Value::default();
    for (i, (message, want)) in encoded.messages().zip(expected).enumerate() {
        F::decode_into(&mut r, message, &mut held)?;
        if &held != want {
            return Err(BenchError::new(format!(
                "{}: value {i} decodes into a reused value as something else",
                F::NAME
            )));
        }
    }
    Ok(())
}

/// Encodes `values` ([`encode_all`]) and checks that they decode to `expected` ([`verify`]).
pub fn prepare<F: Format>(values: &[F::Value], expected: &[F::Value]) -> Result<Encoded, BenchError>
where
    F::Value: PartialEq + std::fmt::Debug,
{
    let encoded = encode_all::<F>(values)?;
    verify::<F>(&encoded, expected)?;
    Ok(encoded)
}

/// Encodes every value into the one reused writer, as a server does per packet (what the timed
/// loops run); returns the total bytes.
pub fn encode_each<F: Format>(w: &mut F::Writer, values: &[F::Value]) -> usize {
    let mut total = 0;
    for value in values {
        if let Ok(bytes) = F::encode(w, std::hint::black_box(value)) {
            total += bytes.len();
        }
    }
    std::hint::black_box(total)
}

/// Decodes every message into an owned value and drops it (what the timed loops run); returns
/// how many decoded.
pub fn decode_each<F: Format>(r: &mut F::Reader, encoded: &Encoded) -> usize {
    let mut ok = 0;
    for message in encoded.messages() {
        if std::hint::black_box(F::decode(r, std::hint::black_box(message))).is_ok() {
            ok += 1;
        }
    }
    ok
}

/// Decodes every message into one reused value (what the timed loops of [`jobs_in_place`]
/// run); returns how many decoded.
pub fn decode_each_into<F: Format>(
    r: &mut F::Reader,
    encoded: &Encoded,
    held: &mut F::Value,
) -> usize {
    let mut ok = 0;
    for message in encoded.messages() {
        if F::decode_into(r, std::hint::black_box(message), held).is_ok() {
            ok += 1;
        }
        std::hint::black_box(&held);
    }
    ok
}

/// [`jobs`], then a third: decoding every message into one reused value
/// ([`decode_each_into`]).
pub fn jobs_in_place<'a, F: Format + 'a>(
    values: &'a [F::Value],
    encoded: &'a Encoded,
) -> [Job<'a>; 3]
where
    F::Value: Default,
{
    let [encode, decode] = jobs::<F>(values, encoded);
    let mut r = F::Reader::default();
    let mut held = F::Value::default();
    [
        encode,
        decode,
        Job::new(encoded.len(), move || {
            decode_each_into::<F>(&mut r, encoded, &mut held);
        }),
    ]
}

/// The timed jobs of one serializer: encoding every value ([`encode_each`]) and decoding every
/// message ([`decode_each`]), each with its own reused writer or reader.
pub fn jobs<'a, F: Format + 'a>(values: &'a [F::Value], encoded: &'a Encoded) -> [Job<'a>; 2] {
    let mut w = F::Writer::default();
    let mut r = F::Reader::default();
    [
        Job::new(values.len(), move || {
            encode_each::<F>(&mut w, values);
        }),
        Job::new(encoded.len(), move || {
            decode_each::<F>(&mut r, encoded);
        }),
    ]
}
