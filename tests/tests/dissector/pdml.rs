//! tshark's PDML (`-T pdml`), read into a tree: one element per line, as tshark writes it.

/// A `<proto>` or `<field>` element: its name, shown value and children.
#[derive(Debug, Clone, Default)]
pub struct Node {
    /// `name`: the field's abbreviation.
    pub name: String,
    /// `show`: the value as shown.
    pub show: String,
    /// Nested elements, in order.
    pub kids: Vec<Node>,
}

impl Node {
    /// Every node of the tree, depth first.
    pub fn walk(&self) -> Vec<&Node> {
        let mut out = vec![self];
        for kid in &self.kids {
            out.extend(kid.walk());
        }
        out
    }

    /// The children named `name`.
    pub fn named(&self, name: &str) -> Vec<&Node> {
        self.kids.iter().filter(|k| k.name == name).collect()
    }

    /// The first child named `name`.
    pub fn child(&self, name: &str) -> Option<&Node> {
        self.kids.iter().find(|k| k.name == name)
    }
}

/// The packets of a PDML document, each a node whose children are its protocols.
pub fn parse(text: &str) -> Vec<Node> {
    let mut packets = Vec::new();
    let mut stack: Vec<Node> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line == "<packet>" {
            stack = vec![Node::default()];
        } else if line == "</packet>" {
            if let Some(packet) = stack.pop() {
                packets.push(packet);
            }
            stack.clear();
        } else if line.starts_with("<proto ") || line.starts_with("<field ") {
            let node = Node {
                name: attribute(line, "name"),
                show: attribute(line, "show"),
                kids: Vec::new(),
            };
            if line.ends_with("/>") {
                if let Some(parent) = stack.last_mut() {
                    parent.kids.push(node);
                }
            } else {
                stack.push(node);
            }
        } else if (line == "</proto>" || line == "</field>") && stack.len() > 1 {
            let node = stack.pop().expect("a node");
            if let Some(parent) = stack.last_mut() {
                parent.kids.push(node);
            }
        }
    }
    packets
}

/// The value of `key="..."` in an element's line, unescaped.
fn attribute(line: &str, key: &str) -> String {
    let pattern = format!(" {key}=\"");
    let Some(start) = line.find(&pattern).map(|i| i + pattern.len()) else {
        return String::new();
    };
    let Some(len) = line[start..].find('"') else {
        return String::new();
    };
    unescape(&line[start..start + len])
}

fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(end) = rest.find(';') else { break };
        let entity = &rest[1..end];
        match entity {
            "quot" => out.push('"'),
            "amp" => out.push('&'),
            "lt" => out.push('<'),
            "gt" => out.push('>'),
            "apos" => out.push('\''),
            _ => {
                let code = entity
                    .strip_prefix("#x")
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()));
                match code.and_then(char::from_u32) {
                    Some(c) => out.push(c),
                    None => out.push_str(&rest[..=end]),
                }
            }
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}
