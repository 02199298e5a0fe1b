//! What the generated code costs a user's build, against prost-derive and serde+bitcode-derive
//! models of the same types (docs/PERFORMANCE.md "Build cost").
//!
//! It writes three binary crates (each its own workspace), each holding `--copies` copies of the mk48
//! model: the module `idlc::Builder` generates from schemas/mk48.{idl,enc,map} (all three
//! encodings), the prost model of bench/src/mk48/proto_types.rs, and the serde+bitcode model of
//! bench/src/mk48/model_types.rs (without its bincode derives). Each `main` decodes and encodes
//! every type of every copy in every encoding, from bytes it reads at run time, so no generated
//! function escapes compilation. Each binary is built once to warm its dependencies; then,
//! `--runs` times, its `main.rs` is touched and `CARGO_INCREMENTAL=0 cargo build` (and
//! `--release`) is timed; the minimum is kept. The same with no copies gives the fixed cost of a
//! build (compiling `main`, linking), which the per-struct figure leaves out.
//!
//! ```text
//! cargo run --release -p idlc-bench --bin build-cost -- [--copies 20] [--runs 5] [--dir D]
//!     [--encoding NAME] [--module FILE --runtime DIR]
//! ```
//!
//! `--encoding NAME` measures one encoding of schemas/mk48.enc instead of all three: the idlc
//! module is generated from that encoding's statements alone, and `main` calls it alone (the
//! prost and bitcode models are one wire format each), which says what an encoding costs.
//!
//! `--module` and `--runtime` add a row: another revision's generated code, its mk48 module
//! (`idlc gen schemas/mk48.idl -e schemas/mk48.enc -m schemas/mk48.map --side Game`) with its
//! runtime crate. The models take turns run by run, so a change in the machine's load falls on
//! every row alike.
//!
//! `--instructions` counts instead of timing: the instructions rustc executes for each crate,
//! under `valgrind --tool=cachegrind` (Debian's `valgrind`), once for `cargo check` (the front
//! end: parsing, macro expansion, type checking, borrow checking) and once for the debug build.
//! The counts repeat to a few parts in ten thousand from run to run, where the times of a shared
//! machine differ by 10–25%, so a change of a few percent shows; valgrind runs rustc about 40
//! times slower, so a few copies (`--copies 4`) are enough.

use clap::Parser;
use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The mk48 model's data types: what "per struct" counts, the same five for every model.
const STRUCTS: &[&str] = &[
    "Guidance",
    "Transform",
    "Contact",
    "TerrainUpdate",
    "Update",
];
/// The prost model's messages: the five, and the two messages its tuples become.
const PROST_MESSAGES: &[&str] = &[
    "Guidance",
    "Vector2f",
    "Transform",
    "Contact",
    "ChunkId",
    "TerrainUpdate",
    "Update",
];
/// The encodings of schemas/mk48.enc.
const ENCODINGS: &[&str] = &["MK48", "MK48_PLAIN", "MK48_LOSSY"];

/// The command line (the file's doc says what each does).
#[derive(Parser)]
#[command(about = "What the generated code costs a user's build (docs/PERFORMANCE.md)")]
struct Options {
    /// Copies of the mk48 model in each crate (at least 1).
    #[arg(long, default_value_t = 20)]
    copies: usize,
    /// Timed builds of each crate, at least 1; the fastest is kept.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// The scratch workspace.
    #[arg(long, default_value = "target/build-cost")]
    dir: PathBuf,
    /// Another revision's generated mk48 module, measured too, with `--runtime`.
    #[arg(long, requires = "runtime")]
    module: Option<PathBuf>,
    /// The idlc-runtime crate of that revision.
    #[arg(long, requires = "module")]
    runtime: Option<PathBuf>,
    /// Count rustc's instructions under valgrind instead of timing the builds.
    #[arg(long)]
    instructions: bool,
    /// Only this encoding of schemas/mk48.enc (the others left out of the module and of `main`).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(ENCODINGS))]
    encoding: Option<String>,
}

/// One of the three models: a binary crate of the scratch workspace.
struct Model {
    krate: &'static str,
    title: String,
    dependencies: String,
    /// The file each copy's module includes.
    module: PathBuf,
    /// The encodings `main` calls (idlc's; the other models have one wire format).
    encodings: Vec<String>,
    /// The statements that decode and encode every type of the module `m`, adding to `n`.
    calls: fn(&Model, &str) -> String,
}

fn main() -> Result<()> {
    let options = Options::parse();
    if options.copies == 0 || options.runs == 0 {
        return Err("--copies and --runs must be at least 1".into());
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace above bench/")?
        .to_path_buf();
    let models = prepare(&workspace, &options)?;
    if options.instructions {
        return print_instructions(&options, &models);
    }
    let mut per_struct = vec![Vec::new(); models.len()];
    let mut whole = vec![Vec::new(); models.len()];
    for release in [false, true] {
        let base = timed_builds(&options, &models, 0, release)?;
        let full = timed_builds(&options, &models, options.copies, release)?;
        let structs = u32::try_from(options.copies * STRUCTS.len())?;
        for (index, (base, full)) in base.into_iter().zip(full).enumerate() {
            per_struct[index].push(full.saturating_sub(base) / structs);
            whole[index].push(full);
        }
    }
    let mut table = String::from(
        "| model | debug, whole build | debug, per struct | release, whole build | release, per struct |\n\
         | --- | --: | --: | --: | --: |\n",
    );
    for (index, model) in models.iter().enumerate() {
        let _ = write!(table, "| {} ", model.title);
        for profile in 0..2 {
            let _ = write!(
                table,
                "| {:.1} s | {:.1} ms ",
                whole[index][profile].as_secs_f64(),
                per_struct[index][profile].as_secs_f64() * 1e3
            );
        }
        table.push_str("|\n");
    }
    println!("\n{table}");
    for (index, model) in models.iter().enumerate().skip(1) {
        println!(
            "idlc per struct / {}: debug {:.2}x, release {:.2}x",
            model.title,
            ratio(per_struct[0][0], per_struct[index][0]),
            ratio(per_struct[0][1], per_struct[index][1])
        );
    }
    Ok(())
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

/// Writes the scratch workspace and the files its crates include.
fn prepare(workspace: &Path, options: &Options) -> Result<Vec<Model>> {
    let dir = options.dir.as_path();
    let generated = dir.join("generated");
    fs::create_dir_all(&generated)?;
    let schemas = workspace.join("schemas");
    let (encoding_file, encodings) = match &options.encoding {
        None => (
            schemas.join("mk48.enc"),
            ENCODINGS.iter().map(|e| e.to_string()).collect(),
        ),
        Some(name) => {
            let file = generated.join(format!("{name}.enc"));
            fs::write(
                &file,
                one_encoding(&fs::read_to_string(schemas.join("mk48.enc"))?, name),
            )?;
            (file, vec![name.clone()])
        }
    };
    let title = match &options.encoding {
        None => "idlc (3 encodings)".to_string(),
        Some(name) => format!("idlc ({name} alone)"),
    };
    let built = idlc::Builder::new()
        .encoding(&encoding_file)
        .mapping(schemas.join("mk48.map"))
        .side("Game")
        .out_dir(&generated)
        .file_name("mk48.rs")
        .compile([schemas.join("mk48.idl")])?;
    let module = built;
    let mk48 = workspace.join("bench/src/mk48");
    let bitcode_types = generated.join("model_types.rs");
    let without_bincode: String = fs::read_to_string(mk48.join("model_types.rs"))?
        .lines()
        .filter(|line| !line.contains("bincode::"))
        .map(|line| format!("{line}\n"))
        .collect();
    fs::write(&bitcode_types, without_bincode)?;
    let runtime = fs::canonicalize(workspace.join("runtime"))?;
    let mut models = vec![Model {
        krate: "idlc-models",
        title,
        dependencies: format!("idlc-runtime = {{ path = {:?} }}\n", runtime.display()),
        module: fs::canonicalize(module)?,
        encodings: encodings.clone(),
        calls: idlc_calls,
    }];
    if let (Some(module), Some(runtime)) = (&options.module, &options.runtime) {
        models.push(Model {
            krate: "idlc-baseline",
            title: "idlc, `--module` with `--runtime`".into(),
            dependencies: format!(
                "idlc-runtime = {{ path = {:?} }}\n",
                fs::canonicalize(runtime)?.display()
            ),
            module: fs::canonicalize(module)?,
            encodings,
            calls: idlc_calls,
        });
    }
    models.extend([
        Model {
            krate: "prost-models",
            title: "prost-derive".into(),
            dependencies: "prost = \"0.14\"\n".into(),
            module: mk48.join("proto_types.rs"),
            encodings: Vec::new(),
            calls: prost_calls,
        },
        Model {
            krate: "bitcode-models",
            title: "serde + bitcode-derive".into(),
            dependencies:
                "bitcode = \"0.6\"\nserde = { version = \"1\", features = [\"derive\"] }\n".into(),
            module: fs::canonicalize(&bitcode_types)?,
            encodings: Vec::new(),
            calls: bitcode_calls,
        },
    ]);
    for model in &models {
        let root = dir.join(model.krate);
        fs::create_dir_all(root.join("src"))?;
        fs::write(
            root.join("Cargo.toml"),
            format!(
                "# Written by `cargo run -p idlc-bench --bin build-cost`: a user's crate, default profiles.\n\
                 [package]\nname = {:?}\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
                 [dependencies]\n{}\n# Its own workspace: the two idlc rows may use two runtimes of one version.\n\
                 [workspace]\n",
                model.krate, model.dependencies
            ),
        )?;
        // The versions the bench itself measures with.
        fs::copy(workspace.join("Cargo.lock"), root.join("Cargo.lock"))?;
    }
    Ok(models)
}

/// The fastest of `--runs` builds of each model with `copies` copies of its module. The models
/// take turns run by run, so that a change in the machine's load falls on all of them alike.
fn timed_builds(
    options: &Options,
    models: &[Model],
    copies: usize,
    release: bool,
) -> Result<Vec<Duration>> {
    let main = |model: &Model| options.dir.join(model.krate).join("src/main.rs");
    for model in models {
        fs::write(main(model), main_rs(model, copies))?;
        build(options, model, release)?;
    }
    let mut best = vec![Duration::MAX; models.len()];
    for _ in 0..options.runs {
        for (model, best) in models.iter().zip(&mut best) {
            // A new modification time: cargo rebuilds the crate, and only the crate.
            fs::write(main(model), main_rs(model, copies))?;
            let start = Instant::now();
            build(options, model, release)?;
            *best = (*best).min(start.elapsed());
        }
    }
    for (model, best) in models.iter().zip(&best) {
        eprintln!(
            "{} {} copies {}: {:.2} s",
            model.krate,
            copies,
            if release { "release" } else { "debug" },
            best.as_secs_f64()
        );
    }
    Ok(best)
}

fn build(options: &Options, model: &Model, release: bool) -> Result<()> {
    let args: &[&str] = if release {
        &["build", "--quiet", "--release"]
    } else {
        &["build", "--quiet"]
    };
    cargo(options, model, args, &[])
}

/// The `--instructions` table: millions of instructions per struct, front end and whole debug
/// build, each the count with `--copies` copies less the count with none.
fn print_instructions(options: &Options, models: &[Model]) -> Result<()> {
    let wrapper = options.dir.join("rustc-counted.sh");
    fs::write(
        &wrapper,
        "#!/bin/sh\n# RUSTC_WRAPPER of `build-cost --instructions`: rustc under cachegrind for the\n\
         # crate named in $COUNTED_CRATE, its count in $COUNTED_LOG.\n\
         rustc=\"$1\"; shift\n\
         case \" $* \" in *\" --crate-name $COUNTED_CRATE \"*)\n  \
         exec valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=/dev/null \
         --log-file=\"$COUNTED_LOG\" \"$rustc\" \"$@\";;\nesac\nexec \"$rustc\" \"$@\"\n",
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755))?;
    }
    let structs = (options.copies * STRUCTS.len()) as f64;
    let mut table = String::from(
        "| model | front end (`cargo check`), per struct | debug build, per struct |\n\
         | --- | --: | --: |\n",
    );
    let mut rows = Vec::new();
    for model in models {
        let mut row = Vec::new();
        for subcommand in ["check", "build"] {
            let base = counted(options, &wrapper, model, 0, subcommand)?;
            let full = counted(options, &wrapper, model, options.copies, subcommand)?;
            eprintln!(
                "{} {subcommand}: {base} instructions with no copies, {full} with {}",
                model.krate, options.copies
            );
            row.push(full.saturating_sub(base) as f64 / structs / 1e6);
        }
        let _ = writeln!(
            table,
            "| {} | {:.1} M | {:.1} M |",
            model.title, row[0], row[1]
        );
        rows.push(row);
    }
    println!("\n{table}");
    for (index, model) in models.iter().enumerate().skip(1) {
        println!(
            "idlc per struct / {}: front end {:.2}x, debug build {:.2}x",
            model.title,
            rows[0][0] / rows[index][0].max(1e-9),
            rows[0][1] / rows[index][1].max(1e-9)
        );
    }
    Ok(())
}

/// The instructions rustc executes for `cargo <subcommand>` of `model` with `copies` copies.
fn counted(
    options: &Options,
    wrapper: &Path,
    model: &Model,
    copies: usize,
    subcommand: &str,
) -> Result<u64> {
    let root = options.dir.join(model.krate);
    let log = options.dir.join(format!("{}.cachegrind.log", model.krate));
    // Dependencies first, uncounted; then a new modification time: cargo reruns the crate alone.
    fs::write(root.join("src/main.rs"), main_rs(model, copies))?;
    cargo(options, model, &[subcommand, "--quiet"], &[])?;
    fs::write(root.join("src/main.rs"), main_rs(model, copies))?;
    let _ = fs::remove_file(&log);
    let crate_name = model.krate.replace('-', "_");
    cargo(
        options,
        model,
        &[subcommand, "--quiet"],
        &[
            ("RUSTC_WRAPPER", wrapper.as_os_str()),
            ("COUNTED_CRATE", crate_name.as_ref()),
            ("COUNTED_LOG", log.as_os_str()),
        ],
    )?;
    let text = fs::read_to_string(&log).map_err(|e| {
        format!(
            "no valgrind log for {} (is valgrind installed?): {e}",
            model.krate
        )
    })?;
    text.lines()
        .find_map(|line| {
            // `==123== I   refs:      1,234` (the spacing differs between versions).
            line.split_once("refs:")
                .filter(|(head, _)| head.trim_end().ends_with(" I"))
        })
        .map(|(_, count)| count.trim().replace(',', ""))
        .ok_or_else(|| format!("no instruction count in {}", log.display()))?
        .parse()
        .map_err(Into::into)
}

/// `cargo <args>` in the crate of `model`, non-incremental, with `env` added.
fn cargo(
    options: &Options,
    model: &Model,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<()> {
    let status = Command::new(env!("CARGO"))
        .current_dir(options.dir.join(model.krate))
        .args(args)
        .env("CARGO_INCREMENTAL", "0")
        .env("CARGO_TARGET_DIR", options.dir.join("target"))
        .env_remove("RUSTFLAGS")
        .envs(env.iter().copied())
        .status()?;
    if !status.success() {
        return Err(format!(
            "cargo {} of {} failed: {status}",
            args.join(" "),
            model.krate
        )
        .into());
    }
    Ok(())
}

fn main_rs(model: &Model, copies: usize) -> String {
    let mut text = String::from(
        "//! Written by the build-cost benchmark: every type of every copy, decoded and encoded.\n\
         #![allow(unused, missing_docs, clippy::all)]\n\n",
    );
    for copy in 0..copies {
        let _ = writeln!(
            text,
            "mod m{copy} {{\n    include!({:?});\n}}",
            model.module.display()
        );
    }
    text.push_str(
        "\nfn main() {\n    let input: Vec<u8> = std::env::args().skip(1).flat_map(String::into_bytes).collect();\n    \
         let b = input.as_slice();\n    let mut n = 0usize;\n",
    );
    for copy in 0..copies {
        text.push_str(&(model.calls)(model, &format!("m{copy}")));
    }
    text.push_str("    println!(\"{n}\");\n}\n");
    text
}

/// The statements of an Encoding file that belong to the encoding `name`: from each line that
/// starts `ENCODING(name)` up to the next line that starts another `ENCODING(`.
fn one_encoding(text: &str, name: &str) -> String {
    let mut keep = false;
    let mut kept = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("ENCODING(") {
            keep = rest.starts_with(&format!("{name})"));
        }
        if keep {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

fn idlc_calls(model: &Model, m: &str) -> String {
    let mut text = String::new();
    for ty in STRUCTS {
        for encoding in &model.encodings {
            let _ = writeln!(
                text,
                "    n += {m}::{ty}::from_bytes_with::<{m}::{encoding}>(b).map_or(0, |v| v.to_bytes_with::<{m}::{encoding}>().unwrap_or_default().len());"
            );
        }
    }
    text
}

fn prost_calls(_: &Model, m: &str) -> String {
    let mut text = String::new();
    for ty in PROST_MESSAGES {
        let _ = writeln!(
            text,
            "    n += <{m}::{ty} as prost::Message>::decode(b).map_or(0, |v| prost::Message::encode_to_vec(&v).len());"
        );
    }
    text
}

fn bitcode_calls(_: &Model, m: &str) -> String {
    let mut text = String::new();
    for ty in STRUCTS {
        let _ = writeln!(
            text,
            "    n += bitcode::decode::<{m}::{ty}>(b).map_or(0, |v| bitcode::encode(&v).len());"
        );
    }
    text
}
