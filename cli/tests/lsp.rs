//! `idlc lsp`, the real binary, driven by a test client over stdio on the bundled arena project
//! (idlc.toml at the repository's root): initialize, open, change, diagnostics (within a second,
//! across files, with related locations), formatting, document symbols, definition, hover,
//! completion, references, rename (applied, the project still compiles), 200 random edits (each
//! followed by a request at a random place), frames that are no message (skipped), shutdown. Responses are snapshotted (insta) with the
//! repository's path replaced by `ROOT`. One server process; the session takes about a second.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the repository's root")
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for something else.
    pending: Vec<Value>,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("idlc"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start idlc lsp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(value) = line.strip_prefix("Content-Length: ") {
                        length = value.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let message = serde_json::from_slice(&body).expect("a JSON message");
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        Client {
            child,
            stdin,
            messages,
            next_id: 0,
            pending: Vec::new(),
        }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Writes `raw` as it is: frames that are not messages.
    fn send_raw(&mut self, raw: &str) {
        self.stdin.write_all(raw.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request; its response (result or error), the notifications before it kept.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.receive(Duration::from_secs(10)).expect("a response");
            if message["id"] == json!(id) {
                return message;
            }
            self.pending.push(message);
        }
    }

    fn receive(&mut self, timeout: Duration) -> Option<Value> {
        match self.messages.recv_timeout(timeout) {
            Ok(message) => Some(message),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its stdout"),
        }
    }

    /// The diagnostics published for `uri` next, within `limit`.
    fn diagnostics(&mut self, uri: &str, limit: Duration) -> Vec<Value> {
        let start = Instant::now();
        let found = match self.pending.iter().position(|m| is_diagnostics_of(m, uri)) {
            Some(at) => self.pending.remove(at),
            None => loop {
                let left = limit.checked_sub(start.elapsed()).unwrap_or_default();
                let message = self
                    .receive(left)
                    .unwrap_or_else(|| panic!("no diagnostics for {uri} within {limit:?}"));
                if is_diagnostics_of(&message, uri) {
                    break message;
                }
                self.pending.push(message);
            },
        };
        found["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Waits until the server has sent all it had to say (it answers in order: a request's
    /// response comes after them), and forgets it.
    fn settle(&mut self) {
        self.request("shutdown-barrier", Value::Null);
        self.pending.clear();
    }

    /// Every notification received so far (and within `wait`), in order.
    fn drain(&mut self, wait: Duration) -> Vec<Value> {
        let mut all = std::mem::take(&mut self.pending);
        while let Some(message) = self.receive(wait) {
            all.push(message);
        }
        all
    }
}

fn is_diagnostics_of(message: &Value, uri: &str) -> bool {
    message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri
}

/// `value` as pretty JSON, the repository's path replaced by `ROOT`.
fn redacted(value: &Value) -> String {
    serde_json::to_string_pretty(value)
        .expect("JSON")
        .replace(&root().display().to_string(), "ROOT")
}

/// The position (line, UTF-16 column) of byte `offset` of `text`.
fn position(text: &str, offset: usize) -> Value {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[start..].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": character})
}

/// The position `into` bytes into the `nth` (from 0) occurrence of `needle` in `text`.
fn find(text: &str, needle: &str, nth: usize, into: usize) -> Value {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} in the text"))
        .0;
    position(text, at + into)
}

/// The byte offset of an LSP position in `text`.
fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().expect("a line") as usize;
    let character = position["character"].as_u64().expect("a column") as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// `text` with `edits` (LSP TextEdits) applied.
fn apply(text: &str, edits: &[Value]) -> String {
    let mut edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|edit| {
            (
                offset(text, &edit["range"]["start"]),
                offset(text, &edit["range"]["end"]),
                edit["newText"].as_str().expect("newText"),
            )
        })
        .collect();
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.0));
    let mut out = text.to_string();
    for (start, end, new) in edits {
        out.replace_range(start..end, new);
    }
    out
}

/// Locations, one a line: `file line:column-line:column`, sorted.
fn locations(found: &Value) -> String {
    let mut lines: Vec<String> = found
        .as_array()
        .expect("locations")
        .iter()
        .map(|l| {
            let (start, end) = (&l["range"]["start"], &l["range"]["end"]);
            format!(
                "{} {}:{}-{}:{}",
                redacted(&l["uri"]).trim_matches('"'),
                start["line"],
                start["character"],
                end["line"],
                end["character"]
            )
        })
        .collect();
    lines.sort();
    lines.join("\n")
}

/// The labels of completion items (of `kind`, when given), in order.
fn labels(found: &Value, kind: Option<u64>) -> Vec<String> {
    found
        .as_array()
        .expect("completion items")
        .iter()
        .filter(|item| kind.is_none_or(|kind| item["kind"] == kind))
        .map(|item| item["label"].as_str().expect("a label").to_string())
        .collect()
}

/// Replaces the text of `uri`, once what the server said before is forgotten.
fn change(client: &mut Client, uri: &str, version: i32, text: &str) {
    client.settle();
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}],
        }),
    );
}

#[test]
fn a_session_on_the_arena_project() {
    let root = root();
    let idl_path = root.join("schemas/arena.idl");
    let idl = uri(&idl_path);
    let enc = uri(&root.join("schemas/arena_s2c.enc"));
    let map = uri(&root.join("schemas/arena_client.map"));
    let text = std::fs::read_to_string(&idl_path).expect("arena.idl");
    let mut client = Client::start();

    let initialized = client.request(
        "initialize",
        json!({"processId": null, "rootUri": uri(&root), "capabilities": {}}),
    );
    insta::assert_snapshot!(
        "initialize",
        redacted(&initialized["result"]["capabilities"])
    );
    client.notify("initialized", json!({}));

    // Open: the project compiles clean; every file of it gets its (empty) diagnostics.
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": idl, "languageId": "idl", "version": 1, "text": text}}),
    );
    assert_eq!(
        client.diagnostics(&idl, Duration::from_secs(1)),
        Vec::<Value>::new()
    );
    let published: Vec<String> = client
        .drain(Duration::from_millis(200))
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .map(|m| {
            let uri = m["params"]["uri"].as_str().unwrap_or("");
            let count = m["params"]["diagnostics"].as_array().map_or(0, Vec::len);
            format!("{} {count}", redacted(&json!(uri)))
        })
        .collect();
    insta::assert_snapshot!("published_on_open", published.join("\n"));

    // A syntax error, reported within a second of the change.
    let broken = text.replacen("UINT32 tick;", "UINT32 tick", 1);
    client.settle();
    let started = Instant::now();
    change(&mut client, &idl, 2, &broken);
    let diagnostics = client.diagnostics(&idl, Duration::from_secs(1));
    assert!(started.elapsed() < Duration::from_secs(1));
    insta::assert_snapshot!("syntax_error", redacted(&json!(diagnostics)));

    // A field renamed in the IDL: the encoding and the mapping that name it are wrong now, and
    // say where the IDL declares the struct.
    let renamed = text.replacen("INT[0, 999] ammo;", "INT[0, 999] rounds;", 1);
    change(&mut client, &idl, 3, &renamed);
    let on_enc = client.diagnostics(&enc, Duration::from_secs(1));
    let on_map = client.diagnostics(&map, Duration::from_secs(1));
    insta::assert_snapshot!("renamed_field_encoding", redacted(&json!(on_enc)));
    insta::assert_snapshot!("renamed_field_mapping", redacted(&json!(on_map)));

    // Back to the file's text: the errors are cleared everywhere.
    change(&mut client, &idl, 4, &text);
    assert_eq!(
        client.diagnostics(&idl, Duration::from_secs(1)),
        Vec::<Value>::new()
    );
    assert_eq!(
        client.diagnostics(&enc, Duration::from_secs(1)),
        Vec::<Value>::new()
    );

    // Formatting gives what `idlc fmt` writes: the bundled file, formatted, from a messy copy.
    let messy = text.replacen("  UINT32 tick;", "UINT32    tick ;", 1);
    change(&mut client, &idl, 5, &messy);
    let edits = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": idl}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    let edits = edits["result"].as_array().expect("edits");
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["newText"], text);
    // A file with syntax errors is not formatted.
    change(&mut client, &idl, 6, &broken);
    let none = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": idl}, "options": {"tabSize": 2, "insertSpaces": true}}),
    );
    assert_eq!(none["result"], Value::Null);

    // Document symbols of a Mapping (read from disk: not open).
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": map}}),
    );
    insta::assert_snapshot!("symbols_mapping", redacted(&symbols["result"]));
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": idl}}),
    );
    let names: Vec<&str> = symbols["result"]
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(
        names.contains(&"ArenaState") && names.contains(&"ArenaClientToServer"),
        "{names:?}"
    );

    navigation(&mut client, &text);

    // 200 random edits, of arena.idl, arena_s2c.enc and arena_client.map in turn, each answered
    // with its diagnostics within a second, and a request at a random place (definition, hover,
    // completion, references, prepareRename) that is answered (with a result, maybe empty:
    // never an error).
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let snippets = [
        "{",
        "}",
        ";",
        "STRUCT",
        "FENCE",
        "<",
        "INT[0,",
        "/*",
        "\"",
        "-",
        "\u{e9}",
        "\n",
        "DEFAULT = ",
        "x",
        "DELTA",
        "VLQ(",
        "=>",
        "ENCODING(S2C)",
        "MAPPING(\"Rust\", \"Client\")",
    ];
    let mut files: Vec<(String, String)> = ["arena.idl", "arena_s2c.enc", "arena_client.map"]
        .iter()
        .map(|name| {
            let path = root.join("schemas").join(name);
            (
                uri(&path),
                std::fs::read_to_string(&path).expect("a bundled file"),
            )
        })
        .collect();
    for (uri, text) in &files[1..] {
        client.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "idlc", "version": 1, "text": text}}),
        );
    }
    for version in 0..200 {
        let (uri, current) = &mut files[version as usize % 3];
        let mut at = rng.random_range(0..=current.len());
        while !current.is_char_boundary(at) {
            at -= 1;
        }
        if rng.random_bool(0.5) && at < current.len() {
            let mut end = (at + rng.random_range(1..40)).min(current.len());
            while !current.is_char_boundary(end) {
                end -= 1;
            }
            current.replace_range(at..end, "");
        } else {
            current.insert_str(at, snippets[rng.random_range(0..snippets.len())]);
        }
        client.settle();
        let started = Instant::now();
        change(&mut client, uri, 100 + version, current);
        client.diagnostics(uri, Duration::from_secs(1));
        assert!(started.elapsed() < Duration::from_secs(1), "edit {version}");
        let mut at = rng.random_range(0..=current.len());
        while !current.is_char_boundary(at) {
            at -= 1;
        }
        let mut params = json!({"textDocument": {"uri": uri}, "position": position(current, at)});
        let method = [
            "textDocument/definition",
            "textDocument/hover",
            "textDocument/completion",
            "textDocument/references",
            "textDocument/prepareRename",
        ][version as usize % 5];
        if method == "textDocument/references" {
            params["context"] = json!({"includeDeclaration": true});
        }
        let answer = client.request(method, params);
        assert!(answer.get("error").is_none(), "edit {version}: {answer}");
    }
    // Frames that are no message: each skipped, the session goes on (DESIGN.md: "No input
    // kills it").
    client.send_raw("Content-Length: 5\r\n\r\n{{{{{");
    client.send_raw("Hello\r\n\r\n");
    client.send_raw("Content-Length: 2\r\n\r\n{}");
    let alive = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": idl}}),
    );
    assert!(alive.get("result").is_some(), "{alive}");

    let shutdown = client.request("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null);
    client.notify("exit", Value::Null);
    let status = client.child.wait().expect("the server exits");
    assert!(status.success(), "{status}");
}

/// Definition, hover, completion, references and rename on the arena project, with arena.idl
/// open (`text` being its file's text).
fn navigation(client: &mut Client, text: &str) {
    let root = root();
    let idl = uri(&root.join("schemas/arena.idl"));
    let enc_path = root.join("schemas/arena_s2c.enc");
    let map_path = root.join("schemas/arena_client.map");
    let (enc, map) = (uri(&enc_path), uri(&map_path));
    let enc_text = std::fs::read_to_string(&enc_path).expect("arena_s2c.enc");
    let map_text = std::fs::read_to_string(&map_path).expect("arena_client.map");
    change(client, &idl, 7, text);
    client.settle();
    let at =
        |uri: &str, position: Value| json!({"textDocument": {"uri": uri}, "position": position});

    // Definition: an Encoding's field is the IDL's; a Mapping's target, the IDL's struct; a
    // type name, its declaration in another IDL file; an IMPORT, its file.
    let mut definitions = Vec::new();
    for (what, uri, position) in [
        ("field in an Encoding", &enc, find(&enc_text, "ammo;", 0, 2)),
        (
            "target of a Mapping",
            &map,
            find(&map_text, "PlayerState", 0, 0),
        ),
        ("type of a field", &idl, find(text, "PlayerSlot slot", 0, 3)),
        ("IMPORT", &idl, find(text, "\"arena_common.idl\"", 0, 1)),
        ("nothing", &idl, find(text, "arena shooter", 0, 0)),
    ] {
        let found = client.request("textDocument/definition", at(uri, position));
        definitions.push(format!("{what}:\n{}", locations(&found["result"])));
    }
    insta::assert_snapshot!("definitions", definitions.join("\n"));

    // Hover: a field's IDL type and its bits in each encoding (from a Mapping, where no bit is
    // written); a struct's totals.
    let mut hover = |uri: &str, position: Value| {
        let found = client.request("textDocument/hover", at(uri, position));
        found["result"]["contents"]["value"]
            .as_str()
            .expect("markdown")
            .to_string()
    };
    let field = hover(&map, find(&map_text, "ammo;", 0, 0));
    insta::assert_snapshot!("hover_field", field);
    let structure = hover(&idl, find(text, "Projectile {", 0, 0));
    insta::assert_snapshot!("hover_struct", structure);

    // Completion: the fields a Mapping block has not listed; in an Encoding block without
    // `ammo`, `ammo` and the rules; types in an IDL struct.
    let fields = client.request(
        "textDocument/completion",
        at(&map, find(&map_text, "  f32 x;", 0, 2)),
    );
    insta::assert_snapshot!(
        "completion_mapping",
        labels(&fields["result"], Some(5)).join(" ")
    );
    let without = enc_text.replacen("DELTA VLQ(5) ammo;", "DELTA VLQ(5) am", 1);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": enc, "languageId": "enc", "version": 1, "text": without}}),
    );
    let typing = find(&without, "VLQ(5) am", 0, "VLQ(5) am".len());
    let encoding = client.request("textDocument/completion", at(&enc, typing));
    insta::assert_snapshot!(
        "completion_encoding",
        labels(&encoding["result"], None).join(" ")
    );
    change(client, &enc, 2, &enc_text);
    let types = client.request(
        "textDocument/completion",
        at(&idl, find(text, "  Team team;", 0, 2)),
    );
    let types = labels(&types["result"], None);
    for expected in [
        "PlayerSlot",
        "Team",
        "WeaponKind",
        "MatchPhase",
        "Item",
        "UINT8",
        "NUMERIC",
    ] {
        assert!(
            types.iter().any(|t| t == expected),
            "{expected} in {types:?}"
        );
    }
    assert!(
        !types.iter().any(|t| t == "ArenaPing"),
        "a protocol is no type: {types:?}"
    );

    // References of a field, from the IDL: the declaration and the uses in both sides'
    // Encodings and Mappings.
    let mut params = at(&idl, find(text, "ammo;", 0, 1));
    params["context"] = json!({"includeDeclaration": true});
    let references = client.request("textDocument/references", params);
    insta::assert_snapshot!("references_field", locations(&references["result"]));

    // Rename of a field from an Encoding: every file that names it changes, and the project
    // compiles as cleanly as before.
    let prepared = client.request(
        "textDocument/prepareRename",
        at(&enc, find(&enc_text, "ammo;", 0, 0)),
    );
    assert_eq!(prepared["result"]["start"], find(&enc_text, "ammo;", 0, 0));
    let import = client.request(
        "textDocument/prepareRename",
        at(&idl, find(text, "\"item.idl\"", 0, 2)),
    );
    assert_eq!(import["result"], Value::Null, "an IMPORT is not renamed");
    let bad = client.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": enc}, "position": find(&enc_text, "ammo;", 0, 0), "newName": "DELTA"}),
    );
    assert!(
        bad["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not a name")),
        "{bad}"
    );
    let renamed = client.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": enc}, "position": find(&enc_text, "ammo;", 0, 0), "newName": "rounds"}),
    );
    let changes = renamed["result"]["changes"].as_object().expect("changes");
    let mut edited: Vec<String> = changes
        .iter()
        .flat_map(|(uri, edits)| {
            edits.as_array().expect("edits").iter().map(move |edit| {
                let start = &edit["range"]["start"];
                format!(
                    "{} {}:{} {}",
                    redacted(&json!(uri)).trim_matches('"'),
                    start["line"],
                    start["character"],
                    edit["newText"]
                )
            })
        })
        .collect();
    edited.sort();
    insta::assert_snapshot!("rename_field", edited.join("\n"));
    // Applied to every file it names (opened with their new text), nothing is wrong.
    let mut version = 10;
    for (uri, edits) in changes {
        let path = PathBuf::from(uri.strip_prefix("file://").expect("a file URI"));
        let old = std::fs::read_to_string(&path).expect("a file of the project");
        let new = apply(&old, edits.as_array().expect("edits"));
        assert!(new.contains("rounds") && !new.contains(" ammo;"), "{uri}");
        version += 1;
        client.settle();
        client.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "idlc", "version": version, "text": new}}),
        );
    }
    client.settle();
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": idl}}),
    );
    for uri in changes.keys() {
        assert_eq!(
            client.diagnostics(uri, Duration::from_secs(1)),
            Vec::<Value>::new(),
            "{uri}"
        );
    }
    // Back to the files' text.
    for uri in changes.keys() {
        client.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );
    }
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": idl, "languageId": "idl", "version": 99, "text": text}}),
    );
    client.settle();
}

/// The VS Code extension (editors/vscode/) is well-formed: its manifest and grammar are JSON, it
/// claims the three extensions and starts `idlc lsp`, and its grammar names every keyword of the
/// three languages (the lexer's own lists: a new keyword needs its highlighting).
#[test]
fn the_vscode_extension_is_well_formed() {
    let dir = root().join("editors/vscode");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect("an extension file");
    let manifest: Value = serde_json::from_str(&read("package.json")).expect("package.json");
    let extensions: Vec<&str> = manifest["contributes"]["languages"]
        .as_array()
        .expect("languages")
        .iter()
        .filter_map(|language| language["extensions"][0].as_str())
        .collect();
    assert_eq!(extensions, [".idl", ".enc", ".map"]);
    assert!(read("extension.js").contains(r#"args: ["lsp"]"#));
    let grammar = read("syntaxes/idlc.tmLanguage.json");
    let _: Value = serde_json::from_str(&grammar).expect("the grammar");
    let _: Value = serde_json::from_str(&read("language-configuration.json")).expect("JSON");
    use idlc::front::lexer::Language;
    for language in [Language::Idl, Language::Encoding, Language::Mapping] {
        for word in language.keywords() {
            assert!(
                grammar.contains(word),
                "the grammar does not highlight `{word}`"
            );
        }
    }
}
