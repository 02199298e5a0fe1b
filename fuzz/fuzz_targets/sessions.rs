//! Session endpoints fed hostile packets (src/dispatch.rs, `SESSIONS`): the first byte picks
//! the match's server or client endpoint, the rest is packets (a length byte, then the payload,
//! framed with the endpoint's session id); no packet panics and the endpoint never holds more
//! than its caps.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idlc_fuzz::dispatch::SESSIONS.run(data);
});
