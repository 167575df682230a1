#include "durability/snapshots.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/allocator.hpp"
#include "engine/server_state.hpp"
#include "persistence/rdb_writer.hpp"

namespace lawnkv {

namespace {

// How long after a failed BGSAVE the save rules may try again (Redis's
// CONFIG_BGSAVE_RETRY_DELAY).
constexpr int64_t kRetryDelayMs = 5000;

struct Rule {
  int64_t seconds;
  int64_t changes;
};

// "3600 1 300 100" -> {3600, 1}, {300, 100} (the text was validated by
// config/params.cpp).
std::vector<Rule> parse_rules(const std::string& text) {
  std::vector<Rule> rules;
  const char* p = text.c_str();
  char* end;
  while (true) {
    const long long secs = std::strtoll(p, &end, 10);
    if (end == p) break;
    p = end;
    const long long changes = std::strtoll(p, &end, 10);
    if (end == p) break;
    p = end;
    rules.push_back({secs, changes});
  }
  return rules;
}

std::string temp_path(const config::Values& v, pid_t pid) {
  return persistence::join_path(v.dir, "temp-" + std::to_string(pid) + ".rdb");
}

}  // namespace

persistence::SaveOptions Snapshots::save_options(const ServerState& s) {
  const config::Values& v = s.config.values();
  return {.compress = v.rdbcompression, .checksum = v.rdbchecksum, .now_ms = s.clock.now_ms(),
          .used_memory = allocator::used_bytes(), .functions = s.function_libraries()};
}

std::string Snapshots::path(const config::Values& v) { return persistence::join_path(v.dir, v.dbfilename); }

uint64_t Snapshots::changes_since_save(const ServerState& s) const { return s.data.dirty - saved_dirty_; }

void Snapshots::saved(ServerState& s, uint64_t dirty_before) {
  if (dirty_before > saved_dirty_) saved_dirty_ = dirty_before;
  lastsave_s = s.clock.now_ms() / 1000;
  last_bgsave_ok = true;
  ++saves;
}

std::string Snapshots::save(ServerState& s) {
  const uint64_t dirty = s.data.dirty;
  const std::string error = persistence::save_rdb_file(s.data.keyspace, path(s.config.values()), save_options(s));
  if (!error.empty()) {
    log(LogLevel::kWarning, error);
    return error;
  }
  saved(s, dirty);
  log(LogLevel::kNotice, "DB saved on disk");
  return {};
}

Snapshots::Bg Snapshots::start_bgsave(ServerState& s) { return fork_child(s, -1); }

Snapshots::Bg Snapshots::start_bgsave_to_fd(ServerState& s, int fd) { return fork_child(s, fd); }

Snapshots::Bg Snapshots::fork_child(ServerState& s, int fd) {
  if (child_ > 0) return Bg::kInProgress;
  const int64_t now = s.clock.now_ms();
  last_bgsave_try_ms_ = now;
  const persistence::SaveOptions opts = save_options(s);
  const std::string target = path(s.config.values());
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child: its copy of the dataset is the snapshot. It lets go of
    // every inherited descriptor first (listeners, clients, the loop's), so
    // a connection the parent closes is closed at once, not when the child
    // ends; the log opens its file per line. _exit: no destructors or
    // atexit handlers of the parent's state run here.
    std::string error;
    if (fd >= 0) {
      // The pipe's write end becomes descriptor 3, the only one kept.
      if (fd != 3 && ::dup2(fd, 3) < 0) ::_exit(1);
      ::close_range(4, ~0U, 0);
      persistence::FdSink sink(3);
      persistence::RdbOutput out(sink, opts.compress, opts.checksum);
      std::string why;
      if (!persistence::write_rdb(s.data.keyspace, out, opts, &why))
        error = sink.error() ? std::string("Write error sending the DB to the replicas: ") + std::strerror(sink.error())
                             : "Error writing the DB for the replicas: " + why;
    } else {
      ::close_range(3, ~0U, 0);
      error = persistence::save_rdb_file(s.data.keyspace, target, opts);
    }
    if (!error.empty()) log(LogLevel::kWarning, error);
    ::_exit(error.empty() ? 0 : 1);
  }
  if (pid < 0) {
    if (fd < 0) last_bgsave_ok = false;
    log(LogLevel::kWarning, "Can't save in background: fork failed");
    return Bg::kFailed;
  }
  child_ = pid;
  child_to_fd_ = fd >= 0;
  child_start_ms_ = now;
  dirty_at_fork_ = s.data.dirty;
  log(LogLevel::kNotice, "Background " + std::string(child_to_fd_ ? "RDB transfer" : "saving") +
                             " started by pid " + std::to_string(pid));
  return Bg::kStarted;
}

void Snapshots::reap(ServerState& s) {
  if (child_ <= 0) return;
  int status = 0;
  const pid_t r = ::waitpid(child_, &status, WNOHANG);
  if (r == 0 || (r < 0 && errno == EINTR)) return;
  const bool ok = r == child_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (child_to_fd_) {
    // A diskless sync's child: what it wrote went to the replicas.
    log(ok ? LogLevel::kNotice : LogLevel::kWarning,
        ok ? "Background RDB transfer terminated with success"
           : WIFSIGNALED(status) ? "Background transfer terminated by signal " + std::to_string(WTERMSIG(status))
                                 : std::string("Background transfer error"));
    child_ = -1;
    child_start_ms_ = -1;
    child_to_fd_ = false;
    if (listener_) listener_->bgsave_done(ok);
    return;
  }
  if (ok) {
    saved(s, dirty_at_fork_);
    log(LogLevel::kNotice, "Background saving terminated with success");
  } else {
    last_bgsave_ok = false;
    ::unlink(temp_path(s.config.values(), child_).c_str());
    log(LogLevel::kWarning, WIFSIGNALED(status) ? "Background saving terminated by signal " +
                                                      std::to_string(WTERMSIG(status))
                                                : std::string("Background saving error"));
  }
  last_bgsave_time_s = (s.clock.now_ms() - child_start_ms_) / 1000;
  child_ = -1;
  child_start_ms_ = -1;
  if (listener_) listener_->bgsave_done(ok);
}

bool Snapshots::wants_cron(const ServerState& s) const {
  return child_ > 0 || scheduled_ || (changes_since_save(s) > 0 && !s.config.values().save.empty());
}

void Snapshots::cron(ServerState& s) {
  reap(s);
  // One child at a time: an AOF rewrite's ends first.
  if (s.child_running()) return;
  if (scheduled_) {
    scheduled_ = false;
    if (start_bgsave(s) == Bg::kStarted) return;
  }
  const int64_t now = s.clock.now_ms();
  for (const Rule& r : parse_rules(s.config.values().save)) {
    if (changes_since_save(s) < static_cast<uint64_t>(r.changes) || now / 1000 - lastsave_s <= r.seconds) continue;
    if (!last_bgsave_ok && now - last_bgsave_try_ms_ <= kRetryDelayMs) continue;
    log(LogLevel::kNotice, std::to_string(r.changes) + " changes in " + std::to_string(r.seconds) +
                               " seconds. Saving...");
    start_bgsave(s);
    return;
  }
}

void Snapshots::kill_child(ServerState& s) {
  if (child_ <= 0) return;
  ::kill(child_, SIGKILL);
  int status;
  while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
  }
  if (!child_to_fd_) ::unlink(temp_path(s.config.values(), child_).c_str());
  child_ = -1;
  child_start_ms_ = -1;
  child_to_fd_ = false;
  if (listener_) listener_->bgsave_done(false);
}

void Snapshots::after_flushall(ServerState& s) {
  // A FLUSHALL replayed from the append-only file saves nothing.
  if (s.facts.loading) return;
  kill_child(s);
  if (!s.config.values().save.empty()) save(s);
}

std::string Snapshots::on_shutdown(ServerState& s, bool force_save, bool nosave) {
  if (child_ > 0) {
    log(LogLevel::kWarning, "There is a child saving an .rdb. Killing it!");
    kill_child(s);
  }
  if (nosave || (!force_save && s.config.values().save.empty())) return {};
  log(LogLevel::kNotice, "Saving the final RDB snapshot before exiting.");
  return save(s);
}

persistence::LoadOptions Snapshots::load_options(ServerState& s, int64_t now_ms) const {
  const config::Values& v = s.config.values();
  persistence::LoadOptions o;
  o.verify_checksum = v.rdbchecksum;
  o.values.now_ms = now_ms;
  o.values.rng = &s.data.keyspace.rng();
  o.values.hash_max_listpack_entries = v.hash_max_listpack_entries;
  o.values.hash_max_listpack_value = v.hash_max_listpack_value;
  o.values.set_max_intset_entries = v.set_max_intset_entries;
  o.values.list_max_listpack_size = v.list_max_listpack_size;
  o.values.zset_max_listpack_entries = v.zset_max_listpack_entries;
  o.values.zset_max_listpack_value = v.zset_max_listpack_value;
  return o;
}

persistence::LoadResult Snapshots::load_at_start(ServerState& s) {
  const persistence::LoadOptions opts = load_options(s, s.clock.now_ms());
  bool missing;
  s.facts.loading = true;
  const persistence::LoadResult r = persistence::load_rdb_file(path(s.config.values()), s.data.keyspace, opts, &missing);
  s.facts.loading = false;
  if (r.ok() && !missing) {
    if (std::string error = s.replace_function_libraries(r.functions); !error.empty())
      log(LogLevel::kWarning, "Failed loading a function library: " + error);
    last_load_keys_loaded = r.keys_loaded;
    last_load_keys_expired = r.keys_expired;
    log(LogLevel::kNotice, "DB loaded from disk: " + std::to_string(r.keys_loaded) + " keys loaded, " +
                               std::to_string(r.keys_expired) + " expired keys dropped");
  }
  return r;
}

persistence::LoadResult Snapshots::reload(ServerState& s, const std::string& file, int64_t now_ms) {
  persistence::LoadResult r = replace_dataset(s, file, now_ms);
  if (r.ok()) log(LogLevel::kWarning, "DB reloaded by DEBUG RELOAD");
  return r;
}

std::string Snapshots::take_master_file(ServerState& s, const std::string& temp, std::string* data) {
  const std::string target = path(s.config.values());
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const std::string error = "Failed trying to rename the temp DB into " + target +
                              " in MASTER <-> REPLICA synchronization: " + std::strerror(errno);
    ::unlink(temp.c_str());
    return error;
  }
  bool missing;
  std::string error = persistence::read_rdb_file(target, data, &missing);
  if (missing) error = "Bad RDB file: " + target + " does not exist";
  return error;
}

persistence::LoadResult Snapshots::replace_dataset(ServerState& s, const std::string& file, int64_t now_ms) {
  store::Keyspace fresh(s.data.keyspace.databases());
  const persistence::LoadOptions opts = load_options(s, now_ms);
  bool missing;
  persistence::LoadResult r = persistence::load_rdb_file(file, fresh, opts, &missing);
  if (missing) r.error = "Bad RDB file: " + file + " does not exist";
  if (!r.ok()) {
    log(LogLevel::kWarning, r.error);
    return r;
  }
  adopt_dataset(s, fresh, r);
  return r;
}

void Snapshots::adopt_dataset(ServerState& s, store::Keyspace& fresh, const persistence::LoadResult& r) {
  store::Keyspace& live = s.data.keyspace;
  for (int db = 0; db < live.databases(); ++db) {
    // Every watched key may have changed (Redis's signalFlushedDb).
    live.watches().touch_db(db, [](std::string_view) { return true; });
    live.db(db).clear();
  }
  s.data.tracking.invalidate_all();
  persistence::move_keys(fresh, live);
  if (std::string error = s.replace_function_libraries(r.functions); !error.empty())
    log(LogLevel::kWarning, "Failed loading a function library: " + error);
  saved_dirty_ = s.data.dirty;  // the dataset is the file's
  last_load_keys_loaded = r.keys_loaded;
  last_load_keys_expired = r.keys_expired;
}

}  // namespace lawnkv
