//! Feeds arbitrary bytes to every primitive reader of both streams, to a composite struct-like
//! decoder, and to `unframe`. The harness asserts the invariants (no panic, error offsets
//! within the input, decoded values re-encode to a fixed point, heap bounded by the input's
//! length); it is shared with the bounded test `runtime/tests/fuzz_decode.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../runtime/tests/support/harness.rs"]
mod harness;

fuzz_target!(|data: &[u8]| {
    let _ = harness::decode_everything(data);
});
