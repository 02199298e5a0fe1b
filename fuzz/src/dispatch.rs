//! The property of the schema targets, and the tables that pick what an input is decoded as.
//!
//! Shared, unchanged, by the fuzz crate (`src/lib.rs`, the targets in `fuzz_targets/`) and by
//! the bounded replay in `cargo test` (`tests/tests/fuzz_regressions.rs` includes this file
//! with `#[path]`). Both have the generated modules at their crate root under the same names
//! (`arena_client`, `edge`, `naval`, ...): the tables below name them as `crate::<module>`.
//!
//! An input is one selector byte, then the bytes to decode. The selector, modulo the number
//! of cases of the target, picks the case: a (module, encoding, type), in the order of the
//! table (encodings of a module in order, the types in order within each). Saved regressions
//! keep the selector below the number of cases; so that they keep testing what they tested,
//! new cases go at the END of a table, never in the middle.
//!
//! To fuzz another schema: generate it (tests/build.rs), re-export it (src/lib.rs), list it in a `target!`
//! below and in [`TARGETS`], and add a file to `fuzz_targets/` and a `[[bin]]` to Cargo.toml.

use std::any::type_name;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use idlc_runtime::{Codec, DecodeError, Encoding, from_bytes, to_bytes};

/// `bytes` in lowercase hex, two digits a byte, no separator.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Decodes `bytes` as a `T` in `E`; a panic of the decoder becomes a panic that says what was
/// decoded, from which bytes.
fn decode<E: Encoding, T: Codec<E>>(bytes: &[u8], stage: &str) -> Result<T, DecodeError> {
    catch_unwind(AssertUnwindSafe(|| from_bytes::<E, T>(bytes))).unwrap_or_else(|_| {
        panic!(
            "{} in {}: the decoder panicked on the {stage} {}",
            type_name::<T>(),
            E::NAME,
            hex(bytes)
        )
    })
}

/// The property: if `data` decodes as a `T` in `E`, the value re-encodes (the encoder never
/// refuses what the decoder accepted), those bytes decode, and that value re-encodes to the
/// same bytes (a fixed point after one round). Never panics on the decoder's behalf: a
/// violation, or a panic of the decoder, panics with the type, the encoding, the input in hex
/// and what failed. Returns whether `data` decoded.
pub fn check_roundtrip<E: Encoding, T: Codec<E> + Debug>(data: &[u8]) -> bool {
    let Ok(value) = decode::<E, T>(data, "input") else {
        return false;
    };
    let what = || format!("{} in {}: input {}", type_name::<T>(), E::NAME, hex(data));
    let bytes = to_bytes::<E, T>(&value).unwrap_or_else(|e| {
        panic!(
            "{}: decoded to {value:?}, which does not re-encode: {e}",
            what()
        )
    });
    let again = decode::<E, T>(&bytes, "re-encoded bytes").unwrap_or_else(|e| {
        panic!(
            "{}: decoded to {value:?}, re-encoded to {}, which does not decode: {e}",
            what(),
            hex(&bytes)
        )
    });
    let bytes_again = to_bytes::<E, T>(&again).unwrap_or_else(|e| {
        panic!(
            "{}: decoded to {value:?}, re-encoded to {}, which decodes to {again:?}, which \
             does not re-encode: {e}",
            what(),
            hex(&bytes)
        )
    });
    assert!(
        bytes_again == bytes,
        "{}: decoded to {value:?}, re-encoded to {}, which decodes to {again:?}, which \
         re-encodes to {}: not the same bytes",
        what(),
        hex(&bytes),
        hex(&bytes_again)
    );
    true
}

/// The encoding of `T::default()` in `E` (a valid input to start from); panics if it does not
/// encode.
pub fn default_bytes<E: Encoding, T: Codec<E> + Default>() -> Vec<u8> {
    to_bytes::<E, T>(&T::default()).unwrap_or_else(|e| {
        panic!(
            "{} in {}: the Default does not encode: {e}",
            type_name::<T>(),
            E::NAME
        )
    })
}

/// One (module, encoding, type) of a target.
pub struct Case {
    /// `module::Type in ENCODING`.
    pub name: &'static str,
    /// [`check_roundtrip`] of that type and encoding.
    pub check: fn(&[u8]) -> bool,
    /// [`default_bytes`] of that type and encoding.
    pub default_bytes: fn() -> Vec<u8>,
}

/// The cases of one fuzz target (one schema, every side and encoding generated from it).
pub struct Target {
    /// The target's name: its file in `fuzz_targets/`, its folder in `regressions/` and
    /// `seeds/`.
    pub name: &'static str,
    cases: fn() -> &'static [Case],
}

impl Target {
    /// The cases, in selector order.
    pub fn cases(&self) -> &'static [Case] {
        (self.cases)()
    }

    /// The case that `selector` picks.
    pub fn case(&self, selector: u8) -> &'static Case {
        let cases = self.cases();
        &cases[usize::from(selector) % cases.len()]
    }

    /// One input per case, in selector order: the selector, then the encoding of the type's
    /// Default (the seeds of `fuzz/seeds/<target>/`).
    pub fn seeds(&self) -> Vec<Vec<u8>> {
        self.cases()
            .iter()
            .enumerate()
            .map(|(selector, case)| {
                let mut input = vec![u8::try_from(selector).expect("at most 256 cases")];
                input.extend((case.default_bytes)());
                input
            })
            .collect()
    }

    /// Runs the property on one input: the first byte picks the case, the rest is decoded.
    /// Returns whether it decoded (an empty input does not).
    pub fn run(&self, data: &[u8]) -> bool {
        match data.split_first() {
            Some((&selector, rest)) => (self.case(selector).check)(rest),
            None => false,
        }
    }
}

/// Appends the cases of `$module`'s types `$ty` in `$enc`.
macro_rules! cases_of {
    ($cases:ident, $module:ident, $enc:ident, [$($ty:ident),+ $(,)?]) => {
        $cases.extend([
            $(
                Case {
                    name: concat!(
                        stringify!($module), "::", stringify!($ty), " in ", stringify!($enc)
                    ),
                    check: check_roundtrip::<crate::$module::$enc, crate::$module::$ty>,
                    default_bytes: default_bytes::<crate::$module::$enc, crate::$module::$ty>,
                },
            )+
        ]);
    };
}

/// A [`Target`]: for each generated module, its encodings × its types.
macro_rules! target {
    (
        $(#[$attr:meta])*
        $name:ident = $target:literal {
            $( $module:ident: [$($enc:ident),+ $(,)?] x $types:tt; )+
        }
    ) => {
        $(#[$attr])*
        pub static $name: Target = Target {
            name: $target,
            cases: {
                fn cases() -> &'static [Case] {
                    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
                    CASES.get_or_init(|| {
                        let mut cases = Vec::new();
                        $( $( cases_of!(cases, $module, $enc, $types); )+ )+
                        assert!(
                            (1..=256).contains(&cases.len()),
                            "{}: {} cases (one selector byte picks one of at most 256)",
                            $target,
                            cases.len()
                        );
                        cases
                    })
                }
                cases
            },
        };
    };
}

/// The arena's top-level types (MESSAGEs, PUBLISHABLE_STRUCTs, RPC parameter structs), then
/// the structs they contain (Vec3 is glam's on the Client side: reached through the others).
macro_rules! arena {
    ($($ty:ident),+) => {
        target! {
            /// schemas/arena.idl: S2C, S2CDebug and S2S, Client and Server side, and the
            /// built-in encoding.
            ARENA = "arena" {
                arena_client: [S2C, S2CDebug, S2S] x [$($ty),+];
                arena_server: [S2C, S2CDebug, S2S] x [$($ty),+];
                arena_builtin: [BuiltinEncoding] x [$($ty),+];
            }
        }
    };
}
arena!(
    PlayerState,
    ArenaState,
    Projectile,
    Item,
    Welcome,
    ChatBroadcast,
    KillFeed,
    LootDrop,
    VoiceFrame,
    MatchEnded,
    MatchReport,
    Join,
    Input,
    Fire,
    Say,
    Buy,
    ReportPlayer,
    Ping,
    JoinResult,
    PlayerResult,
    KillCredit,
    Squad
);

target! {
    /// schemas/edge.idl in edge.enc: corner cases (zero-bit fields, full 64-bit ranges,
    /// keywords as names, nesting, recursion, unusual rules, a byte stream).
    EDGE = "edge" {
        edge: [Odd, Bytes, SomeEncoding] x [
            Keywords, Extremes, Nesting, Node, Versioned, Everything, Empty, Box, Result,
            Nothing,
        ];
    }
}

target! {
    /// The seed's character.idl with schemas/item.idl: MYENCODING1, MYENCODING2 and
    /// MYENCODINGA, Client and Server side; the built-in encoding; character_v2.idl in
    /// MYENCODINGA extended.
    CHARACTER = "character" {
        character_client: [MYENCODING1, MYENCODING2, MYENCODINGA] x [Character, Item];
        character_server: [MYENCODING1, MYENCODING2, MYENCODINGA] x [Character, Item];
        character_builtin: [BuiltinEncoding] x [Character, Item];
        character_v2_client: [MYENCODINGA] x [Character, Item];
    }
}

target! {
    /// schemas/naval.idl in naval.enc (NAVAL, NAVAL_S2S): open-ended NUMERIC ranges under
    /// FIXED_POINT, DELTA, DEAD_RECKONING.
    NAVAL = "naval" {
        naval: [NAVAL, NAVAL_S2S] x [Turret, Ship, Fleet];
    }
}

target! {
    /// schemas/versions/squad_v1..3.idl in squad.enc (SquadBits, SquadBytes): a nested struct
    /// with FENCEs in three versions (open extensions inside extensions, EXTENDs of a range, a
    /// string, bytes and a sequence).
    VERSIONS = "versions" {
        squad_v1: [SquadBits, SquadBytes] x [Squad, Member];
        squad_v2: [SquadBits, SquadBytes] x [Squad, Member];
        squad_v3: [SquadBits, SquadBytes] x [Squad, Member];
    }
}

/// Every schema target.
pub static TARGETS: [&Target; 5] = [&ARENA, &EDGE, &CHARACTER, &NAVAL, &VERSIONS];
