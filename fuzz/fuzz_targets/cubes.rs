//! The code generated from the tumbling cubes' schema (src/dispatch.rs, `CUBES`): QUATERNION
//! under SMALLEST_THREE(9) in both streams and as four raw FLOAT32s. The first byte picks a
//! (module, encoding, type), the rest is decoded; what decodes must re-encode, decode again and
//! re-encode to the same bytes. Inputs that fail go to regressions/cubes/ (fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idlc_fuzz::dispatch::CUBES.run(data);
});
