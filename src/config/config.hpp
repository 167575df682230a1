#pragma once
// Server configuration: one declarative table of parameters (name, type,
// default, whether CONFIG SET may change it, description) that drives
// redis.conf parsing, command-line overrides, CONFIG GET/SET/RESETSTAT-free
// reads, and INFO. The typed values live in Values, read directly on the hot
// path; the table converts them to and from Redis's text forms.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lawnkv::config {

// The Redis release whose replies lawnkv reproduces (INFO redis_version, the
// fatal config error banner) and lawnkv's own version (INFO lawnkv_version).
inline constexpr std::string_view kRedisVersion = "7.0.15";
inline constexpr std::string_view kLawnkvVersion = "0.1.0";

// client-output-buffer-limit <class> <hard> <soft> <soft-seconds>
struct OutputLimit {
  int64_t hard_bytes = 0;
  int64_t soft_bytes = 0;
  int64_t soft_seconds = 0;
};

struct Values {
  int64_t port = 6379;
  std::vector<std::string> bind = {"127.0.0.1", "-::1"};
  int64_t databases = 16;
  bool protected_mode = true;
  std::string requirepass;
  int64_t maxclients = 10000;
  int64_t timeout = 0;            // idle seconds before a client is closed (0 = never)
  int64_t tcp_keepalive = 300;
  int64_t tcp_backlog = 511;
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  int64_t client_query_buffer_limit = 1024LL * 1024 * 1024;
  OutputLimit output_limit_normal{0, 0, 0};
  OutputLimit output_limit_replica{256LL << 20, 64LL << 20, 60};
  OutputLimit output_limit_pubsub{32LL << 20, 8LL << 20, 60};
  std::string enable_debug_command = "no";  // no | yes | local
  uint32_t notify_keyspace_events = 0;      // pubsub::EventClass bits
  int64_t hz = 10;
  std::string loglevel = "notice";
  std::string logfile;                      // "" = stdout
  std::string pidfile;
  bool daemonize = false;
  int64_t maxmemory = 0;
  std::string maxmemory_policy = "noeviction";
  int64_t maxmemory_eviction_tenacity = 10;
  int64_t busy_reply_threshold = 5000;  // ms a script runs before it is stopped (lua-time-limit)
  int64_t lfu_log_factor = 10;
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  int64_t list_max_listpack_size = -2;   // a list node's fill: -1..-5 = 4..64 KiB, n > 0 = n elements
  int64_t set_max_intset_entries = 512;  // the most members of an "intset" set
  int64_t zset_max_listpack_entries = 128;  // the most members of a "listpack" zset
  int64_t zset_max_listpack_value = 64;     // its longest member
  std::string dir = ".";
  std::string dbfilename = "dump.rdb";
  std::string appendfilename = "appendonly.aof";
  // save rules, "<seconds> <changes> ..." ("" = none): a BGSAVE starts once
  // that many seconds passed with at least that many changes.
  std::string save = "3600 1 300 100 60 10000";
  bool save_read_from_file = false;  // a file's first save line replaces the default
  bool rdbcompression = true;
  bool rdbchecksum = true;
  // The append-only file (commands/append_only.hpp).
  bool appendonly = false;
  std::string appenddirname = "appendonlydir";
  std::string appendfsync = "everysec";  // always | everysec | no
  bool aof_load_truncated = true;
  int64_t auto_aof_rewrite_percentage = 100;
  int64_t auto_aof_rewrite_min_size = 64LL << 20;
  // lawnkv's own: how long one expiry drain may run per loop iteration.
  int64_t expiry_budget_us = 1000;
  // Parameters accepted for compatibility and not used (params.hpp rows
  // with used = false), by name, in their CONFIG GET form; absent = default.
  std::map<std::string, std::string> ignored;
};

// The result of a load or set: empty error = success.
struct Status {
  std::string error;
  bool ok() const { return error.empty(); }
};

class Config {
 public:
  Config();

  // Reads redis.conf text. A bad line stops with Redis's fatal-config text
  // naming the line: "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n
  // Reading the configuration file, at line 3\n>>> 'foo bar'\nBad directive
  // or wrong number of arguments" (the caller prints it plus a newline to
  // stderr and exits 1). Parameters set before the bad line keep their value.
  Status load_text(std::string_view text);
  Status load_file(const std::string& path);
  // `--name value [value...]` pairs after the config file, as redis-server:
  // they become lines appended to the file, so errors name the line numbers
  // redis-server names (the file's line count + 2 for the first option).
  Status load_args(const std::vector<std::string>& args);

  // CONFIG SET name value [name value ...]: all or nothing; error is the
  // exact Redis reply text (without "-").
  Status set(const std::vector<std::pair<std::string, std::string>>& pairs);
  // CONFIG GET pattern...: name/value pairs whose name matches any glob
  // (no case), in table order. As Redis: a pattern without glob characters
  // returns the name as typed; a pattern matches aliases too
  // ("slave-read-only"); no name is listed twice.
  std::vector<std::pair<std::string, std::string>> get(const std::vector<std::string_view>& patterns) const;

  const Values& values() const { return values_; }
  Values& mutable_values() { return values_; }
  const std::string& file() const { return file_; }

 private:
  Status load_lines(std::string_view text, int first_line, int depth);
  Status load_file_at(const std::string& path, int depth, size_t* newlines);

  Values values_;
  std::string file_;         // absolute path of the config file, "" if none
  size_t file_newlines_ = 0;  // '\n' bytes of the file and stdin text: where load_args' lines start
};

}  // namespace lawnkv::config
