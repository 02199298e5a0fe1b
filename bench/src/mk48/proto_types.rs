// The mk48 model types for prost: included by proto.rs, and by the build-cost benchmark
// (bench/src/build_cost/).

/// The kind of a ship or weapon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
#[allow(missing_docs)]
pub enum EntityType {
    ArleighBurke = 0,
    Bismarck = 1,
    Clemenceau = 2,
    Fletcher = 3,
    G5 = 4,
    Iowa = 5,
    Kolkata = 6,
    Osa = 7,
    Yasen = 8,
    Zubr = 9,
}

/// Where a contact steers.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Guidance {
    /// A full turn in 65,536 steps.
    #[prost(uint32, tag = "1")]
    pub angle: u32,
    /// Whether a submarine dives.
    #[prost(bool, tag = "2")]
    pub submerge: bool,
    /// The target speed.
    #[prost(sint32, tag = "3")]
    pub velocity: i32,
}

/// A position, (x, y).
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Vector2f {
    /// Metres.
    #[prost(float, tag = "1")]
    pub x: f32,
    /// Metres.
    #[prost(float, tag = "2")]
    pub y: f32,
}

/// Where a contact is.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Transform {
    /// Metres; 0 on the surface.
    #[prost(sint32, tag = "1")]
    pub altitude: i32,
    /// A full turn in 65,536 steps.
    #[prost(uint32, tag = "2")]
    pub angle: u32,
    /// Metres.
    #[prost(message, optional, tag = "3")]
    pub position: Option<Vector2f>,
    /// The speed.
    #[prost(sint32, tag = "4")]
    pub velocity: i32,
}

/// One entity a client sees.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Contact {
    /// Damage taken.
    #[prost(uint32, tag = "1")]
    pub damage: u32,
    /// The entity's id.
    #[prost(uint32, tag = "2")]
    pub entity_id: u32,
    /// Its kind, when visible.
    #[prost(enumeration = "EntityType", optional, tag = "3")]
    pub entity_type: Option<i32>,
    /// Where it steers.
    #[prost(message, optional, tag = "4")]
    pub guidance: Option<Guidance>,
    /// Its player, when visible.
    #[prost(uint32, optional, tag = "5")]
    pub player_id: Option<u32>,
    /// One per weapon (packed).
    #[prost(bool, repeated, tag = "6")]
    pub reloads: Vec<bool>,
    /// Where it is.
    #[prost(message, optional, tag = "7")]
    pub transform: Option<Transform>,
    /// One per turret (packed).
    #[prost(uint32, repeated, tag = "8")]
    pub turret_angles: Vec<u32>,
}

/// A chunk's coordinates.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct ChunkId {
    /// Chunk column.
    #[prost(sint32, tag = "1")]
    pub x: i32,
    /// Chunk row.
    #[prost(sint32, tag = "2")]
    pub y: i32,
}

/// A changed terrain chunk.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TerrainUpdate {
    /// The chunk.
    #[prost(message, optional, tag = "1")]
    pub chunk_id: Option<ChunkId>,
    /// Its new contents.
    #[prost(bytes = "vec", tag = "2")]
    pub data: Vec<u8>,
}

/// One world update.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Update {
    /// What the client sees.
    #[prost(message, repeated, tag = "1")]
    pub contacts: Vec<Contact>,
    /// The player's score.
    #[prost(uint32, tag = "2")]
    pub score: u32,
    /// The world's radius in metres.
    #[prost(float, tag = "3")]
    pub world_radius: f32,
    /// Changed terrain.
    #[prost(message, repeated, tag = "4")]
    pub terrain_updates: Vec<TerrainUpdate>,
}
