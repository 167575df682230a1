#pragma once
// CLIENT LIST / CLIENT INFO lines and the clients that CLIENT LIST and
// CLIENT KILL select, in Redis 7.0's format and by its rules.

#include <string>
#include <vector>

#include "engine/context.hpp"

namespace lawnkv {

// One client as CLIENT LIST prints it (without the trailing newline).
std::string client_line(const ServerState& server, const Session& s, int64_t now_ms);

// The clients CLIENT LIST [TYPE type | ID id [id ...]] shows, as Redis 7.0:
// every client, those of the type, or those of the ids in the order given
// (an id given twice shows twice). Replies the error and returns false if
// the arguments are bad.
bool clients_to_list_or_reply(Call& call, std::vector<Session*>* out);

// The clients CLIENT KILL names, as Redis 7.0's clientKillCommand: with one
// argument (the old form) every client at that address, the caller
// included; otherwise option/value pairs (ID, TYPE, ADDR, LADDR, USER,
// SKIPME), each a filter a client must pass. Replies the error and returns
// false if the arguments are bad.
bool clients_to_kill_or_reply(Call& call, std::vector<Session*>* out);

// Closes s after its pending output (itself too: after this reply).
void kill_session(Call& call, Session& s);

}  // namespace lawnkv
