// MIGRATE: keys DUMPed here and RESTOREd on another server (lawnkv or
// redis-server) over a connection the command holds synchronously, as
// Redis 7.0's migrateCommand: the event loop waits for the target, each
// step bounded by the timeout. The keys the target took are deleted here
// (unless COPY) and propagated as one DEL.
//
// What the client sees, in Redis's order: a syntax error in the options,
// the timeout then the db as integers, +NOKEY when no key exists, "IOERR
// error or timeout connecting to the client" when the target cannot be
// reached, "ERR Target instance replied with error: <its error>" for the
// first error the target replied (AUTH, SELECT or a RESTORE), "IOERR error
// or timeout writing|reading to target instance" when the connection
// failed. A failure that may come from a stale cached connection (not a
// timeout, nothing acknowledged yet) is tried once more on a new one.

#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/keys_ops.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/keys.hpp"
#include "engine/lookup.hpp"
#include "persistence/dump_payload.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kKeysNeedEmptyKey =
    "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string";
constexpr std::string_view kConnectError = "IOERR error or timeout connecting to the client";
constexpr std::string_view kWriteError = "IOERR error or timeout writing to target instance";
constexpr std::string_view kReadError = "IOERR error or timeout reading to target instance";
constexpr std::string_view kTargetError = "ERR Target instance replied with error: ";

struct MigrateOptions {
  bool copy = false;
  bool replace = false;
  std::string username;  // AUTH2
  std::string password;  // AUTH, AUTH2; empty: no AUTH sent
  bool auth = false;
  size_t first_key = 3;  // argv index of the first key
  size_t num_keys = 1;
};

bool migrate_options_or_reply(Call& call, MigrateOptions* o) {
  const size_t argc = call.argv.size();
  for (size_t j = 6; j < argc; ++j) {
    const size_t more = argc - 1 - j;
    const std::string_view a = call.argv[j];
    if (is_option(a, "copy")) {
      o->copy = true;
    } else if (is_option(a, "replace")) {
      o->replace = true;
    } else if (is_option(a, "auth")) {
      if (more < 1) return call.error(err::kSyntax), false;
      o->auth = true;
      o->password = call.argv[++j];
      call.redact(j);
    } else if (is_option(a, "auth2")) {
      if (more < 2) return call.error(err::kSyntax), false;
      o->auth = true;
      o->username = call.argv[++j];
      call.redact(j);
      o->password = call.argv[++j];
      call.redact(j);
    } else if (is_option(a, "keys")) {
      if (!call.argv[3].empty()) return call.error(kKeysNeedEmptyKey), false;
      o->first_key = j + 1;
      o->num_keys = argc - j - 1;
      break;
    } else {
      return call.error(err::kSyntax), false;
    }
  }
  return true;
}

void append_bulk(std::string& out, std::string_view s) {
  out += '$';
  out += std::to_string(s.size());
  out += "\r\n";
  out.append(s);
  out += "\r\n";
}

void append_command(std::string& out, std::initializer_list<std::string_view> argv) {
  out += '*';
  out += std::to_string(argv.size());
  out += "\r\n";
  for (std::string_view a : argv) append_bulk(out, a);
}

// One key to move: its name, remaining TTL (0: none) and DUMP payload.
struct Outgoing {
  std::string_view key;
  long long ttl_ms;
  std::string payload;
};

// The keys of the call that exist, with their payloads (Redis skips one
// that expired between its lookup and its serialisation; here time is one
// snapshot, so a key found is a key sent).
std::vector<Outgoing> outgoing_keys(Call& call, const MigrateOptions& o) {
  std::vector<Outgoing> out;
  for (size_t j = 0; j < o.num_keys; ++j) {
    const std::string_view key = call.argv[o.first_key + j];
    const store::Entry* e = lookup_read(call, key);
    if (e == nullptr) continue;
    long long ttl = 0;
    if (e->has_ttl()) ttl = std::max<long long>(e->deadline() - call.now_ms, 1);
    out.push_back({key, ttl, persistence::dump_payload(*e, call.cfg().rdbcompression)});
  }
  return out;
}

// The whole request: AUTH if asked, SELECT if the link is in another db,
// then one RESTORE per key.
std::string migrate_request(const MigrateOptions& o, bool select, long long db, const std::vector<Outgoing>& keys) {
  std::string out;
  if (o.auth && !o.username.empty()) append_command(out, {"AUTH", o.username, o.password});
  else if (o.auth) append_command(out, {"AUTH", o.password});
  if (select) append_command(out, {"SELECT", ll_to_string(db)});
  for (const Outgoing& k : keys) {
    const std::string ttl = ll_to_string(k.ttl_ms);
    if (o.replace) append_command(out, {"RESTORE", k.key, ttl, k.payload, "REPLACE"});
    else append_command(out, {"RESTORE", k.key, ttl, k.payload});
  }
  return out;
}

/* MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
 *         [AUTH password] [AUTH2 username password] [KEYS key [key ...]] */
void migrate_command(Call& call) {
  MigrateOptions o;
  if (!migrate_options_or_reply(call, &o)) return;
  long long timeout, db;
  if (!integer_or_reply(call, call.argv[5], &timeout) || !integer_or_reply(call, call.argv[4], &db)) return;
  if (timeout <= 0) timeout = 1000;

  const std::vector<Outgoing> keys = outgoing_keys(call, o);
  if (keys.empty()) return call.reply.simple("NOKEY");

  const std::string host(call.argv[1]);
  const std::string port(call.argv[2]);
  MigrateLinks& links = call.server.migrate_links;
  bool may_retry = true;
  for (;;) {
    MigrateLinks::Link* link = links.get(host, port, call.now_ms, timeout);
    if (link == nullptr) return call.error(kConnectError);
    SyncSocket& s = *link->socket;
    const bool select = link->last_db != db;
    bool write_error = false;
    std::string auth_reply, select_reply, reply;
    bool socket_error = false;
    bool target_error = false;
    size_t acked = 0;  // RESTORE replies read
    std::vector<std::string_view> deleted;

    if (!s.write_all(migrate_request(o, select, db, keys), timeout)) {
      write_error = true;
      socket_error = true;
    } else if ((o.auth && !s.read_line(auth_reply, timeout)) || (select && !s.read_line(select_reply, timeout))) {
      socket_error = true;
    } else {
      for (; acked < keys.size(); ++acked) {
        if (!s.read_line(reply, timeout)) {
          socket_error = true;
          break;
        }
        const std::string* err = o.auth && auth_reply.starts_with('-')       ? &auth_reply
                                 : select && select_reply.starts_with('-') ? &select_reply
                                 : reply.starts_with('-')                    ? &reply
                                                                             : nullptr;
        if (err != nullptr) {
          if (!target_error) {
            target_error = true;
            link->last_db = -1;
            call.error(std::string(kTargetError) + err->substr(1));
          }
        } else if (!o.copy) {
          op_delete(call, keys[acked].key);
          deleted.push_back(keys[acked].key);
        }
      }
      // Nothing acknowledged and no timeout: the cached link may have gone
      // stale; a new one gets the whole request again.
      if (socket_error && !target_error && acked > 0) may_retry = false;
    }

    const bool timed_out = s.timed_out();
    if (!socket_error) {
      if (!target_error) {
        link->last_db = db;
        call.reply.simple("OK");
      }
    } else {
      links.close(host, port);  // link and s are gone
    }
    if (!deleted.empty()) {
      std::vector<std::string> del{"DEL"};
      for (std::string_view k : deleted) del.emplace_back(k);
      call.data.effects.replace_own(std::move(del));
    }
    if (!socket_error || target_error) return;
    if (may_retry && !timed_out) {
      may_retry = false;
      continue;
    }
    return call.error(write_error ? kWriteError : kReadError);
  }
}

// MIGRATE's keys as Redis's migrateGetKeys: argv[3], or what follows KEYS
// when argv[3] is empty (none when it is not: the command refuses that),
// the arguments of AUTH and AUTH2 skipped while looking for KEYS.
void migrate_keys(std::span<const std::string_view> argv, std::vector<KeyRef>& out) {
  size_t first = 3, num = 1;
  for (size_t i = 6; i < argv.size(); ++i) {
    if (is_option(argv[i], "keys")) {
      if (!argv[3].empty()) {
        num = 0;
      } else {
        first = i + 1;
        num = argv.size() - first;
      }
      break;
    }
    if (is_option(argv[i], "auth")) i += 1;
    else if (is_option(argv[i], "auth2")) i += 2;
  }
  for (size_t i = 0; i < num; ++i) out.push_back({static_cast<int>(first + i), 0});
}

}  // namespace

void register_migrate_command(CommandTable& t) {
  t.add({
    {.name = "migrate", .arity = -6, .flags = kWrite | kMovableKeys, .keys = {3, 3, 1},
     .keyword = {.word = "KEYS", .startfrom = -2, .limit = 0},
     .acl = "@keyspace @write @slow @dangerous",
     .group = "generic", .since = "2.6.0",
     .complexity = "A DUMP and DEL here and a RESTORE on the target per key, and the payloads sent over the network",
     .summary = "Moves keys to another server (or copies them) as DUMP payloads",
     .tips = "nondeterministic_output", .key_flags = "RW access delete;RW access delete incomplete",
     .get_keys = migrate_keys,
     .handler = migrate_command},
  });
}

}  // namespace lawnkv
