// evict-probe: a large eviction at once, and what a client sees meanwhile.
// Run against lawnkv and redis-server alike.
//
//   evict-probe --port N [--fill-mb 1024] [--value 100] [--fraction 0.25]
//               [--policy allkeys-random] [--probe-us 1000] [--poll-ms 2]
//               [--timeout-s 120] [--slack-kb 64] [--seed 1] [--series FILE]
//
// 1. FLUSHALL and CONFIG SET maxmemory 0, then SET "fill:%012d" to a
//    --value-byte value, pipelined, until INFO's used_memory reaches
//    --fill-mb MiB.
// 2. A second connection (the probe) starts sending GET of a random loaded
//    key every --probe-us and times each reply; 300 ms of that is the idle
//    reference.
// 3. CONFIG SET maxmemory-policy --policy, then CONFIG SET maxmemory to
//    --fraction of the used memory: three quarters of the data must go. The
//    main connection then polls INFO memory every --poll-ms until
//    used_memory is at most --slack-kb above the limit. (The slack: each
//    server evicts before running a command, so the INFO that reports
//    used_memory has allocated its own reply after the eviction; Redis,
//    which counts that reply, was seen to stay 46 bytes over for good.)
//    Both servers evict in slices bounded by maxmemory-eviction-tenacity,
//    from their event loop and before each command, so every poll and
//    probe also triggers a slice.
//
// Output, one "name=value" a line: keys, used_before, limit, load_s,
// config_set_ms (the round trip of CONFIG SET maxmemory, which starts
// evicting), drain_ms (from sending CONFIG SET to the first INFO reply
// within the slack; -1 if --timeout-s passed), used_after (that reply's
// used_memory), evicted_keys, dbsize_after,
// probe_n/p50_us/p99_us/p999_us/max_us (probes sent from CONFIG SET to the
// end of the drain) and base_probe_* (the 300 ms before). --series FILE gets
// "ms_since_config_set used_memory_mb" per poll, at most about 400 lines.

#include <hiredis/hiredis.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  long fill_mb = 1024;
  size_t value = 100;
  double fraction = 0.25;
  std::string policy = "allkeys-random";
  long probe_us = 1000;
  long poll_ms = 2;
  long timeout_s = 120;
  long slack_kb = 64;
  uint64_t seed = 1;
  std::string series;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "evict-probe: %s\n", what.c_str());
  std::exit(1);
}

int64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void sleep_until(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

redisContext* connect(const Options& o) {
  redisContext* c = redisConnectWithTimeout(o.host.c_str(), o.port, timeval{5, 0});
  if (!c || c->err) die("cannot connect to " + o.host + ":" + std::to_string(o.port));
  redisSetTimeout(c, timeval{120, 0});
  return c;
}

void command_ok(redisContext* c, const std::string& cmd) {
  auto* r = static_cast<redisReply*>(redisCommand(c, cmd.c_str()));
  if (!r || r->type == REDIS_REPLY_ERROR) die(cmd + " failed" + (r ? std::string(": ") + r->str : ""));
  freeReplyObject(r);
}

long long int_command(redisContext* c, const char* cmd) {
  auto* r = static_cast<redisReply*>(redisCommand(c, cmd));
  if (!r || r->type != REDIS_REPLY_INTEGER) die(std::string(cmd) + " failed");
  const long long v = r->integer;
  freeReplyObject(r);
  return v;
}

uint64_t info_u64(redisContext* c, const char* section, const std::string& name) {
  auto* r = static_cast<redisReply*>(redisCommand(c, "INFO %s", section));
  if (!r || r->type != REDIS_REPLY_STRING) die("INFO failed");
  const std::string text(r->str, r->len);
  freeReplyObject(r);
  const size_t at = text.find("\n" + name + ":");
  if (at == std::string::npos) die("INFO has no " + name);
  return std::strtoull(text.c_str() + at + name.size() + 2, nullptr, 10);
}

// SETs keys until used_memory reaches target; returns the number of keys.
long fill(redisContext* c, const Options& o, uint64_t target) {
  constexpr long kBatch = 1000;
  const std::string value(o.value, 'x');
  char key[32];
  long n = 0;
  for (;;) {
    for (long i = 0; i < kBatch; ++i) {
      std::snprintf(key, sizeof key, "fill:%012ld", n + i);
      redisAppendCommand(c, "SET %s %b", key, value.data(), value.size());
    }
    for (long i = 0; i < kBatch; ++i) {
      void* r = nullptr;
      if (redisGetReply(c, &r) != REDIS_OK || !r) die("fill: connection error");
      auto* reply = static_cast<redisReply*>(r);
      if (reply->type == REDIS_REPLY_ERROR) die(std::string("fill: ") + reply->str);
      freeReplyObject(reply);
    }
    n += kBatch;
    if (n % (50 * kBatch) == 0 && info_u64(c, "memory", "used_memory") >= target) return n;
  }
}

struct Probe {
  int64_t sent_ns;
  double latency_us;
};

void probe_loop(const Options& o, long keys, std::atomic<bool>& stop, std::vector<Probe>& out) {
  redisContext* c = connect(o);
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<long> pick(0, keys - 1);
  out.reserve(400000);
  char key[32];
  int64_t next = mono_ns();
  while (!stop.load(std::memory_order_relaxed)) {
    std::snprintf(key, sizeof key, "fill:%012ld", pick(rng));
    const int64_t t0 = mono_ns();
    auto* r = static_cast<redisReply*>(redisCommand(c, "GET %s", key));
    const int64_t t1 = mono_ns();
    if (!r) die("probe: connection error");
    freeReplyObject(r);
    out.push_back({t0, static_cast<double>(t1 - t0) / 1e3});
    next = std::max(next + o.probe_us * 1000, t1);
    sleep_until(next);
  }
  redisFree(c);
}

double pct(const std::vector<double>& v, double p) {
  if (v.empty()) return -1;
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

void print_latencies(const char* prefix, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::printf("%sn=%zu\n%sp50_us=%.0f\n%sp99_us=%.0f\n%sp999_us=%.0f\n%smax_us=%.0f\n", prefix, v.size(), prefix,
              pct(v, 0.5), prefix, pct(v, 0.99), prefix, pct(v, 0.999), prefix, v.empty() ? -1.0 : v.back());
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) die("missing value after " + std::string(a));
    const char* v = argv[++i];
    if (a == "--host") o.host = v;
    else if (a == "--port") o.port = std::atoi(v);
    else if (a == "--fill-mb") o.fill_mb = std::atol(v);
    else if (a == "--value") o.value = static_cast<size_t>(std::atol(v));
    else if (a == "--fraction") o.fraction = std::atof(v);
    else if (a == "--policy") o.policy = v;
    else if (a == "--probe-us") o.probe_us = std::atol(v);
    else if (a == "--poll-ms") o.poll_ms = std::atol(v);
    else if (a == "--timeout-s") o.timeout_s = std::atol(v);
    else if (a == "--slack-kb") o.slack_kb = std::atol(v);
    else if (a == "--seed") o.seed = static_cast<uint64_t>(std::atoll(v));
    else if (a == "--series") o.series = v;
    else die("unknown option " + std::string(a));
  }
  if (o.port <= 0 || o.fill_mb <= 0 || o.fraction <= 0 || o.fraction >= 1) die("need --port, --fill-mb, 0 < --fraction < 1");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  redisContext* c = connect(o);
  command_ok(c, "FLUSHALL");
  command_ok(c, "CONFIG SET maxmemory 0");
  const int64_t l0 = mono_ns();
  const long keys = fill(c, o, static_cast<uint64_t>(o.fill_mb) << 20);
  const double load_s = static_cast<double>(mono_ns() - l0) / 1e9;
  const uint64_t used_before = info_u64(c, "memory", "used_memory");
  const uint64_t limit = static_cast<uint64_t>(static_cast<double>(used_before) * o.fraction);
  const uint64_t evicted0 = info_u64(c, "stats", "evicted_keys");
  command_ok(c, "CONFIG SET maxmemory-policy " + o.policy);

  std::atomic<bool> stop{false};
  std::vector<Probe> probes;
  std::thread prober(probe_loop, std::cref(o), keys, std::ref(stop), std::ref(probes));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));

  std::vector<std::pair<double, uint64_t>> series;  // (ms since CONFIG SET, used_memory)
  series.reserve(200000);
  const int64_t start = mono_ns();
  command_ok(c, "CONFIG SET maxmemory " + std::to_string(limit));
  const double config_set_ms = static_cast<double>(mono_ns() - start) / 1e6;
  double drain_ms = -1;
  uint64_t used_after = 0;
  const uint64_t done_at = limit + static_cast<uint64_t>(o.slack_kb) * 1024;
  int64_t next = mono_ns();
  for (;;) {
    const uint64_t used = info_u64(c, "memory", "used_memory");
    const double t = static_cast<double>(mono_ns() - start) / 1e6;
    series.emplace_back(t, used);
    used_after = used;
    if (used <= done_at) {
      drain_ms = t;
      break;
    }
    if (t > static_cast<double>(o.timeout_s) * 1e3) break;
    next = std::max(next + o.poll_ms * 1'000'000, mono_ns());
    sleep_until(next);
  }
  const int64_t end = mono_ns();
  stop = true;
  prober.join();

  std::vector<double> during, before;
  for (const Probe& p : probes) {
    if (p.sent_ns >= start && p.sent_ns <= end) during.push_back(p.latency_us);
    else if (p.sent_ns < start && p.sent_ns >= start - 300'000'000) before.push_back(p.latency_us);
  }
  std::printf("keys=%ld\nvalue=%zu\nused_before=%llu\nlimit=%llu\nload_s=%.1f\nconfig_set_ms=%.2f\ndrain_ms=%.1f\n", keys,
              o.value, static_cast<unsigned long long>(used_before), static_cast<unsigned long long>(limit), load_s,
              config_set_ms, drain_ms);
  std::printf("slack_kb=%ld\nused_after=%llu\n", o.slack_kb, static_cast<unsigned long long>(used_after));
  std::printf("evicted_keys=%llu\ndbsize_after=%lld\n",
              static_cast<unsigned long long>(info_u64(c, "stats", "evicted_keys") - evicted0), int_command(c, "DBSIZE"));
  print_latencies("probe_", during);
  print_latencies("base_probe_", before);
  if (!o.series.empty()) {
    FILE* f = std::fopen(o.series.c_str(), "w");
    if (!f) die("cannot write " + o.series);
    std::fprintf(f, "# ms_since_config_set used_memory_mb (limit %.1f MB)\n", static_cast<double>(limit) / 1048576.0);
    const size_t step = std::max<size_t>(1, series.size() / 400);
    for (size_t i = 0; i < series.size(); ++i)
      if (i % step == 0 || i + 1 == series.size())
        std::fprintf(f, "%.2f %.1f\n", series[i].first, static_cast<double>(series[i].second) / 1048576.0);
    std::fclose(f);
  }
  redisFree(c);
  return drain_ms >= 0 ? 0 : 3;
}
