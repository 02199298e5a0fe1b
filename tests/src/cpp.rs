//! The system's C++ compilers, as the tests that build C++ find and run them (tests/tests/common/
//! cpp.rs, tests/tests/arena_udp.rs): every build is C++17 with every warning an error.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The C++ compilers the tests build with (those on PATH).
pub const COMPILERS: [&str; 2] = ["g++", "clang++"];

/// Every build: C++17, every warning an error.
pub const STRICT: [&str; 5] = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];

/// Whether `compiler` runs.
#[must_use]
pub fn present(compiler: &str) -> bool {
    Command::new(compiler)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The C++ runtime's headers (runtime-cpp/include/idlc/ and its folders, idlc/session/): what
/// a cached C++ build must be newer than.
#[must_use]
pub fn runtime_headers() -> Vec<PathBuf> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                walk(&path, files);
            } else {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-cpp/include/idlc");
    walk(&root, &mut files);
    files
}

/// Runs `compiler` with [`STRICT`], `flags`, the include paths of the runtime
/// (runtime-cpp/include), of the headers in `dir` and of schemas/ (where mappings' INCLUDEs
/// are), on `inputs` (sources or objects), writing `output`; the error is the command and the
/// compiler's messages.
pub fn build(
    compiler: &str,
    flags: &[&str],
    dir: &Path,
    inputs: &[&Path],
    output: &Path,
) -> Result<(), String> {
    let name = format!("{compiler} {}", flags.join(" "));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let run = Command::new(compiler)
        .args(STRICT)
        .args(flags)
        .arg("-I")
        .arg(root.join("runtime-cpp/include"))
        .arg("-I")
        .arg(dir)
        .arg("-I")
        .arg(root.join("schemas"))
        .args(inputs)
        .arg("-o")
        .arg(output)
        .output()
        .map_err(|e| format!("{name}: {e}"))?;
    if !run.status.success() {
        return Err(format!(
            "{name} failed:\n{}",
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    Ok(())
}
