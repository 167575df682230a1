#pragma once
// What writes did, as commands that replay them: Redis's propagation, and
// what the append-only file records.
//
// A write command that changed the dataset (Dataset::dirty moved) records
// its own arguments, or what its handler put in their place: a relative
// time becomes absolute (SET ... EX 10 -> SET ... PXAT t), a random choice
// becomes what was chosen (SPOP -> SREM), a float result becomes its value
// (INCRBYFLOAT -> SET ... KEEPTTL), a deadline already past becomes the
// deletion it caused (EXPIRE k -1 -> DEL k). Replayed in order from an
// empty dataset with the clock at 0 (nothing is due, so nothing expires or
// is deleted by time during the replay), the records rebuild the dataset
// whenever the replay happens.
//
// Besides its own, a command may add records, which go before it: a key it
// found expired (DEL), fields its lookup found due (HDEL). Expiry and
// eviction outside commands record at once (DEL, HDEL). The records of one
// command, or of a MULTI/EXEC, reach the sink together, to be written as one
// transaction when there are several.
//
// Records go to every attached sink: the append-only file, and next the
// replication stream. Without a sink nothing is kept: a command pays a test.
//
// An expiry cycle deletes up to thousands of keys outside any command; under
// a Batch their records are held and reach each sink once, when the Batch
// ends (append_each: commands of their own, no transaction), so a sink
// encodes and writes once per cycle instead of once per key. Nothing else
// runs meanwhile, so no other write comes between them; should a command
// begin inside a Batch, what was held goes first.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/keyspace.hpp"

namespace lawnkv {

struct EffectRecord {
  int db;
  std::vector<std::string> argv;
};

class EffectSink {
 public:
  virtual ~EffectSink() = default;
  // The records of one command (or expiry, or eviction), in order.
  virtual void append(std::span<const EffectRecord> records) = 0;
  // Records that are not one command's, each a command of its own (an
  // expiry cycle's deletions, in order).
  virtual void append_each(std::span<const EffectRecord> records) {
    for (const EffectRecord& r : records) append({&r, 1});
  }
};

class Effects final : public store::ExpiryListener {
 public:
  // Records go to sink too, from the next command on (records of a command
  // running now included).
  void attach(EffectSink* sink);
  // Records stop going to sink; with no sink left, what a command running
  // now had recorded is dropped (CONFIG SET appendonly no inside EXEC).
  void detach(EffectSink* sink);
  bool active() const { return !sinks_.empty(); }
  // Who also hears of expired keys (the keyspace notifications).
  void set_next(store::ExpiryListener* next) { next_ = next; }

  // Around every command run; EXEC's commands run nested inside EXEC's.
  void begin();
  // record_own: the command changed the dataset and its own record counts.
  void end(int db, std::span<const std::string_view> argv, bool record_own);

  // From a handler: its own record is argv instead of its arguments...
  void replace_own(std::initializer_list<std::string_view> argv);
  void replace_own(std::vector<std::string> argv);
  // ... or nothing (what it did is in add()ed records).
  void drop_own();
  // A record before the command's own; outside a command, at once.
  void add(int db, std::initializer_list<std::string_view> argv);
  void add(int db, std::vector<std::string> argv);

  // Records waiting for the outermost command to end, and forgetting those
  // added since there were n (a script's redis.set_repl(REPL_NONE) keeps
  // the commands it runs out of the file).
  size_t pending() const { return pending_.size(); }
  void forget_since(size_t n) {
    if (n < pending_.size()) pending_.resize(n);
  }

  // Records added outside commands while a Batch lives go to the sinks
  // together when it ends (one expiry cycle).
  class Batch {
   public:
    explicit Batch(Effects& e) : e_(e) { e_.batching_ = true; }
    ~Batch() {
      e_.batching_ = false;
      e_.flush_batch();
    }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;
    // The records held so far go now (between the cycle's chunks, so the
    // replicas start on them while it goes on); the Batch goes on.
    void flush() { e_.flush_batch(); }

   private:
    Effects& e_;
  };

  // store::ExpiryListener: DEL / HDEL records, then the next listener.
  void key_expired(int db, std::string_view key) override;
  void parts_expired(int db, std::string_view key, std::span<const std::string> parts,
                     bool key_deleted) override;

 private:
  struct Frame {
    std::optional<std::vector<std::string>> replacement;
    bool dropped = false;
  };
  void flush_if_outside();
  // The records a Batch held, to every sink.
  void flush_batch();

  std::vector<EffectSink*> sinks_;
  store::ExpiryListener* next_ = nullptr;
  std::vector<EffectRecord> pending_;
  std::vector<Frame> frames_;
  bool batching_ = false;
  std::vector<EffectRecord> batched_;  // held by a Batch
};

}  // namespace lawnkv
