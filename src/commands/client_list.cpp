#include "commands/client_list.hpp"

#include <algorithm>

#include "commands/errors.hpp"
#include "core/error_format.hpp"
#include "core/numbers.hpp"

namespace lawnkv {

std::string client_line(const ServerState& server, const Session& s, int64_t now_ms) {
  std::string flags;
  if (s.subscribed()) flags += 'P';
  if (s.blocked) flags += 'b';
  if (s.in_multi) flags += 'x';
  if (s.close_after_reply) flags += 'c';
  if (s.no_evict) flags += 'e';
  if (flags.empty()) flags = "N";
  const int64_t age = (now_ms - s.created_ms) / 1000;
  const int64_t idle = (now_ms - s.last_interaction_ms) / 1000;
  std::string line;
  line.reserve(320);
  line += "id=" + std::to_string(s.id);
  line += " addr=" + s.peer_address();
  line += " laddr=" + s.local_address();
  line += " fd=" + std::to_string(s.fd());
  line += " name=" + s.name;
  line += " age=" + std::to_string(age < 0 ? 0 : age);
  line += " idle=" + std::to_string(idle < 0 ? 0 : idle);
  line += " flags=" + flags;
  line += " db=" + std::to_string(s.db);
  line += " sub=" + std::to_string(s.subscribed_channels);
  line += " psub=" + std::to_string(s.subscribed_patterns);
  line += " ssub=0";
  line += " multi=" + std::to_string(s.in_multi ? static_cast<long>(s.queued.size()) : -1L);
  line += " qbuf=" + std::to_string(s.query_buffer_bytes());
  line += " qbuf-free=" + std::to_string(s.query_buffer_free());
  line += " argv-mem=0 multi-mem=0";
  line += " rbs=" + std::to_string(s.query_buffer_bytes() + s.query_buffer_free());
  line += " rbp=" + std::to_string(s.query_buffer_bytes());
  line += " obl=" + std::to_string(s.output_buffer_bytes());
  line += " oll=0 omem=" + std::to_string(s.output_buffer_bytes());
  line += " tot-mem=" + std::to_string(s.query_buffer_bytes() + s.query_buffer_free() + s.output_buffer_bytes());
  line += " events=r";
  line += " cmd=" + (s.last_command ? s.last_command->name : std::string("NULL"));
  line += " user=default redir=-1 resp=" + std::to_string(s.protocol);
  (void)server;
  return line;
}

bool ClientFilter::matches(const Session& s, const Session& caller) const {
  if (!ids.empty() && std::find(ids.begin(), ids.end(), s.id) == ids.end()) return false;
  if (!type.empty()) {
    const bool pubsub = s.subscribed();
    if (type == "pubsub" ? !pubsub : type == "normal" ? pubsub : true) return false;
  }
  if (!addr.empty() && s.peer_address() != addr) return false;
  if (!laddr.empty() && s.local_address() != laddr) return false;
  if (!user.empty() && user != "default") return false;
  if (for_kill && skip_me && &s == &caller) return false;
  return true;
}

bool parse_client_filter_or_reply(Call& call, size_t first, bool for_kill, ClientFilter* out) {
  out->for_kill = for_kill;
  const auto& argv = call.argv;
  for (size_t i = first; i < argv.size(); ++i) {
    const std::string opt = to_lower(argv[i]);
    if (i + 1 >= argv.size()) {
      call.error(err::kSyntax);
      return false;
    }
    if (opt == "type") {
      out->type = to_lower(argv[++i]);
      if (out->type == "slave") out->type = "replica";
      if (out->type != "normal" && out->type != "pubsub" && out->type != "master" && out->type != "replica") {
        call.error(format_error("ERR Unknown client type '%s'", {argv[i]}));
        return false;
      }
    } else if (opt == "id") {
      // CLIENT LIST takes every following argument as an id; KILL one.
      const size_t last = for_kill ? i + 1 : argv.size() - 1;
      for (++i; i <= last; ++i) {
        long long id;
        if (!string_to_ll(argv[i], &id) || id <= 0) {
          call.error(for_kill ? "ERR client-id should be greater than 0" : "ERR Invalid client ID");
          return false;
        }
        out->ids.push_back(static_cast<uint64_t>(id));
      }
      --i;
    } else if (for_kill && opt == "addr") {
      out->addr = std::string(argv[++i]);
    } else if (for_kill && opt == "laddr") {
      out->laddr = std::string(argv[++i]);
    } else if (for_kill && opt == "user") {
      out->user = std::string(argv[++i]);
    } else if (for_kill && opt == "skipme") {
      const std::string v = to_lower(argv[++i]);
      if (v != "yes" && v != "no") {
        call.error(err::kSyntax);
        return false;
      }
      out->skip_me = v == "yes";
    } else {
      call.error(err::kSyntax);
      return false;
    }
  }
  return true;
}

void kill_session(Call& call, Session& s) {
  if (&s == &call.session) {
    s.close_after_reply = true;
  } else {
    s.close_soon();
  }
}

}  // namespace lawnkv
