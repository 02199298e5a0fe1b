// The mk48 model types for serde, bitcode and bincode: included by model.rs, and by the
// build-cost benchmark (bench/src/build_cost/) without bincode's derives.

/// The kind of a ship or weapon (10 kinds).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
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
    serde::Serialize,
    serde::Deserialize,
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
    serde::Serialize,
    serde::Deserialize,
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
    serde::Serialize,
    serde::Deserialize,
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
    serde::Serialize,
    serde::Deserialize,
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
    serde::Serialize,
    serde::Deserialize,
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
