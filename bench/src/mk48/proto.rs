//! The mk48 data model for prost: `prost::Message` derived with hand-written field tags (no
//! protoc), as a `.proto` of the same model would declare it. Protobuf has no 8- or 16-bit
//! integers, no tuples and no optional enum of its own: small integers are `uint32` / `sint32`
//! (zigzag for the signed ones), the tuples are messages, the optional entity type is an
//! `optional` enum field.

use idlc_tests::mk48 as idl;

include!("proto_types.rs");

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
