//! Character and Item as bitcode and prost see them: their own model types, with the Rust types
//! of the generated ones (f64 positions and velocities, an f32 angle).

use idlc_tests::character_client as idl;

/// The animation (bitcode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
#[allow(missing_docs)]
pub enum Animation {
    Standing,
    Walking,
    Running,
}

/// What an item is (bitcode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
#[allow(missing_docs)]
pub enum ItemKind {
    Weapon,
    Ammo,
    Armor,
    Medkit,
    Grenade,
    Key,
}

/// An inventory item (bitcode).
#[derive(Debug, Clone, PartialEq, bitcode::Encode, bitcode::Decode)]
pub struct Item {
    /// Its row in the item database.
    pub item_id: u32,
    /// What it is.
    pub kind: ItemKind,
    /// Stack size.
    pub count: u8,
    /// 1 = new, 0 = broken.
    pub durability: f64,
}

/// The Character (bitcode).
#[derive(Debug, Clone, PartialEq, bitcode::Encode, bitcode::Decode)]
pub struct Character {
    /// Its id.
    pub character_id: u16,
    /// Metres.
    pub x: f64,
    /// Metres.
    pub y: f64,
    /// Metres.
    pub z: f64,
    /// Metres per second.
    pub vx: f64,
    /// Metres per second.
    pub vy: f64,
    /// Metres per second.
    pub vz: f64,
    /// Degrees.
    pub angle: f32,
    /// The animation.
    pub anim: Animation,
    /// The frame of the animation.
    pub animation_frame: u8,
    /// What it carries.
    pub inventory: Vec<Item>,
}

impl From<&idl::Character> for Character {
    fn from(c: &idl::Character) -> Self {
        Self {
            character_id: c.character_id,
            x: c.x,
            y: c.y,
            z: c.z,
            vx: c.vx,
            vy: c.vy,
            vz: c.vz,
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
                    durability: i.durability,
                })
                .collect(),
        }
    }
}

/// The prost model (`prost::Message` with hand-written tags).
pub mod proto {
    use super::idl;

    /// The animation.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    #[allow(missing_docs)]
    pub enum Animation {
        Standing = 0,
        Walking = 1,
        Running = 2,
    }

    /// What an item is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    #[allow(missing_docs)]
    pub enum ItemKind {
        Weapon = 0,
        Ammo = 1,
        Armor = 2,
        Medkit = 3,
        Grenade = 4,
        Key = 5,
    }

    /// An inventory item.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Item {
        /// Its row in the item database.
        #[prost(uint32, tag = "1")]
        pub item_id: u32,
        /// What it is.
        #[prost(enumeration = "ItemKind", tag = "2")]
        pub kind: i32,
        /// Stack size.
        #[prost(uint32, tag = "3")]
        pub count: u32,
        /// 1 = new, 0 = broken.
        #[prost(double, tag = "4")]
        pub durability: f64,
    }

    /// The Character.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Character {
        /// Its id.
        #[prost(uint32, tag = "1")]
        pub character_id: u32,
        /// Metres.
        #[prost(double, tag = "2")]
        pub x: f64,
        /// Metres.
        #[prost(double, tag = "3")]
        pub y: f64,
        /// Metres.
        #[prost(double, tag = "4")]
        pub z: f64,
        /// Metres per second.
        #[prost(double, tag = "5")]
        pub vx: f64,
        /// Metres per second.
        #[prost(double, tag = "6")]
        pub vy: f64,
        /// Metres per second.
        #[prost(double, tag = "7")]
        pub vz: f64,
        /// Degrees.
        #[prost(float, tag = "8")]
        pub angle: f32,
        /// The animation.
        #[prost(enumeration = "Animation", tag = "9")]
        pub anim: i32,
        /// The frame of the animation.
        #[prost(uint32, tag = "10")]
        pub animation_frame: u32,
        /// What it carries.
        #[prost(message, repeated, tag = "11")]
        pub inventory: Vec<Item>,
    }

    impl From<&idl::Character> for Character {
        fn from(c: &idl::Character) -> Self {
            Self {
                character_id: u32::from(c.character_id),
                x: c.x,
                y: c.y,
                z: c.z,
                vx: c.vx,
                vy: c.vy,
                vz: c.vz,
                angle: c.angle,
                anim: c.anim.index() as i32,
                animation_frame: u32::from(c.animation_frame),
                inventory: c
                    .inventory
                    .iter()
                    .map(|i| Item {
                        item_id: i.item_id,
                        kind: i.kind.index() as i32,
                        count: u32::from(i.count),
                        durability: i.durability,
                    })
                    .collect(),
            }
        }
    }
}
