//! docs/TUTORIAL.md's program, compiled and run: the Rust blocks of its section "4. The program",
//! in order (tests/build.rs extracts them), with the modules its build.rs generates (here the
//! tests crate's `arena_udp_e1_client` / `arena_udp_e1_server`, built from the same schemas and
//! encodings). A server and a client on 127.0.0.1 play 30 ticks; `main` fails on any error.

include!(concat!(env!("OUT_DIR"), "/tutorial_main.rs"));
