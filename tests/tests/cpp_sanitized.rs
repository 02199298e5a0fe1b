//! The C++ decoders of every header set of the rig (`common::cpp`: 17 sets, every bundled
//! schema and encoding), full form and delta form, against hostile bytes, under
//! AddressSanitizer and UndefinedBehaviorSanitizer: the fuzz entry points of fuzz-cpp/ (written
//! here, one source per set), built by clang++ without libFuzzer but with
//! `-fsanitize=address,undefined -fno-sanitize-recover=all`, and fed seeded inputs: the golden
//! records, random valid inputs (made by the interpreter), each mutated a few times over (bits
//! flipped, bytes replaced, cut short, extended), long runs of equal bytes (deep nesting, huge
//! counts) and random bytes.
//!
//! A full-form case decodes its input with `from_bytes_with<E>` and, when the bytes are
//! accepted, requires a fixed point: the value encodes (`to_bytes_with<E>`), those bytes
//! decode, and the value they decode to encodes to the very same bytes. A delta case reads a
//! baseline and a packet and requires what fuzz-cpp/README.md says (the Rust delta target's
//! property): the same verdict into any state, a re-encoding that loses no change and is a
//! fixed point. An entry point aborts on a violation; the test passes when no input aborts.
//! Without clang++, or when its sanitizers do not link and run, it says why and passes (.ci/run
//! installs clang and its runtime libraries).
//!
//! `write_fuzz_sources`, ignored, writes the sources, headers and seed corpus fuzz-cpp/run.sh
//! builds its libFuzzer targets from.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::cpp::{
    self, Codec, CompiledSet, golden_lines, golden_records, include_header, wire_hex,
};
use common::mutate_seeded;
use idlc::interpret::{self, sample};
use idlc::ir::Type;

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
#include <string>
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

/// The `elapsed` of every delta case's context (a quarter second: dead reckoning moves), as
/// in the Rust delta target (fuzz/src/dispatch.rs).
constexpr double DELTA_ELAPSED = 0.25;

/// The full form of `value` in `E`, which must encode.
template <class T, class E>
std::vector<std::uint8_t> full_form(const Case& c, const std::uint8_t* data, std::size_t size,
                                    const T& value, const char* what) {
    std::vector<std::uint8_t> bytes;
    idlc::Status s = value.template to_bytes_with<E>(bytes);
    if (!s.ok()) {
        fail(c, data, size, what, s);
    }
    return bytes;
}

/// What a delta decoder gave: its Status's text, and the state's full form when it succeeded.
struct Verdict {
    std::string status;
    std::vector<std::uint8_t> full;

    bool operator==(const Verdict& other) const {
        return status == other.status && full == other.full;
    }
    bool operator!=(const Verdict& other) const { return !(*this == other); }
};

/// The delta in `packet` decoded against `baseline` into `held`, as a verdict.
template <class T, class E, class R>
Verdict decode_delta_into(const Case& c, const std::uint8_t* data, std::size_t size,
                          const T& baseline, const idlc::DeltaContext& ctx, T& held,
                          const std::uint8_t* packet, std::size_t packet_size) {
    R r(packet, packet_size);
    idlc::Status s = held.template decode_delta_with<E>(baseline, ctx, r);
    if (!s.ok()) {
        return Verdict{s.to_string(), {}};
    }
    return Verdict{"ok", full_form<T, E>(c, data, size, held, "a decoded state does not encode")};
}

/// Whether `state` and `sent` (what a delta of `state` gave the receiver) differ only where
/// dead reckoning may leave a change unsent (a velocity, or a position within its block's limit
/// of the extrapolation): the delta of `state` against `sent`, with no time elapsed, changes
/// nothing of `sent` (a DELTA SEQUENCE may list an element whose delta then sends nothing).
template <class T, class E, class W, class R>
bool only_dead_reckoning_left(const Case& c, const std::uint8_t* data, std::size_t size,
                              const T& state, const T& sent) {
    const idlc::DeltaContext now;
    W w;
    T mirror;
    idlc::Status s = state.template encode_delta_with<E>(sent, now, w, mirror);
    if (!s.ok()) {
        fail(c, data, size, "the decoded state does not encode against what it sent", s);
    }
    const std::vector<std::uint8_t> bytes = w.finish();
    R r(bytes.data(), bytes.size());
    T again;
    s = again.template decode_delta_with<E>(sent, now, r);
    if (!s.ok()) {
        fail(c, data, size, "a delta against what was sent does not decode", s);
    }
    return full_form<T, E>(c, data, size, again, "a decoded state does not encode") ==
           full_form<T, E>(c, data, size, sent, "a decoded state does not encode");
}

/// A delta input: the baseline's length `n`, then `n` bytes of the baseline in full (the
/// default value when they do not decode), then the delta packet. A packet the delta decoder
/// accepts gives the same state (by its full form) or the same error whatever the state held
/// before (a default value, a copy of the baseline, the baseline itself, the packet's bytes
/// read in full); the state re-encodes against the baseline to bytes that decode to the
/// mirror's state, of the same full form as the state (the delta carried every change the
/// packet did; where the struct has dead reckoning (`Exact` false), every change it must send),
/// and that state re-encodes to the same bytes (a fixed point).
template <class T, class E, class W, class R, bool Exact>
void check_delta(const Case& c, const std::uint8_t* data, std::size_t size) {
    T baseline;
    const std::uint8_t* packet = data;
    std::size_t packet_size = size;
    if (size > 0) {
        std::size_t len = data[0] < size - 1 ? data[0] : size - 1;
        T decoded;
        if (decoded.template from_bytes_with<E>(data + 1, len).ok()) {
            baseline = decoded;
        }
        packet = data + 1 + len;
        packet_size = size - 1 - len;
    }
    idlc::DeltaContext ctx;
    ctx.elapsed = DELTA_ELAPSED;

    T state;
    const Verdict expected =
        decode_delta_into<T, E, R>(c, data, size, baseline, ctx, state, packet, packet_size);
    T copy = baseline;
    T unlike;
    if (!unlike.template from_bytes_with<E>(packet, packet_size).ok()) {
        unlike = T{};
    }
    T* into[] = {&copy, &unlike};
    for (T* held : into) {
        if (decode_delta_into<T, E, R>(c, data, size, baseline, ctx, *held, packet, packet_size) !=
            expected) {
            fail(c, data, size, "decode_delta gives another verdict into another state", {});
        }
    }
    T aliased = baseline;
    if (decode_delta_into<T, E, R>(c, data, size, aliased, ctx, aliased, packet, packet_size) !=
        expected) {
        fail(c, data, size, "decode_delta into its own baseline gives another verdict", {});
    }
    if (expected.status != "ok") {
        return;
    }

    W w;
    T mirror;
    idlc::Status s = state.template encode_delta_with<E>(baseline, ctx, w, mirror);
    if (!s.ok()) {
        fail(c, data, size, "the decoded state does not re-encode against the baseline", s);
    }
    const std::vector<std::uint8_t> bytes = w.finish();
    T again;
    R r(bytes.data(), bytes.size());
    s = again.template decode_delta_with<E>(baseline, ctx, r);
    if (!s.ok()) {
        print_hex("re-encoded:", bytes.data(), bytes.size());
        fail(c, data, size, "the re-encoded delta does not decode", s);
    }
    const std::vector<std::uint8_t> was = expected.full;
    const std::vector<std::uint8_t> is =
        full_form<T, E>(c, data, size, again, "a decoded state does not encode");
    if (full_form<T, E>(c, data, size, mirror, "the mirror does not encode") != is) {
        print_hex("re-encoded delta:", bytes.data(), bytes.size());
        fail(c, data, size, "the re-encoded delta's mirror is not the state it decodes to", {});
    }
    if (is != was && (Exact || !only_dead_reckoning_left<T, E, W, R>(c, data, size, state, again))) {
        print_hex("decoded state in full:", was.data(), was.size());
        print_hex("re-encoded delta:", bytes.data(), bytes.size());
        print_hex("its state in full:", is.data(), is.size());
        fail(c, data, size, "the re-encoded delta lost a change", {});
    }
    W w2;
    s = again.template encode_delta_with<E>(baseline, ctx, w2, mirror);
    if (!s.ok()) {
        fail(c, data, size, "the re-encoded delta's state does not re-encode", s);
    }
    const std::vector<std::uint8_t> bytes_again = w2.finish();
    if (Exact && bytes_again != bytes) {
        print_hex("re-encoded delta:", bytes.data(), bytes.size());
        fail(c, data, size, "the re-encoded delta is not a fixed point", s);
    }
    // With dead reckoning a DELTA SEQUENCE may list an element whose delta sends nothing the
    // first time and not list it the second: the state, not the bytes, is the fixed point.
    R r2(bytes_again.data(), bytes_again.size());
    T third;
    s = third.template decode_delta_with<E>(baseline, ctx, r2);
    if (!s.ok() || full_form<T, E>(c, data, size, third, "a decoded state does not encode") != is) {
        print_hex("re-encoded delta:", bytes.data(), bytes.size());
        print_hex("re-encoded again:", bytes_again.data(), bytes_again.size());
        fail(c, data, size, "the re-encoded delta's state is not a fixed point", s);
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

/// The replay program's `main`: `@ENTRY_POINTS@` declares every set's entry point, `@TARGETS@`
/// is their table. The entry points themselves are compiled in a few parts beside it (one
/// compiler run per core: one per set would parse the runtime 17 times, one for all leaves the
/// other cores idle).
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

/// A case of a set's entry point: a struct in an encoding, in full form or (a
/// PUBLISHABLE_STRUCT) in its delta form.
struct FuzzCase {
    /// The struct and encoding.
    codec: Codec,
    /// Whether the case decodes deltas.
    delta: bool,
    /// Whether its delta form has dead reckoning (which leaves some changes unsent).
    dead_reckoning: bool,
}

impl FuzzCase {
    /// The case's line in the entry point's table.
    fn table_line(&self, cpp_ns: &str) -> String {
        let Codec {
            encoding,
            ty,
            cpp_type,
            cpp_tag,
        } = &self.codec;
        if self.delta {
            let stream = format!("{cpp_ns}::Codec<{cpp_type}, {cpp_tag}>");
            format!(
                "    {{\"{encoding} {ty} delta\", &check_delta<{cpp_type}, {cpp_tag}, {stream}::Writer, {stream}::Reader, {exact}>}},\n",
                exact = !self.dead_reckoning
            )
        } else {
            format!("    {{\"{encoding} {ty}\", &check<{cpp_type}, {cpp_tag}>}},\n")
        }
    }
}

/// The cases of a set, in the order of its entry point's table: every struct in every
/// encoding in full form, then every PUBLISHABLE_STRUCT with a delta form in its delta form.
fn fuzz_cases(compiled: &CompiledSet) -> Vec<FuzzCase> {
    let codecs = compiled.codecs();
    let deltas = codecs
        .iter()
        .filter(|c| compiled.has_delta_form(c.ty))
        .cloned()
        .map(|codec| FuzzCase {
            dead_reckoning: compiled.has_dead_reckoning(codec.encoding, codec.ty),
            codec,
            delta: true,
        });
    let full = codecs.iter().cloned().map(|codec| FuzzCase {
        codec,
        delta: false,
        dead_reckoning: false,
    });
    full.chain(deltas).collect()
}

/// The source of the set's fuzz entry point; its header is written to `dir`.
fn entry_point(compiled: &CompiledSet, dir: &Path) -> String {
    let cpp_ns = compiled.set.cpp_namespace();
    let cases: String = fuzz_cases(compiled)
        .iter()
        .map(|case| case.table_line(&cpp_ns))
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

/// The replay program's `main`.
fn replay_main() -> String {
    let (mut entry_points, mut targets) = (String::new(), String::new());
    for compiled in cpp::header_sets() {
        let ns = compiled.set.namespace;
        entry_points.push_str(&format!(
            "namespace idlc_fuzz::{ns} {{\nint test_one_input(const std::uint8_t* data, std::size_t size);\n}}\n"
        ));
        targets.push_str(&format!(
            "        {{\"{ns}\", &idlc_fuzz::{ns}::test_one_input}},\n"
        ));
    }
    REPLAY_MAIN
        .replace("@ENTRY_POINTS@", &entry_points)
        .replace("@TARGETS@", &targets)
        .replace("UNHEX\n", cpp::UNHEX)
}

/// The replay's entry points in `parts` translation units, the sets dealt round-robin: each
/// source includes its sets' `fuzz_<set>.cpp`.
fn replay_parts(parts: usize) -> Vec<String> {
    let mut sources = vec![String::new(); parts];
    for (index, compiled) in cpp::header_sets().iter().enumerate() {
        let ns = compiled.set.namespace;
        sources[index % parts].push_str(&format!("#include \"fuzz_{ns}.cpp\"\n"));
    }
    sources
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// The encodings of valid values of a full-form case: its golden full-form records, and
/// `values` random values encoded by the interpreter.
fn valid_encodings(
    compiled: &CompiledSet,
    codec: &Codec,
    values: u64,
    rng: &mut sample::Rng,
) -> Vec<Vec<u8>> {
    let snapshot = compiled.set.snapshot(codec.encoding);
    let mut encodings: Vec<Vec<u8>> = golden_records(snapshot.as_deref(), &[codec.ty])
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

/// The `elapsed` of the entry points' delta cases (`DELTA_ELAPSED`).
const DELTA_ELAPSED: f64 = 0.25;

/// A delta case's input: the baseline's length, its full form, the delta packet.
fn delta_input(baseline: &[u8], packet: &[u8]) -> Option<Vec<u8>> {
    let len = u8::try_from(baseline.len()).ok()?;
    Some([&[len], baseline, packet].concat())
}

/// Valid inputs of a delta case: its golden delta records (made for other elapsed times: the
/// packets decode all the same), and `values` random baselines (the default value when a
/// baseline's full form is longer than a length byte says) each with the interpreter's delta
/// of a random value or of itself.
fn valid_deltas(
    compiled: &CompiledSet,
    codec: &Codec,
    values: u64,
    rng: &mut sample::Rng,
) -> Vec<Vec<u8>> {
    let (ir, encoding) = (&compiled.ir, codec.encoding);
    let snapshot = compiled.set.snapshot(encoding);
    let heading = " delta (baseline, value, elapsed: delta, mirror)";
    let mut inputs: Vec<Vec<u8>> = golden_lines(snapshot.as_deref(), heading, &[codec.ty])
        .iter()
        .filter_map(|(_, words)| delta_input(&bytes_of(&words[1]), &bytes_of(&words[4])))
        .collect();
    let ty = compiled.idl_name(codec.ty);
    let as_sent = |value: &interpret::Value| {
        let bytes = interpret::encode(ir, encoding, ty, value)
            .unwrap_or_else(|e| panic!("{ty} in {encoding}: {e}\n{value}"));
        let sent = interpret::decode(ir, encoding, ty, &bytes).expect("its bytes decode");
        (sent, bytes)
    };
    for _ in 0..values {
        let random = |rng: &mut sample::Rng| {
            as_sent(&sample::random_struct(ir, ty, rng).expect("the type exists"))
        };
        let (mut baseline, mut base_bytes) = random(rng);
        if base_bytes.len() > usize::from(u8::MAX) {
            let default = interpret::default_value(ir, &Type::Struct(ty.to_string()), None);
            (baseline, base_bytes) = (default, Vec::new());
        }
        let value = if rng.one_in(3) {
            baseline.clone()
        } else {
            random(rng).0
        };
        if let Ok((packet, _)) =
            interpret::encode_delta(ir, encoding, ty, &value, &baseline, DELTA_ELAPSED)
        {
            inputs.extend(delta_input(&base_bytes, &packet));
        }
    }
    inputs
}

/// The valid inputs of a case: encodings of valid values, or valid delta inputs.
fn valid_inputs(
    compiled: &CompiledSet,
    case: &FuzzCase,
    values: u64,
    rng: &mut sample::Rng,
) -> Vec<Vec<u8>> {
    if case.delta {
        valid_deltas(compiled, &case.codec, values, rng)
    } else {
        valid_encodings(compiled, &case.codec, values, rng)
    }
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
fn hostile_inputs(compiled: &CompiledSet, case: &FuzzCase, rng: &mut sample::Rng) -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for valid in valid_inputs(compiled, case, VALUES, rng) {
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

/// The inputs saved under fuzz-cpp/regressions/<set>/ (what the fuzzer found, case byte
/// first), in name order.
fn regressions(set: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz-cpp/regressions")
        .join(set);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// Every replay input: `(set, bytes)`, the saved regressions and inputs seeded per set and
/// case.
fn every_input() -> Vec<(&'static str, Vec<u8>)> {
    let mut inputs = Vec::new();
    for (set, compiled) in cpp::header_sets().iter().enumerate() {
        let ns = compiled.set.namespace;
        inputs.extend(regressions(ns).into_iter().map(|input| (ns, input)));
        for (index, case) in fuzz_cases(compiled).iter().enumerate() {
            let mut rng = sample::Rng::new(0x5a71_7ed0 ^ ((set as u64) << 16) ^ index as u64);
            inputs.extend(
                hostile_inputs(compiled, case, &mut rng)
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
    let parts = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(cpp::header_sets().len());
    let mut sources = vec![("replay_main".to_string(), replay_main())];
    sources.extend(
        replay_parts(parts)
            .into_iter()
            .enumerate()
            .map(|(part, source)| (format!("replay_part{part}"), source)),
    );
    let flags = [&OPTIMIZE[..], &SANITIZE[..]].concat();
    let compile_flags = [&flags[..], &["-c"]].concat();
    let objects: Vec<PathBuf> = std::thread::scope(|scope| {
        let compiles: Vec<_> = sources
            .iter()
            .map(|(name, text)| {
                let (dir, compile_flags) = (&dir, &compile_flags);
                scope.spawn(move || {
                    let source = dir.join(format!("{name}.cpp"));
                    std::fs::write(&source, text).unwrap();
                    let object = dir.join(format!("{name}.o"));
                    cpp::build("clang++", compile_flags, dir, &[&source], &object).map(|()| object)
                })
            })
            .collect();
        compiles
            .into_iter()
            .map(|compile| compile.join().unwrap().unwrap_or_else(|e| panic!("{e}")))
            .collect()
    });
    let binary = dir.join("replay");
    let objects: Vec<&Path> = objects.iter().map(PathBuf::as_path).collect();
    cpp::build("clang++", &flags, &dir, &objects, &binary).unwrap_or_else(|e| panic!("{e}"));
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
        for (index, case) in fuzz_cases(compiled).iter().enumerate() {
            let mut rng = sample::Rng::new(index as u64);
            for (n, valid) in valid_inputs(compiled, case, 4, &mut rng).iter().enumerate() {
                let form = if case.delta { "delta" } else { "full" };
                let codec = &case.codec;
                let name = format!("{index:03}-{}-{}-{form}-{n}", codec.encoding, codec.ty);
                std::fs::write(seeds.join(name), selected(index, valid)).unwrap();
            }
        }
    }
    println!("{}", dir.display());
}
