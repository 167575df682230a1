#include "engine/dispatch.hpp"

#include <string>
#include <utility>
#include <vector>

#include "core/error_format.hpp"
#include "engine/acl_check.hpp"
#include "engine/args.hpp"
#include "engine/client_pause.hpp"
#include "engine/errors.hpp"
#include "engine/good_replicas.hpp"
#include "engine/monitor.hpp"
#include "engine/transaction.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kUnknownCommand = "ERR unknown command '%.128s', with args beginning with: %s";
constexpr std::string_view kReplicaKeyspace = "ERR Replica can't interact with the keyspace";
constexpr std::string_view kNotInTransaction = "ERR Command not allowed inside a transaction";

// Redis quotes the name and up to 128 bytes of arguments, each as
// "'%.*s' " with the room left (so each stops at its first NUL byte).
std::string unknown_command_text(std::span<const std::string_view> argv) {
  std::string args;
  for (size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
    const size_t room = 128 - args.size();
    args += '\'';
    args.append(c_string(argv[i]).substr(0, room));
    args += "' ";
  }
  return format_error(kUnknownCommand, {argv[0], args});
}

std::string arity_text(const CommandSpec& spec) {
  return err::wrong_arity(spec.name);
}

// Redis's maxmemory step of processCommand: evict first; when nothing more
// can go, refuse what would add data (denyoom, or an EXEC queueing such a
// command), and inside MULTI anything but the transaction's own commands,
// since the queue itself grows.
bool out_of_memory(ServerState& server, const Session& session, const CommandSpec& spec) {
  const Evictor::Result evicted = server.data.evict(server.config.values());
  // Invalidations of what was evicted go before the reply, which may be
  // about a key's next value.
  server.data.tracking.deliver_pending();
  if (evicted != Evictor::Result::kFail) return false;
  if (spec.has(kDenyOom)) return true;
  if (spec.has(kRunsQueue)) return session.queued_denyoom;
  return session.in_multi && !spec.has(kTransactionControl);
}

// The flags a call of spec has (a script's, from its shebang: the row's
// call_flags), as Redis's getCommandFlags.
uint32_t effective_flags(ServerState& server, const CommandSpec& spec, std::span<const std::string_view> argv) {
  return spec.call_flags ? spec.call_flags(server, argv, spec.flags) : spec.flags;
}

// Whether the call writes: its flags say so, or it is EXEC with a write
// queued (Redis's is_write_command; pause_flags ORs EXEC's queue).
bool writes(ServerState& server, const Session& session, const CommandSpec& spec,
            std::span<const std::string_view> argv) {
  return (pause_flags(server, session, spec, argv) & kWrite) != 0;
}

// Whether a command queued in session's transaction has flags for which
// pred holds.
template <typename Pred>
bool any_queued(ServerState& server, const Session& session, Pred pred) {
  std::vector<std::string_view> views;
  for (const auto& q : session.queued) {
    const CommandSpec* c = server.commands.find(q[0]);
    if (c && !c->subcommands.empty() && q.size() >= 2) c = c->subcommand(to_lower(q[1]));
    if (!c) continue;
    views.assign(q.begin(), q.end());
    if (pred(effective_flags(server, *c, views))) return true;
  }
  return false;
}

// Whether the call lacks flag (kStale: a replica with its link down refuses
// it under replica-serve-stale-data no; kLoading: refused while a load
// serves clients), or is EXEC with a queued command that lacks it (Redis's
// is_denystale_command, is_denyloading_command).
bool lacks_flag(ServerState& server, const Session& session, const CommandSpec& spec,
                std::span<const std::string_view> argv, uint32_t flag) {
  if (!(effective_flags(server, spec, argv) & flag)) return true;
  return spec.has(kRunsQueue) && any_queued(server, session, [flag](uint32_t f) { return !(f & flag); });
}

// Whether the call has flag, or is EXEC with a queued command that has it
// (kNoAsyncLoading: Redis's is_deny_async_loading_command).
bool has_flag(ServerState& server, const Session& session, const CommandSpec& spec,
              std::span<const std::string_view> argv, uint32_t flag) {
  if (effective_flags(server, spec, argv) & flag) return true;
  return spec.has(kRunsQueue) && any_queued(server, session, [flag](uint32_t f) { return (f & flag) != 0; });
}

void queue(Session& session, const CommandSpec& spec, std::span<const std::string_view> argv) {
  session.queued_denyoom |= spec.has(kDenyOom);
  std::vector<std::string> copy;
  copy.reserve(argv.size());
  for (auto a : argv) copy.emplace_back(a);
  session.queued.push_back(std::move(copy));
}

// The blocking table's way back into the server (blocking.hpp).
class ServerRunner final : public BlockedRunner {
 public:
  explicit ServerRunner(ServerState& server) : server_(server) {}
  bool run_again(Session& s, const CommandSpec& spec, std::span<const std::string_view> argv, int db,
                 int64_t now_ms, std::string_view key, bool timed_out, resp::Writer& out,
                 int64_t* ready_bound_ms) override {
    // The served client is the current client while its command completes,
    // as Redis's handleClientsBlockedOnKeys makes it: with NOLOOP it is not
    // told of its own writes (BLMOVE's push). No key-table bound here.
    const Tracking::CommandScope tracked(server_.data.tracking, s, 0);
    BlockRetry retry;
    retry.ready_key = key;
    retry.timed_out = timed_out;
    Call call{{server_.data, db, now_ms}, server_, s, out, argv, &spec, &retry};
    run_handler(call, true);
    *ready_bound_ms = retry.ready_bound_ms;
    return retry.blocked_again;
  }
  Session* find_client(uint64_t id) override { return server_.clients.find(id); }
  resp::ErrorObserver* error_observer() override { return &server_.facts.errors; }

 private:
  ServerState& server_;
};

}  // namespace

void serve_blocked(ServerState& server, int64_t now_ms) {
  ServerRunner runner(server);
  server.data.blocking.serve(runner, now_ms);
}

bool arity_ok(const CommandSpec& spec, size_t argc) {
  const long n = static_cast<long>(argc);
  return spec.arity >= 0 ? n == spec.arity : n >= -spec.arity;
}

Resolved resolve(const CommandTable& table, std::span<const std::string_view> argv) {
  Resolved r;
  const CommandSpec* spec = table.find(argv[0]);
  if (!spec) {
    r.error = unknown_command_text(argv);
    return r;
  }
  if (!spec->subcommands.empty() && argv.size() >= 2) {
    const CommandSpec* sub = spec->subcommand(to_lower(argv[1]));
    if (!sub) {
      r.error = format_error(err::kUnknownSubcommand, {argv[1], to_upper(spec->name)});
      return r;
    }
    spec = sub;
  }
  r.known = spec;
  if (!arity_ok(*spec, argv.size())) {
    r.error = arity_text(*spec);
    return r;
  }
  r.spec = spec;
  return r;
}

const CommandSpec* find_runnable(const CommandTable& table, std::span<const std::string_view> argv) {
  if (argv.empty()) return nullptr;
  const CommandSpec* spec = table.find(argv[0]);
  if (spec == nullptr || !spec->subcommands.empty() || !arity_ok(*spec, argv.size())) return nullptr;
  return spec;
}

void run_handler(Call& call, bool may_record) {
  const uint64_t dirty = call.data.dirty;
  call.data.effects.begin();
  call.spec->handler(call);
  call.data.effects.end(call.db_index, call.argv, may_record && call.data.dirty != dirty);
}

// The latency monitor, the command's latency histogram and the slow log
// hear of a command that ran usec (a client that blocked is logged when
// served, as Redis does, and has no histogram sample, as in Redis 7.0).
static void note_duration(ServerState& server, Session& session, const CommandSpec& spec,
                   std::span<const std::string_view> argv, int64_t usec, int64_t now_s) {
  const config::Values& cfg = server.config.values();
  server.latency.add_if_needed(spec.has(kFast) ? "fast-command" : "command", usec / 1000,
                               cfg.latency_monitor_threshold, now_s);
  // latency-tracking: whole microseconds as ns, as Redis records them.
  if (cfg.latency_tracking && !session.blocked) spec.record_latency(usec * 1000);
  if (spec.has(kSkipSlowlog) || session.blocked || !SlowLog::wanted(usec, cfg.slowlog_log_slower_than)) return;
  server.slowlog.push(argv, usec, now_s, session.peer_address(), session.name, cfg.slowlog_max_len);
}

void run_command(ServerState& server, Session& session, resp::Writer& reply,
                 const CommandSpec& spec, std::span<const std::string_view> argv, int64_t now_ms,
                 int64_t start_ns) {
  Call call = make_call(server, session, reply, argv, now_ms, &spec);
  const int64_t stream_before = server.stream_offset();
  run_handler(call, spec.has(kWrite) && !spec.has(kRunsQueue));
  // Its writes went to the replicas: WAIT waits for them (Redis's c->woff).
  if (server.stream_offset() != stream_before) session.write_offset = server.stream_offset();
  // Client-side caching: a read's keys are remembered for its client.
  if (spec.has(kReadonly)) server.data.tracking.remember(session, spec, argv);
  const int64_t nsec = Clock::steady_ns() - start_ns;
  CommandStats& st = spec.stats;
  ++st.calls;
  st.nsec += nsec > 0 ? static_cast<uint64_t>(nsec) : 0;
  if (call.failed) ++st.failed_calls;
  ++server.facts.stats.total_commands_processed;
  // What the slow log and MONITOR show: the arguments, secrets redacted.
  std::vector<std::string_view> shown;
  if (call.redacted) {
    shown.assign(argv.begin(), argv.end());
    for (size_t i = 0; i < shown.size() && i < 64; ++i)
      if (call.redacted & (uint64_t{1} << i)) shown[i] = "(redacted)";
  }
  const std::span<const std::string_view> logged = call.redacted ? std::span<const std::string_view>(shown) : argv;
  note_duration(server, session, spec, logged, nsec > 0 ? nsec / 1000 : 0, now_ms / 1000);
  if (!server.clients.monitors().empty()) feed_monitors(server, session, spec, logged);
}

namespace {

void dispatch_unmuted(ServerState& server, Session& session, resp::Writer& reply,
                      std::span<const std::string_view> argv, int64_t now_ms, int64_t start_ns,
                      const CommandSpec* found) {
  const Resolved r = found != nullptr ? Resolved{found, found, {}} : resolve(server.commands, argv);
  // CLIENT LIST's cmd=: the command just received, whatever becomes of it.
  session.last_command = r.known;
  // A refused command: counted against its row, dooms an open transaction.
  // A refused EXEC ends the transaction instead (Redis's execCommandAbort):
  // "EXECABORT ... because of: " and the reason without its "ERR ".
  auto reject = [&](std::string_view text) {
    if (r.known) ++r.known->stats.rejected_calls;
    if (r.known && r.known->has(kRunsQueue)) {
      discard_transaction(server.data.keyspace.watches(), session);
      if (text.substr(0, 4) == "ERR ") text.remove_prefix(4);
      reply.error("EXECABORT Transaction discarded because of: " + std::string(text));
      return;
    }
    if (session.in_multi) session.multi_aborted = true;
    reply.error(text);
  };
  if (!r.spec) return reject(r.error);
  const CommandSpec& spec = *r.spec;
  // Redis's authRequired, read live: a default user made nopass (CONFIG SET
  // requirepass "") lets in the clients that never logged in.
  if (!session.authenticated && !spec.has(kNoAuth)) {
    const acl::User& def = server.acl.default_user();
    if (!def.nopass() || !def.enabled()) return reject(err::kNoAuth);
  }
  // ACL: the default user's +@all ~* &* passes on one test.
  if (const acl::User* user = session.user; user && !user->unrestricted()) {
    // Redis refuses a no-multi command inside MULTI before its ACL check.
    if (session.in_multi && spec.has(kNoMulti)) return reject(kNotInTransaction);
    const acl::Verdict v = acl_check_and_log(server, session, *user, spec, argv,
                                             session.in_multi ? kAclMulti : kAclToplevel, now_ms);
    if (v != acl::kAllowed) return reject(noperm_text(v, spec));
  }
  // While a script runs past busy-reply-threshold it owns the dataset:
  // nothing is evicted, and only allow-busy commands run (busy_loop.hpp).
  const bool busy = !server.busy_error.empty();
  // While clients are paused the dataset stands still: nothing is evicted
  // (and so nothing refused for memory), as Redis's isSafeToPerformEvictions.
  const bool paused = clients_paused(server, now_ms);
  // Nothing is evicted while a file loads: the dataset is what it holds.
  // The primary's commands on a replica are never refused for memory.
  if (server.config.values().maxmemory != 0 && !server.facts.loading && !busy && !paused &&
      !session.master && out_of_memory(server, session, spec))
    return reject(err::kOom);
  // A primary under min-replicas-to-write refuses clients' writes while
  // too few replicas are good (EXEC: when its queue writes; a script: by
  // its flags). The AOF's loader never is, as Redis's loading client.
  if (!session.detached && too_few_good_replicas(server) && writes(server, session, spec, argv))
    return reject(err::kNoReplicas);
  // A replica: clients may not write (EXEC: when its queue writes), and
  // with its link down may run only stale commands, as Redis's
  // processCommand; the primary's own commands always run.
  if (server.facts.replica && !session.master) {
    if (server.config.values().replica_read_only && writes(server, session, spec, argv))
      return reject(err::kReadOnlyReplica);
    if (!server.facts.primary_link_up && !server.config.values().replica_serve_stale_data &&
        lacks_flag(server, session, spec, argv, kStale))
      return reject(err::kMasterDown);
  }
  if (session.protocol == 2 && session.subscribed() && !spec.has(kSubscribedContext)) {
    return reject("ERR Can't execute '" + spec.name +
                  "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context");
  }
  // A load that serves clients meanwhile (a replica's full sync): only
  // commands flagged loading run (EXEC: when its queue has none without),
  // as Redis's processCommand; while the old dataset serves (async
  // loading), all but the no-async-loading ones. Replays (detached) are no
  // clients.
  if (server.facts.loading && !session.detached && !session.master &&
      (server.facts.async_loading ? has_flag(server, session, spec, argv, kNoAsyncLoading)
                                  : lacks_flag(server, session, spec, argv, kLoading)))
    return reject(err::kLoading);
  if (busy && !spec.has(kAllowBusy)) {
    // Redis checks no-multi before.
    if (session.in_multi && spec.has(kNoMulti)) return reject(kNotInTransaction);
    return reject(server.busy_error);
  }
  // A MONITOR client is a replica to Redis: it may not touch the keyspace.
  if (!server.clients.monitors().empty() && spec.has(kReadonly | kWrite | kMayReplicate) &&
      server.clients.monitoring(session))
    return reject(kReplicaKeyspace);
  // CLIENT PAUSE: the command waits, before it is queued or run, as in
  // Redis's processCommand (the connection keeps it unconsumed).
  if (paused && !session.detached && server.pause.holds(pause_flags(server, session, spec, argv))) {
    session.postponed = true;
    server.pause.postpone(session.id);
    return;
  }
  if (session.in_multi && !spec.has(kTransactionControl)) {
    if (spec.has(kNoMulti)) return reject(kNotInTransaction);
    queue(session, spec, argv);
    reply.simple("QUEUED");
    return;
  }
  run_command(server, session, reply, spec, argv, now_ms, start_ns);
}

}  // namespace

void dispatch(ServerState& server, Session& session, resp::Writer& reply,
              std::span<const std::string_view> argv, int64_t now_ms, int64_t start_ns,
              const CommandSpec* found) {
  // CLIENT REPLY OFF | SKIP: the reply is written and thrown away (errors
  // included), as Redis's prepareClientToWrite refuses it.
  std::string discarded;
  if (session.reply_off || session.reply_skip) reply.mute(discarded);
  reply.observe_errors(&server.facts.errors);
  {
    // Invalidations due to this client wait for its reply (tracking.hpp).
    const Tracking::CommandScope tracked(server.data.tracking, session,
                                         server.config.values().tracking_table_max_keys);
    dispatch_unmuted(server, session, reply, argv, now_ms, start_ns, found);
  }
  reply.unmute();
  reply.observe_errors(nullptr);
  // A command that blocked (or waits for a pause to end) keeps its SKIP
  // until its reply comes.
  if (!session.blocked && !session.postponed) session.reply_skip = std::exchange(session.reply_skip_next, false);
}

}  // namespace lawnkv
