//! The seed examples (`../shared/seed-examples/`) behave as their README says, checked through
//! the library: `idlc::compile` on the real files.

use std::path::PathBuf;

use codespan_reporting::diagnostic::Severity;
use idlc::{Compilation, Inputs};

fn seed(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/seed-examples"
    ))
    .join(name)
}

fn schema(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas")).join(name)
}

fn compile(
    idl: &[PathBuf],
    encodings: &[PathBuf],
    mappings: &[PathBuf],
    side: Option<&str>,
) -> Compilation {
    idlc::compile(&Inputs {
        idl: idl.to_vec(),
        encodings: encodings.to_vec(),
        mappings: mappings.to_vec(),
        side: side.map(str::to_string),
    })
    .expect("the files exist")
}

fn count(c: &Compilation, severity: Severity) -> usize {
    c.diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .count()
}

fn rendered(c: &Compilation) -> String {
    c.sources.render_plain(&c.diagnostics)
}

#[test]
fn character_alone_reports_exactly_the_undeclared_item() {
    let c = compile(&[seed("character.idl")], &[], &[], None);
    assert_eq!(count(&c, Severity::Error), 1, "{}", rendered(&c));
    let text = rendered(&c);
    assert!(text.contains("cannot find type `Item`"), "{text}");
    assert!(
        text.contains("SEQUENCE<Item> inventory"),
        "the span shows the use: {text}"
    );
}

#[test]
fn character_with_the_projects_item_checks_clean() {
    let c = compile(&[seed("character.idl"), schema("item.idl")], &[], &[], None);
    assert!(c.diagnostics.is_empty(), "{}", rendered(&c));
    let character = &c.ir.schema.structs["Character"];
    assert_eq!(character.fields().count(), 11);
    assert_eq!(
        c.ir.schema.enums["Animation"].enumerators.len(),
        3,
        "the inline enum is a named type"
    );
}

#[test]
fn the_encodings_check_with_one_warning_for_animation() {
    for encoding in ["myencoding1.enc", "myencoding2.enc"] {
        let c = compile(
            &[seed("character.idl"), schema("item.idl")],
            &[seed(encoding)],
            &[],
            None,
        );
        let text = rendered(&c);
        assert_eq!(count(&c, Severity::Error), 0, "{encoding}: {text}");
        assert_eq!(count(&c, Severity::Warning), 1, "{encoding}: {text}");
        assert!(
            text.contains("anim"),
            "{encoding}: the warning names the field: {text}"
        );
    }
}

#[test]
fn the_compat_pair_encodings_check_against_their_idl() {
    let c = compile(
        &[seed("character.idl"), schema("item.idl")],
        &[seed("myencodinga.enc")],
        &[],
        None,
    );
    assert!(!c.has_errors(), "{}", rendered(&c));
    let c = compile(
        &[schema("character_v2.idl")],
        &[seed("myencodinga_extended.enc")],
        &[],
        None,
    );
    assert!(!c.has_errors(), "{}", rendered(&c));
}

/// The design source's C++ mappings check clean as they are, with every encoding of the seed
/// (MyInventory is a collection of Items; `float angle` is a float); code generation for them is
/// the C++ backend's, which refuses with a message until it generates headers.
#[test]
fn the_cpp_mappings_check_clean() {
    for (map, side, inventory) in [
        ("client.cpp.map", "Client", "Vec"),
        ("server.cpp.map", "Server", "Collection"),
    ] {
        for encoding in ["myencoding1.enc", "myencoding2.enc", "myencodinga.enc"] {
            let c = compile(
                &[seed("character.idl"), schema("item.idl")],
                &[seed(encoding)],
                &[seed(map)],
                Some(side),
            );
            assert_eq!(count(&c, Severity::Error), 0, "{map}: {}", rendered(&c));
            let mapping = &c.ir.mapping;
            assert_eq!(mapping.language, idlc::ir::Language::Cpp);
            let character = &mapping.structs["Character"];
            assert_eq!(character.fields["angle"].ty, idlc::ir::RustType::F32);
            let ty = format!("{:?}", character.fields["inventory"].ty);
            assert!(ty.starts_with(inventory), "{map}: {ty}");
            let generated = idlc::codegen::generate(&c.ir, &Default::default());
            let refused = generated.expect_err("no C++ headers yet").to_string();
            assert!(refused.contains("\"CPP\""), "{refused}");
        }
    }
}

#[test]
fn the_rust_counterparts_of_the_cpp_mappings_check_clean() {
    for (map, side) in [("client.map", "Client"), ("server.map", "Server")] {
        let c = compile(
            &[seed("character.idl"), schema("item.idl")],
            &[],
            &[schema(map)],
            Some(side),
        );
        assert!(!c.has_errors(), "{map}: {}", rendered(&c));
    }
}
