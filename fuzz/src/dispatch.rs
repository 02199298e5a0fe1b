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
//! [`PROTOCOLS`] fuzzes packets of every generated protocol receiver ([`check_packet`]); a new
//! protocol goes at the end of its table.

use std::any::type_name;
use std::fmt::Debug;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use std::time::Duration;

use idlc_runtime::{
    Answer, Codec, DecodeError, Delivery, DeliveryOf, DeltaCodec, DeltaContext, EncodeError,
    Encoding, Endpoint, ReaderOf, Refusal, SessionConfig, SessionMessage, SessionProtocol,
    WireRead, from_bytes, from_bytes_in_place, from_delta_bytes, session_id, to_bytes,
    to_delta_bytes,
};

/// `bytes` in lowercase hex, two digits a byte, no separator.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// A decoded value, its type and encoding erased: it re-encodes, and shows itself (`Debug`).
trait Decoded: Debug {
    /// The value encoded again, in the encoding it was decoded from.
    fn encode(&self) -> Result<Vec<u8>, EncodeError>;
    /// Decodes `bytes` into this value ([`Codec::decode_in_place_from`]).
    fn decode_in_place(&mut self, bytes: &[u8]) -> Result<(), DecodeError>;
}

/// A `T` decoded in `E`.
struct In<E, T>(T, PhantomData<E>);

impl<E, T: Debug> Debug for In<E, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: Encoding, T: Codec<E> + Debug> Decoded for In<E, T> {
    fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        to_bytes::<E, T>(&self.0)
    }
    fn decode_in_place(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        from_bytes_in_place::<E, T>(bytes, &mut self.0)
    }
}

/// [`decode`] of one type in one encoding, its generics erased.
type Decoder = fn(&[u8]) -> Result<Box<dyn Decoded>, DecodeError>;

/// The `Default` of one type in one encoding, its generics erased.
type Fresh = fn() -> Box<dyn Decoded>;

fn fresh<E: Encoding, T: Codec<E> + Debug + Default + 'static>() -> Box<dyn Decoded> {
    Box::new(In::<E, T>(T::default(), PhantomData))
}

/// Decodes `bytes` as a `T` in `E`: the thin generic end of [`check_roundtrip`], whose body is
/// compiled once, not once per (encoding, type) of the tables.
fn decode<E: Encoding, T: Codec<E> + Debug + 'static>(
    bytes: &[u8],
) -> Result<Box<dyn Decoded>, DecodeError> {
    from_bytes::<E, T>(bytes).map(|value| Box::new(In::<E, T>(value, PhantomData)) as _)
}

/// The property: if `data` decodes as a `T` in `E`, the value re-encodes (the encoder never
/// refuses what the decoder accepted), those bytes decode, and that value re-encodes to the
/// same bytes (a fixed point after one round). Never panics on the decoder's behalf: a
/// violation, or a panic of the decoder, panics with the type, the encoding, the input in hex
/// and what failed. Returns whether `data` decoded.
///
/// Decoding in place (`from_bytes_in_place`) agrees: into the `Default` (every element new)
/// and into the re-encoded bytes' value (every element kept), `data` gives the same error as
/// `from_bytes`, or a value that encodes to the same bytes.
pub fn check_roundtrip<E: Encoding, T: Codec<E> + Debug + Default + 'static>(data: &[u8]) -> bool {
    roundtrip(
        type_name::<T>(),
        E::NAME,
        decode::<E, T>,
        fresh::<E, T>,
        data,
    )
}

/// [`check_roundtrip`] of the type `type_name` in `encoding`, which `decode` decodes.
fn roundtrip(type_name: &str, encoding: &str, decode: Decoder, fresh: Fresh, data: &[u8]) -> bool {
    // Decoding in place, where a panic also says what was decoded.
    let in_place = |held: &mut Box<dyn Decoded>, stage: &str| {
        catch_unwind(AssertUnwindSafe(|| held.decode_in_place(data))).unwrap_or_else(|_| {
            panic!(
                "{type_name} in {encoding}: the in-place decoder panicked on the input {} \
                 ({stage})",
                hex(data)
            )
        })
    };
    let mut into_default = fresh();
    let default_verdict = in_place(&mut into_default, "into the Default");
    // A panic of the decoder becomes a panic that says what was decoded, from which bytes.
    let decode = |bytes: &[u8], stage: &str| {
        catch_unwind(AssertUnwindSafe(|| decode(bytes))).unwrap_or_else(|_| {
            panic!(
                "{type_name} in {encoding}: the decoder panicked on the {stage} {}",
                hex(bytes)
            )
        })
    };
    let value = match (decode(data, "input"), default_verdict) {
        (Ok(value), Ok(())) => value,
        (Err(fresh), Err(reused)) if fresh == reused => return false,
        (fresh, reused) => panic!(
            "{type_name} in {encoding}: input {}: from_bytes gives {:?}, decoding into the \
             Default {reused:?}",
            hex(data),
            fresh.map(|_| ())
        ),
    };
    let what = || format!("{type_name} in {encoding}: input {}", hex(data));
    let (bytes, mut again) = fixed_point(
        &what(),
        &value,
        |value| value.encode(),
        |bytes| decode(bytes, "re-encoded bytes"),
    );
    let into_again = in_place(&mut again, "into the value of the re-encoded bytes");
    for (held, how) in [(into_default, "the Default"), (again, "a decoded value")] {
        let held_bytes = held.encode();
        assert!(
            into_again.is_ok() && held_bytes.as_ref().is_ok_and(|b| *b == bytes),
            "{}: decoded to {value:?}, encoded {}; decoded in place into {how}: {into_again:?}, \
             {held:?}, which encodes to {held_bytes:?}",
            what(),
            hex(&bytes)
        );
    }
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
            Nothing, FloatEnds, F32Ends, F64Held, Roster, F32Arrays, BigArrays,
        ];
        // Added later: after every case above, so that saved selectors keep their case.
        edge: [Odd, Bytes, SomeEncoding] x [Drift, Gust, Spin];
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

/// The `elapsed` of every delta input's context (a quarter second: dead reckoning moves).
const DELTA_ELAPSED: f64 = 0.25;

/// A delta input: the baseline's length `n`, then `n` bytes of the baseline in full (its
/// Default when they do not decode), then the delta packet. Returns the baseline and the packet.
fn delta_input<E: Encoding, T: Codec<E> + Default>(data: &[u8]) -> (T, &[u8]) {
    let Some((&len, rest)) = data.split_first() else {
        return (T::default(), data);
    };
    let (baseline, packet) = rest.split_at(usize::from(len).min(rest.len()));
    (from_bytes::<E, T>(baseline).unwrap_or_default(), packet)
}

/// The delta cases whose delta form has a DEAD_RECKONING block (their own or a DELTA
/// SEQUENCE element's), by case name: dead reckoning sends a block only when a position strays
/// from the extrapolation, so a decoded velocity (or a position within the limit) may not be
/// sent again when the state is re-encoded.
const DEAD_RECKONING: &[&str] = &[
    "character_client::Character in MYENCODING2",
    "character_client::World in MYENCODING2",
    "character_server::Character in MYENCODING2",
    "character_server::World in MYENCODING2",
    "naval::Ship in NAVAL",
    "naval::Fleet in NAVAL",
    "naval::Ship in NAVAL_S2S",
    "naval::Fleet in NAVAL_S2S",
    "arena_client::PlayerState in S2C",
    "arena_client::Projectile in S2C",
    "arena_client::ArenaState in S2C",
    "arena_client::PlayerState in S2CDebug",
    "arena_server::PlayerState in S2C",
    "arena_server::Projectile in S2C",
    "arena_server::ArenaState in S2C",
    "arena_server::PlayerState in S2CDebug",
    "character_client::Character in MYENCODING2_DIFF",
    "rover::Rover in RoverBits",
    "rover::Fleet in RoverBits",
    "rover::Rover in RoverBytes",
    "rover::Fleet in RoverBytes",
    "cubes::Cube in CubesDr",
    "cubes::Cubes in CubesDr",
];

/// Whether the delta case `name` is exact: it has no dead reckoning ([`DEAD_RECKONING`]).
pub const fn exact(name: &str) -> bool {
    let mut i = 0;
    while i < DEAD_RECKONING.len() {
        let (a, b) = (DEAD_RECKONING[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return false;
            }
        }
        i += 1;
    }
    true
}

/// The property of the delta target: a packet decoded against a baseline (`decode_delta`)
/// re-encodes against it, those bytes decode to a value of the same full form (the delta
/// carried every change the packet did: a -0.0 against +0.0 too; with dead reckoning, `EXACT`
/// false, every change it must send: the value delta-coded against what it re-encoded to, with
/// no time elapsed, changes nothing of it), and that value re-encodes to the same bytes;
/// and `decode_delta_into`, into the Default, into a copy of the baseline and into the packet's
/// bytes read in full, gives the same error or a value that encodes to the same bytes. Never
/// panics on the decoder's behalf. Returns whether the packet decoded.
pub fn check_delta<E, T, const EXACT: bool>(data: &[u8]) -> bool
where
    E: Encoding,
    T: DeltaCodec<E> + Debug + Default + Clone + 'static,
{
    let (baseline, packet) = delta_input::<E, T>(data);
    let ctx = DeltaContext::new(DELTA_ELAPSED);
    let what = || {
        format!(
            "{} in {}: input {} (baseline {baseline:?})",
            type_name::<T>(),
            E::NAME,
            hex(data)
        )
    };
    let decoded = catch_unwind(AssertUnwindSafe(|| {
        from_delta_bytes::<E, T>(&baseline, &ctx, packet)
    }))
    .unwrap_or_else(|_| panic!("{}: the delta decoder panicked", what()));
    // Values compare by their encoding: a raw float may be a NaN.
    let full = |value: &T| to_bytes::<E, T>(value);
    let expected = decoded.as_ref().map(full).map_err(Clone::clone);
    // Whatever the state held before must not matter: the packet's bytes read in full give a
    // state unlike the baseline.
    let unlike = from_bytes::<E, T>(packet).unwrap_or_default();
    let states = [
        (T::default(), "the Default"),
        (baseline.clone(), "the baseline"),
        (unlike, "the packet read in full"),
    ];
    for (mut held, into) in states {
        let verdict = catch_unwind(AssertUnwindSafe(|| {
            let mut r = ReaderOf::<E>::from_bytes(packet);
            T::decode_delta_into(&baseline, &ctx, &mut r, &mut held)
        }))
        .unwrap_or_else(|_| panic!("{}: decode_delta_into {into} panicked", what()));
        let got = verdict.map(|()| full(&held));
        assert!(
            got == expected,
            "{}: decode_delta gives {expected:?}, decode_delta_into {into} {got:?}",
            what()
        );
    }
    let Ok(value) = decoded else {
        return false;
    };
    let encode = |value: &T| to_delta_bytes::<E, T>(value, &baseline, &ctx);
    let decode = |bytes: &[u8]| from_delta_bytes::<E, T>(&baseline, &ctx, bytes);
    let (bytes, again) = if EXACT {
        fixed_point(&what(), &value, encode, decode)
    } else {
        // With dead reckoning a DELTA SEQUENCE may list an element whose delta sends nothing
        // the first time and not list it the second: the state, not the bytes, is the fixed
        // point.
        let (bytes, again) = round_trip(&what(), &value, encode, decode);
        let (_, third) = round_trip(&what(), &again, encode, decode);
        assert!(
            full(&third) == full(&again),
            "{}: decoded to {value:?}, re-encoded to {}, which decodes to {again:?}, which \
             re-encodes and decodes to {third:?}: not the same state",
            what(),
            hex(&bytes)
        );
        (bytes, again)
    };
    let (was, is) = (full(&value), full(&again));
    // With dead reckoning, what the re-encoding left out changes nothing when sent again (a
    // DELTA SEQUENCE may list an element whose delta then sends nothing).
    let only_dead_reckoning_left = || {
        let now = DeltaContext::default();
        let Ok(bytes) = to_delta_bytes::<E, T>(&value, &again, &now) else {
            return false;
        };
        from_delta_bytes::<E, T>(&again, &now, &bytes)
            .is_ok_and(|state| full(&state) == full(&again))
    };
    assert!(
        was == is || (!EXACT && only_dead_reckoning_left()),
        "{}: decoded to {value:?} (in full {was:02x?}), re-encoded against the baseline to {}, \
         which decodes to {again:?} (in full {is:02x?}): a change was lost",
        what(),
        hex(&bytes)
    );
    true
}

/// `value` (decoded from the input `what` names) encoded and decoded, or a panic that says
/// which step failed. Returns the bytes and the value they decode to.
fn round_trip<V: Debug>(
    what: &str,
    value: &V,
    encode: impl Fn(&V) -> Result<Vec<u8>, EncodeError>,
    decode: impl Fn(&[u8]) -> Result<V, DecodeError>,
) -> (Vec<u8>, V) {
    let bytes = encode(value)
        .unwrap_or_else(|e| panic!("{what}: decoded to {value:?}, which does not re-encode: {e}"));
    let again = decode(&bytes).unwrap_or_else(|e| {
        panic!(
            "{what}: decoded to {value:?}, re-encoded to {}, which does not decode: {e}",
            hex(&bytes)
        )
    });
    (bytes, again)
}

/// `value` (decoded from the input `what` names) encoded, decoded and encoded again: the same
/// bytes both times (a fixed point after one round), or a panic that says which step failed.
/// Returns the bytes and the value they decode to.
fn fixed_point<V: Debug>(
    what: &str,
    value: &V,
    encode: impl Fn(&V) -> Result<Vec<u8>, EncodeError>,
    decode: impl Fn(&[u8]) -> Result<V, DecodeError>,
) -> (Vec<u8>, V) {
    let (bytes, again) = round_trip(what, value, &encode, decode);
    let bytes_again = encode(&again).unwrap_or_else(|e| {
        panic!(
            "{what}: decoded to {value:?}, re-encoded to {}, which decodes to {again:?}, which \
             does not re-encode: {e}",
            hex(&bytes)
        )
    });
    assert!(
        bytes_again == bytes,
        "{what}: decoded to {value:?}, re-encoded to {}, which decodes to {again:?}, which \
         re-encodes to {}: not the same bytes",
        hex(&bytes),
        hex(&bytes_again)
    );
    (bytes, again)
}

/// A valid delta input of `T` in `E`: its Default as the baseline, and the delta of the
/// Default against it.
pub fn delta_seed<E: Encoding, T: DeltaCodec<E> + Default>() -> Vec<u8> {
    let baseline = default_bytes::<E, T>();
    let packet = to_delta_bytes::<E, T>(&T::default(), &T::default(), &DeltaContext::default())
        .unwrap_or_else(|e| {
            panic!(
                "{} in {}: no delta of the Default: {e}",
                type_name::<T>(),
                E::NAME
            )
        });
    let len = u8::try_from(baseline.len()).expect("a Default of at most 255 bytes");
    let mut input = vec![len];
    input.extend(baseline);
    input.extend(packet);
    input
}

/// Appends the delta cases of `$module`'s PUBLISHABLE_STRUCTs `$ty` in the encodings `$enc`.
macro_rules! delta_cases {
    ($cases:ident, $module:ident: [$($enc:ident),+] x $types:tt) => {
        $( delta_cases!(@in $cases, $module, $enc, $types); )+
    };
    (@in $cases:ident, $module:ident, $enc:ident, [$($ty:ident),+ $(,)?]) => {
        $cases.extend([
            $(
                Case {
                    name: concat!(
                        stringify!($module), "::", stringify!($ty), " in ",
                        stringify!($enc)
                    ),
                    check: check_delta::<
                        crate::$module::$enc,
                        crate::$module::$ty,
                        {
                            exact(concat!(
                                stringify!($module), "::", stringify!($ty), " in ",
                                stringify!($enc)
                            ))
                        },
                    >,
                    default_bytes: delta_seed::<crate::$module::$enc, crate::$module::$ty>,
                },
            )+
        ]);
    };
}

/// Delta packets of every generated PUBLISHABLE_STRUCT ([`check_delta`]): an input is the
/// selector, the baseline's length and full encoding, then the packet.
pub static DELTA: Target = Target {
    name: "delta",
    cases: {
        fn cases() -> &'static [Case] {
            static CASES: OnceLock<Vec<Case>> = OnceLock::new();
            CASES.get_or_init(|| {
                let mut cases = Vec::new();
                delta_cases!(cases, character_client: [MYENCODING1, MYENCODING2, MYENCODINGA] x [Character, Item, World]);
                delta_cases!(cases, character_server: [MYENCODING1, MYENCODING2, MYENCODINGA] x [Character, Item, World]);
                delta_cases!(cases, naval: [NAVAL, NAVAL_S2S] x [Turret, Ship, Fleet]);
                delta_cases!(cases, arena_client: [S2C, S2CDebug, S2S] x [PlayerState, Projectile, ArenaState]);
                // Every other PUBLISHABLE_STRUCT of the bundled schemas, and the other sides.
                delta_cases!(cases, edge: [Odd, Bytes, SomeEncoding] x [Roster, Drift]);
                delta_cases!(cases, character_v2_client: [MYENCODINGA] x [Character, Item]);
                delta_cases!(cases, arena_server: [S2C, S2CDebug, S2S] x [PlayerState, Projectile, ArenaState]);
                delta_cases!(cases, arena_builtin: [BuiltinEncoding] x [PlayerState, Projectile, ArenaState]);
                delta_cases!(cases, character_builtin: [BuiltinEncoding] x [Character, Item]);
                // DIFF: the seed encodings with tiers, and every rule with steps in both streams.
                delta_cases!(cases, character_client: [MYENCODING1_DIFF, MYENCODING2_DIFF] x [Character, Item, World]);
                delta_cases!(cases, rover: [RoverBits, RoverBytes] x [Rover, Fleet]);
                // QUATERNION: SMALLEST_THREE(9), its DIFF form, and four raw FLOAT32s.
                delta_cases!(cases, cubes: [CubesBits, CubesBytes, CubesDiff, CubesDiffBytes, CubesDr] x [Cube, Cubes]);
                delta_cases!(cases, cubes_builtin: [BuiltinEncoding] x [Cube, Cubes]);
                cases
            })
        }
        cases
    },
};

/// The property for packets of a protocol (its newest version in `E`): if `payload`, framed,
/// reads as items of `M` (every item decodes; unknown ids are skipped), the known items written
/// into a new packet read back as items that write the very same packet (a fixed point after one
/// round). Panics with the input in hex on a violation or a panic of the reader.
pub fn check_packet<E, P, M>(payload: &[u8]) -> bool
where
    E: Encoding,
    P: idlc_runtime::Protocol<E>,
    M: idlc_runtime::Messages<E> + Debug,
{
    let version = P::VERSIONS.last().copied().unwrap_or_default();
    let what = || {
        format!(
            "{} in {}: payload {}",
            type_name::<M>(),
            E::NAME,
            hex(payload)
        )
    };
    let read = |packet: &[u8], stage: &str| -> Result<Vec<M>, DecodeError> {
        catch_unwind(AssertUnwindSafe(|| {
            let mut known = Vec::new();
            idlc_runtime::read_packet::<E, M>(version, packet, |item| {
                if let idlc_runtime::Incoming::Known(message) = item {
                    known.push(message);
                }
            })
            .map(|_| known)
        }))
        .unwrap_or_else(|_| panic!("{}: the packet reader panicked on the {stage}", what()))
    };
    let write = |messages: &[M]| -> Vec<u8> {
        let mut packet = idlc_runtime::PacketWriter::<E>::new(version);
        for message in messages {
            message.encode_item(&mut packet).unwrap_or_else(|e| {
                panic!("{}: {message:?} was read but does not write: {e}", what())
            });
        }
        packet.finish().to_vec()
    };
    let Ok(first) = read(&idlc_runtime::frame(version, payload), "input") else {
        return false;
    };
    let bytes = write(&first);
    let again = read(&bytes, "re-written packet").unwrap_or_else(|e| {
        panic!(
            "{}: read {first:?}, re-written as {}, which does not read: {e}",
            what(),
            hex(&bytes)
        )
    });
    let bytes_again = write(&again);
    assert!(
        bytes_again == bytes,
        "{}: read {first:?}, re-written as {}, read as {again:?}, re-written as {}: not the same",
        what(),
        hex(&bytes),
        hex(&bytes_again)
    );
    true
}

/// The payload of a packet of the newest version of `P` in `E` holding what `fill` adds.
fn packet_seed<E, P>(fill: impl FnOnce(&mut idlc_runtime::PacketWriter<E>)) -> Vec<u8>
where
    E: Encoding,
    P: idlc_runtime::Protocol<E>,
{
    let version = P::VERSIONS.last().copied().unwrap_or_default();
    let mut packet = idlc_runtime::PacketWriter::<E>::new(version);
    fill(&mut packet);
    let framed = packet.finish().to_vec();
    idlc_runtime::unframe(version, &framed)
        .expect("a packet just framed")
        .to_vec()
}

/// A packet case: `$module`'s `$message` enum of protocol `$protocol` in `$enc`, seeded with one
/// item per listed (id, struct) pair, each the struct's Default as a plain message or a request.
macro_rules! packet_case {
    ($module:ident, $enc:ident, $protocol:ident, $message:ident, [$($id:ident: $ty:ident $(($request:literal))?),* $(,)?]) => {
        Case {
            name: concat!(
                stringify!($module), "::", stringify!($message), " in ", stringify!($enc)
            ),
            check: check_packet::<
                crate::$module::$enc,
                crate::$module::$protocol,
                crate::$module::$message,
            >,
            default_bytes: || {
                packet_seed::<crate::$module::$enc, crate::$module::$protocol>(|packet| {
                    $(
                        let kind = packet_case!(@kind $($request)?);
                        packet
                            .push(crate::$module::$protocol::$id, kind, |w| {
                                Codec::<crate::$module::$enc>::encode_to(
                                    &crate::$module::$ty::default(),
                                    w,
                                )
                            })
                            .expect("a Default message is sent");
                    )*
                })
            },
        }
    };
    (@kind) => { idlc_runtime::ItemKind::Message };
    (@kind $request:literal) => { idlc_runtime::ItemKind::Request($request) };
}

/// The packets of every generated PROTOCOL receiver: the arena's three protocols on the side
/// that receives them, in each encoding; the squad protocol in three versions; edge's.
pub static PROTOCOLS: Target = Target {
    name: "protocols",
    cases: {
        fn cases() -> &'static [Case] {
            static CASES: OnceLock<Vec<Case>> = OnceLock::new();
            CASES.get_or_init(|| {
                macro_rules! arena {
                    ($($enc:ident),+) => {
                        vec![$(
                            packet_case!(arena_client, $enc, ArenaServerToClient, ArenaServerToClientMessage, [
                                WELCOME: Welcome, CHAT_BROADCAST: ChatBroadcast, KILL_FEED: KillFeed,
                                LOOT_DROP: LootDrop, VOICE_FRAME: VoiceFrame, MATCH_ENDED: MatchEnded,
                            ]),
                            packet_case!(arena_server, $enc, ArenaClientToServer, ArenaClientToServerMessage, [
                                JOIN: Join(1), INPUT: Input, FIRE: Fire, SAY: Say, BUY: Buy(2),
                                REPORT_PLAYER: ReportPlayer,
                            ]),
                            packet_case!(arena_client, $enc, ArenaPing, ArenaPingMessage, [PING: Ping(3)]),
                        )+]
                    };
                }
                let mut cases = arena!(S2C, S2CDebug, S2S);
                macro_rules! squad {
                    ($($module:ident),+) => {
                        $(
                            cases.push(packet_case!($module, SquadBits, SquadOps, SquadOpsMessage, [
                                SQUAD_UPDATE: SquadUpdate, RENAME: Rename(0),
                            ]));
                            cases.push(packet_case!($module, SquadBytes, SquadOps, SquadOpsMessage, [
                                SQUAD_UPDATE: SquadUpdate, RENAME: Rename(0),
                            ]));
                        )+
                    };
                }
                squad!(squad_v1, squad_v2, squad_v3);
                for enc in 0..3 {
                    cases.push(match enc {
                        0 => packet_case!(edge, Odd, Edges, EdgesMessage, [NOTHING: Nothing, EVERYTHING: Everything(9)]),
                        1 => packet_case!(edge, Bytes, Edges, EdgesMessage, [NOTHING: Nothing, EVERYTHING: Everything(9)]),
                        _ => packet_case!(edge, SomeEncoding, Edges, EdgesMessage, [NOTHING: Nothing, EVERYTHING: Everything(9)]),
                    });
                }
                cases
            })
        }
        cases
    },
};

/// The caps a session fuzz case runs with: small, so that hostile input reaches them.
fn session_config() -> SessionConfig {
    SessionConfig {
        kept_baselines: 4,
        pending_requests: 4,
        cached_answers: 4,
        queued_reliable: 8,
        queued_messages: 8,
        resend_after: 2,
        ..SessionConfig::default()
    }
}

/// The payloads of a session input: each a length byte, then that many bytes (fewer at the end).
fn session_payloads(mut data: &[u8]) -> Vec<&[u8]> {
    let mut payloads = Vec::new();
    while let Some((&len, rest)) = data.split_first() {
        let (payload, rest) = rest.split_at(usize::from(len).min(rest.len()));
        payloads.push(payload);
        data = rest;
    }
    payloads
}

/// The property for an endpoint fed hostile packets: each payload of `data`
/// ([`session_payloads`]) is framed with the session id of the newest version of `In` (so the
/// input reaches the session header and the items) and received; before each, `tick` queues
/// the side's own traffic for that step, and after each the endpoint flushes. No packet
/// panics, and the endpoint never holds more than its caps. Returns whether a packet was
/// accepted.
pub fn check_session<E, Out, In>(
    data: &[u8],
    mut tick: impl FnMut(&mut Endpoint<E, Out, In>, u32),
    mut answer: impl FnMut(
        DeliveryOf<E, Out, In>,
    ) -> Answer<
        <In as SessionProtocol<E>>::Response,
        <In as SessionProtocol<E>>::Message,
    >,
) -> bool
where
    E: Encoding,
    Out: SessionProtocol<E>,
    In: SessionProtocol<E>,
{
    let config = session_config();
    let framing = session_id(In::VERSIONS.last().copied().unwrap_or_default());
    let mut endpoint = Endpoint::<E, Out, In>::newest(config.clone());
    let mut accepted = false;
    for (step, payload) in (1u32..).zip(session_payloads(data)) {
        let now = Duration::from_millis(u64::from(step) * 33);
        let packet = idlc_runtime::frame(framing, payload);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            tick(&mut endpoint, step);
            let received = endpoint.receive(now, &packet, &mut answer).is_ok();
            // Deferred requests: one in two refused through its token, the other dropped (the
            // endpoint refuses it by itself at the flush).
            for (token, _) in endpoint.take_deferred() {
                if token.request() % 2 == 1 {
                    let _ = endpoint.refuse(token, Refusal::new(step, "later"));
                }
            }
            endpoint.flush(now);
            received
        }));
        let Ok(received) = outcome else {
            panic!(
                "{} <- {}: the endpoint panicked at packet {step}: input {}",
                type_name::<Out>(),
                type_name::<In>(),
                hex(data)
            );
        };
        accepted |= received;
        let usage = endpoint.usage();
        let within = usage.mirrors <= config.kept_baselines
            && usage.states <= config.kept_baselines
            && usage.pending_requests <= config.pending_requests
            && usage.cached_answers <= config.cached_answers
            && usage.queued_reliable <= config.queued_reliable
            && usage.waiting_reliable <= config.queued_reliable
            && usage.queued_messages <= config.queued_messages
            && usage.handled_requests <= config.pending_requests
            && usage.deferred_answers == 0;
        assert!(
            within,
            "{} <- {}: {usage:?} beyond the caps after packet {step}: input {}",
            type_name::<Out>(),
            type_name::<In>(),
            hex(data)
        );
    }
    accepted
}

/// The match's World of `step` (schemas/versions/match_v2.idl): units that move and come and go.
fn match_world(step: u32) -> crate::match_v2::World {
    let count = 1 + step % 4;
    crate::match_v2::World {
        tick: step,
        units: (0..count)
            .map(|i| crate::match_v2::Unit {
                id: i as u16,
                x: ((step * (i + 3)) % 2000) as i16 - 1000,
                y: (step % 7) as i16,
                hp: (step % 101) as u8,
            })
            .collect(),
    }
}

/// What the match's server queues each step: a snapshot, now and then a chat line (reliable)
/// and a ping (a request), each through `wrap` (a link endpoint's message, or itself).
fn match_server_sends<E: Encoding, Out: SessionProtocol<E>, In: SessionProtocol<E>>(
    endpoint: &mut Endpoint<E, Out, In>,
    step: u32,
    wrap: impl Fn(crate::match_v2::MatchServerMessage) -> Out::Message,
) {
    use crate::match_v2::{Chat, MatchServerMessage, Ping, Snapshot};
    let snapshot = MatchServerMessage::Snapshot(Snapshot {
        world: match_world(step),
    });
    let _ = endpoint.send_snapshot(step, wrap(snapshot));
    if step.is_multiple_of(3) {
        let chat = Chat {
            line: step,
            text: "gg".into(),
        };
        let _ = endpoint.send_reliable(wrap(MatchServerMessage::Chat(chat)));
    }
    if step.is_multiple_of(4) {
        let call = Ping { nonce: step };
        let _ = endpoint.send(wrap(MatchServerMessage::Ping { request: 0, call }));
    }
}

/// What the match's client queues each step: an input, now and then a `buy` and an `emote`,
/// each through `wrap`.
fn match_client_sends<E: Encoding, Out: SessionProtocol<E>, In: SessionProtocol<E>>(
    endpoint: &mut Endpoint<E, Out, In>,
    step: u32,
    wrap: impl Fn(crate::match_v2::MatchClientMessage) -> Out::Message,
) {
    use crate::match_v2::{Buy, Emote, Input, MatchClientMessage};
    let input = Input {
        seq: step,
        dx: (step % 21) as i8 - 10,
    };
    let _ = endpoint.send(wrap(MatchClientMessage::Input(input)));
    if step.is_multiple_of(3) {
        let call = Buy {
            call: step,
            item: 2,
        };
        let _ = endpoint.send(wrap(MatchClientMessage::Buy { request: 0, call }));
    }
    if step.is_multiple_of(5) {
        let call = Emote { kind: 1 };
        let _ = endpoint.send(wrap(MatchClientMessage::Emote { request: 0, call }));
    }
}

fn match_server_tick(endpoint: &mut MatchServerEndpoint, step: u32) {
    match_server_sends(endpoint, step, |m| m);
}

fn match_client_tick(endpoint: &mut MatchClientEndpoint, step: u32) {
    match_client_sends(endpoint, step, |m| m);
}

/// What a match link endpoint queues each step (schemas/versions/match_v2.idl has no side, so
/// its link is both protocols both ways): the server's traffic and the client's.
fn match_link_tick(endpoint: &mut MatchLinkEndpoint, step: u32) {
    use crate::match_v2::LinkSendsMessage;
    match_server_sends(endpoint, step, LinkSendsMessage::MatchServer);
    match_client_sends(endpoint, step, LinkSendsMessage::MatchClient);
}

/// The match's server endpoint: it sends MatchServer and receives MatchClient.
type MatchServerEndpoint = Endpoint<
    crate::match_v2::DefaultEncoding,
    crate::match_v2::MatchServer,
    crate::match_v2::MatchClient,
>;
/// The match's client endpoint: it sends MatchClient and receives MatchServer.
type MatchClientEndpoint = Endpoint<
    crate::match_v2::DefaultEncoding,
    crate::match_v2::MatchClient,
    crate::match_v2::MatchServer,
>;

/// A match endpoint over its link (`LinkEndpoint`: MatchServer and MatchClient each way).
type MatchLinkEndpoint = crate::match_v2::LinkEndpoint;

/// The server's answers: every call handled by the generated `handle`.
struct MatchAnswers;

impl crate::match_v2::MatchClientHandler for MatchAnswers {
    fn input(&mut self, _message: crate::match_v2::Input) {}
    fn buy(&mut self, call: crate::match_v2::Buy) -> u32 {
        call.call
    }
    fn emote(&mut self, call: crate::match_v2::Emote) -> bool {
        call.kind == 1
    }
}

impl crate::match_v2::MatchServerHandler for MatchAnswers {
    fn snapshot(&mut self, _message: crate::match_v2::Snapshot) {}
    fn chat(&mut self, _message: crate::match_v2::Chat) {}
    fn ping(&mut self, call: crate::match_v2::Ping) -> u32 {
        call.nonce
    }
}

/// How a side answers the request `m`: at once by `handle`, or refused, or later (one in
/// three each, by its request id).
fn answer_in_turn<R, M: SessionMessage<crate::match_v2::DefaultEncoding>>(
    m: M,
    handle: impl FnOnce(M) -> Option<R>,
) -> Answer<R, M> {
    match m.request().map(|r| r % 3) {
        Some(1) => Answer::Refuse(Refusal::new(7, "not now")),
        Some(2) => Answer::Later(m),
        _ => handle(m).into(),
    }
}

/// What the match's server does with a client's delivery: its calls handled by the generated
/// `handle`, refused or deferred in turn ([`answer_in_turn`]).
fn server_answers(
    delivery: DeliveryOf<
        crate::match_v2::DefaultEncoding,
        crate::match_v2::MatchServer,
        crate::match_v2::MatchClient,
    >,
) -> Answer<crate::match_v2::MatchClientResponse, crate::match_v2::MatchClientMessage> {
    match delivery {
        Delivery::Message(m) => m.handle(&mut MatchAnswers).into(),
        Delivery::Request(m) => answer_in_turn(m, |m| m.handle(&mut MatchAnswers)),
        _ => Answer::None,
    }
}

/// What the match's client does with the server's delivery: as [`server_answers`].
fn client_answers(
    delivery: DeliveryOf<
        crate::match_v2::DefaultEncoding,
        crate::match_v2::MatchClient,
        crate::match_v2::MatchServer,
    >,
) -> Answer<crate::match_v2::MatchServerResponse, crate::match_v2::MatchServerMessage> {
    match delivery {
        Delivery::Message(m) => m.handle(&mut MatchAnswers).into(),
        Delivery::Request(m) => answer_in_turn(m, |m| m.handle(&mut MatchAnswers)),
        _ => Answer::None,
    }
}

/// What a match link endpoint does with its peer's delivery: the link's `handle`, both
/// protocols' calls.
fn link_answers(
    delivery: DeliveryOf<
        crate::match_v2::DefaultEncoding,
        crate::match_v2::LinkSends,
        crate::match_v2::LinkReceives,
    >,
) -> Answer<crate::match_v2::LinkReceivesResponse, crate::match_v2::LinkReceivesMessage> {
    match delivery {
        Delivery::Message(m) => m.handle(&mut MatchAnswers).into(),
        Delivery::Request(m) => answer_in_turn(m, |m| m.handle(&mut MatchAnswers)),
        _ => Answer::None,
    }
}

/// A match link endpoint fed hostile packets of a link peer.
fn check_match_link(data: &[u8]) -> bool {
    check_session(data, match_link_tick, link_answers)
}

/// The match's server endpoint fed hostile client packets.
fn check_match_server(data: &[u8]) -> bool {
    check_session(data, match_server_tick, server_answers)
}

/// The match's client endpoint fed hostile server packets (snapshot deltas among them).
fn check_match_client(data: &[u8]) -> bool {
    check_session(data, match_client_tick, client_answers)
}

/// A session input of `steps` steps: the payloads a real peer sent to an endpoint that ran as
/// [`check_session`] runs it (its traffic queued, the packet received, a flush, each step), so
/// that the seed replays a real exchange, deltas against acknowledged snapshots included.
/// `target_is_server` picks which endpoint the input is for.
fn match_seed(target_is_server: bool, steps: u32) -> Vec<u8> {
    let server = MatchServerEndpoint::newest(session_config());
    let client = MatchClientEndpoint::newest(session_config());
    let server = (server, match_server_tick, server_answers);
    let client = (client, match_client_tick, client_answers);
    if target_is_server {
        session_seed(server, client, steps)
    } else {
        session_seed(client, server, steps)
    }
}

/// [`match_seed`] for a link endpoint: what a link peer sent it.
fn match_link_seed(steps: u32) -> Vec<u8> {
    let side = || {
        let endpoint = MatchLinkEndpoint::newest(session_config());
        (endpoint, match_link_tick, link_answers)
    };
    session_seed(side(), side(), steps)
}

/// The input of [`check_session`] for the endpoint of `target` (its traffic, its answers): the
/// payloads `peer` sent it over `steps` steps of a real exchange.
fn session_seed<E, TO, TI, PO, PI>(
    (mut target, mut target_tick, mut target_answers): (
        Endpoint<E, TO, TI>,
        impl FnMut(&mut Endpoint<E, TO, TI>, u32),
        impl FnMut(DeliveryOf<E, TO, TI>) -> Answer<TI::Response, TI::Message>,
    ),
    (mut peer, mut peer_tick, mut peer_answers): (
        Endpoint<E, PO, PI>,
        impl FnMut(&mut Endpoint<E, PO, PI>, u32),
        impl FnMut(DeliveryOf<E, PO, PI>) -> Answer<PI::Response, PI::Message>,
    ),
    steps: u32,
) -> Vec<u8>
where
    E: Encoding,
    TO: SessionProtocol<E>,
    TI: SessionProtocol<E>,
    PO: SessionProtocol<E>,
    PI: SessionProtocol<E>,
{
    let framing = session_id(PO::VERSIONS.last().copied().unwrap_or_default());
    let mut input = Vec::new();
    for step in 1..=steps {
        let now = Duration::from_millis(u64::from(step) * 33);
        peer_tick(&mut peer, step);
        let packets = peer.flush(now).packets;
        let payload = idlc_runtime::unframe(framing, &packets[0]).expect("a packet just framed");
        if let Ok(len) = u8::try_from(payload.len()) {
            input.push(len);
            input.extend_from_slice(payload);
        }
        target_tick(&mut target, step);
        let _ = target.receive(now, &packets[0], &mut target_answers);
        for packet in target.flush(now).packets {
            let _ = peer.receive(now, &packet, &mut peer_answers);
        }
    }
    input
}

/// Session endpoints fed hostile packets ([`check_session`]): the match's server and client
/// (schemas/versions/match_v2.idl), and an endpoint over its link (both protocols each way),
/// seeded with a real exchange of 12 steps.
pub static SESSIONS: Target = Target {
    name: "sessions",
    cases: {
        fn cases() -> &'static [Case] {
            static CASES: [Case; 3] = [
                Case {
                    name: "match_v2 server endpoint",
                    check: check_match_server,
                    default_bytes: || match_seed(true, 12),
                },
                Case {
                    name: "match_v2 client endpoint",
                    check: check_match_client,
                    default_bytes: || match_seed(false, 12),
                },
                Case {
                    name: "match_v2 link endpoint",
                    check: check_match_link,
                    default_bytes: || match_link_seed(12),
                },
            ];
            &CASES
        }
        cases
    },
};

target! {
    /// schemas/cubes.idl in cubes.enc (QUATERNION under SMALLEST_THREE(9), in both streams)
    /// and in the built-in encoding (four raw FLOAT32s).
    CUBES = "cubes" {
        cubes: [CubesBits, CubesBytes, CubesDiff, CubesDiffBytes, CubesDr] x [Cube, Cubes];
        cubes_builtin: [BuiltinEncoding] x [Cube, Cubes];
    }
}

/// Every schema target.
pub static TARGETS: [&Target; 9] = [
    &ARENA, &EDGE, &CHARACTER, &NAVAL, &VERSIONS, &PROTOCOLS, &DELTA, &CUBES, &SESSIONS,
];
