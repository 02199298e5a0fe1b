//! Character for delta-pack (`#[derive(DeltaPack)]`). delta-pack has no f64 (its derive refuses
//! it) and quantizes only f32 fields: positions, velocities and the angle are f32 at
//! `precision = 0.01`, as MYENCODING1 sends them; the Item's durability, raw in MYENCODING1, is a
//! raw f32. The frame and the stack count are bit-packed ranges.

use delta_pack::DeltaPack;
use idlc_tests::character_client as idl;

/// delta-pack's precision for the quantized fields, MYENCODING1's resolution.
pub const PRECISION: f32 = 0.01;

/// The animation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, DeltaPack)]
#[allow(missing_docs)]
pub enum Animation {
    Standing,
    Walking,
    Running,
}

/// What an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, DeltaPack)]
#[allow(missing_docs)]
pub enum ItemKind {
    Weapon,
    Ammo,
    Armor,
    Medkit,
    Grenade,
    Key,
}

/// An inventory item.
#[derive(Debug, Clone, PartialEq, DeltaPack)]
pub struct Item {
    /// Its row in the item database.
    pub item_id: u32,
    /// What it is.
    pub kind: ItemKind,
    /// Stack size.
    #[delta_pack(range(min = 1, max = 99))]
    pub count: u8,
    /// 1 = new, 0 = broken.
    pub durability: f32,
}

/// The Character.
#[derive(Debug, Clone, PartialEq, DeltaPack)]
pub struct Character {
    /// Its id.
    pub character_id: u16,
    /// Metres.
    #[delta_pack(precision = 0.01)]
    pub x: f32,
    /// Metres.
    #[delta_pack(precision = 0.01)]
    pub y: f32,
    /// Metres.
    #[delta_pack(precision = 0.01)]
    pub z: f32,
    /// Metres per second.
    #[delta_pack(precision = 0.01)]
    pub vx: f32,
    /// Metres per second.
    #[delta_pack(precision = 0.01)]
    pub vy: f32,
    /// Metres per second.
    #[delta_pack(precision = 0.01)]
    pub vz: f32,
    /// Degrees.
    #[delta_pack(precision = 0.01)]
    pub angle: f32,
    /// The animation.
    pub anim: Animation,
    /// The frame of the animation.
    #[delta_pack(range(min = 0, max = 119))]
    pub animation_frame: u8,
    /// What it carries.
    pub inventory: Vec<Item>,
}

/// One tick's Characters: what delta-pack diffs when a whole snapshot is one message.
#[derive(Debug, Clone, PartialEq, DeltaPack)]
pub struct Snapshot {
    /// Every Character.
    pub characters: Vec<Character>,
}

/// The value delta-pack's receiver holds for a field at `precision`: its step times the
/// precision, in f32 (how its decoder rebuilds a quantized float).
fn quantize(v: f32) -> f32 {
    (v / PRECISION).round() as i64 as f32 * PRECISION
}

impl Character {
    /// The state delta-pack's receiver holds of `self`: every quantized field on its step.
    pub fn quantized(&self) -> Self {
        Self {
            x: quantize(self.x),
            y: quantize(self.y),
            z: quantize(self.z),
            vx: quantize(self.vx),
            vy: quantize(self.vy),
            vz: quantize(self.vz),
            angle: quantize(self.angle),
            ..self.clone()
        }
    }
}

impl From<&idl::Character> for Character {
    fn from(c: &idl::Character) -> Self {
        Self {
            character_id: c.character_id,
            x: c.x as f32,
            y: c.y as f32,
            z: c.z as f32,
            vx: c.vx as f32,
            vy: c.vy as f32,
            vz: c.vz as f32,
            angle: c.angle,
            anim: match c.anim {
                idl::Animation::Standing => Animation::Standing,
                idl::Animation::Walking => Animation::Walking,
                idl::Animation::Running => Animation::Running,
            },
            animation_frame: c.animation_frame,
            inventory: c
                .inventory
                .iter()
                .map(|i| Item {
                    item_id: i.item_id,
                    kind: match i.kind {
                        idl::ItemKind::Weapon => ItemKind::Weapon,
                        idl::ItemKind::Ammo => ItemKind::Ammo,
                        idl::ItemKind::Armor => ItemKind::Armor,
                        idl::ItemKind::Medkit => ItemKind::Medkit,
                        idl::ItemKind::Grenade => ItemKind::Grenade,
                        idl::ItemKind::Key => ItemKind::Key,
                    },
                    count: i.count,
                    durability: i.durability as f32,
                })
                .collect(),
        }
    }
}
