//! The property and dispatch of the schema targets ([`dispatch`], shared with
//! `tests/tests/fuzz_regressions.rs`), over the code idlc generates from every bundled schema:
//! the `idlc-tests` crate's modules (its build.rs generates them), re-exported at this crate's
//! root under their names, which the dispatch tables use as `crate::<module>`.

pub use idlc_tests::{
    arena_builtin, arena_client, arena_server, character_builtin, character_client,
    character_server, character_v2_client, cubes, cubes_builtin, edge, match_v2, naval, rover,
    squad_v1, squad_v2, squad_v3,
};

pub mod dispatch;
