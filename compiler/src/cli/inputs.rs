//! The input arguments every subcommand shares, `[IDL...] [-e F]... [-m F]... [--side S]`, and
//! how they combine with `idlc.toml`.
//!
//! With IDL files on the command line, the command line is the whole story: `idlc.toml` is not
//! read. Without any, `idlc.toml` in the current directory names the IDL files and, per side,
//! the encodings, mappings and output file; `--encoding` / `--mapping` given on the command line
//! replace the toml's lists, and `--side` picks one side.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{Status, print_error, report, stderr, usage_error};
use crate::config::{self, Config};
use crate::{Compilation, Inputs};

/// Input files and side, flattened into every subcommand.
#[derive(Debug, Clone, Default, Args)]
pub struct InputArgs {
    /// IDL files (their IMPORTs are followed). Without any, `idlc.toml` in the current
    /// directory names the inputs.
    #[arg(value_name = "IDL")]
    pub idl: Vec<PathBuf>,
    /// An Encoding file (repeatable; replaces the encodings of idlc.toml).
    #[arg(short, long = "encoding", value_name = "FILE")]
    pub encoding: Vec<PathBuf>,
    /// A Mapping file (repeatable; replaces the mappings of idlc.toml).
    #[arg(short, long = "mapping", value_name = "FILE")]
    pub mapping: Vec<PathBuf>,
    /// The side whose mappings apply (`Client`, `Server`, ...); with idlc.toml, the side to use.
    #[arg(long, value_name = "SIDE")]
    pub side: Option<String>,
}

/// Which sides of an `idlc.toml` a subcommand wants when `--side` is not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sides {
    /// The first side listed (`ir`, `report`).
    First,
    /// Every side listed (`gen`, `check`).
    All,
}

/// One compilation to run: its inputs and, from `idlc.toml`, where `gen` writes it.
#[derive(Debug, Clone, Default)]
pub struct Target {
    /// The files and the side.
    pub inputs: Inputs,
    /// The `out` of the side (or of the file, without sides) in `idlc.toml`.
    pub out: Option<PathBuf>,
}

/// Why the inputs could not be worked out.
#[derive(Debug)]
pub enum InputError {
    /// No IDL argument and no `idlc.toml`: a usage error with the subcommand's usage line.
    Missing(String),
    /// A problem with `idlc.toml` itself (unreadable, malformed, no such side).
    Config(String),
}

impl InputArgs {
    /// The compilations to run, reading `idlc.toml` from the current directory when no IDL file
    /// is given. Prints what is wrong (exit 2) when they cannot be worked out.
    pub fn targets(&self, subcommand: &str, sides: Sides) -> Result<Vec<Target>, Status> {
        self.targets_in(Path::new(""), sides)
            .map_err(|error| match error {
                InputError::Missing(message) => usage_error(subcommand, message),
                InputError::Config(message) => {
                    print_error(&mut stderr(), message);
                    Status::Usage
                }
            })
    }

    /// As [`InputArgs::targets`], with `idlc.toml` looked for in `dir`, and nothing printed.
    pub fn targets_in(&self, dir: &Path, sides: Sides) -> Result<Vec<Target>, InputError> {
        if !self.idl.is_empty() {
            return Ok(vec![Target {
                inputs: Inputs {
                    idl: self.idl.clone(),
                    encodings: self.encoding.clone(),
                    mappings: self.mapping.clone(),
                    side: self.side.clone(),
                },
                out: None,
            }]);
        }
        let path = dir.join(config::FILE_NAME);
        if !path.exists() {
            return Err(InputError::Missing(format!(
                "no IDL files given, and there is no {} in the current directory",
                config::FILE_NAME
            )));
        }
        let config = Config::load(&path).map_err(|e| InputError::Config(e.to_string()))?;
        self.targets_from(&config, sides)
    }

    /// The compilations `config` describes, with the command line's encodings, mappings and
    /// side applied.
    pub fn targets_from(&self, config: &Config, sides: Sides) -> Result<Vec<Target>, InputError> {
        if config.idl.is_empty() {
            return Err(InputError::Config(format!(
                "{} names no IDL files: add `idl = [\"...\"]`, or name them on the command line",
                config::FILE_NAME
            )));
        }
        let pick = |list: &Vec<PathBuf>, own: &[PathBuf]| {
            if list.is_empty() {
                own.to_vec()
            } else {
                list.clone()
            }
        };
        let target = |side: Option<&str>| {
            let (encodings, mappings, out) = match side.and_then(|s| config.sides.get(s)) {
                Some(own) => (own.encodings(config), own.mappings(config), own.out.clone()),
                None => (
                    config.encodings.as_slice(),
                    config.mappings.as_slice(),
                    config.out.clone(),
                ),
            };
            Target {
                inputs: Inputs {
                    idl: config.idl.clone(),
                    encodings: pick(&self.encoding, encodings),
                    mappings: pick(&self.mapping, mappings),
                    side: side.map(str::to_string),
                },
                out,
            }
        };
        if let Some(side) = &self.side {
            if !config.sides.is_empty() && !config.sides.contains_key(side) {
                let known: Vec<&str> = config.sides.keys().map(String::as_str).collect();
                return Err(InputError::Config(format!(
                    "{} has no side `{side}`; its sides: {}",
                    config::FILE_NAME,
                    known.join(", ")
                )));
            }
            return Ok(vec![target(Some(side))]);
        }
        let names: Vec<&str> = config.sides.keys().map(String::as_str).collect();
        Ok(match (names.as_slice(), sides) {
            ([], _) => vec![target(None)],
            ([first, ..], Sides::First) => vec![target(Some(first))],
            (all, Sides::All) => all.iter().map(|s| target(Some(s))).collect(),
        })
    }
}

/// Compiles `inputs`, rendering every diagnostic to stderr (summary: `could not {what}`).
/// `Err` is the exit status: 1 when the input has errors, 2 when a named file cannot be read.
pub fn compile(inputs: &Inputs, what: &str) -> Result<Compilation, Status> {
    compile_by(inputs, what, crate::compile)
}

/// [`compile`] with `compile` in place of [`crate::compile`] (`idlc check` checks every side).
fn compile_by(
    inputs: &Inputs,
    what: &str,
    compile: fn(&Inputs) -> Result<Compilation, crate::load::LoadError>,
) -> Result<Compilation, Status> {
    let mut err = stderr();
    let compilation = match compile(inputs) {
        Ok(compilation) => compilation,
        Err(error) => {
            print_error(&mut err, error);
            return Err(Status::Usage);
        }
    };
    // A failed write to stderr changes nothing about the verdict.
    let _ = report(
        &mut err,
        &compilation.sources,
        &compilation.diagnostics,
        what,
    );
    if compilation.has_errors() {
        Err(Status::InputErrors)
    } else {
        Ok(compilation)
    }
}

/// Runs `f` on the one target of a subcommand that works on one side (`check`, `ir`,
/// `report`), compiled; returns the exit status.
pub fn with_compilation(
    args: &InputArgs,
    subcommand: &str,
    what: &str,
    f: impl FnOnce(&Compilation) -> Status,
) -> Status {
    with_compilation_by(args, subcommand, what, crate::compile, f)
}

/// [`with_compilation`] for `idlc check`: without a side, every side is checked. The sides of
/// `idlc.toml` are compiled one after the other (each with its own encodings and mappings), and
/// within one, every side its mapping files name ([`crate::compile_every_side`]); each
/// diagnostic is printed once, and `f` sees the sides merged (`merge_sides`).
pub fn with_every_side(
    args: &InputArgs,
    what: &str,
    f: impl FnOnce(&Compilation) -> Status,
) -> Status {
    let targets = match args.targets("check", Sides::All) {
        Ok(targets) => targets,
        Err(status) => return status,
    };
    if targets.len() <= 1 {
        return with_compilation_by(args, "check", what, crate::compile_every_side, f);
    }
    let mut compilations = Vec::with_capacity(targets.len());
    for target in &targets {
        match crate::compile_every_side(&target.inputs) {
            Ok(compilation) => compilations.push(compilation),
            Err(error) => {
                print_error(&mut stderr(), error);
                return Status::Usage;
            }
        }
    }
    let merged = merge_sides(compilations);
    // A failed write to stderr changes nothing about the verdict.
    let _ = report(&mut stderr(), &merged.sources, &merged.diagnostics, what);
    if merged.has_errors() {
        Status::InputErrors
    } else {
        f(&merged)
    }
}

/// The compilations of several sides as one, for `idlc check`'s report: every file read once
/// (by path), every diagnostic once (the shared IDL's are found by every side), the first
/// side's schema, and the encodings of every side by name.
fn merge_sides(compilations: Vec<Compilation>) -> Compilation {
    let mut compilations = compilations.into_iter();
    let Some(mut merged) = compilations.next() else {
        return Compilation {
            sources: crate::diagnostics::SourceMap::new(),
            diagnostics: Vec::new(),
            ir: crate::ir::Ir::default(),
        };
    };
    for side in compilations {
        let files: Vec<usize> = (0..side.sources.len())
            .map(|file| {
                let path = side.sources.path(file);
                merged
                    .sources
                    .find(path)
                    .unwrap_or_else(|| merged.sources.add(path, side.sources.source(file)))
            })
            .collect();
        for mut diagnostic in side.diagnostics {
            for label in &mut diagnostic.labels {
                label.file_id = files.get(label.file_id).copied().unwrap_or(label.file_id);
            }
            if !merged.diagnostics.contains(&diagnostic) {
                merged.diagnostics.push(diagnostic);
            }
        }
        for (name, encoding) in side.ir.encodings {
            merged.ir.encodings.entry(name).or_insert(encoding);
        }
    }
    merged
}

fn with_compilation_by(
    args: &InputArgs,
    subcommand: &str,
    what: &str,
    compile: fn(&Inputs) -> Result<Compilation, crate::load::LoadError>,
    f: impl FnOnce(&Compilation) -> Status,
) -> Status {
    let targets = match args.targets(subcommand, Sides::First) {
        Ok(targets) => targets,
        Err(status) => return status,
    };
    let Some(target) = targets.first() else {
        return Status::Success;
    };
    match compile_by(&target.inputs, what, compile) {
        Ok(compilation) => f(&compilation),
        Err(status) => status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::parse(
            r#"
idl = ["game.idl"]
encodings = ["s2c.enc"]
out = "game.rs"
[sides.Client]
mappings = ["client.map"]
out = "client.rs"
[sides.Server]
encodings = ["s2s.enc"]
mappings = ["server.map"]
"#,
            Path::new("p"),
        )
        .unwrap()
    }

    fn paths(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn idl_on_the_command_line_ignores_the_toml() {
        let args = InputArgs {
            idl: paths(&["a.idl"]),
            side: Some("Client".into()),
            ..InputArgs::default()
        };
        let targets = args
            .targets_in(Path::new("/nonexistent"), Sides::All)
            .unwrap();
        assert_eq!(targets.len(), 1);
        assert_eq!(targets[0].inputs.idl, paths(&["a.idl"]));
        assert_eq!(targets[0].inputs.side.as_deref(), Some("Client"));
        assert_eq!(targets[0].out, None);
    }

    #[test]
    fn no_idl_and_no_toml_is_a_usage_error() {
        let error = InputArgs::default()
            .targets_in(Path::new("/nonexistent"), Sides::First)
            .unwrap_err();
        assert!(matches!(error, InputError::Missing(m) if m.contains("idlc.toml")));
    }

    #[test]
    fn sides_first_or_all() {
        let config = config();
        let first = InputArgs::default()
            .targets_from(&config, Sides::First)
            .unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].inputs.side.as_deref(), Some("Client"));
        assert_eq!(first[0].inputs.encodings, paths(&["p/s2c.enc"]));
        assert_eq!(first[0].inputs.mappings, paths(&["p/client.map"]));
        assert_eq!(first[0].out, Some(PathBuf::from("p/client.rs")));

        let all = InputArgs::default()
            .targets_from(&config, Sides::All)
            .unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].inputs.side.as_deref(), Some("Server"));
        assert_eq!(all[1].inputs.encodings, paths(&["p/s2s.enc"]));
        assert_eq!(all[1].out, None);
    }

    #[test]
    fn command_line_lists_replace_the_toml_lists() {
        let args = InputArgs {
            encoding: paths(&["other.enc"]),
            side: Some("Server".into()),
            ..InputArgs::default()
        };
        let targets = args.targets_from(&config(), Sides::All).unwrap();
        assert_eq!(targets.len(), 1);
        assert_eq!(targets[0].inputs.encodings, paths(&["other.enc"]));
        assert_eq!(targets[0].inputs.mappings, paths(&["p/server.map"]));
        assert_eq!(targets[0].inputs.idl, paths(&["p/game.idl"]));
    }

    #[test]
    fn unknown_side_is_an_error() {
        let args = InputArgs {
            side: Some("Bot".into()),
            ..InputArgs::default()
        };
        let error = args.targets_from(&config(), Sides::All).unwrap_err();
        assert!(
            matches!(&error, InputError::Config(m) if m.contains("`Bot`") && m.contains("Client, Server")),
            "{error:?}"
        );
    }

    #[test]
    fn without_sides_the_common_lists_and_out_apply() {
        let config = Config::parse("idl = [\"g.idl\"]\nout = \"g.rs\"\n", Path::new("")).unwrap();
        let args = InputArgs {
            side: Some("Client".into()),
            ..InputArgs::default()
        };
        let targets = args.targets_from(&config, Sides::All).unwrap();
        assert_eq!(targets.len(), 1);
        assert_eq!(targets[0].inputs.side.as_deref(), Some("Client"));
        assert_eq!(targets[0].out, Some(PathBuf::from("g.rs")));
        let error = InputArgs::default()
            .targets_from(&Config::default(), Sides::All)
            .unwrap_err();
        assert!(matches!(error, InputError::Config(m) if m.contains("no IDL files")));
    }
}
