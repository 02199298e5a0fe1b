// idlc C++ runtime: sessions (one `idlc::Endpoint` per peer, docs/CPP.md "Sessions"), mirroring
// runtime/src/session/: header.hpp (sequence, acks, session id), answer.hpp (refusals, answers,
// answer tokens), acks.hpp (received window, sent log), reliable.hpp (outbox, in-order buffer),
// requests.hpp (handled request ids), baselines.hpp (kept snapshot states), config.hpp,
// error.hpp, traits.hpp (what generated code gives an endpoint), endpoint.hpp.
#ifndef IDLC_SESSION_HPP
#define IDLC_SESSION_HPP

#include "session/acks.hpp"
#include "session/answer.hpp"
#include "session/baselines.hpp"
#include "session/config.hpp"
#include "session/endpoint.hpp"
#include "session/error.hpp"
#include "session/header.hpp"
#include "session/link.hpp"
#include "session/reliable.hpp"
#include "session/requests.hpp"
#include "session/traits.hpp"

#endif // IDLC_SESSION_HPP
