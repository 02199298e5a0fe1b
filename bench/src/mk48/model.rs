//! The mk48 data model as the public Rust serialization benchmark defines it
//! (../shared/bench/MK48.md): positions as `(f32, f32)`, chunk ids as `(i8, i8)`, the entity
//! type an `Option` of a plain enum. One set of types for every serde-, bitcode- and
//! bincode-based serializer, converted from the idlc values outside the timed loops.

use idlc_tests::mk48 as idl;

include!("model_types.rs");

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
