//! idlc: an IDL compiler for game networking.
//!
//! The pipeline, one module per stage, data flowing one way:
//!
//! ```text
//! load (files, IMPORTs) → front (three parsers → ASTs) → resolve (→ IR) → codegen / compat / report
//! ```
//!
//! [`diagnostics`] collects what is wrong; library code never prints, only the CLI renders.
//!
//! Features: `cli` (off by default) adds the `idlc` command's code, `cli` (clap) and `config`
//! (`idlc.toml`), for the package idlc-cli, whose binary calls it; `lsp` (off by default, only
//! idlc-cli turns it on) adds the language server, `lsp` (lsp-server, lsp-types). Without it, a build.rs that
//! uses [`Builder`] compiles no CLI parser; the parsers of the three languages are checked in,
//! so it compiles no parser generator either.

#![forbid(unsafe_code)]

pub mod builder;
#[cfg(feature = "cli")]
pub mod cli;
pub mod codegen;
pub mod compat;
#[cfg(feature = "cli")]
pub mod config;
pub mod cppgen;
pub mod diagnostics;
pub mod dissector;
pub mod fmt;
pub mod front;
pub mod interpret;
pub mod ir;
pub mod load;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod report;
pub mod resolve;
pub mod tune;

use std::path::PathBuf;

pub use builder::{Builder, IdlFiles};

use diagnostics::{Diagnostic, SourceMap};
use ir::Ir;

/// The files of one compilation, as named on the command line or in `idlc.toml`.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// IDL files; their IMPORTs are followed.
    pub idl: Vec<PathBuf>,
    /// Encoding files.
    pub encodings: Vec<PathBuf>,
    /// Mapping files.
    pub mappings: Vec<PathBuf>,
    /// The side whose mappings apply (`Client`, `Server`, ...).
    pub side: Option<String>,
}

/// The result of a compilation: the IR (partial when there are errors) and every diagnostic.
#[derive(Debug)]
pub struct Compilation {
    /// The files read, for rendering diagnostics.
    pub sources: SourceMap,
    /// Errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// The IR; complete only when there are no errors.
    pub ir: Ir,
}

impl Compilation {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        diagnostics::has_errors(&self.diagnostics)
    }
}

/// Reads, parses and resolves `inputs` from the file system. Fails only when a file named in
/// `inputs` cannot be read; every problem inside the files is a diagnostic.
pub fn compile(inputs: &Inputs) -> Result<Compilation, load::LoadError> {
    compile_with(inputs, &load::RealFs)
}

/// [`compile`] for `idlc check` without a side: when `inputs` names no side, every side the
/// mapping files name is resolved and checked (its DERIVEs, its lossy mappings), each
/// diagnostic reported once; with a side, [`compile`].
pub fn compile_every_side(inputs: &Inputs) -> Result<Compilation, load::LoadError> {
    match inputs.side {
        Some(_) => compile(inputs),
        None => compile_by(inputs, &load::RealFs, resolve::resolve_every_side),
    }
}

/// As [`compile_every_side`], reading files through `fs` (the language server reads the
/// editor's buffers through one).
pub fn compile_every_side_with(
    inputs: &Inputs,
    fs: &dyn load::FileSystem,
) -> Result<Compilation, load::LoadError> {
    compile_every_side_parsed(inputs, fs).map(|(compilation, _)| compilation)
}

/// As [`compile_every_side_with`], also returning the parsed files (the syntax trees, with their
/// spans), for the language server's navigation.
pub fn compile_every_side_parsed(
    inputs: &Inputs,
    fs: &dyn load::FileSystem,
) -> Result<(Compilation, load::Parsed), load::LoadError> {
    match inputs.side {
        Some(_) => parse_and_compile_by(inputs, fs, |parsed| {
            resolve::resolve(parsed, inputs.side.as_deref())
        }),
        None => parse_and_compile_by(inputs, fs, resolve::resolve_every_side),
    }
}

/// As [`compile`], reading files through `fs` (tests use an in-memory file system).
pub fn compile_with(
    inputs: &Inputs,
    fs: &dyn load::FileSystem,
) -> Result<Compilation, load::LoadError> {
    compile_by(inputs, fs, |parsed| {
        resolve::resolve(parsed, inputs.side.as_deref())
    })
}

/// Loads `inputs` through `fs` and resolves them with `resolve`.
fn compile_by(
    inputs: &Inputs,
    fs: &dyn load::FileSystem,
    resolve: impl FnOnce(&load::Parsed) -> (ir::Ir, Vec<diagnostics::Diagnostic>),
) -> Result<Compilation, load::LoadError> {
    parse_and_compile_by(inputs, fs, resolve).map(|(compilation, _)| compilation)
}

/// [`compile_by`], keeping the parsed files.
fn parse_and_compile_by(
    inputs: &Inputs,
    fs: &dyn load::FileSystem,
    resolve: impl FnOnce(&load::Parsed) -> (ir::Ir, Vec<diagnostics::Diagnostic>),
) -> Result<(Compilation, load::Parsed), load::LoadError> {
    let mut sources = SourceMap::new();
    let (parsed, mut diagnostics) = load::load(&mut sources, inputs, fs)?;
    let (ir, resolved) = resolve(&parsed);
    // What resolution says of files that did not parse is mostly a cascade of the syntax
    // errors (a type "not declared" because its declaration did not parse): fix those first.
    if !diagnostics::has_errors(&diagnostics) {
        diagnostics.extend(resolved);
    }
    Ok((
        Compilation {
            sources,
            diagnostics,
            ir,
        },
        parsed,
    ))
}
