#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "engine/detached_session.hpp"
#include "engine/dispatch.hpp"
#include "engine/server_state.hpp"
#include "persistence/aof_reader.hpp"
#include "persistence/rdb_loader.hpp"
#include "persistence/rdb_writer.hpp"

namespace lawnkv {

namespace {

using persistence::AofManifest;

// How long after a failed rewrite, while appendonly has no base yet, the
// next one starts (as Redis retries).
constexpr int64_t kRetryDelayMs = 5000;

persistence::FsyncPolicy policy_of(const std::string& name) {
  if (name == "always") return persistence::FsyncPolicy::kAlways;
  if (name == "no") return persistence::FsyncPolicy::kNo;
  return persistence::FsyncPolicy::kEverySec;
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

uint64_t file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The manifest at path into *m; false with *error set when it cannot be
// read or parsed.
bool read_manifest(const std::string& path, AofManifest* m, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "Can't open the AOF manifest " + path;
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  return AofManifest::parse(text.str(), m, error);
}

// fsync of a directory, so a rename in it survives a crash.
void sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

AppendOnly::AppendOnly() = default;

AppendOnly::~AppendOnly() {
  if (child_ > 0) {
    ::kill(child_, SIGKILL);
    int status;
    ::waitpid(child_, &status, 0);
  }
}

std::string AppendOnly::dir(const ServerState& s) const {
  const config::Values& v = s.config.values();
  return persistence::join_path(v.dir, v.appenddirname);
}

std::string AppendOnly::file_path(const ServerState& s, const std::string& name) const {
  return persistence::join_path(dir(s), name);
}

std::string AppendOnly::write_manifest(const ServerState& s, const AofManifest& m) {
  const std::string prefix = s.config.values().appendfilename;
  const std::string target = file_path(s, AofManifest::manifest_name(prefix));
  const std::string temp = file_path(s, "temp-" + AofManifest::manifest_name(prefix));
  const std::string text = m.to_text();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  if (ok) ok = ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (ok) ok = ::rename(temp.c_str(), target.c_str()) == 0;
  if (!ok) {
    const std::string why = "Can't write the AOF manifest " + target + ": " + std::strerror(errno);
    ::unlink(temp.c_str());
    log(LogLevel::kWarning, why);
    return why;
  }
  sync_dir(dir(s));
  return {};
}

std::string AppendOnly::open_next_incr(ServerState& s) {
  const int64_t seq = manifest_.last_incr_seq() + 1;
  const std::string name = AofManifest::incr_name(s.config.values().appendfilename, seq);
  manifest_.files.push_back({name, seq, 'i'});
  // Listed before anything is written to it: a crash leaves a manifest that
  // names every file holding writes (without a base yet, nothing to list).
  if (manifest_.base() != nullptr) {
    if (std::string error = write_manifest(s, manifest_); !error.empty()) return error;
  }
  if (std::string error = writer_->open(file_path(s, name)); !error.empty()) return error;
  encoder_.reset();
  log(LogLevel::kNotice, "Creating AOF incr file " + name);
  return {};
}

std::string AppendOnly::write_base_now(ServerState& s) {
  const int64_t seq = manifest_.base_seq() + 1;
  const std::string name = AofManifest::base_name(s.config.values().appendfilename, seq, true);
  const std::string error =
      persistence::save_rdb_file(s.data.keyspace, file_path(s, name), s.snapshots().save_options(s));
  if (!error.empty()) return error;
  std::erase_if(manifest_.files, [](const AofManifest::File& f) { return f.type == 'b'; });
  manifest_.files.insert(manifest_.files.begin(), {name, seq, 'b'});
  base_size_ = file_size(file_path(s, name));
  log(LogLevel::kNotice, "Creating AOF base file " + name + " on server start");
  return {};
}

std::string AppendOnly::start(ServerState& s) {
  const config::Values& v = s.config.values();
  if (!v.appendonly) return {};
  if (::mkdir(dir(s).c_str(), 0755) != 0 && errno != EEXIST)
    return "Can't create the append-only dir " + dir(s) + ": " + std::strerror(errno);
  writer_ = std::make_unique<persistence::AofWriter>();
  writer_->set_policy(policy_of(v.appendfsync));
  const std::string manifest_path = file_path(s, AofManifest::manifest_name(v.appendfilename));
  if (file_exists(manifest_path)) {
    std::string error;
    if (!read_manifest(manifest_path, &manifest_, &error)) return error;
    s.facts.loading = true;
    error = load(s);
    s.facts.loading = false;
    if (!error.empty()) return error;
    s.data.keyspace.drop_due(s.clock.now_ms());
    if (const AofManifest::File* b = manifest_.base()) base_size_ = file_size(file_path(s, b->name));
    log(LogLevel::kNotice, "DB loaded from append only file");
  } else {
    // No AOF yet: the snapshot, if any, is the dataset; it becomes the base.
    const persistence::LoadResult r = s.snapshots().load_at_start(s);
    if (!r.ok()) return r.error;
    if (std::string error = write_base_now(s); !error.empty()) return error;
  }
  // Appends go to the last increment, or a first one.
  if (manifest_.last_incr_seq() == 0) {
    if (std::string error = open_next_incr(s); !error.empty()) return error;
  } else {
    if (std::string error = write_manifest(s, manifest_); !error.empty()) return error;
    // Increments are listed by seq: the last one is where writes went.
    const std::string& last = manifest_.files.back().name;
    if (std::string error = writer_->open(file_path(s, last)); !error.empty()) return error;
  }
  s.data.effects.attach(this);
  return {};
}

std::string AppendOnly::load(ServerState& s) {
  const AofManifest::File* base = manifest_.base();
  if (base != nullptr) {
    const std::string path = file_path(s, base->name);
    if (ends_with(base->name, ".rdb")) {
      // Every key with its deadline, however old: the increments were
      // written when these keys lived.
      bool missing;
      const persistence::LoadResult r =
          persistence::load_rdb_file(path, s.data.keyspace, s.snapshots().load_options(s, 0), &missing);
      if (missing) return "The AOF file " + path + " doesn't exist";
      if (!r.ok()) return r.error;
      if (std::string error = s.replace_function_libraries(r.functions); !error.empty()) return error;
    } else if (std::string error = replay(s, path, manifest_.files.size() == 1); !error.empty()) {
      return error;
    }
  }
  for (size_t i = 0; i < manifest_.files.size(); ++i) {
    const AofManifest::File& f = manifest_.files[i];
    if (f.type != 'i') continue;
    if (std::string error = replay(s, file_path(s, f.name), i + 1 == manifest_.files.size()); !error.empty())
      return error;
  }
  return {};
}

std::string AppendOnly::replay(ServerState& s, const std::string& path, bool last) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return "The AOF file " + path + " doesn't exist";
  DetachedSession session;
  persistence::AofReader reader(f);
  std::vector<std::string> argv;
  std::vector<std::string_view> views;
  std::string out;
  uint64_t multi_at = 0;  // where the open transaction's MULTI began
  uint64_t commands = 0, skipped = 0;
  std::string error;
  for (;;) {
    const uint64_t before = reader.good_bytes();
    const persistence::AofReader::Status st = reader.next(&argv);
    if (st == persistence::AofReader::Status::kCommand) {
      views.assign(argv.begin(), argv.end());
      const Resolved r = resolve(s.commands, views);
      if (r.known == nullptr) {
        error = "Unknown command '" + argv[0] + "' reading the append only file " + path;
        break;
      }
      // Only what an append-only file holds runs: writes that cannot block,
      // SELECT, and the transaction around them. Anything else (a
      // hand-edited file) is skipped, so no file can fork, sleep, block the
      // loader or stop the server.
      const CommandSpec* spec = r.spec;
      if (spec != nullptr && ((!spec->has(kWrite) && !spec->has(kTransactionControl) && spec->name != "select") ||
                              spec->has(kBlocking))) {
        ++skipped;
        continue;
      }
      if (spec != nullptr && spec->has(kTransactionControl) && !session.in_multi) multi_at = before;
      out.clear();
      resp::Writer w(out, 2);
      dispatch(s, session, w, views, 0);
      ++commands;
      continue;
    }
    if (st == persistence::AofReader::Status::kCorrupt) {
      error = "Bad file format reading the append only file " + path + ": " + reader.error();
      break;
    }
    // The end, or a cut: a transaction left open ends where its MULTI began.
    const bool cut = st == persistence::AofReader::Status::kTruncated || session.in_multi;
    if (!cut) break;
    if (!last) {
      error = "Unexpected end of file reading the append only file " + path;
      break;
    }
    if (!s.config.values().aof_load_truncated) {
      error = "Unexpected end of file reading the append only file " + path +
              ". You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "
              "2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the "
              "server.";
      break;
    }
    const uint64_t keep = session.in_multi ? multi_at : reader.good_bytes();
    log(LogLevel::kWarning, "!!! Warning: short read while loading the AOF file " + path + "!!!");
    if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0) {
      error = "Error truncating the AOF file " + path + ": " + std::strerror(errno);
      break;
    }
    log(LogLevel::kWarning, "AOF " + path + " loaded anyway because aof-load-truncated is enabled");
    break;
  }
  std::fclose(f);
  if (skipped > 0)
    log(LogLevel::kWarning, "Skipped " + std::to_string(skipped) + " commands of " + path + " that are not writes");
  if (error.empty()) log(LogLevel::kNotice, "Done loading " + std::to_string(commands) + " commands from " + path);
  return error;
}

void AppendOnly::append(std::span<const EffectRecord> records) {
  if (!writer_) return;
  std::string out;
  encoder_.encode(records, out);
  writer_->append(out);
}

void AppendOnly::append_each(std::span<const EffectRecord> records) {
  if (!writer_) return;
  std::string out;
  encoder_.encode_each(records, out);
  writer_->append(out);
}

void AppendOnly::flush() {
  if (writer_) writer_->flush();
}

void AppendOnly::apply_fsync_policy(const std::string& policy) {
  if (writer_) writer_->set_policy(policy_of(policy));
}

AppendOnly::Rewrite AppendOnly::start_rewrite(ServerState& s) {
  if (child_ > 0) return Rewrite::kInProgress;
  if (s.snapshots().in_progress()) {
    scheduled_ = true;
    return Rewrite::kScheduled;
  }
  last_rewrite_try_ms_ = s.clock.now_ms();
  if (::mkdir(dir(s).c_str(), 0755) != 0 && errno != EEXIST) {
    log(LogLevel::kWarning, "Can't create the append-only dir " + dir(s) + ": " + std::strerror(errno));
    return Rewrite::kFailed;
  }
  if (writer_) {
    // What comes from here on goes to a new increment, which the new base
    // will not cover.
    writer_->flush();
    if (!open_next_incr(s).empty()) return Rewrite::kFailed;
  }
  rewrite_incr_seq_ = writer_ ? manifest_.last_incr_seq() : 0;
  const persistence::SaveOptions opts = s.snapshots().save_options(s);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child: its copy of the dataset is the new base. It lets go of
    // inherited descriptors (clients, listeners, the increment) as BGSAVE's
    // child does. _exit: nothing of the parent's state is torn down here.
    ::close_range(3, ~0U, 0);
    const std::string temp = file_path(s, "temp-rewriteaof-bg-" + std::to_string(::getpid()) + ".aof");
    const std::string error = persistence::save_rdb_file(s.data.keyspace, temp, opts);
    if (error.empty()) log(LogLevel::kNotice, "Successfully created the temporary AOF base file " + temp);
    ::_exit(error.empty() ? 0 : 1);
  }
  if (pid < 0) {
    last_rewrite_ok_ = false;
    log(LogLevel::kWarning, std::string("Can't rewrite append only file in background: fork: ") + std::strerror(errno));
    return Rewrite::kFailed;
  }
  child_ = pid;
  child_start_ms_ = s.clock.now_ms();
  log(LogLevel::kNotice, "Background append only file rewriting started by pid " + std::to_string(pid));
  return Rewrite::kStarted;
}

void AppendOnly::reap(ServerState& s) {
  if (child_ <= 0) return;
  int status = 0;
  const pid_t r = ::waitpid(child_, &status, WNOHANG);
  if (r == 0 || (r < 0 && errno == EINTR)) return;
  const std::string temp = file_path(s, "temp-rewriteaof-bg-" + std::to_string(child_) + ".aof");
  bool ok = r == child_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok) {
    AofManifest next;
    const int64_t seq = manifest_.base_seq() + 1;
    const std::string base = AofManifest::base_name(s.config.values().appendfilename, seq, true);
    next.files.push_back({base, seq, 'b'});
    for (const AofManifest::File& f : manifest_.files)
      if (f.type == 'i' && rewrite_incr_seq_ != 0 && f.seq >= rewrite_incr_seq_) next.files.push_back(f);
    ok = ::rename(temp.c_str(), file_path(s, base).c_str()) == 0 && write_manifest(s, next).empty();
    if (ok) {
      log(LogLevel::kNotice, "Successfully renamed the temporary AOF base file into " + base);
      std::set<std::string> kept;
      for (const AofManifest::File& f : next.files) kept.insert(f.name);
      for (const AofManifest::File& f : manifest_.files) {
        if (kept.count(f.name)) continue;
        ::unlink(file_path(s, f.name).c_str());
        log(LogLevel::kNotice, "Removing the history file " + f.name);
      }
      manifest_ = std::move(next);
      base_size_ = file_size(file_path(s, base));
      ++rewrites_;
      log(LogLevel::kNotice, "Background AOF rewrite finished successfully");
    }
  }
  if (!ok) {
    ::unlink(temp.c_str());
    log(LogLevel::kWarning, WIFSIGNALED(status) ? "Background AOF rewrite terminated by signal " +
                                                      std::to_string(WTERMSIG(status))
                                                : std::string("Background AOF rewrite terminated with error"));
  }
  last_rewrite_ok_ = ok;
  last_rewrite_time_s_ = (s.clock.now_ms() - child_start_ms_) / 1000;
  child_ = -1;
  child_start_ms_ = -1;
}

uint64_t AppendOnly::files_size(const ServerState& s) const {
  uint64_t total = 0;
  for (const AofManifest::File& f : manifest_.files) total += file_size(file_path(s, f.name));
  return total + (writer_ ? writer_->buffered() : 0);
}

void AppendOnly::cron(ServerState& s) {
  reap(s);
  if (child_ > 0 || s.snapshots().in_progress()) return;
  const int64_t now = s.clock.now_ms();
  // A rewrite that failed while there is no base yet (appendonly just
  // turned on) is tried again after a while.
  if (scheduled_ || (writer_ && manifest_.base() == nullptr && now - last_rewrite_try_ms_ > kRetryDelayMs)) {
    scheduled_ = false;
    start_rewrite(s);
    return;
  }
  // auto-aof-rewrite-percentage: the files grew by that much past the base.
  const config::Values& v = s.config.values();
  if (!writer_ || v.auto_aof_rewrite_percentage <= 0) return;
  const uint64_t size = files_size(s);
  if (size < static_cast<uint64_t>(v.auto_aof_rewrite_min_size)) return;
  const uint64_t base = base_size_ ? base_size_ : 1;
  if (size > base && (size - base) * 100 / base >= static_cast<uint64_t>(v.auto_aof_rewrite_percentage)) {
    log(LogLevel::kNotice, "Starting automatic rewriting of AOF on " + std::to_string((size - base) * 100 / base) +
                               "% growth");
    start_rewrite(s);
  }
}

std::string AppendOnly::turn_on(ServerState& s) {
  if (writer_) return {};
  if (::mkdir(dir(s).c_str(), 0755) != 0 && errno != EEXIST)
    return "Can't create the append-only dir " + dir(s) + ": " + std::strerror(errno);
  // Files of an earlier time are stale: a fresh base replaces them.
  const std::string manifest_path = file_path(s, AofManifest::manifest_name(s.config.values().appendfilename));
  if (file_exists(manifest_path)) {
    AofManifest old;
    std::string error;
    if (read_manifest(manifest_path, &old, &error))
      for (const AofManifest::File& f : old.files) ::unlink(file_path(s, f.name).c_str());
    ::unlink(manifest_path.c_str());
  }
  manifest_ = AofManifest();
  writer_ = std::make_unique<persistence::AofWriter>();
  writer_->set_policy(policy_of(s.config.values().appendfsync));
  if (std::string error = open_next_incr(s); !error.empty()) {
    writer_.reset();
    return error;
  }
  s.data.effects.attach(this);
  // The base comes from a rewrite (now, or once a BGSAVE ends); the manifest
  // is written when it is there.
  if (start_rewrite(s) == Rewrite::kFailed) return "Background AOF rewrite failed to start";
  return {};
}

void AppendOnly::turn_off(ServerState& s) {
  if (!writer_) return;
  s.data.effects.detach(this);
  if (child_ > 0) {
    ::kill(child_, SIGKILL);
    int status;
    while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
    ::unlink(file_path(s, "temp-rewriteaof-bg-" + std::to_string(child_) + ".aof").c_str());
    child_ = -1;
  }
  scheduled_ = false;
  writer_->close();
  writer_.reset();
}

void AppendOnly::on_shutdown(ServerState& s) {
  if (child_ > 0) {
    log(LogLevel::kWarning, "There is a child rewriting the AOF. Killing it!");
    ::kill(child_, SIGKILL);
    int status;
    while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
    ::unlink(file_path(s, "temp-rewriteaof-bg-" + std::to_string(child_) + ".aof").c_str());
    child_ = -1;
  }
  if (writer_) {
    log(LogLevel::kNotice, "Calling fsync() on the AOF file.");
    writer_->flush();
    writer_->sync();
  }
}

std::string AppendOnly::info_fields(const ServerState& s) const {
  std::string out;
  auto field = [&](std::string_view name, const std::string& value) {
    out.append(name);
    out += ':';
    out += value;
    out += "\r\n";
  };
  const int64_t now = s.clock.now_ms();
  field("aof_enabled", writer_ ? "1" : "0");
  field("aof_rewrite_in_progress", child_ > 0 ? "1" : "0");
  field("aof_rewrite_scheduled", scheduled_ ? "1" : "0");
  field("aof_last_rewrite_time_sec", std::to_string(last_rewrite_time_s_));
  field("aof_current_rewrite_time_sec", std::to_string(child_ > 0 ? (now - child_start_ms_) / 1000 : -1));
  field("aof_last_bgrewrite_status", last_rewrite_ok_ ? "ok" : "err");
  field("aof_rewrites", std::to_string(rewrites_));
  field("aof_rewrites_consecutive_failures", last_rewrite_ok_ ? "0" : "1");
  field("aof_last_write_status", !writer_ || writer_->last_write_ok() ? "ok" : "err");
  field("aof_last_cow_size", "0");
  field("module_fork_in_progress", "0");
  field("module_fork_last_cow_size", "0");
  if (writer_) {
    field("aof_current_size", std::to_string(files_size(s)));
    field("aof_base_size", std::to_string(base_size_));
    field("aof_pending_rewrite", scheduled_ ? "1" : "0");
    field("aof_buffer_length", std::to_string(writer_->buffered()));
    field("aof_pending_bio_fsync", writer_->sync_pending() ? "1" : "0");
    field("aof_delayed_fsync", "0");
  }
  return out;
}

}  // namespace lawnkv
