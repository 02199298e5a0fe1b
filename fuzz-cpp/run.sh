#!/usr/bin/env bash
# Coverage-guided fuzzing of the generated C++ full-form and delta decoders: one libFuzzer target per
# header set of the C++ test rig (tests/tests/common/cpp.rs), every bundled schema and encoding.
# fuzz-cpp/README.md says what each target checks.
#
#   fuzz-cpp/run.sh [--seconds N] [--build-only] [--sources-written] [SET...] [-- LIBFUZZER_FLAG...]
#
# Writes the headers, entry points and seeds (a cargo test: tests/tests/cpp_sanitized.rs), builds
# each set's target with clang++ -fsanitize=fuzzer,address,undefined, and runs it N seconds
# (default 60) from its corpus (fuzz-cpp/corpus/<set>/) and seeds, one set after the other;
# every set unless named. --sources-written uses the sources an earlier run wrote (so that
# several runs can go on at once: `printf '%s\n' naval edge | xargs -P 2 -I{} fuzz-cpp/run.sh
# --sources-written {}`). Failures land in fuzz-cpp/artifacts/<set>/, logs in
# fuzz-cpp/build/log/. Ends with one line per set: runs, exec/s, cov, ft.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$here/build"
seconds=60
build_only=false
write_sources=true
sets=()
libfuzzer_flags=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --build-only) build_only=true; shift ;;
        --sources-written) write_sources=false; shift ;;
        --) shift; libfuzzer_flags=("$@"); break ;;
        -*) echo "usage: $0 [--seconds N] [--build-only] [--sources-written] [SET...] [-- LIBFUZZER_FLAG...]" >&2; exit 2 ;;
        *) sets+=("$1"); shift ;;
    esac
done

if $write_sources; then
    echo "writing the fuzz sources to $build/src" >&2
    IDLC_CPP_FUZZ_DIR="$build/src" cargo test --quiet --manifest-path "$root/Cargo.toml" \
        -p idlc-tests --test cpp_sanitized -- --ignored --exact write_fuzz_sources >/dev/null
fi
if [ ${#sets[@]} -eq 0 ]; then
    for source in "$build/src"/fuzz_*.cpp; do
        name="$(basename "$source" .cpp)"
        sets+=("${name#fuzz_}")
    done
fi

mkdir -p "$build/bin" "$build/log"
summary=()
failed=()
for set in "${sets[@]}"; do
    binary="$build/bin/fuzz_$set"
    echo "building $binary" >&2
    if ! clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined \
        -fno-sanitize-recover=undefined -DIDLC_LIBFUZZER \
        -I "$root/runtime-cpp/include" -I "$build/src" -I "$root/schemas" \
        "$build/src/fuzz_$set.cpp" -o "$binary"; then
        echo "clang++ could not build $set's target (no such set? Debian: apt-get install clang libclang-rt-dev)" >&2
        exit 1
    fi
    if $build_only; then
        continue
    fi
    mkdir -p "$here/corpus/$set" "$here/artifacts/$set"
    log="$build/log/$set.log"
    if ! UBSAN_OPTIONS=print_stacktrace=1 nice -n 10 "$binary" -max_total_time="$seconds" \
        -print_final_stats=1 -artifact_prefix="$here/artifacts/$set/" \
        "$here/corpus/$set" "$build/src/seeds/$set" "${libfuzzer_flags[@]}" >"$log" 2>&1; then
        failed+=("$set")
        tail -n 40 "$log" >&2
    fi
    # libFuzzer's last status line (`#runs DONE cov: .. ft: .. exec/s: ..`), else its last line.
    last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || tail -n 1 "$log")"
    summary+=("$(printf '%-18s %s' "$set" "$last")")
    echo "${summary[-1]}" >&2
done

if [ ${#summary[@]} -gt 0 ]; then
    printf '%s\n' "${summary[@]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "failed: ${failed[*]} (inputs in $here/artifacts/<set>/, logs in $build/log/)" >&2
    exit 1
fi
