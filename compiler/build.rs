//! Generates the three parsers from their lalrpop grammars.

fn main() {
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
        .expect("the lalrpop grammars of idlc must compile");
}
