// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH. Queueing itself
// happens in dispatch (a command inside MULTI is checked, then queued).

#include "commands/families.hpp"
#include "engine/acl_check.hpp"
#include "engine/dispatch.hpp"
#include "engine/errors.hpp"
#include "engine/transaction.hpp"

namespace lawnkv {

namespace {

void end_transaction(Call& call) { discard_transaction(call.data.keyspace.watches(), call.session); }

// A watched key that was alive when WATCHed and is expired now aborts EXEC,
// even if nothing has deleted it yet.
bool watched_key_expired(Call& call) {
  for (const auto& k : call.session.watcher.keys) {
    if (k.expired_when_watched) continue;
    const store::Entry* e = call.data.keyspace.db(k.db).peek(k.key);
    if (e && e->expired_at(call.now_ms)) return true;
  }
  return false;
}

/* MULTI */
void multi_command(Call& call) {
  if (call.session.in_multi) return call.error(err::kMultiNested);
  call.session.in_multi = true;
  call.reply.simple("OK");
}

/* DISCARD */
void discard_command(Call& call) {
  if (!call.session.in_multi) return call.error(err::kDiscardWithoutMulti);
  end_transaction(call);
  call.reply.simple("OK");
}

/* EXEC */
void exec_command(Call& call) {
  Session& s = call.session;
  if (!s.in_multi) return call.error(err::kExecWithoutMulti);
  if (s.multi_aborted) {
    end_transaction(call);
    return call.error(err::kExecAbort);
  }
  if (s.watcher.dirty || watched_key_expired(call)) {
    end_transaction(call);
    return call.reply.null_array();
  }
  // The queue leaves the session first: a queued command may be MULTI's
  // own kind (nested errors) or RESET, which clear session state.
  std::vector<std::vector<std::string>> queued = std::move(s.queued);
  end_transaction(call);
  call.reply.array(queued.size());
  std::vector<std::string_view> argv;
  s.in_exec = true;
  for (const auto& cmd : queued) {
    argv.assign(cmd.begin(), cmd.end());
    // Every queued command passed resolve() when it was queued.
    const Resolved r = resolve(call.server.commands, argv);
    // The rules may have changed since it was queued (Redis checks again).
    if (s.user && !s.user->unrestricted()) {
      const acl::Verdict v = acl_check_and_log(call.server, s, *s.user, *r.spec, argv, kAclMulti, call.now_ms);
      if (v != acl::kAllowed) {
        call.reply.error(exec_noperm_text(v));
        continue;
      }
    }
    run_command(call.server, s, call.reply, *r.spec, argv, call.now_ms);
  }
  s.in_exec = false;
}

/* WATCH key [key ...] */
void watch_command(Call& call) {
  if (call.session.in_multi) return call.error(err::kWatchInMulti);
  // A transaction already doomed gains nothing from more keys.
  if (!call.session.watcher.dirty) {
    store::Db& db = call.db();
    for (size_t i = 1; i < call.argv.size(); ++i) {
      const store::Entry* e = db.peek(call.argv[i]);
      call.data.keyspace.watches().watch(call.session.watcher, call.session.db, call.argv[i],
                                           e && e->expired_at(call.now_ms));
    }
  }
  call.reply.simple("OK");
}

/* UNWATCH */
void unwatch_command(Call& call) {
  call.data.keyspace.watches().unwatch_all(call.session.watcher);
  call.reply.simple("OK");
}

}  // namespace

void register_transaction_commands(CommandTable& t) {
  t.add({
    {.name = "discard", .arity = 1, .flags = kNoscript | kLoading | kStale | kFast | kAllowBusy | kTransactionControl,
     .acl = "@fast @transaction",
     .group = "transactions", .since = "2.0.0", .complexity = "O(N) where N is the number of queued commands",
     .summary = "Drops the queued commands of a transaction",
     .handler = discard_command},
    {.name = "exec", .arity = 1, .flags = kNoscript | kLoading | kStale | kSkipSlowlog | kTransactionControl | kRunsQueue,
     .acl = "@slow @transaction",
     .group = "transactions", .since = "1.2.0", .complexity = "O(N) where N is the number of queued commands",
     .summary = "Runs the queued commands of a transaction",
     .handler = exec_command},
    {.name = "multi", .arity = 1, .flags = kNoscript | kLoading | kStale | kFast | kAllowBusy | kTransactionControl,
     .acl = "@fast @transaction",
     .group = "transactions", .since = "1.2.0", .complexity = "O(1)",
     .summary = "Starts a transaction",
     .handler = multi_command},
    {.name = "unwatch", .arity = 1, .flags = kNoscript | kLoading | kStale | kFast | kAllowBusy,
     .acl = "@fast @transaction",
     .group = "transactions", .since = "2.2.0", .complexity = "O(1)",
     .summary = "Forgets every watched key",
     .handler = unwatch_command},
    {.name = "watch", .arity = -2, .flags = kNoscript | kLoading | kStale | kFast | kAllowBusy | kTransactionControl, .keys = {1, -1, 1},
     .acl = "@fast @transaction",
     .group = "transactions", .since = "2.2.0", .complexity = "O(1) per key",
     .summary = "Makes the next transaction depend on keys not changing",
     .key_flags = "RO",
     .handler = watch_command},
  });
}

}  // namespace lawnkv
