#pragma once
// Client-side caching (CLIENT TRACKING), as Redis 7.0's tracking.c defines
// it: which clients may hold which keys in a local cache, and the
// invalidation messages that tell them a key changed.
//
// Two tables, both global (a key name stands for that name in every db, as
// in Redis):
//   keys      key -> ids of the clients that read it (default mode). A read
//             command of a tracking client adds its keys (remember); a
//             change of the key sends one message to each of them and
//             forgets the key: they are told once, until they read it again.
//   prefixes  prefix -> ids of the BCAST clients under it, and the keys
//             under it changed in this loop iteration (with who changed each
//             last, for NOLOOP). broadcast() sends them once per iteration,
//             sorted, one array per prefix.
// Entries of a client that turns tracking off stay in the key table until
// their key changes (as Redis: dropping them would cost a walk); its
// prefixes go at once. A client id that is gone is skipped.
//
// Messages. A RESP3 client gets a push frame `>2 invalidate [key...]`; with
// REDIRECT the messages go to that client instead: a RESP3 push, or for a
// RESP2 client subscribed to anything the Pub/Sub message `*3 message
// __redis__:invalidate [key...]`; otherwise nothing. A flush sends every
// tracking client a null in place of the array (in the tracking client's
// protocol: "_" or "$-1", even when the redirect client speaks the other).
// When the redirect client is gone, the tracking client is marked broken
// (flag R) and, in RESP3, told `>2 tracking-redir-broken <id>`.
//
// Frames due to the client whose command is running (the current client,
// a script's caller) wait until that command's reply is written (Redis's
// tracking_pending_keys): a message never lands inside a reply, MULTI's
// included. With NOLOOP a client is not told of what its own command
// changed.
//
// The key table is bounded by tracking-table-max-keys: past it, keys picked
// at random are dropped as if they had changed (their clients told), before
// the next command runs.
//
// Cost: with no entry in either table an invalidation is two tests (no
// client ever tracked, or none now and no entry left). A tracked read adds
// one hash lookup per key, and an id to a small sorted vector the first
// time.

#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/clients.hpp"
#include "engine/session.hpp"
#include "engine/table.hpp"
#include "store/keyspace.hpp"

namespace lawnkv {

class Tracking final : public store::ExpiryListener {
 public:
  // The clients by id: redirect targets and table entries are found there.
  void attach(Clients& clients) { clients_ = &clients; }
  // Who else hears of expired keys, first (the keyspace notifications).
  void set_next(store::ExpiryListener* next) { next_ = next; }

  // ---- CLIENT TRACKING
  struct Options {
    bool bcast = false;
    bool optin = false;
    bool optout = false;
    bool noloop = false;
  };
  // Redis's checkPrefixCollisionsOrReply: a new prefix that is a prefix of
  // one the client has (or the other way round), or of another new one, is
  // refused. error: the text, or empty. proceed: whether tracking is
  // enabled anyway, as Redis 7.0 does when the overlap is between two new
  // prefixes other than the first (its check returns the index, taken for
  // success: the client then gets the error and OK).
  struct PrefixCheck {
    std::string error;
    bool proceed = true;
  };
  PrefixCheck check_prefixes(const Session& s, std::span<const std::string_view> prefixes) const;
  // CLIENT TRACKING ON: options replace the previous ones; prefixes are
  // added to those the client has (BCAST without PREFIX: the prefix "").
  void enable(Session& s, uint64_t redirect, const Options& o, std::span<const std::string_view> prefixes);
  // CLIENT TRACKING OFF, RESET, and a client that goes away.
  void disable(Session& s);

  // ---- INFO
  size_t clients() const { return clients_on_; }
  size_t total_keys() const { return keys_.size(); }
  size_t total_items() const { return items_; }
  size_t total_prefixes() const { return prefixes_.size(); }

  // ---- commands
  // One top-level command of s runs (dispatch): s is the current client
  // until it ends; then the frames due to it are delivered, and its CLIENT
  // CACHING flag is spent unless the command was a CLIENT subcommand or it
  // is inside MULTI. Before it, the key table is brought under max_keys.
  class CommandScope {
   public:
    CommandScope(Tracking& t, Session& s, int64_t max_keys);
    ~CommandScope();
    CommandScope(const CommandScope&) = delete;
    CommandScope& operator=(const CommandScope&) = delete;

   private:
    Tracking& t_;
    Session* outer_;  // the current client of an enclosing command (AOF loading from DEBUG)
  };
  // After a read-only command of s ran (a script's commands count for the
  // script's caller): its keys are remembered for it, unless it tracks in
  // BCAST mode or OPTIN/OPTOUT says otherwise.
  void remember(const Session& s, const CommandSpec& spec, std::span<const std::string_view> argv) {
    if (clients_on_ != 0) remember_keys(s, spec, argv);
  }
  // key changed (any db): its clients are told, its BCAST prefixes note it.
  // writer: the client that changed it (NOLOOP in BCAST mode), or nullptr.
  void invalidate(std::string_view key, const Session* writer) {
    if (keys_.empty() && prefixes_.empty()) return;
    invalidate_key(key, writer, true);
  }
  // Delivers now what waits for the current client's reply (eviction
  // before its command runs, as Redis's processCommand does).
  void deliver_pending();
  // The client whose command is running, or nullptr.
  const Session* current() const { return current_; }
  // A flush (FLUSHDB, FLUSHALL, a dataset replaced): every tracking client
  // is sent a null; the key table is emptied.
  void invalidate_all();
  // Sends BCAST clients the keys changed under their prefixes since the
  // last call; once per loop iteration, before replies are flushed.
  void broadcast();
  // Drops random keys (their clients told) until at most max_keys are
  // tracked (0: no bound), with Redis's effort: 100 keys, more each time in
  // a row it fails to get there.
  void limit(size_t max_keys);

  // store::ExpiryListener: the next listener, then the key's invalidation.
  void key_expired(int db, std::string_view key) override;
  void parts_expired(int db, std::string_view key, std::span<const std::string> parts, bool key_deleted) override;

 private:
  struct Bcast {
    std::vector<uint64_t> clients;          // sorted ids
    std::map<std::string, uint64_t> keys;   // changed this iteration -> who changed it last (0: no client)
  };

  void remember_keys(const Session& s, const CommandSpec& spec, std::span<const std::string_view> argv);
  void remember_key(std::string_view key, uint64_t id);
  void invalidate_key(std::string_view key, const Session* writer, bool bcast);
  void add_prefix(Session& s, std::string_view prefix);
  // Redis's sendTrackingMessage: body is the RESP after the frame's header
  // (a keys array or a null).
  void send(Session& c, std::string_view body);
  void deliver(Session& to, std::string_view frame);
  void end_command(Session& s);

  Clients* clients_ = nullptr;
  store::ExpiryListener* next_ = nullptr;
  size_t clients_on_ = 0;
  std::unordered_map<std::string, std::vector<uint64_t>, store::StringHash, std::equal_to<>> keys_;
  size_t items_ = 0;  // ids over all keys
  std::map<std::string, Bcast, std::less<>> prefixes_;
  Session* current_ = nullptr;
  std::string pending_;  // frames for current_, after its reply
  unsigned limit_failures_ = 0;  // limit() calls in a row that stayed over
  std::minstd_rand rng_{0x7261636b};
};

// Inline: they run around every command, and with no client tracking they
// only set and clear the current client.
inline Tracking::CommandScope::CommandScope(Tracking& t, Session& s, int64_t max_keys)
    : t_(t), outer_(t.current_) {
  if (outer_) return;
  if (t.clients_on_ != 0 && max_keys > 0 && t.keys_.size() > static_cast<size_t>(max_keys))
    t.limit(static_cast<size_t>(max_keys));
  t.current_ = &s;
}

inline Tracking::CommandScope::~CommandScope() {
  if (outer_) return;
  Session* s = std::exchange(t_.current_, nullptr);
  // end_command has nothing to do without frames pending or CLIENT CACHING.
  if (s && (!t_.pending_.empty() || s->tracking.caching)) t_.end_command(*s);
}

}  // namespace lawnkv
