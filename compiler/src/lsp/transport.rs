//! The server's stdio transport: `lsp-server`'s framing, read leniently. `Connection::stdio`
//! ends the session at the first frame it cannot read (a header without `Content-Length`, a body
//! that is not a JSON-RPC message); here such a frame is reported on stderr and skipped, and the
//! next one is read, so that no input stops the server (DESIGN.md).

use std::io::{self, BufRead, Read, Write};
use std::thread;

use lsp_server::{Connection, Message};
use lsp_types::notification::{Exit, Notification as _};

/// What one frame of the input held.
#[derive(Debug)]
pub enum Frame {
    /// A message.
    Message(Message),
    /// A frame that is not one: why.
    Malformed(String),
}

/// Reads the next frame: its header lines up to the empty line, then `Content-Length` bytes of
/// body. `None` at the end of the input. The body is read as it arrives, so a header that
/// claims more than the input holds costs no more memory than the input.
pub fn read_frame(r: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length: Option<Result<u64, String>> = None;
    let mut lines = 0;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if lines == 0 {
                continue;
            }
            break;
        }
        lines += 1;
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("Content-Length") {
                length = Some(
                    value
                        .trim()
                        .parse()
                        .map_err(|_| format!("Content-Length `{}`", value.trim())),
                );
            }
        }
    }
    let length = match length {
        Some(Ok(length)) => length,
        Some(Err(why)) => return Ok(Some(Frame::Malformed(why))),
        None => {
            return Ok(Some(Frame::Malformed(
                "a header without Content-Length".into(),
            )));
        }
    };
    let mut body = Vec::new();
    r.take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Ok(None);
    }
    Ok(Some(match serde_json::from_slice(&body) {
        Ok(message) => Frame::Message(message),
        Err(e) => Frame::Malformed(format!("not a JSON-RPC message: {e}")),
    }))
}

/// A connection over stdin and stdout whose reader skips malformed frames, and the threads that
/// serve it (joined after the connection is dropped).
pub fn stdio() -> (Connection, [thread::JoinHandle<()>; 2]) {
    let (server, client) = Connection::memory();
    let Connection {
        sender: to_server,
        receiver: from_server,
    } = client;
    let reader = thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        while let Ok(Some(frame)) = read_frame(&mut stdin) {
            match frame {
                Frame::Message(message) => {
                    let exit =
                        matches!(&message, Message::Notification(n) if n.method == Exit::METHOD);
                    if to_server.send(message).is_err() || exit {
                        return;
                    }
                }
                Frame::Malformed(why) => eprintln!("idlc lsp: skipped a malformed message: {why}"),
            }
        }
    });
    let writer = thread::spawn(move || {
        let mut stdout = io::stdout().lock();
        for message in from_server {
            if message
                .write(&mut stdout)
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return;
            }
        }
    });
    (server, [reader, writer])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &str) -> Vec<String> {
        let mut r = io::BufReader::new(input.as_bytes());
        let mut out = Vec::new();
        while let Some(frame) = read_frame(&mut r).unwrap() {
            out.push(match frame {
                Frame::Message(Message::Notification(n)) => n.method,
                Frame::Message(other) => format!("{other:?}"),
                Frame::Malformed(why) => format!("malformed: {why}"),
            });
        }
        out
    }

    #[test]
    fn a_malformed_frame_is_skipped_and_the_next_one_read() {
        let ok = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = [
            "Content-Length: 5\r\n\r\n{{{{{",
            "Hello\r\n\r\n",
            "Content-Length: 2\r\n\r\n{}",
            "Content-Length: x\r\n\r\n",
            &format!("Content-Length: {}\r\n\r\n{ok}", ok.len()),
        ]
        .concat();
        assert_eq!(
            frames(&input),
            [
                "malformed: not a JSON-RPC message: key must be a string at line 1 column 2",
                "malformed: a header without Content-Length",
                "malformed: not a JSON-RPC message: data did not match any variant of untagged enum Message",
                "malformed: Content-Length `x`",
                "initialized",
            ]
        );
        // A body shorter than its header says: the input ended.
        assert!(frames("Content-Length: 99\r\n\r\n{}").is_empty());
    }
}
