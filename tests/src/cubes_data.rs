//! The tumbling-cubes data set, after Glenn Fiedler's networked physics demos: [`CUBES`] cubes
//! on a floor, 60 ticks a second, drawn from a fixed seed ([`SEED`]). Most rest; now and then
//! one is kicked and slides, bounces and spins until friction and its bounces bring it to rest
//! again. Positions in metres, velocities in metres per second, orientations as unit
//! quaternions, in the types generated from schemas/cubes.idl (the built-in encoding's module:
//! the same fields in every encoding of cubes.enc).

use idlc_runtime::Quaternion;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::cubes::{Cube, Cubes};

/// The number of cubes (Fiedler's demo: 901).
pub const CUBES: usize = 901;

/// Ticks per second.
pub const HZ: f64 = 60.0;

/// The seed of the data set.
pub const SEED: u64 = 0x6375_6265;

/// Ticks of the data set: ten seconds.
pub const TICKS: usize = 600;

/// The chance per tick that a resting cube is kicked.
const KICK: f64 = 0.0005;
const GRAVITY: f64 = 9.81;
const HALF: f64 = 0.5; // a cube's half size, in metres: its centre rests at z = 0.5

/// One cube's motion: its state, its angular velocity (radians per second, world axes).
#[derive(Debug, Clone)]
struct Body {
    cube: Cube,
    spin: [f64; 3],
}

/// The data set: [`TICKS`] states of [`CUBES`] cubes from [`SEED`].
#[must_use]
pub fn ticks() -> Vec<Cubes> {
    ticks_from(SEED, CUBES, TICKS)
}

/// `count` ticks of `cubes` cubes drawn from `seed`, each the world's state at that tick.
#[must_use]
pub fn ticks_from(seed: u64, cubes: usize, count: usize) -> Vec<Cubes> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let side = (cubes as f64).sqrt().ceil() as usize;
    let mut bodies: Vec<Body> = (0..cubes)
        .map(|i| {
            // A grid 3 m apart, each cube turned about z by a random angle.
            let (gx, gy) = ((i % side) as f64, (i / side) as f64);
            let yaw: f64 = rng.random_range(0.0..std::f64::consts::TAU);
            Body {
                cube: Cube {
                    id: i as u16,
                    x: (gx - side as f64 / 2.0) * 3.0,
                    y: (gy - side as f64 / 2.0) * 3.0,
                    z: HALF,
                    orientation: about_z(yaw),
                    resting: true,
                    ..Cube::default()
                },
                spin: [0.0; 3],
            }
        })
        .collect();
    let mut out = Vec::with_capacity(count);
    for tick in 0..count {
        for body in &mut bodies {
            step(body, &mut rng);
        }
        out.push(Cubes {
            tick: tick as u32,
            cubes: bodies.iter().map(|b| b.cube.clone()).collect(),
        });
    }
    out
}

fn about_z(angle: f64) -> Quaternion {
    let half = angle / 2.0;
    Quaternion::new(0.0, 0.0, half.sin() as f32, half.cos() as f32)
}

/// One tick of one cube.
fn step(body: &mut Body, rng: &mut impl Rng) {
    let dt = 1.0 / HZ;
    let c = &mut body.cube;
    if c.resting {
        if !rng.random_bool(KICK) {
            return;
        }
        // A kick: up, sideways and a spin about a random axis.
        c.resting = false;
        c.vx = rng.random_range(-6.0..6.0);
        c.vy = rng.random_range(-6.0..6.0);
        c.vz = rng.random_range(2.0..9.0);
        body.spin = [
            rng.random_range(-8.0..8.0),
            rng.random_range(-8.0..8.0),
            rng.random_range(-8.0..8.0),
        ];
    }
    c.vz -= GRAVITY * dt;
    c.x = (c.x + c.vx * dt).clamp(-250.0, 250.0);
    c.y = (c.y + c.vy * dt).clamp(-250.0, 250.0);
    c.z += c.vz * dt;
    let on_floor = c.z <= HALF;
    if on_floor {
        c.z = HALF;
        // A bounce loses most of the speed; the floor's friction slows the slide and the spin.
        c.vz = if c.vz < -1.0 { -c.vz * 0.4 } else { 0.0 };
        c.vx *= 0.9;
        c.vy *= 0.9;
        body.spin = body.spin.map(|w| w * 0.85);
    }
    c.vx = c.vx.clamp(-31.0, 31.0);
    c.vy = c.vy.clamp(-31.0, 31.0);
    c.vz = c.vz.clamp(-31.0, 31.0);
    c.orientation = integrate(&c.orientation, &body.spin, dt);
    let still = c.vx.hypot(c.vy) < 0.05 && c.vz == 0.0 && body.spin.iter().all(|w| w.abs() < 0.2);
    if on_floor && still {
        // At rest: on a face, as it fell (its orientation kept), nothing moving.
        c.resting = true;
        c.vx = 0.0;
        c.vy = 0.0;
        c.vz = 0.0;
        body.spin = [0.0; 3];
    }
}

/// `q` turned by the angular velocity `w` for `dt`: `q + dt/2 * (0, w) q`, normalized.
fn integrate(q: &Quaternion, w: &[f64; 3], dt: f64) -> Quaternion {
    let [x, y, z, s] = q.to_array().map(f64::from);
    let [wx, wy, wz] = *w;
    let h = dt / 2.0;
    let n = [
        x + h * (wx * s + wy * z - wz * y),
        y + h * (wy * s + wz * x - wx * z),
        z + h * (wz * s + wx * y - wy * x),
        s - h * (wx * x + wy * y + wz * z),
    ];
    let length = n.iter().map(|v| v * v).sum::<f64>().sqrt();
    let [x, y, z, s] = n.map(|v| (v / length) as f32);
    Quaternion::new(x, y, z, s)
}
