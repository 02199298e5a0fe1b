//! The code generated from the naval schema (src/dispatch.rs, `NAVAL`): the first byte picks a
//! (module, encoding, type), the rest is decoded; what decodes must re-encode, decode again
//! and re-encode to the same bytes. Inputs that fail go to regressions/naval/ (fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idlc_fuzz::dispatch::NAVAL.run(data);
});
