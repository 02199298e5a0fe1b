//! A capture file writer: classic libpcap format, one Ethernet / IPv4 / UDP frame per datagram,
//! so that Wireshark and tshark read what a test (or the UDP demo) sent and received.

use std::io;
use std::net::SocketAddrV4;
use std::path::Path;

/// The link type of Ethernet frames (LINKTYPE_ETHERNET).
const LINKTYPE_ETHERNET: u32 = 1;
/// The largest datagram kept whole.
const SNAPLEN: u32 = 65_535;

/// A capture being written, in memory: `udp` adds a datagram, `write` saves the file.
#[derive(Debug, Clone)]
pub struct Pcap {
    bytes: Vec<u8>,
    /// The timestamp of the next datagram, in microseconds since the epoch.
    micros: u64,
}

impl Default for Pcap {
    fn default() -> Self {
        Pcap::new()
    }
}

impl Pcap {
    /// An empty capture (its global header only); datagrams are stamped 1 ms apart from
    /// 2024-01-01, so that the file is the same on every run.
    pub fn new() -> Self {
        let mut bytes = Vec::with_capacity(1 << 16);
        bytes.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes()); // magic, microseconds
        bytes.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        bytes.extend_from_slice(&4u16.to_le_bytes());
        bytes.extend_from_slice(&0i32.to_le_bytes()); // UTC
        bytes.extend_from_slice(&0u32.to_le_bytes()); // timestamp accuracy
        bytes.extend_from_slice(&SNAPLEN.to_le_bytes());
        bytes.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        Pcap {
            bytes,
            micros: 1_704_067_200_000_000,
        }
    }

    /// Adds a UDP datagram from `src` to `dst` (`payload` at most 65,507 bytes: an IPv4
    /// datagram's limit; longer payloads are cut there).
    pub fn udp(&mut self, src: SocketAddrV4, dst: SocketAddrV4, payload: &[u8]) {
        let payload = &payload[..payload.len().min(65_507)];
        let udp_len = 8 + payload.len();
        let ip_len = 20 + udp_len;
        let frame_len = 14 + ip_len;
        let mut frame = Vec::with_capacity(frame_len);
        // Ethernet: locally administered addresses made of the IPv4 addresses, IPv4 ethertype.
        for address in [dst.ip(), src.ip()] {
            frame.extend_from_slice(&[0x02, 0x00]);
            frame.extend_from_slice(&address.octets());
        }
        frame.extend_from_slice(&0x0800u16.to_be_bytes());
        // IPv4: no options, don't fragment, TTL 64, UDP.
        let mut ip = [0u8; 20];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
        ip[6] = 0x40;
        ip[8] = 64;
        ip[9] = 17;
        ip[12..16].copy_from_slice(&src.ip().octets());
        ip[16..20].copy_from_slice(&dst.ip().octets());
        let checksum = ipv4_checksum(&ip);
        ip[10..12].copy_from_slice(&checksum.to_be_bytes());
        frame.extend_from_slice(&ip);
        // UDP: no checksum (0 is allowed over IPv4).
        frame.extend_from_slice(&src.port().to_be_bytes());
        frame.extend_from_slice(&dst.port().to_be_bytes());
        frame.extend_from_slice(&(udp_len as u16).to_be_bytes());
        frame.extend_from_slice(&0u16.to_be_bytes());
        frame.extend_from_slice(payload);
        let seconds = (self.micros / 1_000_000) as u32;
        let micros = (self.micros % 1_000_000) as u32;
        self.bytes.extend_from_slice(&seconds.to_le_bytes());
        self.bytes.extend_from_slice(&micros.to_le_bytes());
        self.bytes
            .extend_from_slice(&(frame.len() as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&(frame.len() as u32).to_le_bytes());
        self.bytes.extend_from_slice(&frame);
        self.micros += 1_000;
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Writes the capture to `path`.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        std::fs::write(path, &self.bytes)
    }
}

/// The IPv4 header checksum: the ones' complement of the ones' complement sum of its 16-bit
/// words (with the checksum field zero).
fn ipv4_checksum(header: &[u8; 20]) -> u16 {
    let mut sum: u32 = header
        .chunks(2)
        .map(|word| u32::from(u16::from_be_bytes([word[0], word[1]])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    #[test]
    fn checksum_of_a_known_header() {
        // The example of RFC 1071's usual illustration (Wikipedia, "IPv4 header checksum").
        let header = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(super::ipv4_checksum(&header), 0xb861);
    }
}
