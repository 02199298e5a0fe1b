//! Sockets with deadlines: every read waits at most a short step, so that no side ever blocks
//! past its timers, whatever the network loses.

use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::Network;

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

/// The network between the sides, made bad on purpose ([`Network`]): a seeded stream decides
/// what happens to each datagram a side sends.
#[derive(Debug, Clone)]
pub(crate) struct Link {
    network: Network,
    rng: ChaCha8Rng,
    /// A datagram held back, sent after the next one.
    held: Option<(Vec<u8>, SocketAddr)>,
}

impl Link {
    /// A link that does what `network` says, decided by the seed `seed`.
    pub(crate) fn new(network: Network, seed: u64) -> Self {
        Link {
            network,
            rng: ChaCha8Rng::seed_from_u64(seed),
            held: None,
        }
    }

    /// Sends `packet` to `to`, unless the network loses it, holds it back (it goes after the
    /// next datagram) or repeats it.
    pub(crate) fn send(
        &mut self,
        socket: &UdpSocket,
        packet: &[u8],
        to: SocketAddr,
    ) -> Result<(), String> {
        let Network {
            loss,
            duplication,
            reordering,
        } = self.network;
        if self.happens(loss) {
            return Ok(());
        }
        if self.held.is_none() && self.happens(reordering) {
            self.held = Some((packet.to_vec(), to));
            return Ok(());
        }
        send_to(socket, packet, to)?;
        if self.happens(duplication) {
            send_to(socket, packet, to)?;
        }
        match self.held.take() {
            Some((late, to)) => send_to(socket, &late, to),
            None => Ok(()),
        }
    }

    fn happens(&mut self, probability: f64) -> bool {
        probability > 0.0 && self.rng.random_bool(probability.min(1.0))
    }
}

fn send_to(socket: &UdpSocket, packet: &[u8], to: SocketAddr) -> Result<(), String> {
    socket
        .send_to(packet, to)
        .map(|_| ())
        .map_err(|e| format!("cannot send {} bytes to {to}: {e}", packet.len()))
}
