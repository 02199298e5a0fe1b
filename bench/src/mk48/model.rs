//! The mk48 data model as the public Rust serialization benchmark defines it
//! (../shared/bench/MK48.md): positions as `(f32, f32)`, chunk ids as `(i8, i8)`, the entity
//! type an `Option` of a plain enum. One set of types for every serde-, bitcode- and
//! bincode-based serializer, converted from the idlc values outside the timed loops.

use idlc_tests::mk48 as idl;
use serde::{Deserialize, Serialize};

/// The kind of a ship or weapon (10 kinds).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bincode::Encode,
    bincode::Decode,
)]
#[allow(missing_docs)]
pub enum EntityType {
    ArleighBurke,
    Bismarck,
    Clemenceau,
    Fletcher,
    G5,
    Iowa,
    Kolkata,
    Osa,
    Yasen,
    Zubr,
}

/// Where a contact steers.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bincode::Encode,
    bincode::Decode,
)]
pub struct Guidance {
    /// A full turn in 65,536 steps.
    pub angle: u16,
    /// Whether a submarine dives.
    pub submerge: bool,
    /// The target speed.
    pub velocity: i16,
}

/// Where a contact is.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bincode::Encode,
    bincode::Decode,
)]
pub struct Transform {
    /// Metres; 0 on the surface.
    pub altitude: i8,
    /// A full turn in 65,536 steps.
    pub angle: u16,
    /// Metres, (x, y).
    pub position: (f32, f32),
    /// The speed.
    pub velocity: i16,
}

/// One entity a client sees.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bincode::Encode,
    bincode::Decode,
)]
pub struct Contact {
    /// Damage taken.
    pub damage: u8,
    /// The entity's id.
    pub entity_id: u32,
    /// Its kind, when visible.
    pub entity_type: Option<EntityType>,
    /// Where it steers.
    pub guidance: Guidance,
    /// Its player, when visible.
    pub player_id: Option<u16>,
    /// One per weapon.
    pub reloads: Vec<bool>,
    /// Where it is.
    pub transform: Transform,
    /// One per turret.
    pub turret_angles: Vec<u16>,
}

/// A changed terrain chunk.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bincode::Encode,
    bincode::Decode,
)]
pub struct TerrainUpdate {
    /// The chunk, (x, y).
    pub chunk_id: (i8, i8),
    /// Its new contents.
    pub data: Vec<u8>,
}

/// One world update.
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    bincode::Encode,
    bincode::Decode,
)]
pub struct Update {
    /// What the client sees.
    pub contacts: Vec<Contact>,
    /// The player's score.
    pub score: u32,
    /// The world's radius in metres.
    pub world_radius: f32,
    /// Changed terrain.
    pub terrain_updates: Vec<TerrainUpdate>,
}

impl From<idl::EntityType> for EntityType {
    fn from(t: idl::EntityType) -> Self {
        match t {
            idl::EntityType::ArleighBurke => Self::ArleighBurke,
            idl::EntityType::Bismarck => Self::Bismarck,
            idl::EntityType::Clemenceau => Self::Clemenceau,
            idl::EntityType::Fletcher => Self::Fletcher,
            idl::EntityType::G5 => Self::G5,
            idl::EntityType::Iowa => Self::Iowa,
            idl::EntityType::Kolkata => Self::Kolkata,
            idl::EntityType::Osa => Self::Osa,
            idl::EntityType::Yasen => Self::Yasen,
            idl::EntityType::Zubr => Self::Zubr,
        }
    }
}

impl From<&idl::Contact> for Contact {
    fn from(c: &idl::Contact) -> Self {
        Self {
            damage: c.damage,
            entity_id: c.entity_id,
            entity_type: c.entity_type.map(EntityType::from),
            guidance: Guidance {
                angle: c.guidance.angle,
                submerge: c.guidance.submerge,
                velocity: c.guidance.velocity,
            },
            player_id: c.player_id,
            reloads: c.reloads.clone(),
            transform: Transform {
                altitude: c.transform.altitude,
                angle: c.transform.angle,
                position: (c.transform.x, c.transform.y),
                velocity: c.transform.velocity,
            },
            turret_angles: c.turret_angles.clone(),
        }
    }
}

impl From<&idl::Update> for Update {
    fn from(u: &idl::Update) -> Self {
        Self {
            contacts: u.contacts.iter().map(Contact::from).collect(),
            score: u.score,
            world_radius: u.world_radius,
            terrain_updates: u
                .terrain_updates
                .iter()
                .map(|t| TerrainUpdate {
                    chunk_id: (t.chunk_x, t.chunk_y),
                    data: t.data.clone(),
                })
                .collect(),
        }
    }
}
