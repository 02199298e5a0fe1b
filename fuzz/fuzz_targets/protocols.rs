//! Packets of every generated PROTOCOL receiver (src/dispatch.rs, `PROTOCOLS`): the first byte
//! picks a (module, encoding, protocol), the rest is a packet's payload (framed with the newest
//! version's CRC); what reads must write a packet that reads back and writes the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    idlc_fuzz::dispatch::PROTOCOLS.run(data);
});
