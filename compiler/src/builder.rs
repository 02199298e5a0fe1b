//! `idlc::Builder`: generate code from build.rs, in the style of `prost_build::Config`.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     idlc::Builder::new()
//!         .encoding("schemas/s2c.enc")
//!         .mapping("schemas/client.map")
//!         .side("Client")
//!         .compile("schemas/game.idl")?; // or several: `.compile(&["a.idl", "b.idl"])`
//!     Ok(())
//! }
//! ```
//!
//! and in the crate: `idlc_runtime::include_generated!("game");` or
//! `include!(concat!(env!("OUT_DIR"), "/game.rs"));`.
//!
//! A side mapped with `MAPPING("CPP", ...)` gets its C++ header instead, written where
//! [`Builder::header`] says (a C++ build includes it from the source tree), in the namespace
//! [`Builder::namespace`] names:
//!
//! ```no_run
//! idlc::Builder::new()
//!     .encoding("schemas/s2c.enc")
//!     .mapping("schemas/client.cpp.map")
//!     .side("Client")
//!     .header("client/net/game_client.hpp")
//!     .namespace("game::net")
//!     .compile("schemas/game.idl")
//!     .unwrap();
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use crate::codegen::{self, GenOptions};
use crate::{Inputs, compile};

/// Configures and runs code generation from a build script.
#[derive(Debug, Clone)]
pub struct Builder {
    encodings: Vec<PathBuf>,
    mappings: Vec<PathBuf>,
    side: Option<String>,
    out_dir: Option<PathBuf>,
    file_name: Option<String>,
    merge_fixed_width: bool,
    emit_warnings: bool,
    header: Option<PathBuf>,
    namespace: Option<String>,
}

/// Why a build-time generation failed: the rendered diagnostics, or an I/O problem.
///
/// Its `Debug` is the text itself, as the CLI prints it: a build script's `main` that returns
/// `Result<(), Box<dyn Error>>` shows the diagnostics, not an escaped one-line string.
pub struct BuildError(String);

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            encodings: Vec::new(),
            mappings: Vec::new(),
            side: None,
            out_dir: None,
            file_name: None,
            merge_fixed_width: true,
            emit_warnings: true,
            header: None,
            namespace: None,
        }
    }
}

impl Builder {
    /// A builder with no encoding (the built-in defaults), no mapping, no side.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether to print warnings as `cargo:warning`s (on by default; errors always fail).
    pub fn emit_warnings(mut self, emit: bool) -> Self {
        self.emit_warnings = emit;
        self
    }

    /// Whether to pack runs of fixed-width BITSTREAM fields into single writes and reads (on by
    /// default; the bytes are the same either way).
    pub fn merge_fixed_width(mut self, merge: bool) -> Self {
        self.merge_fixed_width = merge;
        self
    }

    /// Adds an Encoding file; the first one's first encoding is `DefaultEncoding`.
    pub fn encoding(mut self, path: impl AsRef<Path>) -> Self {
        self.encodings.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds a Mapping file.
    pub fn mapping(mut self, path: impl AsRef<Path>) -> Self {
        self.mappings.push(path.as_ref().to_path_buf());
        self
    }

    /// Picks the side whose mappings apply.
    pub fn side(mut self, side: impl Into<String>) -> Self {
        self.side = Some(side.into());
        self
    }

    /// Writes into `dir` instead of `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Names the output file (default: the first IDL file's stem, `.rs`).
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = Some(name.into());
        self
    }

    /// Where a C++ side's header goes (a path, relative to the build script's directory, the
    /// crate's); without it, `<first IDL file's stem>.hpp` in the output directory.
    pub fn header(mut self, path: impl AsRef<Path>) -> Self {
        self.header = Some(path.as_ref().to_path_buf());
        self
    }

    /// A C++ side's namespace (`a::b` allowed); without it, `<first IDL file's stem>::<side in
    /// snake_case>`, as `idlc gen` names it.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Generates the module for `idl` (one IDL file, `"game.idl"`, or several, `&["a.idl",
    /// "b.idl"]`) and writes it (only if its content changed). Returns the path written.
    /// Warnings are printed as `cargo:warning`s.
    pub fn compile(&self, idl: impl IdlFiles) -> Result<PathBuf, BuildError> {
        let inputs = Inputs {
            idl: idl.paths(),
            encodings: self.encodings.clone(),
            mappings: self.mappings.clone(),
            side: self.side.clone(),
        };
        let all_inputs: Vec<&PathBuf> = inputs
            .idl
            .iter()
            .chain(&inputs.encodings)
            .chain(&inputs.mappings)
            .collect();
        let in_build_script = in_build_script();
        if in_build_script {
            for path in &all_inputs {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        let compilation = compile(&inputs).map_err(|e| BuildError(e.to_string()))?;
        let rendered = compilation.sources.render_plain(&compilation.diagnostics);
        if compilation.has_errors() {
            return Err(BuildError(rendered));
        }
        let warnings = rendered
            .lines()
            .filter(|l| self.emit_warnings && !l.trim().is_empty());
        for line in warnings {
            if in_build_script {
                println!("cargo:warning={line}");
            } else {
                eprintln!("{line}");
            }
        }
        let options = GenOptions {
            inputs: all_inputs.iter().map(|p| display_name(p)).collect(),
            merge_fixed_width: self.merge_fixed_width,
        };
        if compilation.ir.mapping.language == crate::ir::Language::Cpp {
            return self.write_header(&compilation.ir, &inputs);
        }
        let code =
            codegen::generate(&compilation.ir, &options).map_err(|e| BuildError(e.to_string()))?;
        let dir = self.output_dir()?;
        let name = match &self.file_name {
            Some(name) => name.clone(),
            None => default_file_name(&inputs.idl),
        };
        let path = dir.join(name);
        write_if_changed(&path, &code)
            .map_err(|e| BuildError(format!("cannot write {}: {e}", path.display())))?;
        Ok(path)
    }

    /// Writes a C++ side's header where [`Builder::header`] says.
    fn write_header(&self, ir: &crate::ir::Ir, inputs: &Inputs) -> Result<PathBuf, BuildError> {
        let namespace = self.namespace.clone().unwrap_or_else(|| {
            crate::cppgen::default_namespace(&inputs.idl, inputs.side.as_deref())
        });
        let code = crate::cppgen::generate_header(ir, &namespace)
            .map_err(|e| BuildError(e.to_string()))?;
        let path = match &self.header {
            Some(path) => path.clone(),
            None => {
                let rust = default_file_name(&inputs.idl);
                let stem = rust.strip_suffix(".rs").unwrap_or(&rust);
                self.output_dir()?.join(format!("{stem}.hpp"))
            }
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| BuildError(format!("cannot create {}: {e}", parent.display())))?;
        }
        write_if_changed(&path, &code)
            .map_err(|e| BuildError(format!("cannot write {}: {e}", path.display())))?;
        Ok(path)
    }

    /// `out_dir`, else `$OUT_DIR`.
    fn output_dir(&self) -> Result<PathBuf, BuildError> {
        match &self.out_dir {
            Some(dir) => Ok(dir.clone()),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    BuildError(
                        "OUT_DIR is not set: call compile from build.rs or set out_dir".into(),
                    )
                }),
        }
    }
}

/// Whether this process is a build script: cargo sets `OUT_DIR` and `TARGET` when it runs one
/// (a program under `cargo run` has `CARGO` too, and its stdout is not cargo's to read).
fn in_build_script() -> bool {
    std::env::var_os("OUT_DIR").is_some() && std::env::var_os("TARGET").is_some()
}

/// `<stem of the first IDL>.rs`.
pub fn default_file_name(idl: &[PathBuf]) -> String {
    let stem = idl
        .first()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "idl".into());
    format!("{stem}.rs")
}

/// The file name alone: generated headers must not depend on where the project sits.
pub fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Writes `content` to `path` unless the file already holds exactly that; says whether it
/// wrote.
pub fn write_if_changed(path: &Path, content: &str) -> std::io::Result<bool> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == content) {
        return Ok(false);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, content).map(|()| true)
}

/// The IDL files of [`Builder::compile`]: one path (`"game.idl"`, a `Path`, a `String`) or
/// several (a slice, an array or a `Vec` of paths), by value or by reference.
pub trait IdlFiles {
    /// The files, in order.
    fn paths(&self) -> Vec<PathBuf>;
}

impl<T: IdlFiles + ?Sized> IdlFiles for &T {
    fn paths(&self) -> Vec<PathBuf> {
        (**self).paths()
    }
}

impl IdlFiles for str {
    fn paths(&self) -> Vec<PathBuf> {
        vec![PathBuf::from(self)]
    }
}

impl IdlFiles for String {
    fn paths(&self) -> Vec<PathBuf> {
        vec![PathBuf::from(self)]
    }
}

impl IdlFiles for Path {
    fn paths(&self) -> Vec<PathBuf> {
        vec![self.to_path_buf()]
    }
}

impl IdlFiles for PathBuf {
    fn paths(&self) -> Vec<PathBuf> {
        vec![self.clone()]
    }
}

impl<P: AsRef<Path>> IdlFiles for [P] {
    fn paths(&self) -> Vec<PathBuf> {
        self.iter().map(|p| p.as_ref().to_path_buf()).collect()
    }
}

impl<P: AsRef<Path>, const N: usize> IdlFiles for [P; N] {
    fn paths(&self) -> Vec<PathBuf> {
        self.as_slice().paths()
    }
}

impl<P: AsRef<Path>> IdlFiles for Vec<P> {
    fn paths(&self) -> Vec<PathBuf> {
        self.as_slice().paths()
    }
}
