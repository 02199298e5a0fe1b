//! The generated C++ code against the generated Rust code on the same values
//! (`bench-table cpp`): the mk48 updates in MK48, MK48_PLAIN and MK48_LOSSY, and the seed's
//! Character in MYENCODING1.
//!
//! The Rust code encodes every value into its message ([`crate::format::prepare`], checked to
//! decode back) and the messages are written to a directory; idlc writes the C++ headers of the
//! same schemas (schemas/mk48.cpp.map, the seed's client.cpp.map: the C++ twins of the Rust
//! modules' mappings), and bench/cpp/codec_bench.cpp is built by every C++ compiler on PATH at
//! `-O2` with the tests' warning flags. It decodes every message, encodes each value again to
//! the very same bytes, then times its encode and decode jobs as the Rust jobs are timed
//! ([`crate::format::jobs`], [`medians`]): every value one message, encoded into one reused
//! writer, decoded into a new value, round-robin, the median of the rounds. The values are those
//! the messages decode to in both languages (for MK48_LOSSY and MYENCODING1, the quantized
//! values: what a receiver holds and sends on), so both encode the same numbers to the same
//! bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::BenchError;
use crate::character::formats::Generated;
use crate::format::{Encoded, jobs, prepare};
use crate::measure::{Table, medians};
use crate::mk48::formats::{IdlcLossy, IdlcPlain, IdlcRanged};

/// The cases, in the order the C++ program prints them: the file names of their messages.
pub const CASES: [&str; 4] = [
    "mk48_MK48",
    "mk48_MK48_PLAIN",
    "mk48_MK48_LOSSY",
    "character_MYENCODING1",
];

/// One case's figures: the Rust code's and each C++ build's, in nanoseconds per value.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The case ([`CASES`]).
    pub case: &'static str,
    /// Values (messages) per round.
    pub values: usize,
    /// The Rust code: median encode and decode ns per value.
    pub rust: (f64, f64),
    /// Per C++ build ([`Outcome::compilers`]): median encode and decode ns per value.
    pub cpp: Vec<(f64, f64)>,
}

/// What a run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The C++ compilers: the command and `--version`'s first line.
    pub compilers: Vec<(&'static str, String)>,
    /// One row per case.
    pub rows: Vec<Row>,
}

/// Writes the messages, builds the C++ program with every compiler on PATH, times the Rust
/// jobs `rounds` rounds, then runs each C++ build for as many rounds.
pub fn run(rounds: usize) -> Result<Outcome, BenchError> {
    let mk48 = crate::mk48::Dataset::new()?;
    let character = crate::character::Dataset::new()?;
    let encoded: [Encoded; 4] = [
        prepare::<IdlcRanged>(&mk48.idlc, &mk48.idlc)?,
        prepare::<IdlcPlain>(&mk48.idlc, &mk48.idlc)?,
        prepare::<IdlcLossy>(&mk48.lossy, &mk48.lossy)?,
        prepare::<Generated>(&character.quantized, &character.quantized)?,
    ];
    let dir = std::env::temp_dir().join("idlc-bench-cpp");
    std::fs::create_dir_all(&dir).map_err(BenchError::with("the C++ benchmark's directory"))?;
    for (case, messages) in CASES.iter().zip(&encoded) {
        write_messages(&dir.join(format!("{case}.bin")), messages)?;
    }
    let builds = build_all(&dir)?;
    eprintln!("  the Rust code ...");
    let [mk48_ranged, mk48_plain, mk48_lossy, seed] = &encoded;
    let mut all = Vec::new();
    all.extend(jobs::<IdlcRanged>(&mk48.idlc, mk48_ranged));
    all.extend(jobs::<IdlcPlain>(&mk48.idlc, mk48_plain));
    all.extend(jobs::<IdlcLossy>(&mk48.lossy, mk48_lossy));
    all.extend(jobs::<Generated>(&character.quantized, seed));
    let rust = medians(rounds, &mut all);
    let mut rows: Vec<Row> = CASES
        .iter()
        .zip(&encoded)
        .zip(rust.chunks(2))
        .map(|((case, messages), t)| Row {
            case,
            values: messages.len(),
            rust: (t[0], t[1]),
            cpp: Vec::new(),
        })
        .collect();
    let mut compilers = Vec::new();
    for (compiler, binary) in &builds {
        eprintln!("  the C++ code ({compiler}) ...");
        let output = Command::new(binary)
            .arg(&dir)
            .arg(rounds.to_string())
            .output()
            .map_err(BenchError::with("running the C++ benchmark"))?;
        if !output.status.success() {
            return Err(BenchError::new(format!(
                "the C++ benchmark ({compiler}) failed: {}",
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        let text = String::from_utf8_lossy(&output.stdout);
        for row in &mut rows {
            let line = text
                .lines()
                .find(|l| l.split(' ').next() == Some(row.case))
                .ok_or_else(|| BenchError::new(format!("no figures for {}", row.case)))?;
            let fields: Vec<&str> = line.split(' ').collect();
            let number = |i: usize| -> Result<f64, BenchError> {
                fields
                    .get(i)
                    .and_then(|f| f.parse().ok())
                    .ok_or_else(|| BenchError::new(format!("an unreadable line: {line}")))
            };
            if number(1)? as usize != row.values {
                return Err(BenchError::new(format!(
                    "{line}: not {} values",
                    row.values
                )));
            }
            row.cpp.push((number(2)?, number(3)?));
        }
        compilers.push((*compiler, version(compiler)));
    }
    Ok(Outcome { compilers, rows })
}

/// The messages, each as a little-endian u32 length and its bytes.
fn write_messages(path: &Path, messages: &Encoded) -> Result<(), BenchError> {
    let mut out = Vec::with_capacity(messages.bytes().len() + 4 * messages.len());
    for message in messages.messages() {
        let len = u32::try_from(message.len()).map_err(BenchError::with("a message's length"))?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(message);
    }
    std::fs::write(path, out).map_err(BenchError::with("writing the messages"))
}

/// Generates the two headers into `dir` and builds bench/cpp/codec_bench.cpp with every C++
/// compiler on PATH at `-O2`: `(compiler, binary)` each.
fn build_all(dir: &Path) -> Result<Vec<(&'static str, PathBuf)>, BenchError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (schemas, seed) = (root.join("schemas"), root.join("../shared/seed-examples"));
    write_header(
        &[schemas.join("mk48.idl")],
        &[schemas.join("mk48.enc")],
        (schemas.join("mk48.cpp.map"), "Game"),
        "bench::mk48",
        &dir.join("bench_mk48.hpp"),
    )?;
    write_header(
        &[seed.join("character.idl"), schemas.join("item.idl")],
        &[seed.join("myencoding1.enc")],
        (seed.join("client.cpp.map"), "Client"),
        "bench::character",
        &dir.join("bench_character.hpp"),
    )?;
    let source = root.join("bench/cpp/codec_bench.cpp");
    let mut builds = Vec::new();
    for compiler in idlc_tests::cpp::COMPILERS {
        if !idlc_tests::cpp::present(compiler) {
            eprintln!("  no {compiler} on PATH");
            continue;
        }
        eprintln!("  building with {compiler} -O2 ...");
        let binary = dir.join(format!("codec_bench_{compiler}"));
        idlc_tests::cpp::build(compiler, &["-O2"], dir, &[&source], &binary)
            .map_err(BenchError::new)?;
        builds.push((compiler, binary));
    }
    if builds.is_empty() {
        return Err(BenchError::new("no C++ compiler (g++ or clang++) on PATH"));
    }
    Ok(builds)
}

/// Writes the header `idlc gen` writes for these inputs, a mapping and its side, in
/// `namespace`, to `path` (through the library, which prints nothing: this program's stdout is
/// the report).
fn write_header(
    idl: &[PathBuf],
    encodings: &[PathBuf],
    (mapping, side): (PathBuf, &str),
    namespace: &str,
    path: &Path,
) -> Result<(), BenchError> {
    let inputs = idlc::Inputs {
        idl: idl.to_vec(),
        encodings: encodings.to_vec(),
        mappings: vec![mapping],
        side: Some(side.to_string()),
    };
    let compilation = idlc::compile(&inputs).map_err(BenchError::with("idlc"))?;
    if compilation.has_errors() {
        return Err(BenchError::new(
            compilation.sources.render_plain(&compilation.diagnostics),
        ));
    }
    let header = idlc::cppgen::generate_header(&compilation.ir, namespace)
        .map_err(BenchError::with("idlc"))?;
    std::fs::write(path, header).map_err(BenchError::with("writing a header"))
}

/// The first line of `compiler --version`.
fn version(compiler: &str) -> String {
    Command::new(compiler)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| compiler.to_string())
}

/// The figures as a markdown table: per case the Rust code's encode and decode ns per value,
/// and each C++ build's with its ratio to Rust's (above 1: slower).
#[must_use]
pub fn report(outcome: &Outcome) -> String {
    let mut header = vec![
        "case".to_string(),
        "values".to_string(),
        "Rust encode (ns)".to_string(),
    ];
    let short: Vec<&str> = outcome.compilers.iter().map(|(c, _)| *c).collect();
    for c in &short {
        header.push(format!("{c} encode (ns, × Rust)"));
    }
    header.push("Rust decode (ns)".to_string());
    for c in &short {
        header.push(format!("{c} decode (ns, × Rust)"));
    }
    let titles: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(&titles);
    for row in &outcome.rows {
        let mut cells = vec![
            row.case.to_string(),
            row.values.to_string(),
            format!("{:.1}", row.rust.0),
        ];
        let ratio = |cpp: f64, rust: f64| format!("{cpp:.1} ({:.2}×)", cpp / rust.max(1e-9));
        cells.extend(row.cpp.iter().map(|c| ratio(c.0, row.rust.0)));
        cells.push(format!("{:.1}", row.rust.1));
        cells.extend(row.cpp.iter().map(|c| ratio(c.1, row.rust.1)));
        table.row(cells);
    }
    let compilers: Vec<String> = outcome
        .compilers
        .iter()
        .map(|(_, version)| format!("`{version}`"))
        .collect();
    format!(
        "## The generated C++ code against the generated Rust code\n\n\
         Compilers: {} at `-O2` (`-std=c++17 -Wall -Wextra -Wpedantic -Werror`); the Rust code \
         in this binary's profile. Nanoseconds per value, the median of the rounds; in \
         parentheses the C++ time over the Rust time.\n\n{}",
        compilers.join(", "),
        table.markdown()
    )
}
