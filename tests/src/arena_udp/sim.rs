//! How the server moves the Characters, in plain numbers (no generated type): NPCs walk or run
//! straight and turn now and then; a player's Character keeps the velocity its client asked for.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A Character's motion: position and velocity on the ground, in metres and metres per second.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// East, in metres.
    pub x: f64,
    /// North, in metres.
    pub y: f64,
    /// East, in metres per second.
    pub vx: f64,
    /// North, in metres per second.
    pub vy: f64,
    /// The animation frame, 0..120, advancing while the Character moves.
    pub frame: u8,
    /// Ticks until an NPC turns; `None` for a player's Character.
    turn_in: Option<u32>,
}

impl Body {
    /// A player's Character, standing at its spawn point.
    pub fn player(slot: u16) -> Self {
        Body {
            x: f64::from(slot) * 4.0,
            y: -20.0,
            vx: 0.0,
            vy: 0.0,
            frame: 0,
            turn_in: None,
        }
    }

    /// An NPC somewhere within 50 m of the centre, walking or running.
    pub fn npc(rng: &mut ChaCha8Rng) -> Self {
        let mut body = Body {
            x: rng.random_range(-50.0..50.0),
            y: rng.random_range(-50.0..50.0),
            vx: 0.0,
            vy: 0.0,
            frame: 0,
            turn_in: Some(0),
        };
        body.turn(rng);
        body
    }

    /// Sets the velocity (a client's `move_to`), within the IDL's ±10 m/s.
    pub fn steer(&mut self, vx: f64, vy: f64) {
        self.vx = vx.clamp(-10.0, 10.0);
        self.vy = vy.clamp(-10.0, 10.0);
    }

    /// One tick of `dt` seconds: an NPC may turn, then the position follows the velocity.
    pub fn step(&mut self, dt: f64, rng: &mut ChaCha8Rng) {
        if let Some(turn_in) = self.turn_in {
            if turn_in == 0 {
                self.turn(rng);
            } else {
                self.turn_in = Some(turn_in - 1);
            }
        }
        self.x = (self.x + self.vx * dt).clamp(-10_000.0, 10_000.0);
        self.y = (self.y + self.vy * dt).clamp(-10_000.0, 10_000.0);
        if self.speed() > 0.0 {
            self.frame = (self.frame + 1) % 120;
        } else {
            self.frame = 0;
        }
    }

    /// Metres per second.
    pub fn speed(&self) -> f64 {
        self.vx.hypot(self.vy)
    }

    /// Where it faces, in degrees in [0, 360) (east is 0, north 90); 0 when standing.
    pub fn heading_degrees(&self) -> f32 {
        if self.speed() == 0.0 {
            return 0.0;
        }
        let degrees = self.vy.atan2(self.vx).to_degrees().rem_euclid(360.0);
        // f32 rounding may land on 360.0, which is the same direction as 0.
        let degrees = degrees as f32;
        if degrees >= 360.0 { 0.0 } else { degrees }
    }

    /// A new heading and speed (walking or running), kept for 1.5 to 3 seconds at 30 Hz.
    fn turn(&mut self, rng: &mut ChaCha8Rng) {
        let heading = rng.random_range(0.0..std::f64::consts::TAU);
        let speed = if rng.random_bool(0.5) { 1.5 } else { 4.0 };
        self.vx = speed * heading.cos();
        self.vy = speed * heading.sin();
        self.turn_in = Some(rng.random_range(45..90));
    }
}

/// The NPCs of a run, drawn from `seed`, and the random stream that keeps moving them.
pub fn npcs(count: u16, seed: u64) -> (Vec<Body>, ChaCha8Rng) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let bodies = (0..count).map(|_| Body::npc(&mut rng)).collect();
    (bodies, rng)
}

/// The velocity a client asks for after its `turn`-th turn: 3 m/s in a direction that depends
/// on the client's Character, so that two clients walk apart.
pub fn client_velocity(character_id: u16, turn: u32) -> (f64, f64) {
    let heading = f64::from(character_id) * 1.3 + f64::from(turn) * 0.9;
    (3.0 * heading.cos(), 3.0 * heading.sin())
}
