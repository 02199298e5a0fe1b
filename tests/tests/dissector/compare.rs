//! A packet's tree in tshark against `idlc decode --format json` of the same bytes: every item's
//! header and every field's value (reals within a millionth, far inside half a step), a
//! snapshot delta's as the state the receiver decoded.

use serde_json::Value as Json;

use super::pdml::Node;

/// What differs between the tree of protocol `abbr` and the packet `expected` (empty: none).
pub fn packet(abbr: &str, tree: &Node, expected: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let check = |out: &mut Vec<String>, what: &str, node: Option<&Node>, want: &Json| match node {
        Some(node) => value(node, want, what, out),
        None => out.push(format!("{what}: missing (want {want})")),
    };
    let version = tree.child(&format!("{abbr}.version"));
    check(&mut out, "version", version, &expected["version"]);
    if let Some(session) = expected.get("session") {
        let node = tree.child(&format!("{abbr}.session"));
        for key in ["sequence", "ack", "ack_bits"] {
            let kid = node.and_then(|n| n.child(&format!("{abbr}.session_{key}")));
            check(&mut out, &format!("session.{key}"), kid, &session[key]);
        }
    }
    let items: Vec<&Node> = tree.named(&format!("{abbr}.item"));
    let want = expected["items"].as_array().cloned().unwrap_or_default();
    if items.len() != want.len() {
        out.push(format!("{} items, want {}", items.len(), want.len()));
    }
    for (index, (node, want)) in items.iter().zip(&want).enumerate() {
        for key in ["id", "name", "kind", "request", "index", "age", "ticks"] {
            let kid = node.child(&format!("{abbr}.item_{key}"));
            match want.get(key) {
                Some(w) => check(&mut out, &format!("items[{index}].{key}"), kid, w),
                None if kid.is_some() => out.push(format!("items[{index}].{key}: unexpected")),
                None => {}
            }
        }
        if let Some(value) = want.get("value") {
            let kid = node.child(&format!("{abbr}.item_value"));
            check(&mut out, &format!("items[{index}].value"), kid, value);
        }
        let refusal = node.child(&format!("{abbr}.item_refusal"));
        match want.get("refusal") {
            Some(want) => {
                for key in ["code", "text"] {
                    let kid = refusal.and_then(|n| n.child(&format!("{abbr}.item_refusal_{key}")));
                    check(
                        &mut out,
                        &format!("items[{index}].refusal.{key}"),
                        kid,
                        &want[key],
                    );
                }
            }
            None if refusal.is_some() => out.push(format!("items[{index}].refusal: unexpected")),
            None => {}
        }
    }
    out
}

/// `node` shows `want` (its children for a struct or a list).
fn value(node: &Node, want: &Json, path: &str, out: &mut Vec<String>) {
    // A field of a segment not sent shows its DEFAULT, a field a delta did not send the
    // baseline's value, a dead-reckoned position not sent its extrapolation: all marked.
    let show = [" (default)", " (unchanged)", " (extrapolated)"]
        .iter()
        .find_map(|mark| node.show.strip_suffix(mark))
        .unwrap_or(&node.show);
    let mut differs = || out.push(format!("{path}: shows {show:?}, want {want}"));
    match want {
        Json::Null => {
            if show != "absent" {
                differs();
            }
        }
        Json::Bool(b) => {
            if show != b.to_string() {
                differs();
            }
        }
        Json::Number(n) if n.is_f64() => match show.parse::<f64>() {
            Ok(got) if close(got, n.as_f64().unwrap_or(f64::NAN)) => {}
            _ => differs(),
        },
        Json::Number(n) => {
            if show != n.to_string() {
                differs();
            }
        }
        Json::String(s) => {
            // An enumerator shows as `Name (index)`; a non-finite real as NaN, inf, -inf.
            let enumerator = show
                .rsplit_once(" (")
                .is_some_and(|(name, index)| name == s && index.ends_with(')'));
            if show != s && show != escaped(s, true) && show != escaped(s, false) && !enumerator {
                differs();
            }
        }
        Json::Array(items) => {
            // BYTES show as hex; a SEQUENCE or ARRAY lists its elements.
            let bytes: Option<String> = items
                .iter()
                .map(|b| b.as_u64().map(|b| format!("{b:02x}")))
                .collect();
            if node.kids.is_empty() && !show.ends_with("elements") && !show.ends_with("element") {
                if bytes.as_deref() != Some(show) {
                    differs();
                }
                return;
            }
            if node.kids.len() != items.len() {
                out.push(format!(
                    "{path}: {} elements, want {}",
                    node.kids.len(),
                    items.len()
                ));
                return;
            }
            for (i, (kid, item)) in node.kids.iter().zip(items).enumerate() {
                value(kid, item, &format!("{path}[{i}]"), out);
            }
        }
        Json::Object(fields) => {
            for (name, item) in fields {
                let suffix = format!(".{}", name.to_lowercase());
                let mut kids = node.kids.iter().filter(|k| k.name.ends_with(&suffix));
                match (kids.next(), kids.next()) {
                    (Some(kid), None) => value(kid, item, &format!("{path}.{name}"), out),
                    (None, _) => out.push(format!("{path}.{name}: missing")),
                    (Some(_), Some(_)) => out.push(format!("{path}.{name}: shown twice")),
                }
            }
            if node.kids.len() != fields.len() {
                out.push(format!(
                    "{path}: {} fields shown, want {}",
                    node.kids.len(),
                    fields.len()
                ));
            }
        }
    }
}

/// `text` as Wireshark shows a string: control characters escaped (`\n`, `\x5`); a field
/// without a type of its own (a label) escapes them all in hex (`named`: false).
fn escaped(text: &str, named: bool) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            c if !named && ((c as u32) < 0x20 || c as u32 == 0x7f) => {
                out.push_str(&format!("\\x{:x}", c as u32));
            }
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

fn close(got: f64, want: f64) -> bool {
    got == want || (got - want).abs() <= 1e-6 * want.abs().max(1.0)
}
