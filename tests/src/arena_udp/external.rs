//! Clients played by another program against the Rust server: the C++ client
//! (tests/cpp/arena_client.cpp, built and run by tests/tests/arena_udp.rs). It takes its
//! settings on its command line ([`cpp_client_args`]) and prints what it holds at the end, which
//! [`Printed::parse`] reads back; `e1::run_with` / `e2::run_with` hold it against the server's
//! records as they hold a Rust client's.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;

use super::{ClientCounts, Config};

/// What an external client printed at the end of its run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Printed {
    /// The Character it steered (`joined <id> <version> <versions>`); `None` if it never joined.
    pub character_id: Option<u16>,
    /// The version of UdpClientToServer it speaks (from 1), and how many there are.
    pub version: (usize, usize),
    /// Its counts (`counts <name>=<value> ...`, [`ClientCounts`]' field names).
    pub counts: ClientCounts,
    /// Every `use_item` answered: the item, whether it was used, what is left
    /// (`use <item id> <0|1> <left>`).
    pub uses: Vec<(u32, bool, u8)>,
    /// The World of every tick it decoded, in full form in its encoding (`world <tick> <hex>`).
    pub worlds: BTreeMap<u32, Vec<u8>>,
    /// What went wrong (`error <text>`), and any line that is none of the above.
    pub errors: Vec<String>,
}

impl Printed {
    /// Reads a client's output. A line it cannot read becomes an error of the client's.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        let mut out = Printed::default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if out.read(line).is_none() {
                out.errors.push(format!("an unreadable line: {line:?}"));
            }
        }
        out
    }

    fn read(&mut self, line: &str) -> Option<()> {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let mut fields = rest.split_whitespace();
        let mut next = || fields.next();
        match word {
            "joined" => {
                self.character_id = Some(next()?.parse().ok()?);
                self.version = (next()?.parse().ok()?, next()?.parse().ok()?);
            }
            "counts" => {
                for pair in rest.split_whitespace() {
                    let (name, value) = pair.split_once('=')?;
                    self.set_count(name, value.parse().ok()?)?;
                }
            }
            "use" => {
                let item_id = next()?.parse().ok()?;
                let used = match next()? {
                    "0" => false,
                    "1" => true,
                    _ => return None,
                };
                let left = next()?.parse().ok()?;
                self.uses.push((item_id, used, left));
            }
            "world" => {
                let tick = next()?.parse().ok()?;
                self.worlds.insert(tick, unhex(next()?)?);
            }
            "error" => self.errors.push(rest.to_string()),
            _ => return None,
        }
        Some(())
    }

    fn set_count(&mut self, name: &str, value: u64) -> Option<()> {
        let c = &mut self.counts;
        let small = u32::try_from(value).ok();
        match name {
            "snapshots" => c.snapshots = small?,
            "packets_sent" => c.packets_sent = small?,
            "bytes_sent" => c.bytes_sent = value,
            "packets_received" => c.packets_received = small?,
            "packets_refused" => c.packets_refused = small?,
            "moves" => c.moves = small?,
            "uses" => c.uses = small?,
            "uses_answered" => c.uses_answered = small?,
            "chats" => c.chats = small?,
            _ => return None,
        }
        Some(())
    }
}

/// Bytes from hex (`-` for none).
fn unhex(text: &str) -> Option<Vec<u8>> {
    if text == "-" {
        return Some(Vec::new());
    }
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The C++ client's command line after the program: the build (`e1` for MYENCODING1, `e2` for
/// MYENCODING2), the server's port, and `config`'s timers, pace and network.
#[must_use]
pub fn cpp_client_args(config: &Config, build: &str, server: SocketAddr) -> Vec<String> {
    let ms = |d: std::time::Duration| d.as_millis().to_string();
    vec![
        build.to_string(),
        server.port().to_string(),
        format!("read_timeout_ms={}", ms(config.read_timeout)),
        format!("join_timeout_ms={}", ms(config.join_timeout)),
        format!("deadline_ms={}", ms(config.deadline)),
        format!("use_every={}", config.use_every),
        format!("turn_every={}", config.turn_every),
        format!("tick_hz={}", config.tick_hz),
        format!("seed={}", config.seed),
        format!("loss={}", config.network.loss),
        format!("duplication={}", config.network.duplication),
        format!("reordering={}", config.network.reordering),
    ]
}

/// Runs the C++ client `binary` (its build `build`, `e1` or `e2`) against the server at
/// `server` until it stops by itself (by `config.deadline`), and returns what it printed, as
/// `run_with`'s `external` does.
pub fn run_cpp_client(
    binary: &Path,
    config: &Config,
    build: &str,
    server: SocketAddr,
) -> Result<Vec<String>, String> {
    let output = Command::new(binary)
        .args(cpp_client_args(config, build, server))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "the C++ client failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(vec![String::from_utf8_lossy(&output.stdout).into_owned()])
}
