// INFO [section ...]: "# Section" headers and name:value lines joined by
// CRLF, as redis-server 7.0 writes them, so clients that parse INFO (redis-py,
// monitoring agents) read lawnkv unchanged. Field names are Redis 7.0's where
// Redis has the figure; what lawnkv cannot have (forks, replicas, AOF) is
// reported as Redis reports it when idle. lawnkv adds lawnkv_version and an
// "expiry" section: how many keys expired, by which path, and how late.
//
// Sections: server clients memory persistence stats expiry replication cpu
// modules (empty: lawnkv loads none) errorstats cluster keyspace (the default
// set, in Redis 7.0's order with expiry after stats), commandstats and
// latencystats (with "all"). Unknown names are ignored; nothing matched replies "".

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "commands/memory_figures.hpp"
#include "commands/server_family.hpp"
#include "config/params.hpp"
#include "core/allocator.hpp"
#include "durability/append_only.hpp"
#include "durability/snapshots.hpp"
#include "pubsub/hub.hpp"
#include "replication/replication.hpp"
#include "scripting/runtime.hpp"

namespace lawnkv {

namespace {

// Appends "name:value\r\n".
void field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out += ':';
  out.append(value);
  out += "\r\n";
}
void field(std::string& out, std::string_view name, const std::string& value) {
  field(out, name, std::string_view(value));
}
void field(std::string& out, std::string_view name, const char* value) { field(out, name, std::string_view(value)); }
template <class Int>
void field(std::string& out, std::string_view name, Int value) {
  field(out, name, std::to_string(value));
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string timeval_seconds(const timeval& tv) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(tv.tv_sec), static_cast<long>(tv.tv_usec));
  return buf;
}

void server_section(const Call& call, std::string& out) {
  const ServerState& s = call.server;
  struct utsname name;
  uname(&name);
  const int64_t now_us = s.clock.now_us();
  const int64_t uptime = (now_us / 1000 - s.facts.start_ms) / 1000;
  field(out, "redis_version", config::kRedisVersion);
  field(out, "lawnkv_version", config::kLawnkvVersion);
  field(out, "redis_git_sha1", "00000000");
  field(out, "redis_git_dirty", 0);
  field(out, "redis_mode", "standalone");
  field(out, "os", std::string(name.sysname) + " " + name.release + " " + name.machine);
  field(out, "arch_bits", sizeof(long) * 8);
  field(out, "monotonic_clock", "POSIX clock_gettime");  // core/clock.hpp reads CLOCK_MONOTONIC
#ifdef __linux__
  field(out, "multiplexing_api", "epoll");
#else
  field(out, "multiplexing_api", "kqueue");
#endif
  field(out, "atomicvar_api", "c11-builtin");
  field(out, "gcc_version",
        std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." + std::to_string(__GNUC_PATCHLEVEL__));
  field(out, "process_id", getpid());
  field(out, "process_supervised", "no");
  field(out, "run_id", s.facts.run_id);
  field(out, "tcp_port", s.facts.listening_port);
  field(out, "server_time_usec", now_us);
  field(out, "uptime_in_seconds", uptime);
  field(out, "uptime_in_days", uptime / 86400);
  field(out, "hz", call.cfg().hz);
  field(out, "configured_hz", call.cfg().hz);
  field(out, "lru_clock", (now_us / 1000000) & ((1 << 24) - 1));
  field(out, "executable", s.facts.executable);
  field(out, "config_file", s.config.file());
  // Redis 7.0 wakes its I/O threads only while enough clients have
  // replies pending (twice as many as threads) and parks them otherwise;
  // lawnkv's threads own their sockets (server/io_threads.hpp) and are
  // never parked, so they are active whenever there are any.
  field(out, "io_threads_active", call.cfg().io_threads > 1 ? 1 : 0);
}

void clients_section(const Call& call, std::string& out) {
  size_t max_in = 0, max_out = 0;
  for (const auto& [id, session] : call.server.clients.all()) {
    max_in = std::max(max_in, session->query_buffer_bytes());
    max_out = std::max(max_out, session->output_buffer_bytes());
  }
  field(out, "connected_clients", call.server.clients.all().size());
  field(out, "cluster_connections", 0);
  field(out, "maxclients", call.cfg().maxclients);
  field(out, "client_recent_max_input_buffer", max_in);
  field(out, "client_recent_max_output_buffer", max_out);
  // Clients waiting for CLIENT PAUSE to end count, as in Redis.
  field(out, "blocked_clients", call.data.blocking.size() + call.server.pause.waiting());
  field(out, "tracking_clients", call.data.tracking.clients());
  field(out, "clients_in_timeout_table", 0);
}

std::string ratio(uint64_t a, uint64_t b) { return fixed(b ? static_cast<double>(a) / static_cast<double>(b) : 0, 2); }
int64_t difference(uint64_t a, uint64_t b) { return static_cast<int64_t>(a) - static_cast<int64_t>(b); }

// Redis 7.0's fields in its order; the figures are memory_figures.hpp's.
void memory_section(const Call& call, std::string& out) {
  // The interpreters exist from the first INFO on, so their sizes are
  // reported as Redis's, whose interpreters exist from start-up.
  scripting::Runtime::of(call.server);
  const MemoryFigures m = memory_figures(call.server);
  const uint64_t total = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const auto maxmemory = static_cast<uint64_t>(call.cfg().maxmemory);
  field(out, "used_memory", m.used);
  field(out, "used_memory_human", bytes_to_human(m.used));
  field(out, "used_memory_rss", m.rss);
  field(out, "used_memory_rss_human", bytes_to_human(m.rss));
  field(out, "used_memory_peak", m.peak);
  field(out, "used_memory_peak_human", bytes_to_human(m.peak));
  field(out, "used_memory_peak_perc", fixed(m.peak_perc, 2) + "%");
  field(out, "used_memory_overhead", m.overhead);
  field(out, "used_memory_startup", m.startup);
  field(out, "used_memory_dataset", m.dataset);
  field(out, "used_memory_dataset_perc", fixed(m.dataset_perc, 2) + "%");
  field(out, "allocator_allocated", m.alloc.allocated);
  field(out, "allocator_active", m.alloc.active);
  field(out, "allocator_resident", m.alloc.resident);
  field(out, "total_system_memory", total);
  field(out, "total_system_memory_human", bytes_to_human(total));
  const ScriptingMemory& sm = m.scripting;
  field(out, "used_memory_lua", sm.vm_eval);
  field(out, "used_memory_vm_eval", sm.vm_eval);
  field(out, "used_memory_lua_human", bytes_to_human(sm.vm_eval));
  field(out, "used_memory_scripts_eval", sm.scripts_eval);
  field(out, "number_of_cached_scripts", sm.cached_scripts);
  field(out, "number_of_functions", sm.functions);
  field(out, "number_of_libraries", sm.libraries);
  field(out, "used_memory_vm_functions", sm.vm_functions);
  field(out, "used_memory_vm_total", sm.vm_total());
  field(out, "used_memory_vm_total_human", bytes_to_human(sm.vm_total()));
  field(out, "used_memory_functions", sm.functions_bytes);
  field(out, "used_memory_scripts", sm.scripts());
  field(out, "used_memory_scripts_human", bytes_to_human(sm.scripts()));
  field(out, "maxmemory", maxmemory);
  field(out, "maxmemory_human", bytes_to_human(maxmemory));
  field(out, "maxmemory_policy", call.cfg().maxmemory_policy);
  field(out, "allocator_frag_ratio", ratio(m.alloc.active, m.alloc.allocated));
  field(out, "allocator_frag_bytes", difference(m.alloc.active, m.alloc.allocated));
  field(out, "allocator_rss_ratio", ratio(m.alloc.resident, m.alloc.active));
  field(out, "allocator_rss_bytes", difference(m.alloc.resident, m.alloc.active));
  field(out, "rss_overhead_ratio", ratio(m.rss, m.alloc.resident));
  field(out, "rss_overhead_bytes", difference(m.rss, m.alloc.resident));
  field(out, "mem_fragmentation_ratio", ratio(m.rss, m.used));
  field(out, "mem_fragmentation_bytes", difference(m.rss, m.used));
  field(out, "mem_not_counted_for_evict", 0);
  const replication::Backlog* backlog = call.server.replication().state().backlog();
  field(out, "mem_replication_backlog", backlog ? backlog->memory_bytes() : 0);
  field(out, "mem_total_replication_buffers", 0);
  field(out, "mem_clients_slaves", 0);
  field(out, "mem_clients_normal", m.clients_normal);
  field(out, "mem_cluster_links", 0);
  field(out, "mem_aof_buffer", 0);
  field(out, "mem_allocator", allocator::name());
  field(out, "active_defrag_running", 0);
  field(out, "lazyfree_pending_objects", 0);
  field(out, "lazyfreed_objects", 0);
}

// RDB snapshots as durability/snapshots.hpp keeps them, the append-only file
// as durability/append_only.hpp does.
void persistence_section(const Call& call, std::string& out) {
  const Snapshots& snap = call.server.snapshots();
  const bool async_loading = call.server.facts.loading && call.server.facts.async_loading;
  field(out, "loading", call.server.facts.loading && !async_loading ? 1 : 0);
  field(out, "async_loading", async_loading ? 1 : 0);
  for (std::string_view zero : {"current_cow_peak", "current_cow_size", "current_cow_size_age"}) field(out, zero, 0);
  field(out, "current_fork_perc", "0.00");
  for (std::string_view zero : {"current_save_keys_processed", "current_save_keys_total"}) field(out, zero, 0);
  field(out, "rdb_changes_since_last_save", static_cast<int64_t>(snap.changes_since_save(call.server)));
  field(out, "rdb_bgsave_in_progress", snap.in_progress() ? 1 : 0);
  field(out, "rdb_last_save_time", snap.lastsave_s);
  field(out, "rdb_last_bgsave_status", snap.last_bgsave_ok ? "ok" : "err");
  field(out, "rdb_last_bgsave_time_sec", snap.last_bgsave_time_s);
  field(out, "rdb_current_bgsave_time_sec",
        snap.in_progress() ? (call.server.clock.now_ms() - snap.bgsave_started_ms()) / 1000 : -1);
  field(out, "rdb_saves", static_cast<int64_t>(snap.saves));
  field(out, "rdb_last_cow_size", 0);
  field(out, "rdb_last_load_keys_expired", static_cast<int64_t>(snap.last_load_keys_expired));
  field(out, "rdb_last_load_keys_loaded", static_cast<int64_t>(snap.last_load_keys_loaded));
  out += call.server.aof().info_fields(call.server);
  const ServerFacts& f = call.server.facts;
  if (f.loading) {
    // As Redis: the share loaded, and the time left at the rate so far; a
    // snapshot loaded as it arrives has no size (0, 0%, one byte left).
    const int64_t elapsed = call.now_ms / 1000 - f.loading_start_s;
    const uint64_t total = f.loading_total_bytes;
    const uint64_t left = total > 0 ? total - std::min(f.loading_loaded_bytes, total) : 1;
    field(out, "loading_start_time", f.loading_start_s);
    field(out, "loading_total_bytes", total);
    field(out, "loading_rdb_used_mem", 0);
    field(out, "loading_loaded_bytes", f.loading_loaded_bytes);
    field(out, "loading_loaded_perc",
          fixed(total > 0 ? static_cast<double>(f.loading_loaded_bytes) / static_cast<double>(total) * 100 : 0.0, 2));
    field(out, "loading_eta_seconds",
          elapsed == 0 ? int64_t{1} : static_cast<int64_t>(static_cast<uint64_t>(elapsed) * left / (f.loading_loaded_bytes + 1)));
  }
}

void stats_section(const Call& call, std::string& out) {
  const ServerStats& st = call.server.facts.stats;
  const store::KeyspaceStats& ks = call.data.keyspace.stats();
  const pubsub::Hub& hub = call.data.hub;
  field(out, "total_connections_received", st.total_connections_received);
  field(out, "total_commands_processed", st.total_commands_processed);
  field(out, "instantaneous_ops_per_sec", 0);
  field(out, "total_net_input_bytes", st.total_net_input_bytes);
  field(out, "total_net_output_bytes", st.total_net_output_bytes);
  field(out, "total_net_repl_input_bytes", 0);
  field(out, "total_net_repl_output_bytes", 0);
  field(out, "instantaneous_input_kbps", "0.00");
  field(out, "instantaneous_output_kbps", "0.00");
  field(out, "instantaneous_input_repl_kbps", "0.00");
  field(out, "instantaneous_output_repl_kbps", "0.00");
  field(out, "rejected_connections", st.rejected_connections);
  const replication::SyncStats& sync = call.server.replication().state().stats;
  field(out, "sync_full", sync.sync_full);
  field(out, "sync_partial_ok", sync.sync_partial_ok);
  field(out, "sync_partial_err", sync.sync_partial_err);
  field(out, "expired_keys", ks.expired_keys);
  field(out, "expired_subkeys", ks.expired_subkeys);  // Redis 7.4: hash fields
  // Keys with a TTL past their deadline but not yet deleted, in %: Redis's
  // sampler estimates it; lawnkv knows it is 0 while nothing is due.
  field(out, "expired_stale_perc", fixed(call.data.keyspace.stale_fraction(call.now_ms) * 100, 2));
  // As Redis: active-expiry cycles that stopped at their time limit (here
  // expiry-budget-us) with keys still due, and the time spent in cycles.
  field(out, "expired_time_cap_reached_count", ks.expired_time_cap_reached_count);
  field(out, "expire_cycle_cpu_milliseconds", ks.expire_cycle_time_us / 1000);
  const EvictionStats& ev = call.data.eviction.stats();
  field(out, "evicted_keys", ev.evicted_keys);
  field(out, "evicted_clients", st.evicted_clients);
  field(out, "total_eviction_exceeded_time", (ev.exceeded_time_us + call.data.eviction.current_exceeded_us()) / 1000);
  field(out, "current_eviction_exceeded_time", call.data.eviction.current_exceeded_us() / 1000);
  field(out, "keyspace_hits", ks.keyspace_hits);
  field(out, "keyspace_misses", ks.keyspace_misses);
  field(out, "pubsub_channels", hub.channel_count());
  field(out, "pubsub_patterns", hub.pattern_count());
  field(out, "pubsubshard_channels", hub.shard_channel_count());
  field(out, "latest_fork_usec", 0);
  field(out, "total_forks", 0);
  field(out, "migrate_cached_sockets", 0);
  field(out, "slave_expires_tracked_keys", 0);
  // No active defragmentation (activedefrag is accepted, unused): Redis's
  // figures with it off.
  for (std::string_view zero : {"active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits",
                                "active_defrag_key_misses", "total_active_defrag_time", "current_active_defrag_time"})
    field(out, zero, 0);
  field(out, "tracking_total_keys", call.data.tracking.total_keys());
  field(out, "tracking_total_items", call.data.tracking.total_items());
  field(out, "tracking_total_prefixes", call.data.tracking.total_prefixes());
  field(out, "unexpected_error_replies", 0);
  field(out, "total_error_replies", call.server.facts.errors.total());
  field(out, "dump_payload_sanitizations", 0);
  field(out, "total_reads_processed", st.total_reads_processed);
  field(out, "total_writes_processed", st.total_writes_processed);
  // As Redis: the reads and the writes that I/O threads did for the main
  // thread (0 with io-threads 1).
  field(out, "io_threaded_reads_processed", st.io_threaded_reads_processed);
  field(out, "io_threaded_writes_processed", st.io_threaded_writes_processed);
  field(out, "client_query_buffer_limit_disconnections", st.client_query_buffer_limit_disconnections);
  field(out, "client_output_buffer_limit_disconnections", st.client_output_buffer_limit_disconnections);
}

// lawnkv's own: keys that died of old age, and how late after their deadline
// the expiry engine reaped them (a key is due once now > deadline, so 1 ms is
// on time).
void expiry_section(const Call& call, std::string& out) {
  const store::KeyspaceStats& ks = call.data.keyspace.stats();
  field(out, "expired_keys", ks.expired_keys);
  field(out, "expired_active", ks.expired_active);
  field(out, "expired_lazy", ks.expired_keys - ks.expired_active);
  field(out, "expire_cycles", ks.expire_cycles);
  field(out, "expired_lag_samples", ks.lag.count());
  field(out, "expired_lag_p50_ms", ks.lag.percentile(0.50));
  field(out, "expired_lag_p99_ms", ks.lag.percentile(0.99));
  field(out, "expired_lag_max_ms", ks.lag.max());
  field(out, "keys_with_ttl", call.data.keyspace.total_expires());
  field(out, "expiry_index_bytes", expiry_index_bytes(call.server));
  field(out, "expiry_budget_us", call.cfg().expiry_budget_us);
  field(out, "active_expire", call.server.facts.active_expire ? 1 : 0);
  // The longest single run of work a client may have waited behind, since
  // start or CONFIG RESETSTAT, in us of wall time and, for the expiry and
  // memory-release steps, of the loop thread's CPU time (which other
  // processes on the machine do not inflate): engine/server_state.hpp's
  // StepMax.
  const ServerStats& st = call.server.facts.stats;
  field(out, "loop_iteration_wall_max_us", st.loop_iteration.wall_us);
  field(out, "expire_cycle_cpu_max_us", st.expire_cycle.cpu_us);
  field(out, "expire_cycle_wall_max_us", st.expire_cycle.wall_us);
  field(out, "release_step_cpu_max_us", st.release_step.cpu_us);
  field(out, "release_step_wall_max_us", st.release_step.wall_us);
}

void replication_section(const Call& call, std::string& out) {
  out += call.server.replication().info_fields(call.now_ms);
}

void cpu_section(const Call&, std::string& out) {
  struct rusage self, children, thread;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);
  field(out, "used_cpu_sys", timeval_seconds(self.ru_stime));
  field(out, "used_cpu_user", timeval_seconds(self.ru_utime));
  field(out, "used_cpu_sys_children", timeval_seconds(children.ru_stime));
  field(out, "used_cpu_user_children", timeval_seconds(children.ru_utime));
  field(out, "used_cpu_sys_main_thread", timeval_seconds(thread.ru_stime));
  field(out, "used_cpu_user_main_thread", timeval_seconds(thread.ru_utime));
}

void modules_section(const Call&, std::string&) {}

// errorstat_<CODE>:count=N, the codes in byte order (engine/error_stats.hpp).
void errorstats_section(const Call& call, std::string& out) {
  for (const auto& [code, count] : call.server.facts.errors.by_code())
    field(out, "errorstat_" + code, "count=" + std::to_string(count));
}

// cmdstat_<name>:calls=..,usec=..,usec_per_call=..,rejected_calls=..,failed_calls=..
void commandstats_section(const Call& call, std::string& out) {
  call.server.commands.for_each_spec([&](const CommandSpec& spec) {
    const CommandStats& cs = spec.stats;
    const std::string& name = spec.name;
    if (cs.calls == 0 && cs.rejected_calls == 0 && cs.failed_calls == 0) return;
    const double per_call = cs.calls ? static_cast<double>(cs.nsec) / 1000.0 / static_cast<double>(cs.calls) : 0;
    field(out, "cmdstat_" + name,
          "calls=" + std::to_string(cs.calls) + ",usec=" + std::to_string(cs.nsec / 1000) + ",usec_per_call=" +
              fixed(per_call, 2) + ",rejected_calls=" + std::to_string(cs.rejected_calls) +
              ",failed_calls=" + std::to_string(cs.failed_calls));
  });
}

// latency_percentiles_usec_<name>:p50=..,p99=..,p99.9=.. for every command
// with a latency histogram (core/latency_histogram.hpp), the percentiles
// of latency-tracking-info-percentiles; nothing while latency-tracking is
// off.
void latencystats_section(const Call& call, std::string& out) {
  if (!call.cfg().latency_tracking) return;
  call.server.commands.for_each_spec([&](const CommandSpec& spec) {
    if (!spec.latency_histogram) return;
    std::string value;
    for (double p : call.cfg().latency_percentiles) {
      if (!value.empty()) value += ',';
      const double us = static_cast<double>(spec.latency_histogram->value_at_percentile(p)) / 1000.0;
      value += "p" + config::format_percentile(p) + "=" + fixed(us, 3);
    }
    field(out, "latency_percentiles_usec_" + spec.name, value);
  });
}

void cluster_section(const Call&, std::string& out) { field(out, "cluster_enabled", 0); }

// db<n>:keys=..,expires=..,avg_ttl=.. for every db holding keys.
void keyspace_section(const Call& call, std::string& out) {
  const store::Keyspace& ks = call.data.keyspace;
  for (int i = 0; i < ks.databases(); ++i) {
    const store::Db& db = ks.db(i);
    if (db.size() == 0) continue;
    field(out, "db" + std::to_string(i),
          "keys=" + std::to_string(db.size()) + ",expires=" + std::to_string(db.expires()) +
              ",avg_ttl=" + std::to_string(db.avg_ttl(call.now_ms)));
  }
}

enum Set : uint8_t { kDefault = 1, kAll = 2, kEverything = 4 };

struct Section {
  std::string_view name;
  std::string_view title;
  void (*write)(const Call&, std::string&);
  uint8_t sets;  // which of default / all / everything include it
};

constexpr uint8_t kEverywhere = kDefault | kAll | kEverything;
constexpr Section kSections[] = {
    {"server", "Server", server_section, kEverywhere},
    {"clients", "Clients", clients_section, kEverywhere},
    {"memory", "Memory", memory_section, kEverywhere},
    {"persistence", "Persistence", persistence_section, kEverywhere},
    {"stats", "Stats", stats_section, kEverywhere},
    {"expiry", "Expiry", expiry_section, kEverywhere},
    {"replication", "Replication", replication_section, kEverywhere},
    {"cpu", "CPU", cpu_section, kEverywhere},
    {"modules", "Modules", modules_section, kEverywhere},
    {"commandstats", "Commandstats", commandstats_section, kAll | kEverything},
    {"errorstats", "Errorstats", errorstats_section, kEverywhere},
    {"latencystats", "Latencystats", latencystats_section, kAll | kEverything},
    {"cluster", "Cluster", cluster_section, kEverywhere},
    {"keyspace", "Keyspace", keyspace_section, kEverywhere},
};
constexpr size_t kSectionCount = sizeof(kSections) / sizeof(kSections[0]);

/* INFO [section [section ...]] */
void info_command(Call& call) {
  bool wanted[kSectionCount] = {};
  if (call.argv.size() == 1) {
    for (size_t i = 0; i < kSectionCount; ++i) wanted[i] = kSections[i].sets & kDefault;
  }
  for (size_t a = 1; a < call.argv.size(); ++a) {
    const std::string_view arg = call.argv[a];
    const uint8_t set = iequals(arg, "default") ? kDefault : iequals(arg, "all") ? kAll
                        : iequals(arg, "everything")                            ? kEverything
                                                                                : 0;
    for (size_t i = 0; i < kSectionCount; ++i)
      if ((set && (kSections[i].sets & set)) || iequals(arg, kSections[i].name)) wanted[i] = true;
  }
  std::string out;
  for (size_t i = 0; i < kSectionCount; ++i) {
    if (!wanted[i]) continue;
    if (!out.empty()) out += "\r\n";
    out += "# ";
    out += kSections[i].title;
    out += "\r\n";
    kSections[i].write(call, out);
  }
  call.reply.verbatim(out);
}

}  // namespace

void register_info_command(CommandTable& t) {
  t.add({
    {.name = "info", .arity = -1, .flags = kLoading | kStale | kSentinel,
     .acl = "@slow @dangerous",
     .group = "server", .since = "1.0.0", .complexity = "O(1)",
     .summary = "Returns information and statistics about the server",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special",
     .handler = info_command},
  });
}

}  // namespace lawnkv
