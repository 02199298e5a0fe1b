//! The code that idlc generates from every bundled schema (build.rs), under the same module
//! names as in the `idlc-tests` crate, and the property and dispatch of the schema targets
//! ([`dispatch`], shared with `tests/tests/fuzz_regressions.rs`).

/// The user collections of the Server mappings: the test crate's own file (it names
/// `crate::character_server` and `crate::arena_server`, which this crate has too).
#[path = "../../tests/src/collections.rs"]
pub mod collections;

pub mod dispatch;

/// Character with the project's Item, Client side: MYENCODING1, MYENCODING2, MYENCODINGA.
pub mod character_client {
    idlc_runtime::include_generated!("character_client");
}

/// The same, Server side (f32 angle, a custom inventory collection).
pub mod character_server {
    use crate::collections::MyInventory;
    idlc_runtime::include_generated!("character_server");
}

/// Character v2 in MYENCODINGA extended.
pub mod character_v2_client {
    idlc_runtime::include_generated!("character_v2_client");
}

/// Character with the built-in defaults (no Encoding, no Mapping).
pub mod character_builtin {
    idlc_runtime::include_generated!("character_builtin");
}

/// The arena schema, Client side: S2C, S2CDebug and S2S.
pub mod arena_client {
    idlc_runtime::include_generated!("arena_client");
}

/// The arena schema, Server side.
pub mod arena_server {
    use crate::collections::ProjectilePool;
    idlc_runtime::include_generated!("arena_server");
}

/// The arena schema with the built-in defaults.
pub mod arena_builtin {
    idlc_runtime::include_generated!("arena_builtin");
}

/// Corner cases (schemas/edge.idl in edge.enc).
pub mod edge {
    idlc_runtime::include_generated!("edge");
}

/// The naval schema (schemas/naval.idl in naval.enc: NAVAL, NAVAL_S2S), no mapping.
pub mod naval {
    idlc_runtime::include_generated!("naval");
}
