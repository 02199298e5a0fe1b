//! `scale-schema N DIR`: writes `DIR/scale.idl` and `DIR/scale.enc`, a schema of N structs for
//! measuring `idlc gen` and the generated code at scale (docs/PERFORMANCE.md, "Scale"). Each
//! struct has seven fields: an id, a NUMERIC pair under FIXED_POINT(0.01), an enum, a ranged
//! integer, a SEQUENCE, and a STRING (even structs) or an OPTIONAL of the struct before it (odd
//! structs).
//!
//! `cargo run --release -p idlc-bench --bin scale-schema -- 500 /tmp/scale`

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(Ok(count)), Some(dir)) = (args.next().map(|n| n.parse::<usize>()), args.next())
    else {
        eprintln!("usage: scale-schema N DIR");
        return ExitCode::FAILURE;
    };
    let dir = PathBuf::from(dir);
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("scale.idl"), idl(count)))
        .and_then(|()| std::fs::write(dir.join("scale.enc"), ENCODING));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("scale-schema: {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}

/// One BITSTREAM encoding: NUMERICs to 0.01, the rest by the built-in rules.
const ENCODING: &str =
    "ENCODING(SCALE) BITSTREAM;\nENCODING(SCALE) DEFAULTS {\n  NUMERIC: FIXED_POINT(0.01);\n}\n";

/// The IDL of `count` structs, `S0` .. `S{count - 1}`.
fn idl(count: usize) -> String {
    let mut out = String::from("ENUM Kind { Alpha, Beta, Gamma, Delta }\n\n");
    for i in 0..count {
        // Odd structs hold the even one before them: nesting stays one level deep.
        let last = if i % 2 == 0 {
            "STRING<32> name".to_string()
        } else {
            format!("OPTIONAL<S{}> previous", i - 1)
        };
        let _ = write!(
            out,
            "STRUCT S{i} {{\n  UINT32 id;\n  NUMERIC[-1000, 1000] x;\n  NUMERIC[-1000, 1000] y;\n  \
             Kind kind;\n  INT[0, 100] level;\n  SEQUENCE<UINT16, 16> values;\n  {last};\n}}\n\n"
        );
    }
    out
}
