//! The code generated from the three squad versions (src/dispatch.rs, `VERSIONS`): nested
//! structs with FENCEs, read through open extensions. The first byte picks a (module,
//! encoding, type), the rest is decoded; what decodes must re-encode, decode again and re-encode
//! to the same bytes. Inputs that fail go to regressions/versions/ (fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idlc_fuzz::dispatch::VERSIONS.run(data);
});
