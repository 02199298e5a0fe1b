//! The C++ full-form decoders of every header set of the rig (`common::cpp`: 16 sets, every
//! bundled schema and encoding) against hostile bytes, under AddressSanitizer and
//! UndefinedBehaviorSanitizer: the fuzz entry points of fuzz-cpp/ (written here, one source per
//! set), built by clang++ without libFuzzer but with `-fsanitize=address,undefined
//! -fno-sanitize-recover=all`, and fed seeded inputs: the golden full-form records, random valid
//! values (encoded by the interpreter), each mutated a few times over (bits flipped, bytes
//! replaced, cut short, extended), long runs of equal bytes (deep nesting, huge counts) and
//! random bytes.
//!
//! An entry point decodes its input with `from_bytes_with<E>` and, when the bytes are accepted,
//! requires a fixed point: the value encodes (`to_bytes_with<E>`), those bytes decode, and the
//! value they decode to encodes to the very same bytes; it aborts otherwise. The test passes
//! when no input aborts. Without clang++, or when its sanitizers do not link and run, it says
//! why and passes (.ci/run installs clang and its runtime libraries).
//!
//! `write_fuzz_sources`, ignored, writes the sources, headers and seed corpus fuzz-cpp/run.sh
//! builds its libFuzzer targets from.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::cpp::{self, Codec, CompiledSet, golden_records, include_header, wire_hex};
use common::mutate_seeded;
use idlc::interpret::{self, sample};

/// Random valid values per set, encoding and type.
const VALUES: u64 = 16;
/// Mutants of each valid encoding.
const MUTATIONS: u64 = 16;
/// Random inputs per set, encoding and type.
const RANDOM: u64 = 12;
/// The lengths of the runs of equal bytes each case gets (`0x00`, `0xff`, `0x80`).
const RUN_LENGTHS: [usize; 4] = [1, 9, 100, 1000];

/// The sanitizers of the replay: every error fatal.
const SANITIZE: [&str; 2] = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"];
/// The replay's optimization: none (compiling takes a quarter of -O1's time, and the inputs
/// run in seconds all the same), with line tables for readable reports.
const OPTIMIZE: [&str; 2] = ["-O0", "-gline-tables-only"];

// ---------------------------------------------------------------------------------------------
// The fuzz entry points
// ---------------------------------------------------------------------------------------------

/// The source of a set's fuzz entry point: `@NS@` its namespace, `@HEADER@` its `#include`
/// (with its collection classes), `@CASES@` one line per struct and encoding.
const ENTRY_POINT: &str = r#"// The fuzz entry point of the C++ header set `@NS@`, written by tests/tests/cpp_sanitized.rs
// (fuzz-cpp/README.md). Built with -DIDLC_LIBFUZZER it is a libFuzzer target.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

@HEADER@
namespace idlc_fuzz::@NS@ {
namespace {

/// A struct of the set in one of its encodings, and the property that checks it.
struct Case {
    const char* name;
    void (*check)(const Case&, const std::uint8_t*, std::size_t);
};

void print_hex(const char* label, const std::uint8_t* data, std::size_t size) {
    std::fprintf(stderr, "%s ", label);
    for (std::size_t i = 0; i < size; ++i) {
        std::fprintf(stderr, "%02x", data[i]);
    }
    std::fprintf(stderr, "\n");
}

/// Says which set, case and input failed, and how, then aborts.
[[noreturn]] void fail(const Case& c, const std::uint8_t* data, std::size_t size,
                       const char* what, const idlc::Status& s) {
    if (s.ok()) {
        std::fprintf(stderr, "@NS@ %s: %s\n", c.name, what);
    } else {
        std::fprintf(stderr, "@NS@ %s: %s: %s\n", c.name, what, s.to_string().c_str());
    }
    print_hex("input (after the case's byte):", data, size);
    std::abort();
}

/// Bytes the decoder accepts give a value that encodes, to bytes that are a fixed point.
template <class T, class E>
void check(const Case& c, const std::uint8_t* data, std::size_t size) {
    T value;
    if (!value.template from_bytes_with<E>(data, size).ok()) {
        return;
    }
    std::vector<std::uint8_t> first;
    idlc::Status s = value.template to_bytes_with<E>(first);
    if (!s.ok()) {
        fail(c, data, size, "the decoded value does not encode", s);
    }
    T again;
    s = again.template from_bytes_with<E>(first.data(), first.size());
    if (!s.ok()) {
        fail(c, data, size, "its encoding does not decode", s);
    }
    std::vector<std::uint8_t> second;
    s = again.template to_bytes_with<E>(second);
    if (!s.ok() || second != first) {
        print_hex("encoded:", first.data(), first.size());
        print_hex("decoded and encoded again:", second.data(), second.size());
        fail(c, data, size, "the encoding is not a fixed point", s);
    }
}

const Case CASES[] = {
@CASES@};

} // namespace

/// The set's entry point: the first byte picks the case (modulo their number), the rest is
/// decoded.
int test_one_input(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const Case& c = CASES[data[0] % (sizeof CASES / sizeof CASES[0])];
    c.check(c, data + 1, size - 1);
    return 0;
}

} // namespace idlc_fuzz::@NS@

#ifdef IDLC_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return idlc_fuzz::@NS@::test_one_input(data, size);
}
#endif
"#;

/// The replay program, all in one translation unit (one compiler run is quicker than one per
/// set): `@ENTRY_POINTS@` includes every set's entry point, `@TARGETS@` is their table.
const REPLAY_MAIN: &str = r#"// The sanitized replay of the fuzz entry points (tests/tests/cpp_sanitized.rs): each line
// `<set> <hex>` goes through the set's entry point and is answered `ok`, flushed, so that a
// crash tells which input it died on.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

@ENTRY_POINTS@
namespace {

UNHEX
} // namespace

int main() {
    const std::map<std::string, int (*)(const std::uint8_t*, std::size_t)> targets = {
@TARGETS@    };
    std::string set, bytes;
    while (std::cin >> set >> bytes) {
        auto target = targets.find(set);
        if (target == targets.end()) {
            std::printf("unknown set %s\n", set.c_str());
            return 1;
        }
        std::vector<std::uint8_t> input = unhex(bytes);
        target->second(input.data(), input.size());
        std::printf("ok\n");
        std::fflush(stdout);
    }
    return 0;
}
"#;

/// The source of the set's fuzz entry point; its header is written to `dir`.
fn entry_point(compiled: &CompiledSet, dir: &Path) -> String {
    let cases: String = compiled
        .codecs()
        .iter()
        .map(|c| {
            format!(
                "    {{\"{} {}\", &check<{}, {}>}},\n",
                c.encoding, c.ty, c.cpp_type, c.cpp_tag
            )
        })
        .collect();
    ENTRY_POINT
        .replace("@HEADER@", &include_header(compiled, dir))
        .replace("@CASES@", &cases)
        .replace("@NS@", compiled.set.namespace)
}

/// Writes every set's fuzz entry point (`fuzz_<set>.cpp`) and header to `dir`.
fn write_entry_points(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for compiled in cpp::header_sets() {
        let path = dir.join(format!("fuzz_{}.cpp", compiled.set.namespace));
        std::fs::write(path, entry_point(compiled, dir)).unwrap();
    }
}

/// The replay program's source.
fn replay_source() -> String {
    let (mut entry_points, mut targets) = (String::new(), String::new());
    for compiled in cpp::header_sets() {
        let ns = compiled.set.namespace;
        entry_points.push_str(&format!("#include \"fuzz_{ns}.cpp\"\n"));
        targets.push_str(&format!(
            "        {{\"{ns}\", &idlc_fuzz::{ns}::test_one_input}},\n"
        ));
    }
    REPLAY_MAIN
        .replace("@ENTRY_POINTS@", &entry_points)
        .replace("@TARGETS@", &targets)
        .replace("UNHEX\n", cpp::UNHEX)
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// The encodings of valid values of a case: its golden full-form records, and `values` random
/// values encoded by the interpreter.
fn valid_encodings(
    compiled: &CompiledSet,
    codec: &Codec,
    values: u64,
    rng: &mut sample::Rng,
) -> Vec<Vec<u8>> {
    let snapshot = format!("{}_{}", compiled.set.golden, codec.encoding);
    let mut encodings: Vec<Vec<u8>> = golden_records(&snapshot, &[codec.ty])
        .iter()
        .map(|(_, hex)| bytes_of(hex))
        .collect();
    let ty = compiled.idl_name(codec.ty);
    for _ in 0..values {
        let value = sample::random_struct(&compiled.ir, ty, rng).expect("the type exists");
        let bytes = interpret::encode(&compiled.ir, codec.encoding, ty, &value)
            .unwrap_or_else(|e| panic!("{ty} in {}: {e}\n{value}", codec.encoding));
        encodings.push(bytes);
    }
    encodings
}

/// The bytes hex digits spell (`-` for none, as the snapshots write them).
fn bytes_of(hex: &str) -> Vec<u8> {
    let hex = hex.trim_start_matches('-');
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// `bytes` mutated one to three times over.
fn mutant(rng: &mut sample::Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = mutate_seeded(rng, bytes);
    for _ in 0..rng.below(3) {
        out = mutate_seeded(rng, &out);
    }
    out
}

/// The hostile inputs of a case (its byte not yet in front): valid encodings and their
/// mutants, runs of equal bytes, random bytes.
fn hostile_inputs(compiled: &CompiledSet, codec: &Codec, rng: &mut sample::Rng) -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for valid in valid_encodings(compiled, codec, VALUES, rng) {
        inputs.extend((0..MUTATIONS).map(|_| mutant(rng, &valid)));
        inputs.push(valid);
    }
    for byte in [0x00, 0xff, 0x80] {
        inputs.extend(RUN_LENGTHS.map(|n| vec![byte; n]));
    }
    for _ in 0..RANDOM {
        let len = rng.below(64) as usize;
        inputs.push((0..len).map(|_| rng.next_u64() as u8).collect());
    }
    inputs
}

/// `input` behind the byte that picks case `index` of its set.
fn selected(index: usize, input: &[u8]) -> Vec<u8> {
    let selector = u8::try_from(index).expect("fewer than 256 cases in a set");
    [&[selector], input].concat()
}

/// Every replay input: `(set, bytes)`, seeded per set and case.
fn every_input() -> Vec<(&'static str, Vec<u8>)> {
    let mut inputs = Vec::new();
    for (set, compiled) in cpp::header_sets().iter().enumerate() {
        for (index, codec) in compiled.codecs().iter().enumerate() {
            let mut rng = sample::Rng::new(0x5a71_7ed0 ^ ((set as u64) << 16) ^ index as u64);
            inputs.extend(
                hostile_inputs(compiled, codec, &mut rng)
                    .iter()
                    .map(|input| (compiled.set.namespace, selected(index, input))),
            );
        }
    }
    inputs
}

// ---------------------------------------------------------------------------------------------
// The sanitized build
// ---------------------------------------------------------------------------------------------

/// The test's directory: the sources and headers, the probe, the replay.
fn work_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cpp_sanitized")
}

/// The `ASAN_OPTIONS` under which a sanitized program runs here: none needed, or
/// `detect_leaks=0` where LeakSanitizer cannot (ptrace restricted); the error says why neither
/// works.
fn asan_options(dir: &Path) -> Result<Option<&'static str>, String> {
    if !cpp::present("clang++") {
        return Err("clang++ is not on PATH".to_string());
    }
    let source = dir.join("probe.cpp");
    std::fs::write(
        &source,
        "#include <vector>\nint main() { std::vector<int> v(1); return v[0]; }\n",
    )
    .unwrap();
    let probe = dir.join("probe");
    cpp::build("clang++", &SANITIZE, dir, &[&source], &probe)?;
    for options in [None, Some("detect_leaks=0")] {
        let mut run = Command::new(&probe);
        if let Some(options) = options {
            run.env("ASAN_OPTIONS", options);
        }
        if run.output().is_ok_and(|o| o.status.success()) {
            return Ok(options);
        }
    }
    Err("a program built with -fsanitize=address,undefined does not run".to_string())
}

/// The replay program, built with the sanitizers, and the `ASAN_OPTIONS` it runs under;
/// `None` (said on stderr) when clang++'s sanitizers cannot be used here.
fn sanitized_replay() -> Option<(PathBuf, Option<&'static str>)> {
    let dir = work_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let options = asan_options(&dir)
        .map_err(|why| eprintln!("the C++ decoders were not run under the sanitizers: {why}"))
        .ok()?;
    write_entry_points(&dir);
    let source = dir.join("replay.cpp");
    std::fs::write(&source, replay_source()).unwrap();
    let binary = dir.join("replay");
    let flags = [&OPTIMIZE[..], &SANITIZE[..]].concat();
    cpp::build("clang++", &flags, &dir, &[&source], &binary).unwrap_or_else(|e| panic!("{e}"));
    Some((binary, options))
}

/// Runs every input through the replay; panics with the input it died on and its report.
fn replay(binary: &Path, options: Option<&str>, inputs: &[(&str, Vec<u8>)]) {
    let mut command = Command::new(binary);
    command.env("UBSAN_OPTIONS", "print_stacktrace=1");
    if let Some(options) = options {
        command.env("ASAN_OPTIONS", options);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines: String = inputs
        .iter()
        .map(|(set, bytes)| format!("{set} {}\n", wire_hex(bytes)))
        .collect();
    let output = std::thread::scope(|scope| {
        // Written while the answers are read; a replay that dies stops reading, and says so
        // by its exit status.
        scope.spawn(move || stdin.write_all(lines.as_bytes()));
        child.wait_with_output().unwrap()
    });
    let done = String::from_utf8_lossy(&output.stdout).lines().count();
    if let Some((set, bytes)) = inputs.get(done).filter(|_| !output.status.success()) {
        panic!(
            "the replay died ({}) on input {done}: {set} {}\n{}",
            output.status,
            wire_hex(bytes),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert!(output.status.success(), "the replay: {}", output.status);
    assert_eq!(done, inputs.len(), "one answer per input");
}

#[test]
fn hostile_bytes_pass_the_fuzz_entry_points_under_sanitizers() {
    let inputs = every_input();
    let Some((binary, options)) = sanitized_replay() else {
        return;
    };
    replay(&binary, options, &inputs);
}

// ---------------------------------------------------------------------------------------------
// fuzz-cpp/run.sh's sources
// ---------------------------------------------------------------------------------------------

/// Writes what fuzz-cpp/run.sh builds its libFuzzer targets from to `$IDLC_CPP_FUZZ_DIR`
/// (default: this test's directory, `fuzz/`): every set's header and `fuzz_<set>.cpp`, and its
/// seed corpus `seeds/<set>/`, one file per valid encoding (the golden records and a few
/// random values), named `<case>-<encoding>-<type>-<n>`. Not a check: `cargo test -p
/// idlc-tests --test cpp_sanitized -- --ignored --exact write_fuzz_sources`.
#[test]
#[ignore = "writes fuzz-cpp/run.sh's sources"]
fn write_fuzz_sources() {
    let dir = std::env::var_os("IDLC_CPP_FUZZ_DIR")
        .map_or_else(|| work_dir().join("fuzz"), PathBuf::from);
    write_entry_points(&dir);
    for compiled in cpp::header_sets() {
        let seeds = dir.join("seeds").join(compiled.set.namespace);
        if seeds.exists() {
            std::fs::remove_dir_all(&seeds).unwrap();
        }
        std::fs::create_dir_all(&seeds).unwrap();
        for (index, codec) in compiled.codecs().iter().enumerate() {
            let mut rng = sample::Rng::new(index as u64);
            for (n, valid) in valid_encodings(compiled, codec, 4, &mut rng)
                .iter()
                .enumerate()
            {
                let name = format!("{index:03}-{}-{}-{n}", codec.encoding, codec.ty);
                std::fs::write(seeds.join(name), selected(index, valid)).unwrap();
            }
        }
    }
    println!("{}", dir.display());
}
