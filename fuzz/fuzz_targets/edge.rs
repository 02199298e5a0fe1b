//! The code generated from the edge schema (src/dispatch.rs, `EDGE`): the first byte picks a
//! (module, encoding, type), the rest is decoded; what decodes must re-encode, decode again
//! and re-encode to the same bytes. Inputs that fail go to regressions/edge/ (fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idlc_fuzz::dispatch::EDGE.run(data);
});
