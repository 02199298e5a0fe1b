//! Generates the three parsers from their lalrpop grammars.

fn main() {
    // A grammar file added later must rerun this script too.
    println!("cargo:rerun-if-changed=src");
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
        .expect("the lalrpop grammars of idlc must compile");
}
