#pragma once
// CLIENT LIST / CLIENT INFO lines and the filters of CLIENT LIST and
// CLIENT KILL, in Redis 7.0's format.

#include <string>
#include <vector>

#include "commands/context.hpp"

namespace lawnkv {

// One client as CLIENT LIST prints it (without the trailing newline).
std::string client_line(const ServerState& server, const Session& s, int64_t now_ms);

struct ClientFilter {
  std::vector<uint64_t> ids;       // ID (any of)
  std::string type;                // TYPE normal|pubsub|master|replica ("" = any)
  std::string addr, laddr, user;   // ADDR, LADDR, USER ("" = any)
  bool skip_me = true;             // SKIPME (CLIENT KILL only; yes by default)
  bool for_kill = false;

  bool matches(const Session& s, const Session& caller) const;
};

// Parses the filter options from argv[first] on. CLIENT LIST takes TYPE and
// ID; CLIENT KILL the rest too. Replies the error and returns false if bad.
bool parse_client_filter_or_reply(Call& call, size_t first, bool for_kill, ClientFilter* out);

// Closes s after its pending output (itself too: after this reply).
void kill_session(Call& call, Session& s);

}  // namespace lawnkv
