#include "commands/client_list.hpp"

#include <algorithm>
#include <optional>

#include "core/error_format.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

std::string client_line(const ServerState& server, const Session& s, int64_t now_ms) {
  std::string flags;
  if (s.replica) flags += 'S';
  if (s.master) flags += 'M';
  if (s.subscribed()) flags += 'P';
  if (s.blocked || s.postponed) flags += 'b';
  if (s.in_multi) flags += 'x';
  if (s.tracking.on) flags += 't';
  if (s.tracking.broken_redirect) flags += 'R';
  if (s.tracking.bcast) flags += 'B';
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
  line += " sub=" + std::to_string(s.subscribed_channels());
  line += " psub=" + std::to_string(s.subscribed_patterns());
  line += " ssub=" + std::to_string(s.subscribed_shard_channels());
  line += " multi=" + std::to_string(s.in_multi ? static_cast<long>(s.queued.size()) : -1L);
  line += " qbuf=" + std::to_string(s.query_buffer_bytes());
  line += " qbuf-free=" + std::to_string(s.query_buffer_free());
  line += " argv-mem=0 multi-mem=0";
  // Redis's reply buffer: its size and peak (engine/reply_buffer_figures.hpp).
  const int64_t visit_ms = 1000 / std::max<int64_t>(1, server.config.values().hz);
  const ReplyBufferFigures& rb = s.reply_buffer;
  line += " rbs=" + std::to_string(rb.size(now_ms, visit_ms));
  line += " rbp=" + std::to_string(rb.peak(now_ms, visit_ms));
  line += " obl=" + std::to_string(s.output_buffer_bytes());
  line += " oll=0 omem=" + std::to_string(s.output_buffer_bytes());
  line += " tot-mem=" + std::to_string(s.memory_bytes());
  line += " events=r";
  line += " cmd=" + (s.last_command ? s.last_command->name : std::string("NULL"));
  line += " user=" + (s.user ? s.user->name() : std::string("default"));
  line += " redir=" + std::to_string(s.tracking.on ? static_cast<int64_t>(s.tracking.redirect) : -1);
  line += " resp=" + std::to_string(s.protocol);
  // Redis 7.2's (CLIENT SETINFO).
  line += " lib-name=" + s.lib_name;
  line += " lib-ver=" + s.lib_ver;
  return line;
}

namespace {

constexpr std::string_view kUnknownClientType = "ERR Unknown client type '%s'";
constexpr std::string_view kNoSuchUser = "ERR No such user '%s'";
constexpr std::string_view kInvalidClientId = "ERR Invalid client ID";
constexpr std::string_view kBadKillId = "ERR client-id should be greater than 0";

// Redis's client types (getClientType): the link to our primary, a
// replica's link, a client with subscriptions, any other.
enum class ClientType { kNormal, kReplica, kPubsub, kMaster };

ClientType client_type(const Session& s) {
  if (s.master) return ClientType::kMaster;
  if (s.replica) return ClientType::kReplica;
  return s.subscribed() ? ClientType::kPubsub : ClientType::kNormal;
}

// getClientTypeByName: any case, up to a NUL; "slave" is "replica".
bool client_type_or_reply(Call& call, std::string_view name, ClientType* out) {
  if (is_option(name, "normal")) {
    *out = ClientType::kNormal;
  } else if (is_option(name, "slave") || is_option(name, "replica")) {
    *out = ClientType::kReplica;
  } else if (is_option(name, "pubsub")) {
    *out = ClientType::kPubsub;
  } else if (is_option(name, "master")) {
    *out = ClientType::kMaster;
  } else {
    call.error(format_error(kUnknownClientType, {name}));
    return false;
  }
  return true;
}

// CLIENT KILL's filters; a client is killed if it passes every one.
struct KillFilter {
  uint64_t id = 0;                   // ID (0: any); a later ID replaces an earlier one
  std::optional<ClientType> type;    // TYPE
  std::optional<std::string> addr;   // ADDR: compared as strcmp, up to a NUL
  std::optional<std::string> laddr;  // LADDR: likewise
  bool skip_me = true;               // SKIPME yes|no; no for the old form
  // USER: the clients logged in as that user (every client is the
  // default user's from its connection on, before AUTH too, as in Redis).
  const acl::User* user = nullptr;

  bool passes(const Session& s, const Session& caller) const {
    if (addr && s.peer_address() != *addr) return false;
    if (laddr && s.local_address() != *laddr) return false;
    if (type && client_type(s) != *type) return false;
    if (id != 0 && s.id != id) return false;
    if (user && s.user != user) return false;
    if (skip_me && &s == &caller) return false;
    return true;
  }
};

// The option/value pairs from argv[2] on.
bool parse_kill_filter_or_reply(Call& call, KillFilter* out) {
  const auto& argv = call.argv;
  for (size_t i = 2; i < argv.size(); i += 2) {
    const bool has_value = i + 1 < argv.size();
    const std::string_view opt = argv[i];
    const std::string_view value = has_value ? argv[i + 1] : std::string_view();
    if (has_value && is_option(opt, "id")) {
      long long id;
      if (!integer_or_reply(call, value, &id, kBadKillId)) return false;
      if (id < 1) {
        call.error(kBadKillId);
        return false;
      }
      out->id = static_cast<uint64_t>(id);
    } else if (has_value && is_option(opt, "type")) {
      ClientType type;
      if (!client_type_or_reply(call, value, &type)) return false;
      out->type = type;
    } else if (has_value && is_option(opt, "addr")) {
      out->addr = std::string(c_string(value));
    } else if (has_value && is_option(opt, "laddr")) {
      out->laddr = std::string(c_string(value));
    } else if (has_value && is_option(opt, "user")) {
      // ACLGetUserByName: the whole name, NUL bytes and case included.
      out->user = call.server.acl.find(value);
      if (!out->user) {
        call.error(format_error(kNoSuchUser, {value}));
        return false;
      }
    } else if (has_value && is_option(opt, "skipme")) {
      if (is_option(value, "yes")) {
        out->skip_me = true;
      } else if (is_option(value, "no")) {
        out->skip_me = false;
      } else {
        call.error(err::kSyntax);
        return false;
      }
    } else {
      call.error(err::kSyntax);
      return false;
    }
  }
  return true;
}

}  // namespace

bool clients_to_list_or_reply(Call& call, std::vector<Session*>* out) {
  const auto& argv = call.argv;
  const auto& sessions = call.server.clients.all();
  if (argv.size() == 4 && is_option(argv[2], "type")) {
    ClientType type;
    if (!client_type_or_reply(call, argv[3], &type)) return false;
    for (const auto& [id, s] : sessions)
      if (client_type(*s) == type) out->push_back(s);
  } else if (argv.size() > 3 && is_option(argv[2], "id")) {
    std::vector<long long> ids;
    for (size_t i = 3; i < argv.size(); ++i) {
      if (!integer_or_reply(call, argv[i], &ids.emplace_back(), kInvalidClientId)) return false;
    }
    for (long long id : ids) {
      const auto it = sessions.find(static_cast<uint64_t>(id));
      if (it != sessions.end()) out->push_back(it->second);
    }
  } else if (argv.size() != 2) {
    call.error(err::kSyntax);
    return false;
  } else {
    for (const auto& [id, s] : sessions) out->push_back(s);
  }
  return true;
}

bool clients_to_kill_or_reply(Call& call, std::vector<Session*>* out) {
  KillFilter filter;
  if (call.argv.size() == 3) {
    filter.addr = std::string(c_string(call.argv[2]));
    filter.skip_me = false;
  } else if (!parse_kill_filter_or_reply(call, &filter)) {
    return false;
  }
  for (const auto& [id, s] : call.server.clients.all())
    if (filter.passes(*s, call.session)) out->push_back(s);
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
