//! The mk48 data model for prost: `prost::Message` derived with hand-written field tags (no
//! protoc), as a `.proto` of the same model would declare it. Protobuf has no 8- or 16-bit
//! integers, no tuples and no optional enum of its own: small integers are `uint32` / `sint32`
//! (zigzag for the signed ones), the tuples are messages, the optional entity type is an
//! `optional` enum field.

use idlc_tests::mk48 as idl;

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

fn entity_type(t: idl::EntityType) -> EntityType {
    match t {
        idl::EntityType::ArleighBurke => EntityType::ArleighBurke,
        idl::EntityType::Bismarck => EntityType::Bismarck,
        idl::EntityType::Clemenceau => EntityType::Clemenceau,
        idl::EntityType::Fletcher => EntityType::Fletcher,
        idl::EntityType::G5 => EntityType::G5,
        idl::EntityType::Iowa => EntityType::Iowa,
        idl::EntityType::Kolkata => EntityType::Kolkata,
        idl::EntityType::Osa => EntityType::Osa,
        idl::EntityType::Yasen => EntityType::Yasen,
        idl::EntityType::Zubr => EntityType::Zubr,
    }
}

impl From<&idl::Contact> for Contact {
    fn from(c: &idl::Contact) -> Self {
        Self {
            damage: u32::from(c.damage),
            entity_id: c.entity_id,
            entity_type: c.entity_type.map(|t| entity_type(t) as i32),
            guidance: Some(Guidance {
                angle: u32::from(c.guidance.angle),
                submerge: c.guidance.submerge,
                velocity: i32::from(c.guidance.velocity),
            }),
            player_id: c.player_id.map(u32::from),
            reloads: c.reloads.clone(),
            transform: Some(Transform {
                altitude: i32::from(c.transform.altitude),
                angle: u32::from(c.transform.angle),
                position: Some(Vector2f {
                    x: c.transform.x,
                    y: c.transform.y,
                }),
                velocity: i32::from(c.transform.velocity),
            }),
            turret_angles: c.turret_angles.iter().map(|&a| u32::from(a)).collect(),
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
                    chunk_id: Some(ChunkId {
                        x: i32::from(t.chunk_x),
                        y: i32::from(t.chunk_y),
                    }),
                    data: t.data.clone(),
                })
                .collect(),
        }
    }
}
