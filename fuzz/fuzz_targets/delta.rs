//! Delta packets of every generated PUBLISHABLE_STRUCT (src/dispatch.rs, `DELTA`): the first
//! byte picks a (module, encoding, type), the next the length of the baseline's full encoding
//! that follows, the rest is the packet. What decodes against the baseline must re-encode
//! against it to a fixed point, and `decode_delta_into` must agree with `decode_delta`. Inputs
//! that fail go to regressions/delta/ (fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idlc_fuzz::dispatch::DELTA.run(data);
});
