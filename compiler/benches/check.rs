//! How long `idlc check` takes on a big schema: the arena schema set (IDL, both encodings, the
//! client mapping) replicated with renamed declarations until it holds 5,000 struct
//! declarations. Run with `cargo bench -p idlc --bench check`.

use std::collections::HashSet;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use idlc::Inputs;
use idlc::front::idl::ast::{Item, Member, ProtocolItem};
use idlc::load::MemoryFs;

const STRUCTS: usize = 5_000;

fn schema(name: &str) -> String {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The names the IDL text declares, and how many of them are structs (RPCs count: their
/// parameters are one).
fn declarations(idl: &str) -> (HashSet<String>, usize) {
    let (tree, _) = idlc::front::idl::parse(0, idl);
    let mut names = HashSet::new();
    let mut structs = 0;
    let add_struct = |s: &idlc::front::idl::ast::StructDecl, names: &mut HashSet<String>| {
        names.insert(s.name.name.clone());
        for member in &s.members {
            if let Member::Field(f) = member {
                if let idlc::front::idl::ast::FieldType::InlineEnum(e) = &f.ty {
                    names.insert(e.name.name.clone());
                }
            }
        }
    };
    for item in &tree.items {
        match item {
            Item::Const(c) => drop(names.insert(c.name.name.clone())),
            Item::Typedef(t) => drop(names.insert(t.name.name.clone())),
            Item::Enum(e) => drop(names.insert(e.name.name.clone())),
            Item::Struct(s) => {
                structs += 1;
                add_struct(s, &mut names);
            }
            Item::Protocol(p) => {
                names.insert(p.name.name.clone());
                for item in &p.items {
                    match item {
                        ProtocolItem::Struct(s) => {
                            structs += 1;
                            add_struct(s, &mut names);
                        }
                        ProtocolItem::Rpc(r) => {
                            structs += 1;
                            names.insert(r.name.name.clone());
                        }
                        ProtocolItem::Fence(_) => {}
                    }
                }
            }
            Item::Import(_) => {}
        }
    }
    (names, structs)
}

/// `text` with every whole word in `names` suffixed with `Copy{copy}`.
fn rename(text: &str, names: &HashSet<String>, copy: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word);
        if names.contains(word.as_str()) {
            out.push_str(&format!("Copy{copy}"));
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// An Encoding file without its DEFAULTS and style items, which may be given once per encoding.
fn without_encoding_wide_items(text: &str) -> String {
    let (tree, _) = idlc::front::enc::parse(0, text);
    let mut out = text.to_string();
    for item in tree.items.iter().rev() {
        if !matches!(item.body, idlc::front::enc::ast::EncBody::Target(..)) {
            out.replace_range(item.span.range(), "");
        }
    }
    out
}

/// The replicated schema set, in memory, and the number of struct declarations in it.
fn big_schema() -> (MemoryFs, Inputs, usize) {
    let idl: String = ["arena_common.idl", "item.idl", "arena.idl"]
        .iter()
        .map(|f| schema(f))
        .collect::<Vec<_>>()
        .join("\n")
        .lines()
        .filter(|line| !line.trim_start().starts_with("IMPORT"))
        .collect::<Vec<_>>()
        .join("\n");
    let (names, per_copy) = declarations(&idl);
    let copies = STRUCTS.div_ceil(per_copy.max(1));
    let mut fs = MemoryFs::new();
    let mut inputs = Inputs {
        side: Some("Client".into()),
        ..Inputs::default()
    };
    let others = ["arena_s2c.enc", "arena_s2s.enc", "arena_client.map"].map(schema);
    let mut all = [String::new(), String::new(), String::new(), String::new()];
    for copy in 0..copies {
        all[0].push_str(&rename(&idl, &names, copy));
        for (i, text) in others.iter().enumerate() {
            let text = if copy > 0 && i < 2 {
                without_encoding_wide_items(text)
            } else {
                text.clone()
            };
            all[i + 1].push_str(&rename(&text, &names, copy));
        }
    }
    let [big_idl, s2c, s2s, map] = all;
    fs.insert("big.idl", big_idl);
    fs.insert("big_s2c.enc", s2c);
    fs.insert("big_s2s.enc", s2s);
    fs.insert("big_client.map", map);
    inputs.idl.push("big.idl".into());
    inputs
        .encodings
        .extend(["big_s2c.enc".into(), "big_s2s.enc".into()]);
    inputs.mappings.push("big_client.map".into());
    (fs, inputs, copies * per_copy)
}

fn check_big_schema(c: &mut Criterion) {
    let (fs, inputs, structs) = big_schema();
    let compilation = idlc::compile_with(&inputs, &fs).expect("in memory");
    assert!(
        !compilation.has_errors(),
        "{}",
        compilation.sources.render_plain(&compilation.diagnostics)
    );
    assert!(structs >= STRUCTS);
    let mut group = c.benchmark_group("check");
    group.sample_size(10);
    group.bench_function(format!("arena x {structs} structs"), |b| {
        b.iter(|| idlc::compile_with(&inputs, &fs).expect("in memory"))
    });
    group.finish();
}

criterion_group!(benches, check_big_schema);
criterion_main!(benches);
