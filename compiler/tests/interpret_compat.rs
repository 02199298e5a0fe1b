//! The fence promise through the interpreter, on check-compat's corpus of compatible pairs
//! (compiler/tests/compat/pass/): for every struct both versions have, in every encoding both
//! have, random values written by OLD are read by NEW and random values written by NEW are read
//! by OLD, never rejected; and what OLD wrote, NEW reads back with OLD's fields unchanged.

use std::path::{Path, PathBuf};

use idlc::ir::Ir;

fn compile(files: Vec<PathBuf>, encodings: Vec<PathBuf>) -> Ir {
    let inputs = idlc::Inputs {
        idl: files,
        encodings,
        ..Default::default()
    };
    let compilation = idlc::compile(&inputs).expect("the corpus is readable");
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    compilation.ir
}

/// The IR of `old` or `new` of a pair, as tests/build.rs builds it.
fn version(dir: &Path, which: &str) -> Ir {
    let idl = dir.join(format!("{which}.idl"));
    let mut files = vec![idl.clone()];
    let with = dir.join("with.idl");
    let text = std::fs::read_to_string(&idl).expect("readable");
    if with.exists() && !text.contains("\"with.idl\"") {
        files.push(with);
    }
    let encoding = dir.join(format!("{which}.enc"));
    compile(
        files,
        encoding.exists().then_some(encoding).into_iter().collect(),
    )
}

#[test]
fn old_and_new_read_each_other() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/pass");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("the corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut crossed = 0;
    for dir in &dirs {
        let (old, new) = (version(dir, "old"), version(dir, "new"));
        // What `idlc check-compat --prove 40` runs after its verdict.
        let proof = idlc::compat::prove::prove(&old, &new, 40);
        assert!(
            proof.failures.is_empty(),
            "{}: {:#?}",
            dir.display(),
            proof.failures
        );
        crossed += proof.crossed;
        // NEW's values that OLD's slot cannot hold exactly (a `NUMERIC[0,1]` at 1.0 in the
        // slot of `NUMERIC[0,1)`) are saturated into it, never refused.
        assert!(
            proof.refused.is_empty(),
            "{}: {:#?}",
            dir.display(),
            proof.refused
        );
    }
    assert!(crossed > 500, "only {crossed} crossings");
}
