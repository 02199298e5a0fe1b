//! What a snapshot costs per peer per tick in a session packet, against the UDP demo's way before
//! sessions: the delta bytes wrapped in the BYTES field of a message
//! (schemas/versions/match_wrapped.idl, `Snapshot { tick, baseline_tick, moves_handled, BYTES
//! world }`) in a plain packet, and an `ack(tick)` call back from the client. The state is schemas/versions/match_v2.idl's World,
//! changing every tick; the link is clean, so both send each tick's delta against the tick
//! before. Printed by `cargo run -p idlc-tests --example replication`.

use std::time::Duration;

use idlc_runtime::{
    Delivery, Endpoint, FRAME_HEADER_BYTES, Messages, PacketWriter, SESSION_HEADER_BYTES,
    SessionConfig,
};

use crate::match_v2 as m;
use crate::match_wrapped as old;

type Server = Endpoint<m::DefaultEncoding, m::MatchServer, m::MatchClient>;
type Client = Endpoint<m::DefaultEncoding, m::MatchClient, m::MatchServer>;

/// Mean bytes per peer per tick, after the first (full) snapshot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnapshotBytes {
    /// The server's session packet carrying the snapshot (CRC, session header, item).
    pub session_packet: f64,
    /// The snapshot's item in it (the packet less the CRC and the session header, which the
    /// packet's other items share).
    pub session_item: f64,
    /// The client's session packet with nothing in it: its acknowledgement.
    pub session_ack: f64,
    /// The plain packet carrying the BYTES-wrapped delta (CRC, item, ticks, length, bytes).
    pub wrapped_packet: f64,
    /// The wrapped delta's item in it (the packet less the CRC).
    pub wrapped_item: f64,
    /// The plain packet carrying the client's `ack(tick)` call.
    pub wrapped_ack: f64,
}

/// The World of `tick`: `units` units, one of them moving each tick.
#[must_use]
pub fn world(tick: u32, units: u16) -> m::World {
    m::World {
        tick,
        units: (0..units)
            .map(|id| m::Unit {
                id,
                x: if u32::from(id) == tick % u32::from(units.max(1)) {
                    (tick % 1000) as i16
                } else {
                    i16::try_from(id).unwrap_or(0)
                },
                y: 0,
                hp: 100,
            })
            .collect(),
    }
}

/// Sends `ticks` snapshots of a World of `units` units both ways and measures them.
pub fn measure(ticks: u32, units: u16) -> Result<SnapshotBytes, String> {
    let mut server = Server::newest(SessionConfig::default());
    let mut client = Client::newest(SessionConfig::default());
    let old_snapshot = old::WrappedServer::newest_with::<old::WrappedBits>();
    let old_calls = old::WrappedClient::newest_with::<old::WrappedBits>();
    let mut totals = [0usize; 4];
    let mut previous = world(0, units);
    for tick in 0..ticks {
        let now = Duration::from_millis(u64::from(tick) * 33);
        let state = world(tick, units);
        let message = m::MatchServerMessage::Snapshot(m::Snapshot {
            world: state.clone(),
        });
        server
            .send_snapshot(tick, message)
            .map_err(|e| e.to_string())?;
        let packets = server.flush(now).packets;
        for packet in &packets {
            client
                .receive(now, packet, |_: Delivery<_, _, _>| None)
                .map_err(|e| e.to_string())?;
        }
        let acks = client.flush(now).packets;
        for packet in &acks {
            server
                .receive(now, packet, |_| None)
                .map_err(|e| e.to_string())?;
        }
        // The demo's way: the delta against the tick before, in a BYTES field.
        let delta = state
            .to_delta_bytes(
                &previous,
                &idlc_runtime::DeltaContext::from_ticks(1, 1.0 / 30.0),
            )
            .map_err(|e| e.to_string())?;
        let wrapped = old::WrappedServerMessage::Snapshot(old::Snapshot {
            tick,
            baseline_tick: tick.saturating_sub(1),
            moves_handled: tick,
            world: delta,
        });
        let mut packet = PacketWriter::<old::WrappedBits>::new(old_snapshot);
        wrapped
            .encode_item(&mut packet)
            .map_err(|e| e.to_string())?;
        let wrapped_len = packet.finish().len();
        let ack = old::WrappedClientMessage::Ack(old::Ack { tick });
        let mut packet = PacketWriter::<old::WrappedBits>::new(old_calls);
        ack.encode_item(&mut packet).map_err(|e| e.to_string())?;
        let ack_len = packet.finish().len();
        previous = state;
        if tick == 0 {
            continue;
        }
        totals[0] += packets.iter().map(Vec::len).sum::<usize>();
        totals[1] += acks.iter().map(Vec::len).sum::<usize>();
        totals[2] += wrapped_len;
        totals[3] += ack_len;
    }
    let per_tick = |total: usize| total as f64 / f64::from(ticks.saturating_sub(1).max(1));
    let (session_packet, wrapped_packet) = (per_tick(totals[0]), per_tick(totals[2]));
    Ok(SnapshotBytes {
        session_packet,
        session_item: session_packet - (FRAME_HEADER_BYTES + SESSION_HEADER_BYTES) as f64,
        session_ack: per_tick(totals[1]),
        wrapped_packet,
        wrapped_item: wrapped_packet - FRAME_HEADER_BYTES as f64,
        wrapped_ack: per_tick(totals[3]),
    })
}
