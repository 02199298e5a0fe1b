//! Unit tests of the checker on small pairs compiled from memory. The corpus of pairs, the
//! snapshots in compiler/tests/compat.rs, the CLI in cli/tests/check_compat.rs.

use super::*;
use crate::Inputs;
use crate::ir::Value;
use crate::load::MemoryFs;

fn pair(old: &str, new: &str) -> Pair {
    let fs = MemoryFs::new().with("old.idl", old).with("new.idl", new);
    let inputs = |name: &str| Inputs {
        idl: vec![name.into()],
        ..Inputs::default()
    };
    let pair = compile_pair(&inputs("old.idl"), &fs, &inputs("new.idl"), &fs).unwrap();
    assert!(
        !pair.has_errors(),
        "{}",
        pair.sources.render_plain(&pair.diagnostics)
    );
    pair
}

fn rules(old: &str, new: &str) -> Vec<Rule> {
    let pair = pair(old, new);
    check(&pair.old, &pair.new)
        .violations
        .iter()
        .map(|v| v.rule)
        .collect()
}

#[test]
fn identical_versions_are_compatible_without_changes() {
    let text = "STRUCT A { UINT8 x; FENCE BOOL b DEFAULT = true; FENCE }\nENUM E { P, Q }";
    let pair = pair(text, text);
    let outcome = check(&pair.old, &pair.new);
    assert!(outcome.violations.is_empty());
    assert!(outcome.changes.is_empty());
    assert!(outcome.is_compatible());
}

#[test]
fn a_fence_at_the_end_is_a_change_to_report() {
    let pair = pair("MESSAGE M { UINT8 a; }", "MESSAGE M { UINT8 a; FENCE }");
    let outcome = check(&pair.old, &pair.new);
    assert!(outcome.is_compatible());
    let kinds: Vec<&ChangeKind> = outcome.changes.iter().map(|c| &c.kind).collect();
    assert_eq!(
        kinds,
        [&ChangeKind::OpenEndAdded {
            owner: "M".into(),
            kind: "MESSAGE",
        }]
    );
    // It is at the FENCE that opens `M`.
    let loc = outcome.changes[0].loc.expect("a place");
    assert_eq!(
        &pair.sources.source(loc.file)[loc.span.start..loc.span.end],
        "FENCE"
    );
    assert_eq!(changes::tally(&outcome.changes), "1 open end added");
}

#[test]
fn empty_irs_have_nothing_to_say() {
    let outcome = check(&Ir::default(), &Ir::default());
    assert!(outcome.violations.is_empty() && outcome.changes.is_empty());
}

#[test]
fn appended_field_needs_a_fence_and_a_default() {
    assert_eq!(
        rules("STRUCT A { UINT8 x; }", "STRUCT A { UINT8 x; UINT8 y; }"),
        [Rule::MissingFence, Rule::MissingDefault]
    );
    assert_eq!(
        rules(
            "STRUCT A { UINT8 x; }",
            "STRUCT A { UINT8 x; FENCE UINT8 y DEFAULT = 1; }"
        ),
        []
    );
}

#[test]
fn one_removed_field_is_one_violation() {
    assert_eq!(
        rules(
            "STRUCT A { UINT8 a; UINT16 b; UINT32 c; BOOL d; }",
            "STRUCT A { UINT8 a; UINT32 c; BOOL d; }"
        ),
        [Rule::RemovedMember]
    );
}

#[test]
fn swapped_fields_are_one_move() {
    assert_eq!(
        rules(
            "STRUCT A { UINT8 a; UINT16 b; }",
            "STRUCT A { UINT16 b; UINT8 a; }"
        ),
        [Rule::ChangedMember]
    );
}

#[test]
fn every_violation_is_reported() {
    let found = rules(
        "STRUCT A { UINT8 a; } STRUCT B { UINT8 b; } ENUM E { X, Y }",
        "STRUCT A { UINT16 a; } ENUM E { X, Y, Z }",
    );
    assert_eq!(
        found,
        [Rule::ChangedMember, Rule::RemovedItem, Rule::EnumChanged]
    );
}

#[test]
fn a_default_outside_its_type_in_a_hand_built_ir() {
    // The resolver refuses such a DEFAULT (E0211); check-compat checks the IR it is given.
    let mut pair = pair(
        "STRUCT A { UINT8 a; }",
        "STRUCT A { UINT8 a; FENCE INT[1,9] n DEFAULT = 1; }",
    );
    let def = pair.new.schema.structs.get_mut("A").unwrap();
    def.segments[1].fields[0].default = Some(Value::Int(10));
    let outcome = check(&pair.old, &pair.new);
    let found: Vec<Rule> = outcome.violations.iter().map(|v| v.rule).collect();
    assert_eq!(found, [Rule::DefaultOutOfRange]);
    let text = pair.sources.render_plain(&outcome.diagnostics());
    assert!(
        text.contains("error[E0609]: default-out-of-range"),
        "{text}"
    );
    assert!(text.contains("new.idl:1:36"), "{text}");
}

#[test]
fn acknowledged_violations_become_notes() {
    let pair = pair(
        "STRUCT A { UINT8 a; }",
        "STRUCT A {\n  // idlc:allow(changed-member): same bits\n  UINT8 renamed;\n}\n// idlc:allow(removed-item Gone): nothing\n// idlc:allow(no-such-rule)\n",
    );
    let mut outcome = check(&pair.old, &pair.new);
    let warnings = acknowledge(&mut outcome.violations, &pair.sources, &pair.new_files);
    assert!(outcome.is_compatible());
    assert_eq!(outcome.violations.len(), 1);
    let violation = &outcome.violations[0];
    assert_eq!(violation.rule, Rule::ChangedMember);
    assert_eq!(
        violation.acknowledged.as_ref().map(|a| a.reason.as_str()),
        Some("same bits")
    );
    let codes: Vec<_> = warnings.iter().filter_map(|w| w.code.as_deref()).collect();
    assert_eq!(codes, ["W0602", "W0601"]);
}

#[test]
fn normalized_text_is_in_name_order() {
    let pair = pair(
        "ENUM Z { A } STRUCT B { UINT8 x; FENCE } STRUCT A { Z z; }",
        "STRUCT A { Z z; } STRUCT B { UINT8 x; FENCE } ENUM Z { A }",
    );
    let text = normalize::normalize(&pair.old);
    assert_eq!(text, normalize::normalize(&pair.new));
    assert!(
        text.starts_with(
            "ENUM Z { A = 0 }\nSTRUCT A {\n  Z z;\n}\nSTRUCT B {\n  UINT8 x;\n  FENCE\n}\n"
        ),
        "{text}"
    );
    assert_eq!(normalize::diff(&pair.old, &pair.new, "OLD", "NEW"), "");
}
