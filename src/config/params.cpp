// The parameter table, and the directives whose text needs its own parser
// (bind, save, client-output-buffer-limit, notify-keyspace-events, dir...).
// Bounds, defaults, error texts and CONFIG SET access are Redis 7.0's unless
// the row's description says otherwise.

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "config/params.hpp"
#include "core/ascii.hpp"
#include "core/numbers.hpp"

namespace lawnkv::config {

namespace {

constexpr int64_t kIntMin = INT_MIN;
constexpr uint64_t kIntMax = INT_MAX;
constexpr uint64_t kUIntMax = UINT_MAX;
constexpr uint64_t kLongMax = LLONG_MAX;
constexpr uint64_t kULongLongMax = ULLONG_MAX;
constexpr uint64_t kMb = 1024 * 1024;

using Words = std::span<const std::string>;

std::string join(Words words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// strtoll on the whole word, as Redis's special parsers use it: leading
// blanks and a sign are accepted, "" is 0, trailing bytes are not.
bool whole_ll(const std::string& word, long long* out) {
  char* end;
  *out = std::strtoll(word.c_str(), &end, 10);
  return *end == '\0';
}

bool same_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// bind addr [addr ...]: up to 16 addresses; "-" before one makes it optional.
std::string set_bind(Values& v, Words words, bool) {
  if (words.size() > 16) return "Too many bind addresses specified.";
  v.bind.assign(words.begin(), words.end());
  return {};
}
std::string get_bind(const Values& v) { return join(v.bind); }

// save <seconds> <changes> [...] | save "": the snapshot rules
// (durability/snapshots.hpp acts on them).
std::string set_save(Values& v, Words words, bool from_file) {
  size_t n = words.size();
  const bool clear = n == 1 && words[0].empty();
  if (clear) n = 0;
  if (n % 2) return "Invalid save parameters";
  std::string text;
  for (size_t j = 0; j < n; ++j) {
    long long val;
    if (!whole_ll(words[j], &val) || (j % 2 == 0 && val < 1) || (j % 2 == 1 && val < 0))
      return "Invalid save parameters";
    if (!text.empty()) text += ' ';
    text += std::to_string(val);
  }
  // In a file, the first save line replaces the default rules and later
  // lines add to it (Redis: each line is one more rule).
  if (from_file && v.save_read_from_file && !clear && !v.save.empty()) text = v.save + " " + text;
  if (from_file) v.save_read_from_file = true;
  v.save = text;
  return {};
}
std::string get_save(const Values& v) { return v.save; }

// replicaof <host> <port> | replicaof no one (Redis's
// setConfigReplicaOfOption): CONFIG GET prints "host port", or "" on a
// primary. REPLICAOF changes it at run time.
std::string set_replicaof(Values& v, Words words, bool) {
  if (words.size() != 2) return "wrong number of arguments";
  v.replicaof_host.clear();
  v.replicaof_port = 0;
  if (iequals(words[0], "no") && iequals(words[1], "one")) return {};
  // strtol: leading blanks and a sign pass, trailing bytes do not.
  const std::string& text = words[1];
  char* end = nullptr;
  errno = 0;
  const long port = std::strtol(text.c_str(), &end, 10);
  if (port < 0 || port > 65535 || *end != '\0' || errno != 0) return "Invalid master port";
  v.replicaof_host = words[0];
  v.replicaof_port = port;
  return {};
}
std::string get_replicaof(const Values& v) {
  return v.replicaof_host.empty() ? std::string() : v.replicaof_host + " " + std::to_string(v.replicaof_port);
}

OutputLimit* output_class(Values& v, std::string_view name) {
  if (same_nocase(name, "normal")) return &v.output_limit_normal;
  if (same_nocase(name, "slave") || same_nocase(name, "replica")) return &v.output_limit_replica;
  if (same_nocase(name, "pubsub")) return &v.output_limit_pubsub;
  return nullptr;  // "master" too: Redis refuses it here
}

// client-output-buffer-limit <class> <hard> <soft> <soft-seconds> [...]:
// all groups are checked before any is set.
std::string set_output_limits(Values& v, Words words, bool) {
  if (words.size() % 4) return "Wrong number of arguments in buffer limit configuration.";
  Values next = v;
  for (size_t j = 0; j < words.size(); j += 4) {
    OutputLimit* lim = output_class(next, words[j]);
    if (!lim) return "Invalid client class specified in buffer limit configuration.";
    uint64_t hard, soft;
    long long secs_ll;
    // Redis keeps soft_seconds in an int: 2^32 + 60 is 60, 2^31 refused.
    const bool secs_read = whole_ll(words[j + 3], &secs_ll);
    const int secs = static_cast<int>(secs_ll);
    if (!parse_memory(words[j + 1], &hard) || !parse_memory(words[j + 2], &soft) || !secs_read || secs < 0)
      return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
    lim->hard_bytes = static_cast<int64_t>(hard > kLongMax ? kLongMax : hard);
    lim->soft_bytes = static_cast<int64_t>(soft > kLongMax ? kLongMax : soft);
    lim->soft_seconds = secs;
  }
  v.output_limit_normal = next.output_limit_normal;
  v.output_limit_replica = next.output_limit_replica;
  v.output_limit_pubsub = next.output_limit_pubsub;
  return {};
}
std::string get_output_limits(const Values& v) {
  auto group = [](std::string_view name, const OutputLimit& l) {
    return std::string(name) + " " + std::to_string(l.hard_bytes) + " " + std::to_string(l.soft_bytes) + " " +
           std::to_string(l.soft_seconds);
  };
  return group("normal", v.output_limit_normal) + " " + group("slave", v.output_limit_replica) + " " +
         group("pubsub", v.output_limit_pubsub);
}

// maxmemory-clients: a memory value, or a percentage of maxmemory ("10%",
// kept negative as Redis keeps it: -10); a memory value read as a negative
// number (past INT64_MAX) is checked as a percentage, as in Redis.
std::string set_maxmemory_clients(Values& v, Words words, bool) {
  if (words.size() != 1) return "wrong number of arguments";
  const std::string& w = words[0];
  uint64_t bytes;
  long long n;
  if (parse_memory(w, &bytes)) {
    n = static_cast<long long>(bytes);
  } else if (w.size() > 1 && w.back() == '%' && string_to_ll(std::string_view(w).substr(0, w.size() - 1), &n) &&
             n >= 0) {
    n = -n;
  } else {
    return "argument must be a memory or percent value";
  }
  if (n < -100) return "percentage argument must be less or equal to 100";
  v.maxmemory_clients = n;
  return {};
}
std::string get_maxmemory_clients(const Values& v) {
  return v.maxmemory_clients < 0 ? std::to_string(-v.maxmemory_clients) + "%" : std::to_string(v.maxmemory_clients);
}

std::string set_notify(Values& v, Words words, bool) {
  if (words.size() != 1) return "wrong number of arguments";
  uint32_t flags;
  if (!parse_notify_flags(words[0], &flags)) return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
  v.notify_keyspace_events = flags;
  return {};
}
std::string get_notify(const Values& v) { return format_notify_flags(v.notify_keyspace_events); }

// dir must be an existing directory: snapshots are written there (lawnkv
// does not chdir; it joins dir and dbfilename).
std::string set_dir(Values& v, Words words, bool) {
  if (words.size() != 1) return "wrong number of arguments";
  struct stat st;
  if (::stat(words[0].c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return std::strerror(ENOTDIR);
  v.dir = words[0];
  return {};
}
// The absolute path, as Redis prints its working directory.
std::string get_dir(const Values& v) {
  char buf[PATH_MAX];
  return ::realpath(v.dir.c_str(), buf) ? std::string(buf) : v.dir;
}

// oom-score-adj-values <replica> <master> <bgchild>: unused, validated.
std::string set_oom_values(Values& v, Words words, bool) {
  if (words.size() != 3) return "wrong number of arguments";
  std::string text;
  for (const auto& w : words) {
    long long val;
    if (!whole_ll(w, &val) || val < -2000 || val > 2000)
      return "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
    if (!text.empty()) text += ' ';
    text += std::to_string(val);
  }
  v.ignored["oom-score-adj-values"] = text;
  return {};
}
std::string get_oom_values(const Values& v) {
  auto it = v.ignored.find("oom-score-adj-values");
  return it == v.ignored.end() ? "0 200 800" : it->second;
}

// latency-tracking-info-percentiles p [p ...] | "": each a double in
// 0..100.
std::string set_percentiles(Values& v, Words words, bool) {
  std::vector<double> out;
  if (!(words.size() == 1 && words[0].empty())) {
    for (const std::string& w : words) {
      double p;
      if (!string_to_double(w, &p)) return "Invalid latency-tracking-info-percentiles parameters";
      if (p > 100.0 || p < 0.0) return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      out.push_back(p);
    }
  }
  v.latency_percentiles = std::move(out);
  return {};
}
std::string get_percentiles(const Values& v) {
  std::string out;
  for (double p : v.latency_percentiles) {
    if (!out.empty()) out += ' ';
    out += format_percentile(p);
  }
  return out;
}

// Redis keeps hz within 1..500 whatever was asked.
void clamp_hz(Values& v) { v.hz = v.hz < 1 ? 1 : v.hz > 500 ? 500 : v.hz; }

std::string_view only_foreground(std::string_view value) {
  return value == "yes" ? "lawnkv does not daemonize: set daemonize no and run it under a supervisor (systemd...)"
                        : "";
}
bool has_slash(std::string_view s) {
  return s.find('/') != std::string_view::npos || s.find('\\') != std::string_view::npos;
}
std::string_view db_filename(std::string_view s) {
  return has_slash(s) ? "dbfilename can't be a path, just a filename" : "";
}
std::string_view aof_filename(std::string_view s) {
  return has_slash(s) ? "appendfilename can't be a path, just a filename" : "";
}
std::string_view aof_dirname(std::string_view s) {
  return has_slash(s) ? "appenddirname can't be a path, just a dirname" : "";
}

using enum Kind;
using enum Access;

const Param kParams[] = {
    // --- Network: CONFIG SET of bind or port rebinds the listeners (server.cpp), as Redis 7.0.
    {.name = "bind", .kind = kSpecial, .multi_arg = true, .def = "127.0.0.1 -::1",
     .special_set = set_bind, .special_get = get_bind,
     .doc = "Addresses to listen on (up to 16; none: every address, \"* -::*\"); a leading '-' means skip it "
            "if unavailable. CONFIG SET rebinds; connected clients stay."},
    {.name = "port", .kind = kInteger, .def = "6379", .field = &Values::port, .min = 0,
     .max = 65535, .doc = "TCP port (0: no TCP listener). CONFIG SET rebinds; connected clients stay."},
    {.name = "protected-mode", .kind = kBool, .def = "yes", .field = &Values::protected_mode,
     .doc = "Without requirepass, refuse clients that are not on loopback."},
    {.name = "tcp-backlog", .kind = kInteger, .access = kImmutable, .def = "511", .field = &Values::tcp_backlog,
     .min = 0, .max = kIntMax, .doc = "listen() backlog."},
    {.name = "timeout", .kind = kInteger, .def = "0", .field = &Values::timeout, .min = 0, .max = kIntMax,
     .doc = "Close a client idle (nothing read from or written to it) for more than this many seconds "
            "(0: never), as Redis: never a subscriber nor a client blocked on keys. Checked at hz."},
    {.name = "tcp-keepalive", .kind = kInteger, .def = "300", .field = &Values::tcp_keepalive, .min = 0,
     .max = kIntMax, .doc = "TCP keepalive period in seconds (0: off)."},
    {.name = "maxclients", .kind = kInteger, .def = "10000", .field = &Values::maxclients, .min = 1,
     .max = kUIntMax, .doc = "Most clients connected at once; one more is refused with Redis's error."},

    // --- General.
    {.name = "daemonize", .kind = kBool, .access = kImmutable, .def = "no", .field = &Values::daemonize,
     .validate = only_foreground, .doc = "Only no: lawnkv stays in the foreground; yes stops start-up."},
    {.name = "pidfile", .access = kImmutable, .def = "", .field = &Values::pidfile,
     .doc = "File to write the process id to (\"\": none)."},
    {.name = "loglevel", .kind = kEnum, .def = "notice", .field = &Values::loglevel,
     .choices = "debug, verbose, notice, warning", .doc = "Log verbosity."},
    {.name = "logfile", .access = kImmutable, .def = "", .field = &Values::logfile,
     .doc = "Log file (\"\": standard output). Must be writable at start-up."},
    {.name = "databases", .kind = kInteger, .access = kImmutable, .def = "16", .field = &Values::databases,
     .min = 1, .max = kIntMax, .doc = "Number of databases (SELECT 0 .. databases-1)."},
    {.name = "hz", .kind = kInteger, .def = "10", .field = &Values::hz, .min = 0, .max = kIntMax,
     .apply = clamp_hz,
     .doc = "How many times a second the clients cron runs (kept within 1..500): each run closes idle clients "
            "(timeout), looking at clients/hz of them (at least 5), and those over a soft output limit too long. "
            "It runs only while it has such work. Expiry does not poll: the loop sleeps until the next deadline."},
    {.name = "enable-debug-command", .kind = kEnum, .access = kImmutable, .def = "no",
     .field = &Values::enable_debug_command, .choices = "no, yes, local",
     .doc = "DEBUG (SLEEP, SET-ACTIVE-EXPIRE, ADVANCE-TIME...): no, yes, or local (loopback clients only)."},

    // --- Security.
    {.name = "requirepass", .def = "", .field = &Values::requirepass,
     .doc = "The default user's password (\"\": nopass), as Redis: ACL SETUSER default may change it after."},
    {.name = "aclfile", .access = kImmutable, .def = "", .field = &Values::aclfile,
     .doc = "The ACL users' file: read at start, by ACL LOAD, written by ACL SAVE (\"\": none)."},
    {.name = "acl-pubsub-default", .kind = kEnum, .def = "resetchannels", .field = &Values::acl_pubsub_default,
     .choices = "allchannels, resetchannels",
     .doc = "The channels a new ACL user or selector starts with (allchannels: &*)."},

    // --- TLS (server/tls_context.hpp): CONFIG SET of any of these rebuilds the context (new
    // connections use it), as Redis's applyTlsCfg; the files are read again even when the path is
    // unchanged. A context that fails to build leaves the old one and the old values.
    {.name = "tls-port", .kind = kInteger, .def = "0", .field = &Values::tls_port, .min = 0, .max = 65535,
     .doc = "TLS port (0: no TLS listener). CONFIG SET listens anew; connected clients stay."},
    {.name = "tls-cert-file", .always_apply = true, .def = "", .field = &Values::tls_cert_file,
     .doc = "The server's certificate chain (PEM)."},
    {.name = "tls-key-file", .always_apply = true, .def = "", .field = &Values::tls_key_file,
     .doc = "The server's private key (PEM)."},
    {.name = "tls-key-file-pass", .def = "", .field = &Values::tls_key_file_pass,
     .doc = "The passphrase of tls-key-file, if it has one."},
    {.name = "tls-client-cert-file", .always_apply = true, .def = "", .field = &Values::tls_client_cert_file,
     .doc = "Certificate for outgoing connections: loaded and checked, unused (no replication yet)."},
    {.name = "tls-client-key-file", .always_apply = true, .def = "", .field = &Values::tls_client_key_file,
     .doc = "Key of tls-client-cert-file: loaded and checked, unused."},
    {.name = "tls-client-key-file-pass", .def = "", .field = &Values::tls_client_key_file_pass,
     .doc = "The passphrase of tls-client-key-file."},
    {.name = "tls-dh-params-file", .always_apply = true, .def = "", .field = &Values::tls_dh_params_file,
     .doc = "DH parameters (PEM) for DHE ciphers (\"\": OpenSSL's automatic ones)."},
    {.name = "tls-ca-cert-file", .always_apply = true, .def = "", .field = &Values::tls_ca_cert_file,
     .doc = "CA bundle that client certificates are verified against."},
    {.name = "tls-ca-cert-dir", .always_apply = true, .def = "", .field = &Values::tls_ca_cert_dir,
     .doc = "Directory of hashed CA certificates, as tls-ca-cert-file."},
    {.name = "tls-protocols", .def = "", .field = &Values::tls_protocols,
     .doc = "Protocols allowed: any of TLSv1 TLSv1.1 TLSv1.2 TLSv1.3 (\"\": TLSv1.2 TLSv1.3)."},
    {.name = "tls-ciphers", .def = "", .field = &Values::tls_ciphers,
     .doc = "OpenSSL cipher list for TLSv1.2 and below (\"\": OpenSSL's default)."},
    {.name = "tls-ciphersuites", .def = "", .field = &Values::tls_ciphersuites,
     .doc = "OpenSSL ciphersuites for TLSv1.3 (\"\": OpenSSL's default)."},
    {.name = "tls-prefer-server-ciphers", .kind = kBool, .def = "no", .field = &Values::tls_prefer_server_ciphers,
     .doc = "Choose the cipher by the server's order instead of the client's."},
    {.name = "tls-session-caching", .kind = kBool, .def = "yes", .field = &Values::tls_session_caching,
     .doc = "Let clients resume TLS sessions."},
    {.name = "tls-session-cache-size", .kind = kInteger, .def = "20480", .field = &Values::tls_session_cache_size,
     .min = 0, .max = kIntMax, .doc = "Sessions kept for resumption."},
    {.name = "tls-session-cache-timeout", .kind = kInteger, .def = "300",
     .field = &Values::tls_session_cache_timeout, .min = 0, .max = kIntMax,
     .doc = "Seconds a cached session may be resumed."},
    {.name = "tls-auth-clients", .kind = kEnum, .def = "yes", .field = &Values::tls_auth_clients,
     .choices = "no, yes, optional",
     .doc = "Client certificates: yes (required), optional (verified if sent), no (not asked for). Read when "
            "a client connects."},
    {.name = "tls-replication", .kind = kBool, .def = "no", .field = &Values::tls_replication,
     .doc = "Accepted for compatibility: no replication yet (yes needs a CA, as in Redis)."},
    {.name = "tls-cluster", .kind = kBool, .def = "no", .field = &Values::tls_cluster,
     .doc = "Accepted for compatibility: no cluster mode (yes needs a CA, as in Redis)."},

    // --- Limits.
    {.name = "maxmemory", .kind = kMemory, .def = "0", .field = &Values::maxmemory, .min = 0,
     .max = kULongLongMax, .doc = "Memory limit in bytes (0: none); what happens at the limit is maxmemory-policy."},
    {.name = "maxmemory-policy", .kind = kEnum, .def = "noeviction", .field = &Values::maxmemory_policy,
     .choices = "volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, "
                "allkeys-random, noeviction",
     .doc = "What to evict past maxmemory. lawnkv's LRU and LFU use a clock hand over per-key use counters, "
            "and volatile-ttl evicts in exact deadline order (store/eviction.hpp)."},
    {.name = "proto-max-bulk-len", .kind = kMemory, .def = "536870912", .field = &Values::proto_max_bulk_len,
     .min = static_cast<int64_t>(kMb), .max = kLongMax, .doc = "Largest bulk string a request may carry."},
    {.name = "client-query-buffer-limit", .kind = kMemory, .def = "1073741824",
     .field = &Values::client_query_buffer_limit, .min = static_cast<int64_t>(kMb), .max = kLongMax,
     .doc = "A client whose unread input grows past this is closed."},
    {.name = "client-output-buffer-limit", .kind = kSpecial, .multi_arg = true,
     .def = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
     .special_set = set_output_limits, .special_get = get_output_limits,
     .doc = "<class> <hard> <soft> <soft-seconds> per class (normal, replica, pubsub): a client whose pending "
            "output reaches hard, or stays at or above soft for more than soft-seconds, is closed. 0 = no "
            "limit: lawnkv then stops reading a client while 4 MB of its replies wait. Before AUTH, more than "
            "16 KB of pending replies closes a client whatever its class."},

    // --- Keyspace notifications.
    {.name = "notify-keyspace-events", .kind = kSpecial, .def = "", .special_set = set_notify,
     .special_get = get_notify,
     .doc = "Event classes published to __keyspace@db__ / __keyevent@db__ channels (Ag$lshzxeKEtmdn); "
            "\"\" = none. Ex gives expired events, on time."},

    // --- lawnkv's own.
    {.name = "expiry-budget-us", .kind = kInteger, .def = "1000", .field = &Values::expiry_budget_us, .min = 1,
     .max = 1000000,
     .doc = "lawnkv: most microseconds one expiry drain may run per loop iteration; a backlog continues on the "
            "next iteration."},

    // --- Persistence: RDB snapshots (durability/snapshots.hpp).
    {.name = "save", .kind = kSpecial, .multi_arg = true, .def = "3600 1 300 100 60 10000",
     .special_set = set_save, .special_get = get_save,
     .doc = "Snapshot rules: <seconds> <changes> pairs; a BGSAVE starts when that many seconds passed since the "
            "last save with at least that many changes. \"\" = no automatic snapshots."},
    {.name = "dir", .kind = kSpecial, .access = kProtected, .def = ".", .special_set = set_dir,
     .special_get = get_dir,
     .doc = "The directory snapshots are written to and loaded from (must exist)."},
    {.name = "dbfilename", .access = kProtected, .def = "dump.rdb", .field = &Values::dbfilename,
     .validate = db_filename, .doc = "The snapshot's file name, in dir: loaded at start, written by SAVE/BGSAVE."},
    {.name = "rdbcompression", .kind = kBool, .def = "yes", .field = &Values::rdbcompression,
     .doc = "LZF-compress strings longer than 20 bytes in snapshots."},
    {.name = "rdbchecksum", .kind = kBool, .access = kImmutable, .def = "yes", .field = &Values::rdbchecksum,
     .doc = "End snapshots with a CRC-64, and check it when loading (no: write 0, do not check)."},

    // --- Persistence: the append-only file (durability/append_only.hpp).
    {.name = "appendonly", .kind = kBool, .def = "no", .field = &Values::appendonly,
     .doc = "Log every write to the append-only file and load it at start (yes at run time writes a base "
            "from the dataset first)."},
    {.name = "appendfilename", .access = kImmutable, .def = "appendonly.aof", .field = &Values::appendfilename,
     .validate = aof_filename, .doc = "The prefix of the append-only file's parts and manifest."},
    {.name = "appenddirname", .access = kImmutable, .def = "appendonlydir", .field = &Values::appenddirname,
     .validate = aof_dirname, .doc = "The directory, in dir, holding the append-only file's parts."},
    {.name = "appendfsync", .kind = kEnum, .def = "everysec", .field = &Values::appendfsync,
     .choices = "everysec, always, no",
     .doc = "always: a reply to a write leaves after its record is synced (one fdatasync per loop iteration); "
            "everysec: synced by a background thread once a second; no: when the kernel decides."},
    {.name = "aof-load-truncated", .kind = kBool, .def = "yes", .field = &Values::aof_load_truncated,
     .doc = "A last record cut by a crash is cut off with a warning (no: start-up stops)."},
    {.name = "auto-aof-rewrite-percentage", .kind = kInteger, .def = "100",
     .field = &Values::auto_aof_rewrite_percentage, .min = 0, .max = kIntMax,
     .doc = "Rewrite when the files grew this much past the base (0: never by itself)."},
    {.name = "auto-aof-rewrite-min-size", .kind = kMemory, .def = "67108864",
     .field = &Values::auto_aof_rewrite_min_size, .min = 0, .max = kLongMax,
     .doc = "... and are at least this large."},
    {.name = "io-threads", .kind = kInteger, .access = kImmutable, .def = "1", .field = &Values::io_threads,
     .min = 1, .max = 128,
     .doc = "Threads serving clients' sockets, the main one included (server/io_threads.hpp): with N > 1, "
            "N - 1 I/O threads write replies (and read and parse requests with io-threads-do-reads); "
            "commands still run on the main thread, one at a time."},
    {.name = "io-threads-do-reads", .kind = kBool, .access = kImmutable, .def = "no",
     .field = &Values::io_threads_do_reads,
     .doc = "With io-threads > 1, the I/O threads also read and parse requests (no: the main thread reads)."},

    // --- Accepted for compatibility with existing configs; no effect.
    {.name = "always-show-logo", .kind = kBool, .access = kImmutable, .used = false, .def = "no",
     .doc = "Unused: lawnkv prints no logo."},
    {.name = "set-proc-title", .kind = kBool, .access = kImmutable, .used = false, .def = "yes", .doc = "Unused."},
    {.name = "proc-title-template", .used = false, .def = "{title} {listen-addr} {server-mode}",
     .doc = "Unused (not validated)."},
    {.name = "supervised", .kind = kEnum, .access = kImmutable, .used = false, .def = "no",
     .choices = "upstart, systemd, auto, no", .doc = "Unused: lawnkv sends no readiness notification."},
    {.name = "syslog-enabled", .kind = kBool, .access = kImmutable, .used = false, .def = "no",
     .doc = "Unused: lawnkv logs to logfile only."},
    {.name = "syslog-ident", .access = kImmutable, .used = false, .def = "redis", .doc = "Unused."},
    {.name = "syslog-facility", .kind = kEnum, .access = kImmutable, .used = false, .def = "local0",
     .choices = "user, local0, local1, local2, local3, local4, local5, local6, local7", .doc = "Unused."},
    {.name = "crash-log-enabled", .kind = kBool, .used = false, .def = "yes", .doc = "Unused."},
    {.name = "crash-memcheck-enabled", .kind = kBool, .used = false, .def = "yes", .doc = "Unused."},
    {.name = "disable-thp", .kind = kBool, .access = kImmutable, .used = false, .def = "yes", .doc = "Unused."},
    {.name = "jemalloc-bg-thread", .kind = kBool, .used = false, .def = "yes",
     .doc = "Unused: lawnkv uses the system allocator."},
    {.name = "oom-score-adj", .kind = kEnum, .used = false, .def = "no", .choices = "no, yes, relative, absolute",
     .doc = "Unused."},
    {.name = "oom-score-adj-values", .kind = kSpecial, .multi_arg = true, .used = false, .def = "0 200 800",
     .special_set = set_oom_values, .special_get = get_oom_values, .doc = "Unused."},
    {.name = "shutdown-timeout", .kind = kInteger, .used = false, .def = "10", .min = 0, .max = kIntMax,
     .doc = "Unused: there are no replicas to wait for."},
    {.name = "active-expire-effort", .kind = kInteger, .used = false, .def = "1", .min = 1, .max = 10,
     .doc = "Unused: lawnkv's expiry keeps an ordered due-list instead of sampling (see expiry-budget-us)."},
    {.name = "dynamic-hz", .kind = kBool, .used = false, .def = "yes", .doc = "Unused."},
    {.name = "activerehashing", .kind = kBool, .used = false, .def = "yes", .doc = "Unused."},
    {.name = "activedefrag", .kind = kBool, .used = false, .def = "no", .doc = "Unused."},
    {.name = "active-defrag-cycle-min", .kind = kInteger, .used = false, .def = "1", .min = 1, .max = 99,
     .doc = "Unused."},
    {.name = "active-defrag-cycle-max", .kind = kInteger, .used = false, .def = "25", .min = 1, .max = 99,
     .doc = "Unused."},
    {.name = "active-defrag-threshold-lower", .kind = kInteger, .used = false, .def = "10", .min = 0,
     .max = 1000, .doc = "Unused."},
    {.name = "active-defrag-threshold-upper", .kind = kInteger, .used = false, .def = "100", .min = 0,
     .max = 1000, .doc = "Unused."},
    {.name = "active-defrag-ignore-bytes", .kind = kMemory, .used = false, .def = "104857600", .min = 1,
     .max = kLongMax, .doc = "Unused."},
    {.name = "active-defrag-max-scan-fields", .kind = kInteger, .used = false, .def = "1000", .min = 1,
     .max = kLongMax, .doc = "Unused."},
    {.name = "ignore-warnings", .used = false, .def = "", .doc = "Unused: lawnkv logs no kernel warnings."},
    // Redis's test hooks, which CONFIG GET shows only by their exact name.
    {.name = "key-load-delay", .kind = kInteger, .hidden = true, .def = "0", .field = &Values::key_load_delay,
     .min = kIntMin, .max = kIntMax,
     .doc = "Microseconds slept after each key a replica's full sync loads (negative -n: 1 us per n keys); "
            "a test hook, as Redis's."},
    {.name = "rdb-key-save-delay", .kind = kInteger, .used = false, .hidden = true, .def = "0", .min = kIntMin,
     .max = kIntMax, .doc = "Unused (Redis: a delay per key saved, for its tests)."},
    {.name = "watchdog-period", .kind = kInteger, .used = false, .hidden = true, .def = "0", .min = 0,
     .max = kIntMax, .doc = "Unused (Redis: the software watchdog, DEBUG WATCHDOG)."},
    {.name = "use-exit-on-panic", .kind = kBool, .used = false, .hidden = true, .def = "no",
     .doc = "Unused (Redis: exit() instead of abort() on a panic, for its tests)."},
    {.name = "loading-process-events-interval-bytes", .kind = kInteger, .used = false, .hidden = true,
     .def = "2097152", .min = 1024, .max = kIntMax,
     .doc = "Unused (Redis: bytes loaded between event-loop turns while loading)."},
    {.name = "latency-tracking", .kind = kBool, .def = "yes", .field = &Values::latency_tracking,
     .doc = "Keep a latency histogram per command (INFO latencystats, LATENCY HISTOGRAM)."},
    {.name = "latency-tracking-info-percentiles", .kind = kSpecial, .multi_arg = true, .def = "50 99 99.9",
     .special_set = set_percentiles, .special_get = get_percentiles,
     .doc = "The percentiles INFO latencystats shows (each 0..100; \"\" for none)."},
    {.name = "latency-monitor-threshold", .kind = kInteger, .def = "0",
     .field = &Values::latency_monitor_threshold, .min = 0, .max = kLongMax,
     .doc = "Commands that run at least this many ms are LATENCY events (0: the monitor is off)."},
    {.name = "slowlog-log-slower-than", .kind = kInteger, .def = "10000",
     .field = &Values::slowlog_log_slower_than, .min = -1, .max = kLongMax,
     .doc = "Commands that run at least this many microseconds go to the SLOWLOG (-1: none, 0: all)."},
    {.name = "slowlog-max-len", .kind = kInteger, .def = "128", .field = &Values::slowlog_max_len, .min = 0,
     .max = kLongMax, .doc = "The most entries the SLOWLOG keeps (the oldest go first)."},
    {.name = "acllog-max-len", .kind = kInteger, .def = "128", .field = &Values::acllog_max_len, .min = 0,
     .max = kLongMax, .doc = "The most entries the ACL LOG keeps (the oldest go first)."},
    {.name = "busy-reply-threshold", .alias = "lua-time-limit", .kind = kInteger, .def = "5000",
     .field = &Values::busy_reply_threshold, .min = 0, .max = kLongMax,
     .doc = "Milliseconds a script may run; past them it is stopped with an error (0: no limit). "
            "Redis instead answers other clients BUSY meanwhile."},
    {.name = "maxmemory-samples", .kind = kInteger, .used = false, .def = "5", .min = 1, .max = kIntMax,
     .doc = "Unused: lawnkv's policies do not sample (a clock hand, or the expiry index for volatile-ttl)."},
    {.name = "maxmemory-eviction-tenacity", .kind = kInteger, .def = "10",
     .field = &Values::maxmemory_eviction_tenacity, .min = 0, .max = 100,
     .doc = "How long one command may evict before the rest goes on in the event loop, as Redis: "
            "50 us x tenacity up to 10, then growing 15% a step; 100: no limit."},
    {.name = "maxmemory-clients", .kind = kSpecial, .def = "0", .special_set = set_maxmemory_clients,
     .special_get = get_maxmemory_clients,
     .doc = "Memory all normal and pubsub clients may hold together (buffers and the client itself), in bytes "
            "or as a percentage of maxmemory (0: no limit; at least 128 KB): past it the clients using the most "
            "are disconnected, except those with CLIENT NO-EVICT on (server/client_eviction.hpp)."},
    {.name = "lfu-log-factor", .kind = kInteger, .def = "10", .field = &Values::lfu_log_factor, .min = 0,
     .max = kIntMax, .doc = "How slowly LFU use counters grow with accesses (Redis's rule, on a 0..7 counter)."},
    {.name = "lfu-decay-time", .kind = kInteger, .used = false, .def = "1", .min = 0, .max = kIntMax,
     .doc = "Unused: LFU counters decay by one at each pass of the eviction hand, not by the minute."},
    {.name = "lazyfree-lazy-eviction", .kind = kBool, .used = false, .def = "no", .doc = "Unused."},
    {.name = "lazyfree-lazy-expire", .kind = kBool, .used = false, .def = "no", .doc = "Unused."},
    {.name = "lazyfree-lazy-server-del", .kind = kBool, .used = false, .def = "no", .doc = "Unused."},
    {.name = "lazyfree-lazy-user-del", .kind = kBool, .used = false, .def = "no", .doc = "Unused."},
    {.name = "lazyfree-lazy-user-flush", .kind = kBool, .used = false, .def = "no", .doc = "Unused."},
    {.name = "tracking-table-max-keys", .kind = kInteger, .def = "1000000",
     .field = &Values::tracking_table_max_keys, .min = 0, .max = kLongMax,
     .doc = "Keys the client-side caching table remembers (CLIENT TRACKING); past it, keys picked at "
            "random are dropped and their clients told, as if they had changed (0: no bound)."},
    // Encodings of the value types, and of those lawnkv does not have yet.
    {.name = "hash-max-listpack-entries", .alias = "hash-max-ziplist-entries", .kind = kInteger, .def = "512",
     .field = &Values::hash_max_listpack_entries, .min = 0, .max = kLongMax,
     .doc = "A hash with more fields than this is a hashtable (OBJECT ENCODING), for good."},
    {.name = "hash-max-listpack-value", .alias = "hash-max-ziplist-value", .kind = kMemory, .def = "64",
     .field = &Values::hash_max_listpack_value, .min = 0, .max = kLongMax,
     .doc = "A hash with a field or value longer than this is a hashtable, for good."},
    {.name = "list-max-listpack-size", .alias = "list-max-ziplist-size", .kind = kInteger, .def = "-2",
     .field = &Values::list_max_listpack_size, .min = kIntMin, .max = kIntMax,
     .doc = "How full a list node gets before a push starts another: -1..-5 = 4, 8, 16, 32, 64 KiB of "
            "elements (below -5 as -5), a positive n = n elements (and at most 8 KiB), 0 = one element."},
    {.name = "list-compress-depth", .kind = kInteger, .used = false, .def = "0", .min = 0, .max = kIntMax,
     .doc = "Accepted and ignored: list nodes are never compressed."},
    {.name = "set-max-intset-entries", .kind = kInteger, .def = "512", .field = &Values::set_max_intset_entries,
     .min = 0, .max = kLongMax,
     .doc = "A set of integers only keeps the compact \"intset\" encoding up to this many members (at most 2^30); "
            "past it, or at its first non-integer member, it becomes a hash table for good."},
    {.name = "zset-max-listpack-entries", .alias = "zset-max-ziplist-entries", .kind = kInteger, .def = "128",
     .field = &Values::zset_max_listpack_entries, .min = 0, .max = kLongMax,
     .doc = "A sorted set with more members than this is a skiplist (OBJECT ENCODING), for good."},
    {.name = "zset-max-listpack-value", .alias = "zset-max-ziplist-value", .kind = kMemory, .def = "64",
     .field = &Values::zset_max_listpack_value, .min = 0, .max = kLongMax,
     .doc = "A sorted set with a member longer than this is a skiplist, for good."},
    {.name = "hll-sparse-max-bytes", .kind = kMemory, .def = "3000", .field = &Values::hll_sparse_max_bytes,
     .min = 0, .max = kLongMax,
     .doc = "A sparse HyperLogLog (header included) longer than this turns dense (12304 bytes), for good."},
    {.name = "stream-node-max-bytes", .kind = kMemory, .def = "4096", .field = &Values::stream_node_max_bytes,
     .min = 0, .max = kLongMax, .doc = "A stream node holds at most about this many bytes (0: no limit)."},
    {.name = "stream-node-max-entries", .kind = kInteger, .def = "100", .field = &Values::stream_node_max_entries,
     .min = 0, .max = kLongMax, .doc = "A stream node holds at most this many entries, tombstones included (0: no limit)."},
    // Persistence tuning.
    {.name = "no-appendfsync-on-rewrite", .kind = kBool, .used = false, .def = "no",
     .doc = "Unused: syncs go on during a rewrite (the child writes another file)."},
    {.name = "aof-use-rdb-preamble", .kind = kBool, .used = false, .def = "yes",
     .doc = "Unused: the append-only file's base is always an RDB file."},
    {.name = "aof-timestamp-enabled", .kind = kBool, .used = false, .def = "no",
     .doc = "Unused: no timestamp annotations are written."},
    {.name = "aof-disable-auto-gc", .kind = kBool, .used = false, .def = "no",
     .doc = "Unused: the history files of a rewrite are deleted when it completes."},
    {.name = "aof-rewrite-incremental-fsync", .kind = kBool, .used = false, .def = "yes",
     .doc = "Unused: the rewrite's base is synced once, when written."},
    {.name = "stop-writes-on-bgsave-error", .kind = kBool, .used = false, .def = "yes",
     .doc = "Unused: a failed BGSAVE does not stop writes (INFO's rdb_last_bgsave_status tells)."},
    {.name = "rdb-del-sync-files", .kind = kBool, .used = false, .def = "no", .doc = "Unused: no replication."},
    {.name = "rdb-save-incremental-fsync", .kind = kBool, .used = false, .def = "yes",
     .doc = "Unused: snapshots are fsynced once, at the end."},
    // --- Replication, the replica's side (src/replication/).
    {.name = "replicaof", .alias = "slaveof", .kind = kSpecial, .access = kImmutable, .multi_arg = true,
     .def = "", .special_set = set_replicaof, .special_get = get_replicaof,
     .doc = "<host> <port>: replicate that primary (REPLICAOF at run time; \"\" = a primary)."},
    {.name = "masterauth", .def = "", .field = &Values::masterauth,
     .doc = "The password the replica sends the primary (AUTH) before syncing; \"\" = none."},
    {.name = "masteruser", .def = "", .field = &Values::masteruser,
     .doc = "The ACL user of masterauth's AUTH; \"\" = AUTH <password> alone."},
    {.name = "replica-serve-stale-data", .alias = "slave-serve-stale-data", .kind = kBool, .def = "yes",
     .field = &Values::replica_serve_stale_data,
     .doc = "A replica whose link is down or still syncing serves its data; no: commands without the stale "
            "flag get -MASTERDOWN."},
    {.name = "replica-read-only", .alias = "slave-read-only", .kind = kBool, .def = "yes",
     .field = &Values::replica_read_only,
     .doc = "A replica refuses clients' writes with -READONLY (its primary's stream still applies)."},
    // Replication tuning.
    {.name = "replica-priority", .alias = "slave-priority", .kind = kInteger, .def = "100",
     .field = &Values::replica_priority, .min = 0, .max = kIntMax,
     .doc = "A replica's rank for Sentinel's promotion, lowest first; 0 = never promoted (INFO slave_priority)."},
    {.name = "replica-announce-ip", .alias = "slave-announce-ip", .def = "", .field = &Values::replica_announce_ip,
     .doc = "The address a replica gives its primary (REPLCONF ip-address), listed by INFO and Sentinel; \"\" = "
            "the link's own."},
    {.name = "replica-announce-port", .alias = "slave-announce-port", .kind = kInteger, .def = "0",
     .field = &Values::replica_announce_port, .min = 0, .max = 65535,
     .doc = "The port a replica gives its primary (REPLCONF listening-port); 0 = its own port."},
    {.name = "replica-announced", .kind = kBool, .def = "yes", .field = &Values::replica_announced,
     .doc = "no: Sentinel leaves this replica out of SENTINEL REPLICAS (INFO replica_announced)."},
    {.name = "replica-lazy-flush", .alias = "slave-lazy-flush", .kind = kBool, .used = false, .def = "no",
     .doc = "Unused: no replication."},
    {.name = "replica-ignore-maxmemory", .alias = "slave-ignore-maxmemory", .kind = kBool, .used = false,
     .def = "yes", .doc = "Unused: no replication."},
    {.name = "repl-diskless-sync", .kind = kBool, .def = "yes", .field = &Values::repl_diskless_sync,
     .doc = "A full sync's snapshot goes from a forked child through a pipe to the replicas' sockets "
            "($EOF:<mark> form), not through dir/dbfilename; replicas without capa eof get the disk form."},
    {.name = "repl-diskless-sync-delay", .kind = kInteger, .def = "5", .field = &Values::repl_diskless_sync_delay,
     .min = 0, .max = kIntMax,
     .doc = "Seconds a diskless sync waits from the first replica's PSYNC for more to join its child."},
    {.name = "repl-diskless-sync-max-replicas", .kind = kInteger, .def = "0",
     .field = &Values::repl_diskless_sync_max_replicas, .min = 0, .max = kIntMax,
     .doc = "A diskless sync starts before its delay once this many replicas wait (0: only the delay)."},
    {.name = "repl-diskless-load", .kind = kEnum, .def = "disabled", .field = &Values::repl_diskless_load,
     .choices = "disabled, on-empty-db, swapdb",
     .doc = "A replica's full sync: the snapshot through a temp file (disabled), or parsed from memory without "
            "one when the dataset is empty (on-empty-db) or always (swapdb: reads served from the old dataset "
            "while the same history loads)."},
    {.name = "repl-disable-tcp-nodelay", .kind = kBool, .used = false, .def = "no",
     .doc = "Unused: no replication."},
    {.name = "repl-backlog-size", .kind = kMemory, .def = "1048576", .field = &Values::repl_backlog_size, .min = 1,
     .max = kLongMax, .doc = "Bytes of the replication stream kept for replicas' partial resyncs."},
    {.name = "repl-backlog-ttl", .kind = kInteger, .def = "3600", .field = &Values::repl_backlog_ttl, .min = 0,
     .max = kLongMax,
     .doc = "Seconds a primary without replicas keeps its backlog before freeing it (and changing its replid); "
            "0: never freed. A replica keeps its own."},
    {.name = "repl-timeout", .kind = kInteger, .def = "60", .field = &Values::repl_timeout, .min = 1, .max = kIntMax,
     .doc = "Seconds without a sign of life before a replication link counts as lost."},
    {.name = "repl-ping-replica-period", .alias = "repl-ping-slave-period", .kind = kInteger, .def = "10",
     .field = &Values::repl_ping_replica_period, .min = 1, .max = kIntMax,
     .doc = "Seconds between the PINGs a primary puts in its replication stream."},
    {.name = "min-replicas-to-write", .alias = "min-slaves-to-write", .kind = kInteger, .def = "0",
     .field = &Values::min_replicas_to_write, .min = 0, .max = kIntMax,
     .doc = "A primary refuses writes with -NOREPLICAS unless this many replicas are good (0 = no check)."},
    {.name = "min-replicas-max-lag", .alias = "min-slaves-max-lag", .kind = kInteger, .def = "10",
     .field = &Values::min_replicas_max_lag, .min = 0, .max = kIntMax,
     .doc = "A good replica acknowledged within this many seconds (0 = no check)."},
};

}  // namespace

std::span<const Param> params() { return kParams; }

const Param* find_param(std::string_view name) {
  for (const Param& p : kParams)
    if (same_nocase(p.name, name) || (!p.alias.empty() && same_nocase(p.alias, name))) return &p;
  return nullptr;
}

}  // namespace lawnkv::config
