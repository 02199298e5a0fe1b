//! User collections that the server mappings plug in through the runtime's `Collection` trait
//! (the four operations of the design source: length, iterate, reserve, push).

use idlc_runtime::Collection;

/// A game's own inventory type: items kept in slots, with a cap on what it reserves.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MyInventory {
    slots: Vec<crate::character_server::Item>,
}

impl MyInventory {
    /// The items, in order.
    pub fn items(&self) -> &[crate::character_server::Item] {
        &self.slots
    }
}

impl Collection for MyInventory {
    type Item = crate::character_server::Item;
    type Iter<'a> = std::slice::Iter<'a, crate::character_server::Item>;

    fn len(&self) -> usize {
        self.slots.len()
    }

    fn iter(&self) -> Self::Iter<'_> {
        self.slots.iter()
    }

    fn reserve(&mut self, additional: usize) {
        self.slots.reserve(additional.min(64));
    }

    fn push(&mut self, item: Self::Item) {
        self.slots.push(item);
    }
}

/// A server's pool of live projectiles.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProjectilePool {
    live: std::collections::VecDeque<crate::arena_server::Projectile>,
}

impl ProjectilePool {
    /// The live projectiles, oldest first.
    pub fn live(&self) -> impl Iterator<Item = &crate::arena_server::Projectile> {
        self.live.iter()
    }
}

impl Collection for ProjectilePool {
    type Item = crate::arena_server::Projectile;
    type Iter<'a> = std::collections::vec_deque::Iter<'a, crate::arena_server::Projectile>;

    fn len(&self) -> usize {
        self.live.len()
    }

    fn iter(&self) -> Self::Iter<'_> {
        self.live.iter()
    }

    fn reserve(&mut self, additional: usize) {
        self.live.reserve(additional);
    }

    fn push(&mut self, item: Self::Item) {
        self.live.push_back(item);
    }
}
