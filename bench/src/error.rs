//! The benchmark's error: a serializer failed where it must not, or a correctness check failed.

use std::fmt;

/// What went wrong, as text (the benchmark only reports it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchError(pub String);

impl BenchError {
    /// An error saying `what`.
    pub fn new(what: impl fmt::Display) -> Self {
        Self(what.to_string())
    }

    /// A closure that wraps another error with `context`, for `map_err`.
    pub fn with<E: fmt::Display>(context: &'static str) -> impl Fn(E) -> Self {
        move |e| Self(format!("{context}: {e}"))
    }
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BenchError {}

/// The value of `result`, or (for the benches' setup, which cannot return an error) the error
/// printed to stderr and the process ended with a failure status.
pub fn or_exit<T>(result: Result<T, BenchError>) -> T {
    match result {
        Ok(value) => value,
        Err(e) => {
            eprintln!("idlc-bench: {e}");
            std::process::exit(1)
        }
    }
}
