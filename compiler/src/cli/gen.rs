//! `idlc gen`: generate the Rust module, or the C++ header, of one side (or of every side of
//! `idlc.toml`).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use super::inputs::{InputArgs, Sides, Target, compile};
use super::{Status, print_error, stderr, usage_error};
use crate::builder::{display_name, write_if_changed};
use crate::codegen::{self, GenOptions};
use crate::diagnostics::text_diff::unified_diff;

/// Arguments of `idlc gen`.
#[derive(Debug, Clone, Args)]
pub struct GenArgs {
    /// The input files and side.
    #[command(flatten)]
    pub inputs: InputArgs,
    /// The output file (`-`: stdout). Default: the side's `out` in idlc.toml, else stdout.
    #[arg(short, long = "out", value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// Write nothing; print a unified diff and exit 1 when the output file is stale or missing.
    #[arg(long)]
    pub check: bool,
    /// Print no summary line (`wrote FILE`) on success.
    #[arg(short, long)]
    pub quiet: bool,
    /// The C++ namespace of a side mapped with `MAPPING("CPP", ...)` (`a::b` allowed).
    /// Default: the first IDL file's stem, then the side in snake_case (`game::client`).
    #[arg(long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
}

/// Where the code of one target goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Destination {
    Stdout,
    File(PathBuf),
}

impl GenArgs {
    /// Generates (or, with `--check`, compares) every target; returns the worst exit status.
    pub fn run(&self) -> Status {
        let targets = match self.inputs.targets("gen", Sides::All) {
            Ok(targets) => targets,
            Err(status) => return status,
        };
        let planned = match self.plan(&targets) {
            Ok(planned) => planned,
            Err(message) => return usage_error("gen", message),
        };
        let mut status = Status::Success;
        for (target, destination) in targets.iter().zip(planned) {
            let outcome = self.one(target, &destination);
            if outcome.code() > status.code() {
                status = outcome;
            }
        }
        status
    }

    /// Where each target goes; an error when that cannot be said before anything is compiled.
    fn plan(&self, targets: &[Target]) -> Result<Vec<Destination>, String> {
        let several = targets.len() > 1;
        if several && self.out.is_some() {
            return Err(format!(
                "-o names one output, but idlc.toml lists {} sides: pick one with --side",
                targets.len()
            ));
        }
        targets
            .iter()
            .map(|target| {
                let destination = match self.out.as_ref().or(target.out.as_ref()) {
                    Some(path) if path == Path::new("-") => Destination::Stdout,
                    Some(path) => Destination::File(path.clone()),
                    None => Destination::Stdout,
                };
                let side = target.inputs.side.as_deref().unwrap_or("(none)");
                if several && destination == Destination::Stdout {
                    return Err(format!(
                        "side `{side}` has no `out` in idlc.toml: add one, or pick the side with \
                         --side"
                    ));
                }
                if self.check && destination == Destination::Stdout {
                    return Err(
                        "--check compares with the output file: give -o FILE, or an \
                                `out` in idlc.toml"
                            .to_string(),
                    );
                }
                Ok(destination)
            })
            .collect()
    }

    fn one(&self, target: &Target, destination: &Destination) -> Status {
        let compilation = match compile(&target.inputs, "generate") {
            Ok(compilation) => compilation,
            Err(status) => return status,
        };
        let inputs = &target.inputs;
        let options = GenOptions {
            inputs: inputs
                .idl
                .iter()
                .chain(&inputs.encodings)
                .chain(&inputs.mappings)
                .map(|p| display_name(p))
                .collect(),
            ..GenOptions::default()
        };
        let generated = if compilation.ir.mapping.language == crate::ir::Language::Cpp {
            let namespace = self.namespace.clone().unwrap_or_else(|| {
                crate::cppgen::default_namespace(&inputs.idl, inputs.side.as_deref())
            });
            crate::cppgen::generate_header(&compilation.ir, &namespace)
        } else {
            codegen::generate(&compilation.ir, &options)
        };
        let code = match generated {
            Ok(code) => code,
            Err(error) => {
                print_error(&mut stderr(), format!("cannot generate code: {error}"));
                return Status::InputErrors;
            }
        };
        match destination {
            Destination::Stdout => {
                // A closed stdout (`idlc gen | head`) is not an error of ours.
                let _ = std::io::stdout().lock().write_all(code.as_bytes());
                Status::Success
            }
            Destination::File(path) if self.check => check_fresh(path, &code),
            Destination::File(path) => match write_if_changed(path, &code) {
                Ok(wrote) => {
                    if !self.quiet {
                        let what = if wrote { "wrote" } else { "up to date:" };
                        let _ = writeln!(stderr(), "{what} {}", path.display());
                    }
                    Status::Success
                }
                Err(error) => {
                    print_error(
                        &mut stderr(),
                        format!("cannot write `{}`: {error}", path.display()),
                    );
                    Status::Usage
                }
            },
        }
    }
}

/// `--check`: exit 0 when `path` holds exactly `code`; else print the diff from the file to
/// `code` on stdout, say so on stderr and exit 1.
fn check_fresh(path: &Path, code: &str) -> Status {
    let old = match std::fs::read(path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            print_error(
                &mut stderr(),
                format!("cannot read `{}`: {error}", path.display()),
            );
            return Status::Usage;
        }
    };
    if old.as_deref() == Some(code) {
        return Status::Success;
    }
    let shown = path.display().to_string();
    let diff = unified_diff(old.as_deref().unwrap_or(""), code, &shown, "generated");
    let _ = std::io::stdout().lock().write_all(diff.as_bytes());
    let message = match old {
        Some(_) => format!("`{shown}` is stale: run `idlc gen` to regenerate it"),
        None => format!("`{shown}` does not exist: run `idlc gen` to generate it"),
    };
    print_error(&mut stderr(), message);
    Status::InputErrors
}
