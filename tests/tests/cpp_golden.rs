//! The C++ backend against the golden bytes: the headers `idlc::cppgen` writes for the design
//! source's C++ mappings (client.cpp.map with `vector<Item>`, server.cpp.map with the user's
//! `class MyInventory`), in MYENCODING1 and MYENCODING2, and for bundled schemas with the
//! built-in types ([`BUILT_IN`]: squad v1 in a bit and a byte stream, naval, mk48 in its three
//! encodings), decode every full-form record of the golden snapshots
//! (recorded from the interpreter, which Rust's generated code matches) and encode it again to
//! the very same bytes.
//!
//! One C++ program holds the headers (each in its own namespace) and reads
//! `<header> <encoding> <type> <hex>` lines on stdin; it is compiled with g++ (and clang++ when it is on
//! PATH) under `-std=c++17 -Wall -Wextra -Wpedantic -Werror`. Without g++ the test says why and
//! passes (.ci/run installs it).

mod common;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{schema, seed};

/// The headers: (namespace, mapping, side, encoding file, encoding name).
const HEADERS: [(&str, &str, &str, &str, &str); 4] = [
    (
        "client_e1",
        "client.cpp.map",
        "Client",
        "myencoding1.enc",
        "MYENCODING1",
    ),
    (
        "server_e1",
        "server.cpp.map",
        "Server",
        "myencoding1.enc",
        "MYENCODING1",
    ),
    (
        "client_e2",
        "client.cpp.map",
        "Client",
        "myencoding2.enc",
        "MYENCODING2",
    ),
    (
        "server_e2",
        "server.cpp.map",
        "Server",
        "myencoding2.enc",
        "MYENCODING2",
    ),
];

/// The collection class server.cpp.map names, with the four members the design source asks
/// for, declared in the header's namespace before the header is included.
fn my_inventory(namespace: &str) -> String {
    format!(
        "namespace character::{namespace} {{
struct Item;
class MyInventory {{
public:
    std::size_t idl_serialize_collection_get_size() const;
    const Item& idl_serialize_collection_get_item(std::size_t i) const;
    void idl_deserialize_collection_reserve_size(std::size_t n);
    void idl_deserialize_collection_add_item(const Item& item);
private:
    std::vector<Item> items_;
}};
}}
"
    )
}

fn my_inventory_members(namespace: &str) -> String {
    format!(
        "namespace character::{namespace} {{
std::size_t MyInventory::idl_serialize_collection_get_size() const {{ return items_.size(); }}
const Item& MyInventory::idl_serialize_collection_get_item(std::size_t i) const {{ return items_[i]; }}
void MyInventory::idl_deserialize_collection_reserve_size(std::size_t n) {{ items_.reserve(n); }}
void MyInventory::idl_deserialize_collection_add_item(const Item& item) {{ items_.push_back(item); }}
}}
"
    )
}

const DRIVER_MAIN: &str = r#"
static std::vector<std::uint8_t> unhex(const std::string& s) {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < s.size(); i += 2) {
        out.push_back(static_cast<std::uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
    }
    return out;
}

template <class T, class E>
static void roundtrip(const std::vector<std::uint8_t>& in) {
    T value;
    idlc::Status s = value.template from_bytes_with<E>(in.data(), in.size());
    if (!s.ok()) {
        std::printf("decode-error %s\n", s.to_string().c_str());
        return;
    }
    std::vector<std::uint8_t> out;
    s = value.template to_bytes_with<E>(out);
    if (!s.ok()) {
        std::printf("encode-error %s\n", s.to_string().c_str());
        return;
    }
    std::string hex = out.empty() ? "-" : "";
    for (std::uint8_t b : out) {
        char pair[3];
        std::snprintf(pair, sizeof pair, "%02x", b);
        hex += pair;
    }
    std::printf("%s\n", hex.c_str());
}

int main() {
    std::string header, encoding, type, hex;
    while (std::cin >> header >> encoding >> type >> hex) {
        std::vector<std::uint8_t> bytes = hex == "-" ? std::vector<std::uint8_t>{} : unhex(hex);
        DISPATCH
        std::printf("unknown\n");
    }
    return 0;
}
"#;

/// (namespace, IDL, encoding file, mapping, encodings, types).
type BuiltIn = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

/// Bundled schemas on a C++ side with the built-in types (a one-item C++ mapping makes the side
/// C++): (namespace, IDL, encoding file, mapping, encodings, types). The squad schema's first
/// version has bounded SEQUENCE and BYTES, OPTIONAL and open ends in a bit and a byte stream;
/// naval has dead reckoning's fields in full form; mk48 HUFFMAN, FLOAT32 of ranges and three
/// encodings.
const BUILT_IN: [BuiltIn; 3] = [
    (
        "squad_v1",
        "versions/squad_v1.idl",
        "versions/squad.enc",
        "MAPPING(\"CPP\", \"Cpp\") STRUCT Member { uint16_t id; };\n",
        &["SquadBits", "SquadBytes"],
        &["Member", "Squad"],
    ),
    (
        "naval",
        "naval.idl",
        "naval.enc",
        "MAPPING(\"CPP\", \"Cpp\") PUBLISHABLE_STRUCT Turret {};\n",
        &["NAVAL", "NAVAL_S2S"],
        &["Turret", "Ship", "Fleet"],
    ),
    (
        "mk48",
        "mk48.idl",
        "mk48.enc",
        "MAPPING(\"CPP\", \"Cpp\") STRUCT Guidance {};\n",
        &["MK48", "MK48_PLAIN", "MK48_LOSSY"],
        &[
            "Guidance",
            "Transform",
            "Contact",
            "TerrainUpdate",
            "Update",
        ],
    ),
];

/// One dispatch line of the driver: header namespace, encoding, type.
fn dispatch_line(namespace: &str, encoding: &str, ty: &str) -> String {
    format!(
        "if (header == \"{namespace}\" && encoding == \"{encoding}\" && type == \"{ty}\") {{ \
         roundtrip<character::{namespace}::{ty}, character::{namespace}::{encoding}>(bytes); \
         continue; }}\n"
    )
}

/// The C++ program: every header, the collection class, and `main`.
fn driver(dir: &Path) -> String {
    let mut text = String::from(
        "#include <cstdint>\n#include <cstdio>\n#include <iostream>\n#include <string>\n\
         #include <vector>\n\n",
    );
    let mut dispatch = String::new();
    for (namespace, map, side, enc, encoding) in HEADERS {
        let ir = common::ir(
            &[seed("character.idl"), schema("item.idl")],
            &[seed(enc)],
            Some((side, seed(map))),
        );
        let header = idlc::cppgen::generate_header(&ir, &format!("character::{namespace}"))
            .unwrap_or_else(|e| panic!("{namespace}: {e}"));
        std::fs::write(dir.join(format!("{namespace}.hpp")), header).unwrap();
        if side == "Server" {
            text.push_str(&my_inventory(namespace));
        }
        writeln!(text, "#include \"{namespace}.hpp\"").unwrap();
        if side == "Server" {
            text.push_str(&my_inventory_members(namespace));
        }
        for ty in ["Character", "Item"] {
            dispatch.push_str(&dispatch_line(namespace, encoding, ty));
        }
    }
    for (namespace, idl, enc, map, encodings, types) in BUILT_IN {
        let map_file = dir.join(format!("{namespace}.cpp.map"));
        std::fs::write(&map_file, map).unwrap();
        let ir = common::ir(&[schema(idl)], &[schema(enc)], Some(("Cpp", map_file)));
        let header = idlc::cppgen::generate_header(&ir, &format!("character::{namespace}"))
            .unwrap_or_else(|e| panic!("{namespace}: {e}"));
        std::fs::write(dir.join(format!("{namespace}.hpp")), header).unwrap();
        writeln!(text, "#include \"{namespace}.hpp\"").unwrap();
        for encoding in encodings {
            for ty in types {
                dispatch.push_str(&dispatch_line(namespace, encoding, ty));
            }
        }
    }
    text + &DRIVER_MAIN.replace("DISPATCH", &dispatch)
}

/// Every full-form record of `types` in the golden snapshot `golden_bytes__{snapshot}.snap`:
/// `(type, hex)`.
fn golden_records(snapshot: &str, types: &[&str]) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/snapshots/golden_bytes__{snapshot}.snap"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut records = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_suffix(" full") {
            current = Some(name.to_string());
        } else if !line.starts_with(' ') {
            current = None;
        } else if let Some(ty) = current.as_ref().filter(|t| types.contains(&t.as_str())) {
            let hex = line.split_whitespace().nth(1).unwrap();
            records.push((ty.clone(), hex.to_string()));
        }
    }
    records
}

fn compiler_present(name: &str) -> bool {
    Command::new(name)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn compile(compiler: &str, dir: &Path, source: &Path) -> PathBuf {
    let binary = dir.join(format!("driver-{compiler}"));
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-cpp/include");
    let output = Command::new(compiler)
        .args([
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-O1",
        ])
        .arg("-I")
        .arg(&include)
        .arg("-I")
        .arg(dir)
        .arg(source)
        .arg("-o")
        .arg(&binary)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{compiler} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    binary
}

#[test]
fn generated_cpp_reencodes_every_golden_record() {
    if !compiler_present("g++") {
        eprintln!("cpp_golden: no g++ on PATH: the C++ headers were generated but not compiled");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cpp_golden");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("driver.cpp");
    std::fs::write(&source, driver(&dir)).unwrap();
    let mut input = String::new();
    let mut expected = Vec::new();
    let mut sets: Vec<(&str, String, &str, &[&str])> = HEADERS
        .iter()
        .map(|&(namespace, _, _, _, encoding)| {
            let types: &[&str] = &["Character", "Item"];
            (namespace, format!("character_{encoding}"), encoding, types)
        })
        .collect();
    for (namespace, _, _, _, encodings, types) in BUILT_IN {
        for encoding in encodings {
            sets.push((
                namespace,
                format!("{namespace}_{encoding}"),
                encoding,
                types,
            ));
        }
    }
    for (namespace, snapshot, encoding, types) in &sets {
        for (ty, hex) in golden_records(snapshot, types) {
            writeln!(input, "{namespace} {encoding} {ty} {hex}").unwrap();
            expected.push(format!("{namespace} {encoding} {ty} {hex}"));
        }
    }
    assert!(expected.len() >= 13 * 32, "{} records", expected.len());
    let compilers: Vec<&str> = ["g++", "clang++"]
        .into_iter()
        .filter(|c| compiler_present(c))
        .collect();
    for compiler in compilers {
        let binary = compile(compiler, &dir, &source);
        let mut child = Command::new(&binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        let got: Vec<&str> = std::str::from_utf8(&output.stdout)
            .unwrap()
            .lines()
            .collect();
        assert_eq!(got.len(), expected.len(), "{compiler}: one line per record");
        for (line, want) in got.iter().zip(&expected) {
            let want_hex = want.rsplit(' ').next().unwrap();
            assert_eq!(*line, want_hex, "{compiler}: {want}");
        }
    }
}

/// The header of the design source's client.cpp.map in MYENCODING1, as generated code is
/// reviewed: snapshotted.
#[test]
fn the_client_header_reads_well() {
    let ir = common::ir(
        &[seed("character.idl"), schema("item.idl")],
        &[seed("myencoding1.enc")],
        Some(("Client", seed("client.cpp.map"))),
    );
    let header = idlc::cppgen::generate_header(&ir, "character::client").unwrap();
    insta::assert_snapshot!("character_client_myencoding1_hpp", header);
}
