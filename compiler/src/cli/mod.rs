//! The command-line interface: one module per subcommand, each a clap `Args` struct with a
//! `run()`. This is the only place that prints: it renders the diagnostics the library collects.
//!
//! Exit codes ([`Status`]): 0 ok (warnings allowed), 1 the input has errors, 2 usage errors or a
//! file named on the command line that cannot be read. clap's own usage errors exit 2 as well.

pub mod check;
pub mod compat;
pub mod data;
pub mod decode;
pub mod dissector;
pub mod encode;
pub mod fmt;
pub mod r#gen;
pub mod inputs;
pub mod ir;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod measure;
pub mod report;
mod suggest;
mod trace;

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use codespan_reporting::diagnostic::Severity;
use codespan_reporting::term::termcolor::{
    Color, ColorChoice, ColorSpec, StandardStream, WriteColor,
};
use codespan_reporting::term::{self, Config};

use crate::diagnostics::{Diagnostic, SourceMap};

/// idlc: an IDL compiler for game networking.
#[derive(Debug, Parser)]
#[command(name = "idlc", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate the Rust module of a side (of every side of idlc.toml); `--check` for CI.
    Gen(r#gen::GenArgs),
    /// Parse and validate IDL, Encoding and Mapping files; print every error and warning.
    Check(check::CheckArgs),
    /// Print the bits every field and every struct costs, per encoding.
    Report(report::ReportArgs),
    /// Print the IR (schema, encodings, mapping) as JSON.
    Ir(ir::IrArgs),
    /// Check that NEW is a fenced backward-compatible extension of OLD (for CI).
    CheckCompat(compat::CompatArgs),
    /// Decode bytes of a type as JSON (or `--format explain`), with no generated code.
    Decode(decode::DecodeArgs),
    /// Encode a JSON value of a type into bytes (hex), with no generated code.
    Encode(encode::EncodeArgs),
    /// Encode a trace of values (JSON lines) in each encoding; rank them by size.
    Measure(measure::MeasureArgs),
    /// Write a Wireshark Lua dissector of one PROTOCOL in one encoding.
    Dissector(dissector::DissectorArgs),
    /// Rewrite IDL, Encoding and Mapping files in their canonical layout; `--check` for CI.
    Fmt(fmt::FmtArgs),
    /// Serve the Language Server Protocol on stdin / stdout (for editors).
    #[cfg(feature = "lsp")]
    Lsp(lsp::LspArgs),
}

/// How a command ended; its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exit 0: done (warnings allowed).
    Success,
    /// Exit 1: the input has errors.
    InputErrors,
    /// Exit 2: usage error, or a file named on the command line cannot be read.
    Usage,
}

impl Status {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::InputErrors => 1,
            Status::Usage => 2,
        }
    }
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> ExitCode {
        ExitCode::from(status.code())
    }
}

/// Runs the parsed command line.
pub fn run(cli: &Cli) -> Status {
    match &cli.command {
        Command::Gen(args) => args.run(),
        Command::Check(args) => args.run(),
        Command::Report(args) => args.run(),
        Command::Ir(args) => args.run(),
        Command::CheckCompat(args) => args.run(),
        Command::Decode(args) => args.run(),
        Command::Encode(args) => args.run(),
        Command::Measure(args) => args.run(),
        Command::Dissector(args) => args.run(),
        Command::Fmt(args) => args.run(),
        #[cfg(feature = "lsp")]
        Command::Lsp(args) => args.run(),
    }
}

/// stderr, coloured only when it is a terminal (and then as `NO_COLOR` / `TERM` allow).
pub fn stderr() -> StandardStream {
    let choice = if io::stderr().is_terminal() {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    };
    StandardStream::stderr(choice)
}

/// Prints a usage error the way clap prints its own (with the subcommand's usage line) and
/// returns [`Status::Usage`].
pub fn usage_error(subcommand: &str, message: impl std::fmt::Display) -> Status {
    let mut command = Cli::command();
    command.build();
    let error = match command.find_subcommand_mut(subcommand) {
        Some(sub) => sub.error(clap::error::ErrorKind::MissingRequiredArgument, message),
        None => command.error(clap::error::ErrorKind::MissingRequiredArgument, message),
    };
    // Nothing sensible is left to do when stderr is gone.
    let _ = error.print();
    Status::Usage
}

/// Prints a one-line error (`error: message`) that is not about the inputs' content.
pub fn print_error(out: &mut dyn WriteColor, message: impl std::fmt::Display) {
    let _ = write_headed(out, Severity::Error, &message.to_string());
}

/// Renders `diagnostics` (rich, coloured as `out` allows), then a rustc-style summary:
/// `error: could not check: 2 errors, 1 warning emitted`, or `warning: 1 warning emitted`, or
/// nothing when there is nothing to say.
pub fn report(
    out: &mut dyn WriteColor,
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
    what: &str,
) -> io::Result<()> {
    emit(out, sources, diagnostics)?;
    if let Some((severity, line)) = summary(diagnostics, what) {
        write_headed(out, severity, &line)?;
    }
    out.flush()
}

/// Renders `diagnostics` (rich, coloured as `out` allows), without a summary.
pub fn emit(
    out: &mut dyn WriteColor,
    sources: &SourceMap,
    diagnostics: &[Diagnostic],
) -> io::Result<()> {
    let config = Config::default();
    for diagnostic in diagnostics {
        if term::emit_to_write_style(out, &config, sources.files(), diagnostic).is_err() {
            // A span outside its file is a bug of ours; still say what is wrong.
            write_headed(out, diagnostic.severity, &diagnostic.message)?;
        }
    }
    Ok(())
}

/// The summary line of [`report()`], without its `error: ` / `warning: ` head.
pub fn summary(diagnostics: &[Diagnostic], what: &str) -> Option<(Severity, String)> {
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity >= Severity::Error)
        .count();
    let warnings = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => None,
        (0, w) => Some((
            Severity::Warning,
            format!("{} emitted", plural(w, "warning")),
        )),
        (e, 0) => Some((
            Severity::Error,
            format!("could not {what}: {} emitted", plural(e, "error")),
        )),
        (e, w) => Some((
            Severity::Error,
            format!(
                "could not {what}: {}, {} emitted",
                plural(e, "error"),
                plural(w, "warning")
            ),
        )),
    }
}

/// Writes `error: message` (or `warning:`, `note:`, `help:`), the head coloured as `out` allows.
pub fn write_headed(out: &mut dyn WriteColor, severity: Severity, message: &str) -> io::Result<()> {
    let (head, color) = match severity {
        Severity::Bug | Severity::Error => ("error", Color::Red),
        Severity::Warning => ("warning", Color::Yellow),
        Severity::Note => ("note", Color::Green),
        Severity::Help => ("help", Color::Cyan),
    };
    out.set_color(ColorSpec::new().set_fg(Some(color)).set_bold(true))?;
    write!(out, "{head}")?;
    out.set_color(ColorSpec::new().set_bold(true))?;
    write!(out, ": {message}")?;
    out.reset()?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use codespan_reporting::term::termcolor::NoColor;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn summary_is_rustc_like() {
        let error = Diagnostic::error().with_message("e");
        let warning = Diagnostic::warning().with_message("w");
        assert_eq!(summary(&[], "check"), None);
        assert_eq!(
            summary(std::slice::from_ref(&warning), "check"),
            Some((Severity::Warning, "1 warning emitted".to_string()))
        );
        assert_eq!(
            summary(&[error.clone(), warning.clone(), error.clone()], "check"),
            Some((
                Severity::Error,
                "could not check: 2 errors, 1 warning emitted".to_string()
            ))
        );
        assert_eq!(
            summary(&[error], "check").unwrap().1,
            "could not check: 1 error emitted"
        );
    }

    #[test]
    fn report_renders_plain_without_colour() {
        let mut sources = SourceMap::new();
        let file = sources.add("a.idl", "STRUCT A {}\n");
        let diagnostic = Diagnostic::error()
            .with_code("E0000")
            .with_message("broken")
            .with_labels(vec![crate::diagnostics::primary(
                file,
                crate::front::span::Span::new(7, 8),
            )]);
        let mut out = NoColor::new(Vec::new());
        report(&mut out, &sources, &[diagnostic], "check").unwrap();
        let text = String::from_utf8(out.into_inner()).unwrap();
        assert!(text.starts_with("error[E0000]: broken"), "{text}");
        assert!(text.contains("a.idl:1:8"), "{text}");
        assert!(
            text.ends_with("error: could not check: 1 error emitted\n"),
            "{text}"
        );
        assert!(!text.contains('\x1b'));
    }
}
