#pragma once
// The append-only file as the server keeps it (appendonly yes): Redis 7's
// multi-part layout (persistence/aof_manifest.hpp) in dir/appenddirname,
// fed with the records of writes (effects.hpp).
//
// Appending: each command's records, encoded by engine/effect_encoder.hpp
// (SELECT when the db changes; several records as MULTI ... EXEC), are
// buffered, then written once per event-loop
// iteration, before the replies of that iteration go out (as Redis's
// beforeSleep does), and synced as appendfsync says
// (persistence/aof_writer.hpp): a reply to a write leaves after its record
// is in the file, so a crash of the process loses no acknowledged write;
// under `always` also after its fdatasync, so a power failure loses none
// either, and every write of the iteration shares that one fdatasync.
//
// Rewriting (BGREWRITEAOF, and when the increments grow past
// auto-aof-rewrite-percentage of the base): writes go on at once to a new
// increment file, listed in the manifest before the fork; a forked child
// writes the dataset as an RDB file, the new base. When the child ends well
// the manifest becomes that base plus the increments opened since, and the
// old files are deleted; when it fails, the old base and every increment
// still make the dataset. One child runs at a time, a BGSAVE's included:
// a rewrite asked for meanwhile is scheduled.
//
// Loading at start-up: the base (an RDB file, loaded with its deadlines
// whatever they are), then each increment's commands run with the clock at 0
// (nothing expires during the replay: the records hold each deletion), then
// what fell due while the server was down is dropped without events. A last
// increment cut mid-command is truncated where its last whole command ends
// (aof-load-truncated yes, as Redis), and so is a transaction left open at
// its end. With appendonly yes and no AOF yet, the dataset comes from the
// RDB snapshot if there is one (Redis 7.0 would start empty), and the first
// base is written from it before clients are served.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/log.hpp"
#include "engine/effect_encoder.hpp"
#include "engine/effects.hpp"
#include "engine/server_state.hpp"
#include "persistence/aof_manifest.hpp"
#include "persistence/aof_writer.hpp"

namespace lawnkv {

struct ServerState;

class AppendOnly final : public EffectSink, public Service {
 public:
  AppendOnly();
  ~AppendOnly() override;

  void set_logger(const Logger* log) { log_ = log; }

  // Start-up with appendonly yes: loads the AOF (or the RDB snapshot when
  // there is no AOF yet), then appends from here on. "" or why it failed
  // (the server does not start). With appendonly no: nothing.
  std::string start(ServerState& s);
  bool enabled() const { return writer_ != nullptr; }

  // CONFIG SET appendonly yes|no, appendfsync.
  std::string turn_on(ServerState& s);
  void turn_off(ServerState& s);
  void apply_fsync_policy(const std::string& policy);

  // EffectSink.
  void append(std::span<const EffectRecord> records) override;
  void append_each(std::span<const EffectRecord> records) override;

  // The loop, before replies go out: writes what was appended (and syncs
  // under always).
  void flush();

  // BGREWRITEAOF.
  enum class Rewrite { kStarted, kScheduled, kInProgress, kFailed };
  Rewrite start_rewrite(ServerState& s);
  bool rewrite_in_progress() const { return child_ > 0; }
  bool has_child() const override { return rewrite_in_progress(); }
  // Collects a finished rewrite child, if any (never blocks).
  void reap(ServerState& s);
  // Starts a scheduled or automatic rewrite; about every 100 ms while wants_cron().
  void cron(ServerState& s);
  bool wants_cron() const { return child_ > 0 || scheduled_ || writer_ != nullptr; }

  // At shutdown: stops a rewrite child, writes and syncs what is pending.
  void on_shutdown(ServerState& s);

  // INFO persistence.
  std::string info_fields(const ServerState& s) const;

 private:
  std::string dir(const ServerState& s) const;
  std::string file_path(const ServerState& s, const std::string& name) const;
  // Writes the manifest atomically (temporary file, fsync, rename).
  std::string write_manifest(const ServerState& s, const persistence::AofManifest& m);
  // Loads the files the manifest lists.
  std::string load(ServerState& s);
  std::string replay(ServerState& s, const std::string& path, bool last);
  // Writes the dataset as the base of seq, synchronously (start-up).
  std::string write_base_now(ServerState& s);
  // Opens a new increment (seq after the last) for appending.
  std::string open_next_incr(ServerState& s);
  uint64_t files_size(const ServerState& s) const;
  void log(LogLevel level, const std::string& text) const {
    if (log_) log_->log(level, text);
  }

  const Logger* log_ = nullptr;
  std::unique_ptr<persistence::AofWriter> writer_;  // non-null: appendonly is on
  persistence::AofManifest manifest_;
  EffectEncoder encoder_;  // knows the db the current increment's records are in

  pid_t child_ = -1;
  int64_t child_start_ms_ = -1;
  int64_t rewrite_incr_seq_ = 0;  // the first increment the new base does not cover
  bool scheduled_ = false;
  int64_t last_rewrite_try_ms_ = 0;
  uint64_t base_size_ = 0;        // the base's size after the last rewrite (auto rewrite)
  // INFO.
  bool last_rewrite_ok_ = true;
  int64_t last_rewrite_time_s_ = -1;
  uint64_t rewrites_ = 0;
};

}  // namespace lawnkv
