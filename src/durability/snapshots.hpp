#pragma once
// RDB snapshots of the dataset (the format: persistence/rdb_writer.hpp,
// rdb_loader.hpp) as the server takes them: SAVE in the loop, BGSAVE in a
// forked child, the `save <seconds> <changes>` rules, loading at start-up
// and DEBUG RELOAD, and the facts INFO persistence and LASTSAVE report.
//
// BGSAVE forks: the child has a copy-on-write image of the dataset as it was
// at the fork, writes it to temp-<child pid>.rdb in dir, fsyncs, renames it
// to dir/dbfilename and exits 0 (1 on failure). The parent goes on serving;
// reap() collects the child without waiting (waitpid WNOHANG), from the
// server's SIGCHLD handler and its persistence timer, and records the
// outcome. Changes made while the child ran stay counted as unsaved.
//
// Dataset::dirty only grows (the AOF's effects watch it move); a save
// records the value it covered, and the difference is what is unsaved.
//
// Knows nothing of libuv: the server calls reap() and cron() (server.cpp).

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "config/config.hpp"
#include "core/log.hpp"
#include "engine/server_state.hpp"
#include "persistence/rdb_loader.hpp"
#include "persistence/rdb_writer.hpp"

namespace lawnkv {

struct ServerState;

// Who hears that a BGSAVE child ended, well or not (killed included): the
// replication service sends the file to the replicas that wait for it.
class BgsaveListener {
 public:
  virtual void bgsave_done(bool ok) = 0;

 protected:
  ~BgsaveListener() = default;
};

class Snapshots final : public Service {
 public:
  // Where messages go ("DB saved on disk"...); none by default (tests).
  void set_logger(const Logger* log) { log_ = log; }
  void set_bgsave_listener(BgsaveListener* listener) { listener_ = listener; }

  // dir/dbfilename.
  static std::string path(const config::Values& v);

  // SAVE: writes the snapshot now. Returns "" or why it failed.
  std::string save(ServerState& s);
  enum class Bg { kStarted, kInProgress, kFailed };
  // BGSAVE: forks a child that writes the snapshot.
  Bg start_bgsave(ServerState& s);
  // A diskless full sync (replication/diskless_sync.hpp): the child writes
  // the snapshot into fd (a pipe's write end; the caller closes its own
  // copy) instead of a file. Its end is heard as a BGSAVE's, but it is no
  // save: LASTSAVE, the unsaved changes and last_bgsave_ok stay as they
  // were, as Redis's socket target.
  Bg start_bgsave_to_fd(ServerState& s, int fd);
  // BGSAVE SCHEDULE while one runs: another starts when it ends.
  void schedule() { scheduled_ = true; }
  bool in_progress() const { return child_ > 0; }
  bool has_child() const override { return in_progress(); }
  // Changes since the last successful save (INFO's
  // rdb_changes_since_last_save): Dataset::dirty counts from the start and
  // never goes back, so a save records where it stood.
  uint64_t changes_since_save(const ServerState& s) const;

  // Collects a finished child, if any (never blocks).
  void reap(ServerState& s);
  // Starts a BGSAVE when a save rule says so, or one was scheduled. Called
  // about every 100 ms while wants_cron().
  void cron(ServerState& s);
  // Whether cron has anything to watch: a child, a scheduled BGSAVE, or
  // unsaved changes with save rules set.
  bool wants_cron(const ServerState& s) const;

  // At shutdown (SHUTDOWN, SIGTERM, SIGINT): stops a running child and
  // removes its temporary file; saves when asked (SHUTDOWN SAVE), or when
  // save rules are set unless nosave. Returns "" or why the save failed.
  std::string on_shutdown(ServerState& s, bool force_save, bool nosave);

  // FLUSHALL, as Redis 7.0: a running child is stopped (its snapshot is of
  // data that is gone), and with save rules set the empty dataset is saved
  // at once, so a restart does not bring the flushed keys back.
  void after_flushall(ServerState& s);

  // Loads dir/dbfilename into the dataset (start-up: the dataset is empty,
  // and a failure stops the server). A missing file is no error.
  persistence::LoadResult load_at_start(ServerState& s);
  // DEBUG RELOAD at now_ms (the command's time): loads path into a fresh
  // keyspace; on success the dataset is replaced by it (WATCHers of changed
  // keys are told), else unchanged.
  persistence::LoadResult reload(ServerState& s, const std::string& path, int64_t now_ms);
  // A replica's full sync: the primary's snapshot, received into temp,
  // becomes dir/dbfilename, and *data its bytes, for the replica to load in
  // steps into a fresh keyspace (persistence::RdbLoad with
  // load_options(s, 0): its expired keys are kept, the primary's DELs
  // remove them). Returns "" or why not.
  std::string take_master_file(ServerState& s, const std::string& temp, std::string* data);
  // A keyspace loaded from r's file replaces the dataset (WATCHers of
  // every key are told, tracked keys invalidated, r's function libraries
  // replace the server's).
  void adopt_dataset(ServerState& s, store::Keyspace& fresh, const persistence::LoadResult& r);

  // For INFO persistence and LASTSAVE.
  int64_t lastsave_s = 0;           // Unix seconds of the last successful save (start-up before one)
  bool last_bgsave_ok = true;
  int64_t last_bgsave_time_s = -1;  // how long the last BGSAVE took
  uint64_t saves = 0;               // successful saves since start (rdb_saves)
  size_t last_load_keys_loaded = 0;
  size_t last_load_keys_expired = 0;
  int64_t bgsave_started_ms() const { return child_start_ms_; }

  // How the server's configuration saves and loads (the append-only file's
  // base is an RDB file too). Loading at now_ms 0 drops no expired key.
  static persistence::SaveOptions save_options(const ServerState& s);
  persistence::LoadOptions load_options(ServerState& s, int64_t now_ms) const;

 private:
  // Loads file into a fresh keyspace (keys expired at now_ms dropped; 0:
  // none); on success it replaces the dataset (WATCHers of changed keys are
  // told), else nothing changes.
  persistence::LoadResult replace_dataset(ServerState& s, const std::string& file, int64_t now_ms);
  // A save (either kind) finished well: dirty_before changes are on disk.
  void saved(ServerState& s, uint64_t dirty_before);
  // Stops a running child and removes its temporary file.
  void kill_child(ServerState& s);
  void log(LogLevel level, const std::string& text) const {
    if (log_) log_->log(level, text);
  }

  const Logger* log_ = nullptr;
  BgsaveListener* listener_ = nullptr;
  // Forks the child that saves (to fd, or to dir/dbfilename when fd < 0).
  Bg fork_child(ServerState& s, int fd);

  pid_t child_ = -1;
  bool child_to_fd_ = false;  // the child writes into a pipe: no save
  int64_t child_start_ms_ = -1;
  uint64_t dirty_at_fork_ = 0;
  uint64_t saved_dirty_ = 0;  // Dataset::dirty as of the last successful save
  bool scheduled_ = false;
  int64_t last_bgsave_try_ms_ = 0;  // a failed BGSAVE is retried by the rules after 5 s
};

}  // namespace lawnkv
