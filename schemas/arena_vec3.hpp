// The client's own vector type, which arena_client.cpp.map maps the IDL's Vec3 onto (the C++
// counterpart of glam::Vec3 in arena_client.map).
#pragma once

namespace game {

/// A position or velocity in metres (per second).
struct Vec3 {
    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;
};

} // namespace game
