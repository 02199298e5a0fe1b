//! The IR interpreter: encodes and decodes any struct, message or RPC parameter list of any
//! encoding straight from the IR, at run time, with no code generation.
//!
//! It is a consumer of the IR like codegen (and reads nothing else): for every wire rule it
//! makes the same `idlc-runtime` calls that generated code makes, so it writes the same bytes
//! and accepts and rejects the same inputs (ranges, enumerators, UTF-8, bounds, CHECK, the
//! nesting depth), returning errors and never panicking. The value is dynamic ([`Value`], JSON in
//! and out); errors name the field path (`Character.inventory[2].item_id`). A PUBLISHABLE_STRUCT
//! also has its delta form against a baseline ([`encode_delta`], [`decode_delta`]).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use idlc::interpret::{Value, decode, encode};
//! let fs = idlc::load::MemoryFs::new().with("a.idl", "STRUCT A { INT[0,119] a; BOOL b; }");
//! let inputs = idlc::Inputs { idl: vec!["a.idl".into()], ..Default::default() };
//! let ir = idlc::compile_with(&inputs, &fs)?.ir;
//! let value: Value = serde_json::from_str(r#"{"a": 17, "b": true}"#)?;
//! let bytes = encode(&ir, "Default", "A", &value)?;
//! assert_eq!(bytes, [0x91]);
//! assert_eq!(decode(&ir, "Default", "A", &bytes)?, value);
//! # Ok(())
//! # }
//! ```

mod carried;
mod decode;
mod delta;
mod diff;
mod encode;
pub mod explain;
mod packet;
mod quat;
pub mod sample;
mod value;

use std::fmt;

use idlc_runtime::{BitReader, BitWriter, ByteReader, ByteWriter, WireWrite};

use crate::ir::plan::{EncodingPlan, StructPlan};
use crate::ir::{Encoding, Ir, StructDef, Style};

/// How deep structs may nest, one inside the other, before the interpreter refuses a value (to
/// write) or an input (to read) instead of exhausting its stack: the runtime's limit counts only
/// recursive structs, but a chain of distinct ones can be as deep as a schema makes it.
const MAX_DEPTH: u32 = 256;

pub use carried::decode_carried;
pub use delta::{
    DiffSample, decode_delta, decode_delta_traced, encode_delta, encode_delta_sampled,
};
pub use packet::{decode_packet, decode_packet_answering};
pub use value::{Carried, Value, default_value, printable};

/// Why a value could not be encoded, and in which field.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodeError {
    /// The field path where it failed (`Character.inventory[2].item_id`).
    pub path: String,
    /// What went wrong.
    pub kind: EncodeErrorKind,
}

/// What went wrong while encoding.
#[derive(Debug, Clone, PartialEq)]
pub enum EncodeErrorKind {
    /// The runtime refused the value (out of range, NaN, too long, ...), as generated code would.
    Wire(idlc_runtime::EncodeError),
    /// The value does not have the field's type (a string for an integer, a missing field, an
    /// unknown enumerator name, ...).
    Shape(String),
    /// The encoding or type named is not in the IR.
    Schema(String),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            EncodeErrorKind::Wire(e) => write!(f, "`{}`: {}", self.path, e.kind),
            EncodeErrorKind::Shape(message) => write!(f, "`{}`: {message}", self.path),
            EncodeErrorKind::Schema(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Why bytes could not be decoded, and in which field.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// The field path being decoded when it failed.
    pub path: String,
    /// What went wrong.
    pub kind: DecodeErrorKind,
}

/// What went wrong while decoding.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeErrorKind {
    /// The bytes are malformed, as generated code would say (kind and bit offset).
    Wire(idlc_runtime::DecodeError),
    /// The encoding or type named is not in the IR.
    Schema(String),
}

impl DecodeError {
    /// The runtime's error, when the bytes were at fault.
    pub fn wire(&self) -> Option<&idlc_runtime::DecodeError> {
        match &self.kind {
            DecodeErrorKind::Wire(e) => Some(e),
            DecodeErrorKind::Schema(_) => None,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            DecodeErrorKind::Wire(e) => write!(
                f,
                "{} at bit {} in `{}`",
                e.kind.as_str(),
                e.bit_offset,
                self.path
            ),
            DecodeErrorKind::Schema(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Encodes `value` as the struct `type_name` in the encoding `encoding` (its full, non-delta
/// form: what generated `to_bytes_with` writes).
pub fn encode(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    value: &Value,
) -> Result<Vec<u8>, EncodeError> {
    let schema_error = |message: String| EncodeError {
        path: type_name.to_string(),
        kind: EncodeErrorKind::Schema(message),
    };
    let ctx = Context::new(ir, encoding, type_name).map_err(schema_error)?;
    match ctx.encoding.style {
        Style::Bitstream => {
            let mut w = BitWriter::new();
            encode::Encoder::new(&ctx).top(&mut w, type_name, value)?;
            Ok(w.into_bytes())
        }
        Style::Bytestream => {
            let mut w = ByteWriter::new();
            encode::Encoder::new(&ctx).top(&mut w, type_name, value)?;
            Ok(w.into_bytes())
        }
    }
}

/// Encodes `value` as the struct `type_name` into `w`, where it stands in a stream (a packet
/// item's body: ALIGN counts from the start of the stream, as generated `encode_to` writes).
/// `w` must be of the encoding's style.
pub fn encode_into<W: idlc_runtime::WireWrite>(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    value: &Value,
    w: &mut W,
) -> Result<(), EncodeError> {
    let ctx = Context::new(ir, encoding, type_name).map_err(|message| EncodeError {
        path: type_name.to_string(),
        kind: EncodeErrorKind::Schema(message),
    })?;
    encode::Encoder::new(&ctx).top(w, type_name, value)
}

/// Decodes the struct `type_name` of the encoding `encoding` from `bytes` (what generated
/// `from_bytes_with` reads; whatever follows the value is ignored, as there).
pub fn decode(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    bytes: &[u8],
) -> Result<Value, DecodeError> {
    decode_traced(ir, encoding, type_name, bytes, None)
}

/// [`decode`], recording every field read into `trace` (for `idlc decode --format explain`).
pub fn decode_traced(
    ir: &Ir,
    encoding: &str,
    type_name: &str,
    bytes: &[u8],
    trace: Option<&mut Vec<explain::Entry>>,
) -> Result<Value, DecodeError> {
    let ctx = Context::new(ir, encoding, type_name).map_err(|message| DecodeError {
        path: type_name.to_string(),
        kind: DecodeErrorKind::Schema(message),
    })?;
    match ctx.encoding.style {
        Style::Bitstream => {
            let mut r = BitReader::new(bytes);
            decode::Decoder::new(&ctx, trace).top(&mut r, type_name)
        }
        Style::Bytestream => {
            let mut r = ByteReader::new(bytes);
            decode::Decoder::new(&ctx, trace).top(&mut r, type_name)
        }
    }
}

/// What both directions need to know of one encoding.
pub(crate) struct Context<'a> {
    ir: &'a Ir,
    encoding: &'a Encoding,
    /// The encoding's wire plan: the steps every struct is read and written in.
    plan: &'a EncodingPlan,
}

impl<'a> Context<'a> {
    fn new(ir: &'a Ir, encoding: &str, type_name: &str) -> Result<Self, String> {
        let (Some(encoding_def), Some(plan)) = (ir.encodings.get(encoding), ir.plan(encoding))
        else {
            let known: Vec<&str> = ir.encodings.keys().map(String::as_str).collect();
            return Err(format!(
                "no encoding `{encoding}`; the encodings are: {}",
                known.join(", ")
            ));
        };
        if !ir.schema.structs.contains_key(type_name) {
            let known: Vec<&str> = ir.schema.structs.keys().map(String::as_str).collect();
            return Err(format!(
                "no struct, message or RPC `{type_name}`; the types are: {}",
                known.join(", ")
            ));
        }
        Ok(Context {
            ir,
            encoding: encoding_def,
            plan,
        })
    }

    /// The definition and plan of a struct.
    fn layout(&self, name: &str) -> Option<(&'a StructDef, &'a StructPlan)> {
        Some((
            self.ir.schema.structs.get(name)?,
            self.plan.structs.get(name)?,
        ))
    }
}

/// A writer's position, for errors raised by the interpreter itself.
fn shape_offset<W: WireWrite>(w: &W) -> u64 {
    w.bits_written()
}
