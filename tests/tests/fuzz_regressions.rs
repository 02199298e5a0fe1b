//! The fuzz targets of the generated code, in `cargo test`: the same dispatch and property as
//! `fuzz/` (`fuzz/src/dispatch.rs`, included below), over the same generated modules (this
//! crate's), for every target (arena, edge, character, naval, versions, protocols, delta):
//!
//! - every input saved under `fuzz/regressions/<target>/` (a failure the fuzzer found, or one
//!   written by hand: a selector byte, then the bytes to decode) and `fuzz/seeds/<target>/`
//!   (the fuzzer's starting corpus), replayed;
//! - the Default of every case, encoded: it must decode and satisfy the property;
//! - 20,000 seeded random inputs per target: fresh random bytes, and mutations of inputs that
//!   decoded (the Defaults, then what decoded earlier in the run): bit flips, byte changes,
//!   truncation, extension.
//!
//! The property: whatever decodes re-encodes, decodes again and re-encodes to the same bytes;
//! the decoder never panics. fuzz/README.md says how to run the real fuzzer and save what it
//! finds. `cargo test -p idlc-tests --test fuzz_regressions -- --ignored write_fuzz_seeds`
//! rewrites `fuzz/seeds/`.

#[path = "../../fuzz/src/dispatch.rs"]
mod dispatch;

use std::any::Any;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use dispatch::{Target, hex};
// The modules that the dispatch tables name as `crate::<module>`.
use idlc_tests::{
    arena_builtin, arena_client, arena_server, character_builtin, character_client,
    character_server, character_v2_client, cubes, cubes_builtin, edge, match_v2, naval, rover,
    squad_v1, squad_v2, squad_v3,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random inputs per target.
const RANDOM_INPUTS: usize = 20_000;
/// The longest fresh random input (after the selector byte): most are shorter.
const MAX_FRESH_LEN: usize = 512;
/// The inputs that decoded, kept to mutate.
const POOL: usize = 1024;

/// `fuzz/<folder>`: `regressions` or `seeds`.
fn fuzz_dir(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(folder)
}

/// A panic's message.
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "(a panic without a message)".to_owned())
}

/// Runs `target` on `input`: whether it decoded, or the property's panic message.
fn run(target: &Target, input: &[u8]) -> Result<bool, String> {
    catch_unwind(AssertUnwindSafe(|| target.run(input))).map_err(|p| message(&*p))
}

/// Replays every file of `fuzz/<folder>/<target>/`. Returns how many there were.
fn replay(target: &Target, folder: &str) -> usize {
    let dir = fuzz_dir(folder).join(target.name);
    let Ok(entries) = fs::read_dir(&dir) else {
        return 0;
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable regressions folder").path())
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    let cases = target.cases();
    let mut failures = Vec::new();
    for file in &files {
        let input = fs::read(file).expect("a readable regression input");
        let Some(&selector) = input.first() else {
            failures.push(format!("{}: empty", file.display()));
            continue;
        };
        if usize::from(selector) >= cases.len() {
            failures.push(format!(
                "{}: selector {selector} is not below the {} cases of {}: set the first byte \
                 to {} (what it picks now, {}), so that new cases do not change it",
                file.display(),
                cases.len(),
                target.name,
                usize::from(selector) % cases.len(),
                target.case(selector).name
            ));
            continue;
        }
        if let Err(e) = run(target, &input) {
            failures.push(format!(
                "{}: {} (input {}): {e}",
                file.display(),
                target.case(selector).name,
                hex(&input)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs of fuzz/{folder}/{} fail:\n{}",
        failures.len(),
        files.len(),
        target.name,
        failures.join("\n")
    );
    files.len()
}

/// A fresh input: a selector below the number of cases, then up to 64 bytes (half of them) or
/// up to `MAX_FRESH_LEN`, each zero or random (zeros reach past lengths and presence bits more
/// often).
fn fresh(rng: &mut ChaCha8Rng, cases: usize) -> Vec<u8> {
    let selector = u8::try_from(rng.random_range(0..cases)).expect("at most 256 cases");
    let len = if rng.random_bool(0.5) {
        rng.random_range(0..=64)
    } else {
        rng.random_range(0..=MAX_FRESH_LEN)
    };
    let zeros = rng.random_range(0..=4u32);
    let mut input = vec![selector];
    input.extend((0..len).map(|_| {
        if rng.random_range(0..4) < zeros {
            0
        } else {
            rng.random()
        }
    }));
    input
}

/// `base` with one to four random changes past its selector byte.
fn mutate(rng: &mut ChaCha8Rng, base: &[u8]) -> Vec<u8> {
    let mut input = base.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let len = input.len();
        match rng.random_range(0..6) {
            0 if len > 1 => {
                let i = rng.random_range(1..len);
                input[i] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 1 => {
                let i = rng.random_range(1..len);
                input[i] = rng.random();
            }
            2 if len > 1 => input.truncate(rng.random_range(1..len)),
            3 if len > 1 => {
                input.remove(rng.random_range(1..len));
            }
            4 => {
                let byte = rng.random();
                input.insert(rng.random_range(1..=len), byte);
            }
            _ => {
                for _ in 0..rng.random_range(1..=8) {
                    input.push(rng.random());
                }
            }
        }
    }
    input
}

/// Runs `RANDOM_INPUTS` seeded random inputs through `target`, starting from the Default of
/// every case (each must decode and satisfy the property); panics at the first that fails.
/// Returns how many random inputs decoded, per case.
fn random(target: &Target, seed: u64) -> Vec<usize> {
    let cases = target.cases();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pool_seeds = target.seeds();
    for input in &pool_seeds {
        let name = target.case(input[0]).name;
        match run(target, input) {
            Ok(true) => {}
            Ok(false) => panic!(
                "{name}: the Default's encoding {} does not decode",
                hex(input)
            ),
            Err(e) => panic!("{name}: the Default's encoding {}: {e}", hex(input)),
        }
    }
    let mut pool = pool_seeds;
    let mut decoded = vec![0usize; cases.len()];
    for iteration in 0..RANDOM_INPUTS {
        let input = if !pool.is_empty() && rng.random_bool(0.5) {
            let base = &pool[rng.random_range(0..pool.len())];
            mutate(&mut rng, base)
        } else {
            fresh(&mut rng, cases.len())
        };
        match run(target, &input) {
            Ok(false) => {}
            Ok(true) => {
                decoded[usize::from(input[0])] += 1;
                if pool.len() < POOL {
                    pool.push(input);
                } else {
                    let i = rng.random_range(0..POOL);
                    pool[i] = input;
                }
            }
            Err(e) => panic!(
                "{}: random input {iteration} (seed {seed:#x}), {}, {}: {e}\n(save it under \
                 fuzz/regressions/{}/ to keep it)",
                target.name,
                target.case(input[0]).name,
                hex(&input),
                target.name
            ),
        }
    }
    decoded
}

/// Replays the target's regressions and seeds, then runs its random inputs.
fn check(target: &Target, seed: u64) {
    let replayed = replay(target, "regressions");
    let seeds = replay(target, "seeds");
    let decoded = random(target, seed);
    let cases = target.cases();
    let total: usize = decoded.iter().sum();
    let never: Vec<&str> = cases
        .iter()
        .zip(&decoded)
        .filter(|&(_, &n)| n == 0)
        .map(|(case, _)| case.name)
        .collect();
    eprintln!(
        "{}: {replayed} regression inputs and {seeds} seeds replayed; {total} of \
         {RANDOM_INPUTS} random inputs decoded; cases no random input decoded: {never:?}",
        target.name
    );
    // The random inputs must get past the first fields of most cases, or they test little.
    assert!(
        never.len() * 4 <= cases.len(),
        "{}: {} of {} cases never decoded a random input: {never:?}",
        target.name,
        never.len(),
        cases.len()
    );
}

#[test]
fn arena() {
    check(&dispatch::ARENA, 0xA2E4A);
}

#[test]
fn edge() {
    check(&dispatch::EDGE, 0xED6E);
}

#[test]
fn character() {
    check(&dispatch::CHARACTER, 0xC4A2);
}

/// schemas/naval.idl: the open ranges `[0,360)` and `(0,1]` under FIXED_POINT (regressions:
/// a bearing or heading that decoded to 360.0, a hull that decoded to 0.0).
#[test]
fn naval() {
    check(&dispatch::NAVAL, 0x4A7A1);
}

/// schemas/versions/: nested structs with FENCEs in three versions.
#[test]
fn versions() {
    check(&dispatch::VERSIONS, 0x5E25);
}

/// Packets of every generated PROTOCOL receiver: what reads re-writes to a fixed point.
#[test]
fn protocols() {
    check(&dispatch::PROTOCOLS, 0x9AC7);
}

/// Delta packets of every generated PUBLISHABLE_STRUCT against a baseline from the input:
/// `decode_delta` and `decode_delta_into` agree, and what decodes re-encodes to a fixed point.
#[test]
fn delta() {
    check(&dispatch::DELTA, 0xDE17A);
}

/// Session endpoints fed hostile packets: no panic, never beyond the caps.
#[test]
fn sessions() {
    check(&dispatch::SESSIONS, 0x5E55);
}

/// Every folder of `fuzz/regressions/` and `fuzz/seeds/` is a target's, so that no saved input
/// goes unreplayed.
#[test]
fn folders_name_targets() {
    let names: Vec<&str> = dispatch::TARGETS.iter().map(|t| t.name).collect();
    for folder in ["regressions", "seeds"] {
        let Ok(entries) = fs::read_dir(fuzz_dir(folder)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a readable folder").path();
            if path.is_dir() {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                assert!(
                    names.contains(&&*name),
                    "fuzz/{folder}/{name}/ is no target's folder (the targets: {names:?})"
                );
            }
        }
    }
}

/// Rewrites `fuzz/seeds/<target>/`, the fuzzer's starting corpus: one file per case, the
/// selector then the encoding of the type's Default, named after the case. Not a check:
/// `cargo test -p idlc-tests --test fuzz_regressions -- --ignored write_fuzz_seeds` after a
/// change of the schemas or of the tables.
#[test]
#[ignore = "writes fuzz/seeds/"]
fn write_fuzz_seeds() {
    for target in dispatch::TARGETS {
        let dir = fuzz_dir("seeds").join(target.name);
        if dir.exists() {
            fs::remove_dir_all(&dir).expect("fuzz/seeds/<target>/ removed");
        }
        fs::create_dir_all(&dir).expect("fuzz/seeds/<target>/ created");
        for input in target.seeds() {
            let name = target.case(input[0]).name;
            let file = format!("{:03}-{name}", input[0])
                .to_lowercase()
                .replace("::", "-")
                .replace(" in ", "-");
            fs::write(dir.join(file), &input).expect("a seed written");
        }
    }
}
