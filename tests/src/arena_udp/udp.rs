//! Sockets with deadlines: every read waits at most a short step, so that no side ever blocks
//! past its timers, whatever the network loses.

use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The largest packet any side sends (a safe UDP payload on any path).
pub(crate) const MTU: usize = 1200;

/// A UDP socket on 127.0.0.1 with a port the OS picks (tests running at once never collide).
pub(crate) fn bind_loopback() -> Result<UdpSocket, String> {
    UdpSocket::bind("127.0.0.1:0").map_err(|e| format!("cannot bind a UDP socket: {e}"))
}

/// Waits for one datagram until `until`, blocking at most `step` at a time: its length and
/// sender, or `None` once `until` has passed.
pub(crate) fn recv_until(
    socket: &UdpSocket,
    buf: &mut [u8],
    until: Instant,
    step: Duration,
) -> Result<Option<(usize, SocketAddr)>, String> {
    loop {
        let now = Instant::now();
        if now >= until {
            return Ok(None);
        }
        let wait = (until - now).min(step).max(Duration::from_millis(1));
        socket
            .set_read_timeout(Some(wait))
            .map_err(|e| format!("cannot set a read timeout: {e}"))?;
        match socket.recv_from(buf) {
            Ok(got) => return Ok(Some(got)),
            // A timeout, or an ICMP "port unreachable" from a peer that already left.
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock
                        | ErrorKind::TimedOut
                        | ErrorKind::ConnectionReset
                        | ErrorKind::ConnectionRefused
                        | ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(format!("cannot receive: {e}")),
        }
    }
}

/// Loses outgoing datagrams at random (a seeded stream), to show that the protocol recovers
/// from loss that loopback never has.
#[derive(Debug, Clone)]
pub(crate) struct Loss {
    rate: f64,
    rng: ChaCha8Rng,
}

impl Loss {
    /// Loses each datagram with probability `rate` (0: none).
    pub(crate) fn new(rate: f64, seed: u64) -> Self {
        Loss {
            rate: rate.clamp(0.0, 1.0),
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

/// Sends `packet` to `to` unless `loss` loses it; returns its size either way (a lost datagram
/// was sent, as far as the sender knows).
pub(crate) fn send(
    socket: &UdpSocket,
    packet: &[u8],
    to: SocketAddr,
    loss: &mut Loss,
) -> Result<usize, String> {
    if loss.rate > 0.0 && loss.rng.random_bool(loss.rate) {
        return Ok(packet.len());
    }
    socket
        .send_to(packet, to)
        .map_err(|e| format!("cannot send {} bytes to {to}: {e}", packet.len()))
}
