#pragma once
// The typed configuration values (read directly on the hot path) and the
// versions lawnkv reports; the parameter table (params.hpp) converts them to
// and from Redis's text forms, and Config (config.hpp) loads and sets them.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
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
  int64_t acllog_max_len = 128;                 // ACL LOG entries kept
  std::string aclfile;                          // ACL LOAD / SAVE's file, read at start ("": none)
  // The config file's `user <name> <rules...>` lines (words after "user"),
  // in order: the ACL users created at start-up.
  std::vector<std::vector<std::string>> users;
  std::string acl_pubsub_default = "resetchannels";  // or "allchannels": new users' channels
  // TLS (server/tls_context.hpp), as Redis 7.0's tls-* directives. tls_port 0:
  // no TLS listener. The client-side files are checked when the context is
  // built (lawnkv makes no outgoing TLS connections yet).
  int64_t tls_port = 0;
  std::string tls_cert_file, tls_key_file, tls_key_file_pass;
  std::string tls_client_cert_file, tls_client_key_file, tls_client_key_file_pass;
  std::string tls_dh_params_file, tls_ca_cert_file, tls_ca_cert_dir;
  std::string tls_protocols;     // "TLSv1.2 TLSv1.3"... ("": TLSv1.2 and TLSv1.3)
  std::string tls_ciphers;       // TLSv1.2 and below, OpenSSL's cipher list ("": OpenSSL's default)
  std::string tls_ciphersuites;  // TLSv1.3 ("": OpenSSL's default)
  std::string tls_auth_clients = "yes";  // yes | no | optional: client certificates
  bool tls_prefer_server_ciphers = false;
  bool tls_session_caching = true;
  int64_t tls_session_cache_size = 20480;
  int64_t tls_session_cache_timeout = 300;  // seconds
  bool tls_replication = false;  // accepted: no replication yet
  bool tls_cluster = false;      // accepted: no cluster mode
  int64_t maxclients = 10000;
  int64_t timeout = 0;            // idle seconds before a client is closed (0 = never)
  int64_t slowlog_log_slower_than = 10000;  // µs; -1: no slow log, 0: every command
  int64_t slowlog_max_len = 128;
  int64_t latency_monitor_threshold = 0;    // ms; 0: no latency monitor
  bool latency_tracking = true;             // a latency histogram per command
  std::vector<double> latency_percentiles = {50.0, 99.0, 99.9};  // INFO latencystats'
  int64_t tcp_keepalive = 300;
  int64_t tcp_backlog = 511;
  int64_t io_threads = 1;            // threads serving sockets, the main one included
  bool io_threads_do_reads = false;  // with io_threads > 1: I/O threads read and parse too
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  int64_t client_query_buffer_limit = 1024LL * 1024 * 1024;
  OutputLimit output_limit_normal{0, 0, 0};
  OutputLimit output_limit_replica{256LL << 20, 64LL << 20, 60};
  OutputLimit output_limit_pubsub{32LL << 20, 8LL << 20, 60};
  // Replication (src/replication/).
  int64_t repl_backlog_size = 1024 * 1024;  // bytes of stream kept for partial resyncs
  int64_t repl_backlog_ttl = 3600;          // seconds a primary without replicas keeps its backlog (0: for ever)
  int64_t repl_ping_replica_period = 10;    // seconds between the PINGs a primary sends its replicas
  int64_t repl_timeout = 60;                // seconds
  std::string repl_diskless_load = "disabled";  // disabled | on-empty-db | swapdb
  bool repl_diskless_sync = true;             // a full sync's image through a pipe, not dir/dbfilename
  int64_t repl_diskless_sync_delay = 5;       // seconds a diskless batch gathers replicas
  int64_t repl_diskless_sync_max_replicas = 0;  // this many waiting start it at once (0: no limit)
  int64_t key_load_delay = 0;               // us slept per key loaded (< 0: 1 us per -n keys); a test hook
  std::string enable_debug_command = "no";  // no | yes | local
  uint32_t notify_keyspace_events = 0;      // pubsub::EventClass bits
  int64_t hz = 10;
  std::string loglevel = "notice";
  std::string logfile;                      // "" = stdout
  std::string pidfile;
  bool daemonize = false;
  int64_t maxmemory = 0;
  std::string maxmemory_policy = "noeviction";
  int64_t maxmemory_clients = 0;  // bytes; negative: a percentage of maxmemory (-10 = "10%"); 0: no limit
  int64_t maxmemory_eviction_tenacity = 10;
  int64_t busy_reply_threshold = 5000;  // ms a script runs before it is stopped (lua-time-limit)
  int64_t lfu_log_factor = 10;
  int64_t tracking_table_max_keys = 1000000;  // keys in the client-side caching table (0: no bound)
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  int64_t list_max_listpack_size = -2;   // a list node's fill: -1..-5 = 4..64 KiB, n > 0 = n elements
  int64_t set_max_intset_entries = 512;  // the most members of an "intset" set
  int64_t stream_node_max_bytes = 4096;    // a stream node's bytes (types/stream.hpp)
  int64_t stream_node_max_entries = 100;   // a stream node's entries, tombstones included
  int64_t zset_max_listpack_entries = 128;  // the most members of a "listpack" zset
  int64_t zset_max_listpack_value = 64;     // its longest member
  int64_t hll_sparse_max_bytes = 3000;      // the longest sparse HyperLogLog, header included
  std::string dir = ".";
  std::string dbfilename = "dump.rdb";
  std::string appendfilename = "appendonly.aof";
  // save rules, "<seconds> <changes> ..." ("" = none): a BGSAVE starts once
  // that many seconds passed with at least that many changes.
  std::string save = "3600 1 300 100 60 10000";
  bool save_read_from_file = false;  // a file's first save line replaces the default
  bool rdbcompression = true;
  bool rdbchecksum = true;
  // The append-only file (durability/append_only.hpp).
  bool appendonly = false;
  std::string appenddirname = "appendonlydir";
  std::string appendfsync = "everysec";  // always | everysec | no
  bool aof_load_truncated = true;
  int64_t auto_aof_rewrite_percentage = 100;
  int64_t auto_aof_rewrite_min_size = 64LL << 20;
  // Replication, the replica's side (src/replication/): the primary it
  // replicates ("" = none: a primary), and how.
  std::string replicaof_host;
  int64_t replicaof_port = 0;
  std::string masterauth;        // AUTH to the primary with this password ("" = none)
  std::string masteruser;        // ... as this user ("" = AUTH <password> alone)
  bool replica_read_only = true;         // refuse client writes on a replica
  bool replica_serve_stale_data = true;  // serve reads while the link is down or syncing
  // What a replica tells of itself (INFO replication, the handshake), which
  // Sentinel reads: its rank for promotion (0 = never), the address its
  // primary lists ("" / 0 = the link's own), whether Sentinel lists it.
  int64_t replica_priority = 100;
  std::string replica_announce_ip;
  int64_t replica_announce_port = 0;
  bool replica_announced = true;
  // A primary refuses writes (-NOREPLICAS) unless this many replicas
  // acknowledged within min_replicas_max_lag seconds (0, 0: no check).
  int64_t min_replicas_to_write = 0;
  int64_t min_replicas_max_lag = 10;
  // lawnkv's own: how long one expiry drain may run per loop iteration.
  int64_t expiry_budget_us = 1000;
  // Parameters accepted for compatibility and not used (params.hpp rows
  // with used = false), by name, in their CONFIG GET form; absent = default.
  std::map<std::string, std::string> ignored;
};

}  // namespace lawnkv::config
