// The server's pool of live projectiles, which arena_server.cpp.map names for ArenaState's
// `projectiles`: a custom collection with the four members the generated code calls. Declared
// here, before the generated types; its members are defined where `Projectile` is complete
// (after the generated header).
#pragma once

#include <cstddef>
#include <vector>

namespace arena::server {

struct Projectile;

/// The live projectiles, oldest first.
class ProjectilePool {
public:
    std::size_t idl_serialize_collection_get_size() const;
    const Projectile& idl_serialize_collection_get_item(std::size_t i) const;
    void idl_deserialize_collection_reserve_size(std::size_t n);
    void idl_deserialize_collection_add_item(const Projectile& item);

private:
    std::vector<Projectile> items_;
};

} // namespace arena::server
