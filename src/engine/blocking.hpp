#pragma once
// Clients blocked on keys, for any key type: REDE.BPOLL, the list pops
// (BLPOP, BLMOVE, BLMPOP...) and the sorted-set pops (BZPOPMIN, BZMPOP...).
//
// A blocking command that cannot be served at once calls Call::block(): the
// table keeps the command (its row and a copy of its arguments), the keys it
// waits on, its timeout, and a time at which a key may become ready by
// itself (a dehydrator element falling due; kNever when only a write can
// help). Nothing more is read from that client until it is served.
//
// A blocked command is run again when a key it waits on was changed
// (Dataset::modified: any write, RENAME, MOVE, SWAPDB...) or its ready time
// passed. Clients waiting on one key are tried in the order they blocked;
// the command run again is told which key changed (BlockRetry::ready_key),
// so one that waits on several keys serves itself from that one, as Redis
// 7.0 serves a blocked client from the key that became ready.
// A command that still cannot be served blocks again and keeps its place;
// one whose timeout passed gets a null array, as Redis's BLPOP does.
//
// Cost: a blocked client costs nothing per loop iteration. serve() touches
// only the keys changed since its last call and the clients whose time came
// (an ordered set of wake-up times); next_wakeup() is O(1).
//
// Re-entrancy: delivering a reply may close its client, and resuming a
// served client runs its pipelined requests, which may block it again, write
// keys or close other clients. serve() therefore walks waiter ids, looks
// each up again before use, and resumes served clients only after the pass,
// by id through the client registry.

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "resp/writer.hpp"

namespace lawnkv {

class Session;
struct CommandSpec;

// What the table needs of the server to serve its clients: running a
// blocked command again (dispatch.cpp's serve_blocked gives the real one),
// and finding a client by id.
class BlockedRunner {
 public:
  virtual ~BlockedRunner() = default;
  // Runs spec with argv in db again for s at now_ms because key changed
  // (empty: its time came; timed_out: CLIENT UNBLOCK ended its wait, see
  // Wait::replies_own_timeout), its reply into out. True if it blocked
  // again, with its new ready bound in *ready_bound_ms.
  virtual bool run_again(Session& s, const CommandSpec& spec, std::span<const std::string_view> argv, int db,
                         int64_t now_ms, std::string_view key, bool timed_out, resp::Writer& out,
                         int64_t* ready_bound_ms) = 0;
  virtual Session* find_client(uint64_t id) = 0;
  // Where the error replies of served clients are counted (INFO errorstats).
  virtual resp::ErrorObserver* error_observer() = 0;
};

class BlockingTable {
 public:
  // What a blocked command waits for (see Call::block).
  struct Wait {
    std::span<const std::string_view> keys;
    int64_t timeout_at_ms;   // served a null array once now >= this; kNever: never
    int64_t ready_bound_ms;  // a key may be ready by itself once now > this; kNever: no
    // The arguments to run again with (XREAD's "$" made the ID it meant);
    // empty: the command's own.
    std::span<const std::string_view> argv = {};
    // The command replies its own timeout (WAIT: the replicas that acked so
    // far): CLIENT UNBLOCK runs it again, told so (BlockedRunner::run_again's
    // timed_out), instead of replying a null array.
    bool replies_own_timeout = false;
  };

  // s blocks running spec with argv in db.
  void block(Session& s, const CommandSpec& spec, std::span<const std::string_view> argv, int db,
             const Wait& wait);
  // Forgets s without replying (disconnect, CLIENT KILL, RESET).
  void forget(const Session& s);
  // CLIENT UNBLOCK: if s is blocked, replies what its timeout would (a null
  // array; for a command that replies its own timeout, what it replies when
  // run again at the next serve()), or with error the error "-UNBLOCKED
  // client unblocked via CLIENT UNBLOCK" (or error_text; told to errors),
  // and resumes it at the next serve(); false if s is not blocked.
  static constexpr std::string_view kUnblockedText = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
  bool unblock(const Session& s, bool error, resp::ErrorObserver* errors = nullptr,
               std::string_view error_text = kUnblockedText);

  // key in db changed: the clients waiting on it are tried at the next serve().
  void signal(int db, std::string_view key);
  // Every key of db may have changed (SWAPDB).
  void signal_db(int db);

  // Tries the clients whose keys were signalled or whose time came, replies
  // to those served or timed out, then resumes them.
  void serve(BlockedRunner& runner, int64_t now_ms);
  // serve() has work once now > the time returned (a deadline, as the
  // expiry index's); a signalled key makes it now - 1 ... INT64_MIN; kNever:
  // nothing to wait for.
  int64_t next_wakeup() const;

  // No client blocked, and none unblocked that serve() still has to resume.
  bool empty() const { return waiters_.empty() && to_resume_.empty(); }
  size_t size() const { return waiters_.size(); }

 private:
  using DbKey = std::pair<int, std::string>;
  struct DbKeyHash {
    size_t operator()(const DbKey& k) const {
      return std::hash<std::string>{}(k.second) ^ static_cast<size_t>(k.first);
    }
  };

  struct Waiter {
    Session* session;
    const CommandSpec* spec;
    std::vector<std::string> argv;
    int db;
    std::vector<std::string> keys;
    int64_t timeout_at_ms;
    int64_t wake_ms;  // min(timeout_at - 1, ready bound): a deadline
    bool replies_own_timeout;
    bool unblocked = false;  // by CLIENT UNBLOCK: runs again timed out
  };

  // Outcome of running a blocked command again (see Call::block).
  enum class Outcome { kServed, kBlockedAgain };

  void remove(uint64_t id);
  void set_wake(uint64_t id, Waiter& w, int64_t ready_bound_ms);
  // Runs waiter id's command again (or times it out) because key changed
  // (empty: its time came); true if it left the table.
  bool try_serve(BlockedRunner& runner, uint64_t id, int64_t now_ms, std::string_view key);

  uint64_t next_id_ = 1;                 // ids grow: id order is blocking order
  std::map<uint64_t, Waiter> waiters_;
  std::unordered_map<const Session*, uint64_t> by_session_;
  struct KeyWaiters {
    std::set<uint64_t> ids;   // in blocking order
    bool signalled = false;   // in ready_ already
  };
  std::unordered_map<DbKey, KeyWaiters, DbKeyHash> by_key_;
  std::set<std::pair<int64_t, uint64_t>> wakes_;  // (wake_ms, id)
  std::vector<DbKey> ready_;                       // keys signalled since serve()
  std::vector<uint64_t> to_resume_;                // session ids
};

}  // namespace lawnkv
