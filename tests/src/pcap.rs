//! A capture file writer: classic libpcap format, one Ethernet / IPv4 / UDP frame per datagram,
//! so that Wireshark and tshark read what a test (or the UDP demo) sent and received; and
//! [`datagrams`], which reads such a file back.

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
    /// The datagrams added.
    records: usize,
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
            records: 0,
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
        self.records += 1;
    }

    /// How many datagrams it holds.
    pub fn len(&self) -> usize {
        self.records
    }

    /// Whether it holds no datagram.
    pub fn is_empty(&self) -> bool {
        self.records == 0
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

/// One datagram of a capture: from, to, payload.
pub type Datagram = (SocketAddrV4, SocketAddrV4, Vec<u8>);

/// The UDP datagrams of a capture [`Pcap`] wrote, in order; `None` when `bytes` is not such a
/// file (another link type, a cut record, a frame that is no IPv4 / UDP one).
pub fn datagrams(bytes: &[u8]) -> Option<Vec<Datagram>> {
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    if u32_at(0)? != 0xa1b2_c3d4 || u32_at(20)? != LINKTYPE_ETHERNET {
        return None;
    }
    let mut out = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let len = u32_at(at + 8)? as usize;
        let frame = bytes.get(at + 16..at + 16 + len)?;
        at += 16 + len;
        let (ip, udp) = (frame.get(14..34)?, frame.get(34..42)?);
        if frame.get(12..14)? != [0x08, 0x00] || ip[0] != 0x45 || ip[9] != 17 {
            return None;
        }
        let address = |ip: &[u8], port: &[u8]| {
            let octets: [u8; 4] = ip.try_into().ok()?;
            let port = u16::from_be_bytes(port.try_into().ok()?);
            Some(SocketAddrV4::new(octets.into(), port))
        };
        let from = address(&ip[12..16], &udp[0..2])?;
        let to = address(&ip[16..20], &udp[2..4])?;
        let udp_len = usize::from(u16::from_be_bytes([udp[4], udp[5]]));
        let payload = frame.get(42..34 + udp_len)?;
        out.push((from, to, payload.to_vec()));
    }
    Some(out)
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
    use std::net::{Ipv4Addr, SocketAddrV4};

    #[test]
    fn what_is_written_is_read_back() {
        let a = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), 4000);
        let b = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 51234);
        let mut pcap = super::Pcap::new();
        pcap.udp(a, b, b"hello");
        pcap.udp(b, a, &[]);
        assert_eq!(pcap.len(), 2);
        let read = super::datagrams(pcap.bytes()).expect("a capture");
        assert_eq!(read, vec![(a, b, b"hello".to_vec()), (b, a, Vec::new())]);
        assert_eq!(
            super::datagrams(&pcap.bytes()[..pcap.bytes().len() - 1]),
            None
        );
    }

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
