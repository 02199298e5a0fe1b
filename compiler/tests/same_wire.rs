//! `ir::same_wire`: which structs travel the same way in two encodings, so that generated code
//! writes their codecs once (docs/ARCHITECTURE.md). A struct is the same when its plan and its
//! stream style are, and so is every struct it holds, however deep. And `ir::nesting`'s
//! recursive structs, which the plan marks.

mod common;

use idlc::ir::Ir;
use idlc::ir::nesting::{held_by, recursive_structs};
use idlc::ir::same_wire::SameWire;
use idlc::load::MemoryFs;

/// Compiles in-memory files: `a.idl` and `a.enc`.
fn ir(idl: &str, enc: &str) -> Ir {
    compiled(idl, Some(enc))
}

/// Compiles `a.idl`, with `a.enc` when there is one (else the built-in encoding).
fn compiled(idl: &str, enc: Option<&str>) -> Ir {
    let mut fs = MemoryFs::new().with("a.idl", idl);
    let mut inputs = idlc::Inputs {
        idl: vec!["a.idl".into()],
        ..Default::default()
    };
    if let Some(enc) = enc {
        fs = fs.with("a.enc", enc);
        inputs.encodings.push("a.enc".into());
    }
    let compilation = idlc::compile_with(&inputs, &fs).expect("in-memory files");
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    compilation.ir
}

/// Every struct of `ir` with the encoding it shares its wire with in `encoding`, if any.
fn firsts<'s>(ir: &'s Ir, same: &'s SameWire, encoding: &str) -> Vec<(&'s str, Option<&'s str>)> {
    ir.schema
        .structs
        .keys()
        .map(|name| (name.as_str(), same.first(encoding, name)))
        .collect()
}

#[test]
fn a_struct_is_shared_when_it_and_all_it_holds_travel_alike() {
    let ir = ir(
        "STRUCT Leaf { INT[0,100] a; }
         STRUCT Changed { INT[0,100] b; }
         STRUCT HoldsLeaf { Leaf leaf; INT[0,7] c; }
         STRUCT HoldsChanged { OPTIONAL<Changed> changed; }
         STRUCT Tree { INT[0,3] v; SEQUENCE<Tree, 4> children; }
         PUBLISHABLE_STRUCT Pub { INT[0,100] x; SEQUENCE<Leaf, 2> leaves; }",
        "ENCODING(A) BITSTREAM;
         ENCODING(B) BITSTREAM;
         ENCODING(B) STRUCT Changed { VLQ b; }
         ENCODING(C) BYTESTREAM;
         ENCODING(D) BITSTREAM;
         ENCODING(D) STRUCT Changed { VLQ b; }",
    );
    let same = SameWire::of(&ir, ir.plans());
    assert!(
        firsts(&ir, &same, "A")
            .iter()
            .all(|(_, first)| first.is_none())
    );
    // B changes `Changed`, and so the struct that holds it; the recursive `Tree` and the
    // PUBLISHABLE_STRUCT (delta form included) are A's.
    assert_eq!(
        firsts(&ir, &same, "B"),
        [
            ("Leaf", Some("A")),
            ("Changed", None),
            ("HoldsLeaf", Some("A")),
            ("HoldsChanged", None),
            ("Tree", Some("A")),
            ("Pub", Some("A")),
        ]
    );
    // The same plans in a byte stream are another wire.
    assert!(
        firsts(&ir, &same, "C")
            .iter()
            .all(|(_, first)| first.is_none())
    );
    // D is A where A is B, and B where only B is: always the first encoding with the wire.
    assert_eq!(
        firsts(&ir, &same, "D"),
        [
            ("Leaf", Some("A")),
            ("Changed", Some("B")),
            ("HoldsLeaf", Some("A")),
            ("HoldsChanged", Some("B")),
            ("Tree", Some("A")),
            ("Pub", Some("A")),
        ]
    );
}

#[test]
fn the_arena_schemas_share_exactly_the_structs_whose_wire_is_the_same() {
    let inputs = idlc::Inputs {
        idl: vec![common::schema("arena.idl").into()],
        encodings: vec![
            common::schema("arena_s2c.enc").into(),
            common::schema("arena_s2s.enc").into(),
        ],
        ..Default::default()
    };
    let compilation = idlc::compile(&inputs).expect("the bundled schemas");
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    let ir = compilation.ir;
    let plans = ir.plans();
    let same = SameWire::of(&ir, plans);
    let mut shared = 0;
    for (encoding, plan) in plans {
        for (name, def) in &ir.schema.structs {
            let Some(first) = same.first(encoding, name) else {
                continue;
            };
            shared += 1;
            let earlier = &plans[first];
            let at = |e: &str| plans.get_index_of(e);
            assert!(
                at(first) < at(encoding),
                "{name}: {first} is not before {encoding}"
            );
            assert_eq!(earlier.style, plan.style, "{name} in {encoding}");
            assert_eq!(earlier.structs.get(name), plan.structs.get(name), "{name}");
            assert_eq!(
                same.first(first, name),
                None,
                "{name}: {first} has its own codec"
            );
            for held in held_by(def) {
                assert_eq!(
                    same.first(encoding, held),
                    Some(first),
                    "{name} holds {held}"
                );
            }
        }
    }
    // S2CDebug adds CHECK markers to PlayerState (and so to what holds it): the rest is S2C's.
    assert_eq!(same.first("S2CDebug", "LootDrop"), Some("S2C"));
    assert_eq!(same.first("S2CDebug", "PlayerState"), None);
    assert_eq!(same.first("S2CDebug", "ArenaState"), None);
    assert!(shared >= 10, "{shared}");
}

/// A struct is recursive when it holds itself however deep: through itself, through a cycle of
/// others, inside SEQUENCEs, ARRAYs and OPTIONALs. Holding a recursive struct, or sitting
/// between two cycles, does not make a struct recursive. The plan says the same.
#[test]
fn recursive_structs_are_those_on_a_cycle() {
    let ir = compiled(
        "STRUCT Tree { INT[0,3] v; SEQUENCE<Tree, 4> children; }
         STRUCT A { OPTIONAL<B> b; }
         STRUCT B { ARRAY<C, 2> c; }
         STRUCT C { SEQUENCE<A> a; Bridge bridge; }
         STRUCT Bridge { Forest forest; }
         STRUCT Forest { OPTIONAL<Forest> next; Tree tree; }
         STRUCT HoldsTree { Tree tree; }
         STRUCT Leaf { UINT8 x; }",
        None,
    );
    let mut recursive: Vec<&str> = recursive_structs(&ir.schema).into_iter().collect();
    recursive.sort_unstable();
    assert_eq!(recursive, ["A", "B", "C", "Forest", "Tree"]);
    for (name, plan) in &ir.plans().values().next().expect("one encoding").structs {
        assert_eq!(plan.recursive, recursive.contains(&name.as_str()), "{name}");
    }
}

/// A chain of 20,000 structs, each holding the one before: found without exhausting the stack,
/// none recursive; closing the chain into a ring makes every one recursive.
#[test]
fn a_long_chain_is_walked_without_recursion() {
    let mut idl = String::from("STRUCT S0 { UINT8 x; }\n");
    for i in 1..20_000 {
        idl.push_str(&format!("STRUCT S{i} {{ S{} inner; }}\n", i - 1));
    }
    let chain = compiled(&idl, None);
    assert!(recursive_structs(&chain.schema).is_empty());
    let ring = compiled(
        &idl.replacen(
            "STRUCT S0 { UINT8 x; }",
            "STRUCT S0 { OPTIONAL<S19999> last; }",
            1,
        ),
        None,
    );
    assert_eq!(recursive_structs(&ring.schema).len(), 20_000);
}
