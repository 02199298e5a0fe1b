//! What a sender deltas against on a real link: the newest state the receiver has
//! acknowledged, under packet loss and an acknowledgement delay (`idlc measure --delta
//! --loss P --ack-delay N`).
//!
//! Each entity's values are its ticks 0, 1, 2, ... Tick 0 is sent in full and arrives. Every
//! later packet is lost with probability `loss` (a fixed-seed generator, drawn in trace order,
//! so every encoding measured sees the same losses). The acknowledgement of tick `j` reaches
//! the sender `ack_delay` ticks later: tick `t` is a delta against the newest tick
//! `j <= t - ack_delay` that arrived, `t - j` ticks old, or in full when there is none. With
//! no loss and a delay of one tick, each tick is a delta against the one before.

/// The link a trace is measured over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// The probability that a packet is lost, in `[0, 1)`.
    pub loss: f64,
    /// Ticks from a packet's sending to its acknowledgement's arrival (at least 1).
    pub ack_delay: usize,
    /// The seed of the losses.
    pub seed: u64,
}

impl Default for Link {
    /// No loss, acknowledgements after one tick.
    fn default() -> Self {
        Link {
            loss: 0.0,
            ack_delay: 1,
            seed: 0x1d1c,
        }
    }
}

/// The losses of one pass over a trace, drawn in order.
#[derive(Debug, Clone)]
pub struct Losses {
    link: Link,
    state: u64,
}

impl Losses {
    /// The losses of `link`, from its seed.
    pub fn new(link: Link) -> Self {
        Losses {
            link,
            state: link.seed,
        }
    }

    /// Whether the next packet (a tick after an entity's first) arrives.
    pub fn arrives(&mut self) -> bool {
        // splitmix64: one draw per packet, the top 53 bits as a fraction.
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let fraction = (z >> 11) as f64 / (1u64 << 53) as f64;
        fraction >= self.link.loss
    }
}

/// The ticks of one entity the sender has sent, and which arrived.
#[derive(Debug, Clone, Default)]
pub struct History {
    arrived: Vec<bool>,
}

impl History {
    /// The tick the next one (`self.len()`) is a delta against under `link`; `None`: in full.
    pub fn baseline(&self, link: &Link) -> Option<usize> {
        let next = self.arrived.len();
        let newest = next.checked_sub(link.ack_delay.max(1))?;
        (0..=newest).rev().find(|&j| self.arrived[j])
    }

    /// Records the next tick: whether it arrived.
    pub fn push(&mut self, arrived: bool) {
        self.arrived.push(arrived);
    }

    /// Ticks sent so far.
    pub fn len(&self) -> usize {
        self.arrived.len()
    }

    /// Whether none was sent yet.
    pub fn is_empty(&self) -> bool {
        self.arrived.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_loss_each_tick_is_a_delta_against_the_one_acknowledged() {
        let mut h = History::default();
        let link = Link::default();
        assert_eq!(h.baseline(&link), None);
        h.push(true);
        assert_eq!(h.baseline(&link), Some(0));
        h.push(true);
        assert_eq!(h.baseline(&link), Some(1));
        let slow = Link {
            ack_delay: 3,
            ..link
        };
        assert_eq!(h.baseline(&slow), None);
        h.push(true);
        assert_eq!(h.baseline(&slow), Some(0));
    }

    #[test]
    fn a_lost_tick_is_never_a_baseline() {
        let mut h = History::default();
        h.push(true);
        h.push(false);
        h.push(false);
        assert_eq!(h.baseline(&Link::default()), Some(0));
    }

    #[test]
    fn losses_come_at_the_rate_asked() {
        let mut losses = Losses::new(Link {
            loss: 0.25,
            ..Link::default()
        });
        let lost = (0..10_000).filter(|_| !losses.arrives()).count();
        assert!((2300..2700).contains(&lost), "{lost}");
        let mut none = Losses::new(Link::default());
        assert!((0..1000).all(|_| none.arrives()));
    }
}
