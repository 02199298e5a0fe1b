//! `idlc check-compat`: whether NEW is a fenced backward-compatible extension of OLD.
//!
//! ```text
//! idlc check-compat OLD.idl NEW.idl [--with F]... [--encoding OLD.enc NEW.enc]...
//!                   [--format human|json|github] [--diff]
//! idlc check-compat --against REF [NEW.idl] ...
//! ```
//!
//! With `--against REF`, OLD is NEW's files as they are in git at REF (`git show REF:path`, the
//! path relative to the repository's root), their IMPORTs too; without a NEW file, the IDL files
//! of `idlc.toml`. A file named for OLD that does not exist at REF is a file added since: OLD
//! has nothing of it. `--with` files are read from disk for both versions.
//!
//! Exit 0: compatible (acknowledged breaks allowed); 1: not compatible, or the inputs have
//! errors; 2: usage errors, a file named on the command line that cannot be read, git failing.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{Args, ValueEnum};
use codespan_reporting::diagnostic::Severity;
use codespan_reporting::term::termcolor::WriteColor;
use serde_json::Value;

use super::{Status, emit, print_error, report, stderr, usage_error, write_headed};
use crate::Inputs;
use crate::compat::prove::Proof;
use crate::compat::{self, Pair, render};
use crate::config::{self, Config};
use crate::load::{FileSystem, RealFs, normalize};

/// How violations are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Diagnostics on stderr, as rustc prints them.
    Human,
    /// One JSON document on stdout, whatever the verdict: the verdict, the changes and the
    /// violations.
    Json,
    /// GitHub workflow commands (`::error file=...`) on stdout: annotations on a pull request.
    Github,
}

/// Arguments of `idlc check-compat`.
#[derive(Debug, Clone, Args)]
pub struct CompatArgs {
    /// OLD.idl NEW.idl. With --against: only NEW.idl (OLD is its version at REF), or nothing
    /// (the IDL files of idlc.toml).
    #[arg(value_names = ["OLD", "NEW"], num_args = 0..=2)]
    pub files: Vec<PathBuf>,
    /// An Encoding file of each version (repeatable): every field of OLD must keep its wire
    /// rule. With --against, OLD's is read at REF.
    #[arg(short, long = "encoding", num_args = 2, value_names = ["OLD", "NEW"])]
    pub encoding: Vec<PathBuf>,
    /// An IDL file that both versions need unchanged (repeatable); read once per version even
    /// when a version also IMPORTs it.
    #[arg(long = "with", value_name = "FILE")]
    pub with: Vec<PathBuf>,
    /// How to print violations.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Read OLD from git at this revision (`origin/main`, a tag, a commit).
    #[arg(long, value_name = "REF")]
    pub against: Option<String>,
    /// Print a unified diff of the canonical text of OLD and NEW on stdout (with --format json:
    /// as the document's "diff").
    #[arg(long)]
    pub diff: bool,
    /// When compatible, cross N random values of every shared struct and encoding both ways
    /// through the IR interpreter (OLD writes, NEW reads; NEW writes, OLD reads); any
    /// disagreement fails the check.
    #[arg(long, value_name = "N")]
    pub prove: Option<usize>,
}

/// Why the check could not run (exit 2).
enum Failure {
    /// The command line asks for something impossible (printed with the usage).
    Usage(String),
    /// A file, idlc.toml or git failed.
    Run(String),
}

/// The two versions' inputs, and where OLD's files come from.
struct Plan {
    old: Inputs,
    new: Inputs,
    old_fs: Box<dyn FileSystem>,
}

impl CompatArgs {
    /// Compiles both versions, checks them, prints the verdict; returns the exit status.
    pub fn run(&self) -> Status {
        let plan = match self.plan() {
            Ok(plan) => plan,
            Err(failure) => return self.fail(failure),
        };
        let mut err = stderr();
        let pair = match compat::compile_pair(&plan.old, plan.old_fs.as_ref(), &plan.new, &RealFs) {
            Ok(pair) => pair,
            Err(error) => return self.fail(Failure::Run(error.to_string())),
        };
        if self.format == Format::Github {
            let lines: Vec<String> = pair
                .diagnostics
                .iter()
                .filter(|d| d.severity >= Severity::Warning)
                .map(|d| render::github_diagnostic(&pair.sources, d))
                .collect();
            print_lines(&lines);
        }
        // A failed write to stderr changes nothing about the verdict.
        let _ = report(
            &mut err,
            &pair.sources,
            &pair.diagnostics,
            "check compatibility",
        );
        if pair.has_errors() {
            if self.format == Format::Json {
                print_document(render::json_input_document(
                    &pair.sources,
                    &pair.diagnostics,
                ));
            }
            return Status::InputErrors;
        }
        let diff = self.diff.then(|| {
            compat::normalize::diff(
                &pair.old,
                &pair.new,
                &version_name(&pair, "OLD", &pair.old_files),
                &version_name(&pair, "NEW", &pair.new_files),
            )
        });
        if let Some(diff) = diff.as_ref().filter(|_| self.format != Format::Json) {
            let _ = io::stdout().lock().write_all(diff.as_bytes());
        }
        let mut outcome = compat::check(&pair.old, &pair.new);
        let warnings = compat::acknowledge(&mut outcome.violations, &pair.sources, &pair.new_files);
        let _ = emit(&mut err, &pair.sources, &warnings);
        match self.format {
            Format::Human => {
                let _ = emit(&mut err, &pair.sources, &outcome.diagnostics());
            }
            Format::Json => {}
            Format::Github => {
                let mut lines: Vec<String> = warnings
                    .iter()
                    .map(|w| render::github_diagnostic(&pair.sources, w))
                    .collect();
                lines.extend(
                    outcome
                        .violations
                        .iter()
                        .map(|v| render::github_line(&pair.sources, v, &pair.new_files)),
                );
                print_lines(&lines);
            }
        }
        let proof = match self.prove {
            Some(values) if outcome.is_compatible() => {
                Some(crate::compat::prove::prove(&pair.old, &pair.new, values))
            }
            _ => None,
        };
        let status = report_verdict(&mut err, &outcome, proof.as_ref());
        if self.format == Format::Json {
            let mut document = render::json_document(&pair.sources, &outcome);
            if status != Status::Success {
                document.insert("verdict".into(), "incompatible".into());
            }
            if self.prove.is_some() {
                document.insert(
                    "proof".into(),
                    proof.as_ref().map_or(Value::Null, json_proof),
                );
            }
            if let Some(diff) = diff {
                document.insert("diff".into(), diff.into());
            }
            print_document(document);
        }
        status
    }

    /// Prints why the check could not run (with `--format json`, also as the document on
    /// stdout, which CI reads whatever happened); exit 2.
    fn fail(&self, failure: Failure) -> Status {
        let message = match &failure {
            Failure::Usage(message) => {
                usage_error("check-compat", message);
                message
            }
            Failure::Run(message) => {
                print_error(&mut stderr(), message);
                message
            }
        };
        if self.format == Format::Json {
            print_document(render::json_failure_document(message));
        }
        Status::Usage
    }

    /// Works out both versions' inputs, or says why it cannot.
    fn plan(&self) -> Result<Plan, Failure> {
        let (old_encodings, new_encodings): (Vec<PathBuf>, Vec<PathBuf>) = self
            .encoding
            .chunks(2)
            .filter_map(|pair| match pair {
                [old, new] => Some((old.clone(), new.clone())),
                _ => None,
            })
            .unzip();
        let Some(reference) = &self.against else {
            let [old, new] = self.files.as_slice() else {
                return Err(Failure::Usage(
                    "name OLD.idl and NEW.idl, or NEW.idl with --against REF".into(),
                ));
            };
            return Ok(Plan {
                old: self.inputs(old.clone(), old_encodings),
                new: self.inputs(new.clone(), new_encodings),
                old_fs: Box::new(RealFs),
            });
        };
        let new_idl = match self.files.as_slice() {
            [] => self.toml_idl()?,
            [new] => vec![new.clone()],
            _ => {
                return Err(Failure::Usage(
                    "with --against, name only NEW.idl: OLD is its version at the revision".into(),
                ));
            }
        };
        let git = GitFs::open(reference).map_err(Failure::Run)?;
        let mut err = stderr();
        let mut at_ref = |paths: &[PathBuf]| -> Result<Vec<PathBuf>, Failure> {
            let mut out = Vec::new();
            for path in paths {
                let old = git.path(path).map_err(Failure::Run)?;
                if git.exists(&old) {
                    out.push(old);
                } else {
                    let _ = write_headed(
                        &mut err,
                        Severity::Note,
                        &format!(
                            "`{}` does not exist at {reference}: it is new, OLD has nothing of it",
                            path.display()
                        ),
                    );
                }
            }
            Ok(out)
        };
        let old_idl = at_ref(&new_idl)?;
        let old_encodings = at_ref(&old_encodings)?;
        let mut old = Inputs {
            idl: old_idl,
            encodings: old_encodings,
            ..Inputs::default()
        };
        old.idl.extend(self.with.iter().cloned());
        let mut new = Inputs {
            idl: new_idl,
            encodings: new_encodings,
            ..Inputs::default()
        };
        new.idl.extend(self.with.iter().cloned());
        Ok(Plan {
            old,
            new,
            old_fs: Box::new(git),
        })
    }

    fn inputs(&self, idl: PathBuf, encodings: Vec<PathBuf>) -> Inputs {
        let mut files = vec![idl];
        files.extend(self.with.iter().cloned());
        Inputs {
            idl: files,
            encodings,
            ..Inputs::default()
        }
    }

    /// The IDL files of `idlc.toml` in the current directory.
    fn toml_idl(&self) -> Result<Vec<PathBuf>, Failure> {
        let path = Path::new(config::FILE_NAME);
        if !path.exists() {
            return Err(Failure::Usage(format!(
                "no NEW.idl given, and there is no {} in the current directory",
                config::FILE_NAME
            )));
        }
        let config = Config::load(path).map_err(|error| Failure::Run(error.to_string()))?;
        if config.idl.is_empty() {
            return Err(Failure::Run(format!(
                "{} names no IDL files",
                config::FILE_NAME
            )));
        }
        Ok(config.idl)
    }
}

/// How a version is named in `--diff`'s header: its first file.
fn version_name(pair: &Pair, which: &str, files: &[usize]) -> String {
    match files.first() {
        Some(&file) => format!("{which} {}", pair.sources.path(file).display()),
        None => which.to_string(),
    }
}

fn print_lines(lines: &[String]) {
    let mut out = io::stdout().lock();
    // A closed stdout (`| head`) is not an error of ours.
    let _ = lines.iter().try_for_each(|line| writeln!(out, "{line}"));
}

/// OLD's files from git: a path `REF:/dir/file.idl` is `dir/file.idl` (from the repository's
/// root) at REF; any other path is read from disk. Such paths keep working for IMPORTs (they
/// are joined and normalized like any path), and diagnostics show them as `REF:/dir/file.idl`.
struct GitFs {
    reference: String,
    /// The repository's root, canonical.
    root: PathBuf,
    /// `REF:/`
    prefix: String,
}

impl GitFs {
    /// The repository around the current directory, checked to know `reference`.
    fn open(reference: &str) -> Result<GitFs, String> {
        let top = git(None, &["rev-parse", "--show-toplevel"])
            .map_err(|e| format!("--against needs a git repository: {e}"))?;
        let top = String::from_utf8_lossy(&top).trim().to_string();
        let root = std::fs::canonicalize(&top).unwrap_or_else(|_| PathBuf::from(&top));
        let commit = format!("{reference}^{{commit}}");
        git(Some(&root), &["rev-parse", "--verify", "--quiet", &commit]).map_err(|_| {
            format!(
                "git does not know the revision `{reference}` (in a shallow clone, fetch it first: `git fetch --depth=1 origin main`)"
            )
        })?;
        Ok(GitFs {
            reference: reference.to_string(),
            root,
            prefix: format!("{reference}:/"),
        })
    }

    /// The git path of a file on disk (which must be inside the repository).
    fn path(&self, disk: &Path) -> Result<PathBuf, String> {
        let absolute = std::fs::canonicalize(disk)
            .map_err(|e| format!("cannot read `{}`: {e}", disk.display()))?;
        let relative = absolute.strip_prefix(&self.root).map_err(|_| {
            format!(
                "`{}` is not inside the git repository at `{}`",
                disk.display(),
                self.root.display()
            )
        })?;
        let relative = relative.to_string_lossy().replace('\\', "/");
        Ok(PathBuf::from(format!("{}{relative}", self.prefix)))
    }

    /// The path inside the repository of a git path, if it is one.
    fn relative(&self, path: &Path) -> Option<String> {
        let text = path.to_str()?;
        let rest = text.strip_prefix(&self.prefix)?;
        Some(
            normalize(Path::new(rest))
                .to_string_lossy()
                .replace('\\', "/"),
        )
    }

    /// Whether a git path names a file at the revision.
    fn exists(&self, path: &Path) -> bool {
        self.relative(path).is_some_and(|relative| {
            let object = format!("{}:{relative}", self.reference);
            git(Some(&self.root), &["cat-file", "-e", &object]).is_ok()
        })
    }
}

impl FileSystem for GitFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.relative(path) {
            Some(relative) => {
                let object = format!("{}:{relative}", self.reference);
                git(Some(&self.root), &["show", &object])
            }
            None => std::fs::read(path),
        }
    }

    fn canonicalize(&self, path: &Path) -> PathBuf {
        // A file at the revision is the same file as the one on disk at its place, so that a
        // `--with` file that OLD also IMPORTs is read once.
        match self.relative(path) {
            Some(relative) => RealFs.canonicalize(&self.root.join(relative)),
            None => RealFs.canonicalize(path),
        }
    }
}

/// Runs git with `args` (in `dir`); its stdout, or an error with what it said.
fn git(dir: Option<&Path>, args: &[&str]) -> io::Result<Vec<u8>> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.arg("-C").arg(dir);
    }
    let output = command
        .args(args)
        .output()
        .map_err(|e| io::Error::new(e.kind(), format!("cannot run git: {e}")))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let said = String::from_utf8_lossy(&output.stderr).trim().to_string();
        Err(io::Error::other(if said.is_empty() {
            format!("git {} failed", args.join(" "))
        } else {
            said
        }))
    }
}

/// Prints the verdict on stderr: the violations' count, or the changes and what `--prove`
/// found; exit 1 when NEW is incompatible or the proof finds a disagreement.
fn report_verdict(
    err: &mut dyn WriteColor,
    outcome: &compat::Outcome,
    proof: Option<&Proof>,
) -> Status {
    let acknowledged = outcome
        .violations
        .iter()
        .filter(|v| v.acknowledged.is_some())
        .count();
    let failing = outcome.violations.len() - acknowledged;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let acknowledged_text = if acknowledged > 0 {
        format!(" ({} acknowledged)", plural(acknowledged, "break"))
    } else {
        String::new()
    };
    if failing > 0 {
        let _ = write_headed(
            err,
            Severity::Error,
            &format!(
                "NEW is not a compatible extension of OLD: {}{acknowledged_text}",
                plural(failing, "violation")
            ),
        );
        return Status::InputErrors;
    }
    let _ = write_headed(
        err,
        Severity::Note,
        &format!(
            "compatible: {}{acknowledged_text}",
            compat::tally(&outcome.changes)
        ),
    );
    let _ = outcome
        .changes
        .iter()
        .try_for_each(|change| writeln!(err, "  {change}"));
    match proof {
        Some(proof) => report_proof(err, proof),
        None => Status::Success,
    }
}

/// Prints what `--prove` found; exit 1 on a disagreement.
fn report_proof(err: &mut dyn WriteColor, proof: &Proof) -> Status {
    if proof.failures.is_empty() {
        let refused = if !proof.refused.is_empty() {
            format!(
                " ({} random values their own version could not send were skipped)",
                proof.refused.len()
            )
        } else {
            String::new()
        };
        let _ = write_headed(
            err,
            Severity::Note,
            &format!(
                "proved: {} values crossed both ways through the interpreter, {} structs x encodings, {} deltas{refused}",
                proof.crossed, proof.cases, proof.deltas
            ),
        );
        return Status::Success;
    }
    for failure in proof.failures.iter().take(20) {
        let _ = write_headed(err, Severity::Error, failure);
    }
    let _ = write_headed(
        err,
        Severity::Error,
        &format!(
            "--prove: {} values disagree between OLD and NEW",
            proof.failures.len()
        ),
    );
    Status::InputErrors
}

/// What `--prove` found, for the JSON document: `{"values", "structs_x_encodings", "deltas",
/// "skipped", "failures"}`.
fn json_proof(proof: &Proof) -> Value {
    serde_json::json!({
        "values": proof.crossed,
        "structs_x_encodings": proof.cases,
        "deltas": proof.deltas,
        "skipped": proof.refused.len(),
        "failures": proof.failures,
    })
}

/// Prints the one JSON document of `--format json` on stdout, on one line.
fn print_document(document: serde_json::Map<String, Value>) {
    print_lines(&[Value::Object(document).to_string()]);
}
