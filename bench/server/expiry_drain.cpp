// expiry-drain: how fast a server reclaims keys that fall due together, and
// what a client sees meanwhile. Run against lawnkv and redis-server alike.
//
//   expiry-drain --port N [--host 127.0.0.1] [--keys 1000000] [--spread-ms 1000]
//                [--lead-ms 3000] [--poll-ms 2] [--probe-us 1000]
//                [--timeout-ms 60000] [--seed 1] [--series FILE]
//
// 1. FLUSHALL, then load --keys keys "exp:%012d" (16 bytes) = 16-byte value
//    with SET key value PXAT deadline, pipelined. Deadlines are uniform random
//    whole milliseconds in [base, base + spread-ms), base = now + lead-ms. If
//    the load ends less than 300 ms before base, it starts again with a longer
//    lead (up to 3 attempts), so no key is due before the load is complete.
// 2. From 300 ms before base, the main connection sends DBSIZE every poll-ms
//    and records the count; it stops at the first reply of 0 (or timeout-ms
//    after the last deadline).
// 3. Meanwhile a second connection (the probe) sends GET of a missing key
//    every probe-us and times each reply.
//
// Output on stdout, one "name=value" a line:
//   drain_ms       first DBSIZE reply of 0, received, minus the last deadline
//                  (an upper bound; the resolution is the DBSIZE round trip
//                  plus poll-ms); -1 if timed out
//   left_at_last   DBSIZE at the last poll before the last deadline passed
//   probe_*        probe GET latencies (us) sent between the first deadline
//                  and the drain's end: n, p50, p99, p999, max
//   base_probe_*   the same for probes sent in the 300 ms before the first
//                  deadline (the idle reference)
//   load_ms, lead_ms, attempts, keys, first_deadline, last_deadline
// --series FILE gets "ms_since_first_deadline keys_remaining" per poll.

#include <hiredis/hiredis.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  long keys = 1000000;
  long spread_ms = 1000;
  long lead_ms = 3000;
  long poll_ms = 2;
  long probe_us = 1000;
  long timeout_ms = 60000;
  unsigned seed = 1;
  std::string series;
};

// Wall clock in milliseconds (fractional): the clock PXAT deadlines live on.
double wall_ms() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

int64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void sleep_until_wall(double when_ms) {
  for (;;) {
    const double left = when_ms - wall_ms();
    if (left <= 0) return;
    timespec ts{static_cast<time_t>(left / 1e3), static_cast<long>(std::fmod(left, 1e3) * 1e6)};
    nanosleep(&ts, nullptr);
  }
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "expiry-drain: %s\n", what.c_str());
  std::exit(1);
}

redisContext* connect(const Options& o) {
  redisContext* c = redisConnectWithTimeout(o.host.c_str(), o.port, timeval{5, 0});
  if (!c || c->err) die("cannot connect to " + o.host + ":" + std::to_string(o.port));
  redisSetTimeout(c, timeval{60, 0});
  return c;
}

// Sends one command and returns its integer reply (or dies).
long long command_int(redisContext* c, const char* cmd) {
  auto* r = static_cast<redisReply*>(redisCommand(c, cmd));
  if (!r) die(std::string(cmd) + ": connection error");
  if (r->type != REDIS_REPLY_INTEGER) die(std::string(cmd) + ": not an integer reply");
  const long long v = r->integer;
  freeReplyObject(r);
  return v;
}

void command_ok(redisContext* c, const char* cmd) {
  auto* r = static_cast<redisReply*>(redisCommand(c, cmd));
  if (!r || r->type == REDIS_REPLY_ERROR) die(std::string(cmd) + " failed");
  freeReplyObject(r);
}

// Loads every key with its deadline, pipelined in batches; checks each reply.
void load(redisContext* c, const std::vector<int64_t>& deadlines) {
  constexpr size_t kBatch = 2000;
  std::string cmd;
  char key[32];
  char value[32];
  char when[32];
  for (size_t i = 0; i < deadlines.size(); i += kBatch) {
    const size_t end = std::min(deadlines.size(), i + kBatch);
    for (size_t k = i; k < end; ++k) {
      std::snprintf(key, sizeof key, "exp:%012zu", k);
      std::snprintf(value, sizeof value, "val:%012zu", k);
      const int wn = std::snprintf(when, sizeof when, "%lld", static_cast<long long>(deadlines[k]));
      cmd.clear();
      cmd += "*5\r\n$3\r\nSET\r\n$16\r\n";
      cmd.append(key, 16);
      cmd += "\r\n$16\r\n";
      cmd.append(value, 16);
      cmd += "\r\n$4\r\nPXAT\r\n$" + std::to_string(wn) + "\r\n";
      cmd.append(when, static_cast<size_t>(wn));
      cmd += "\r\n";
      redisAppendFormattedCommand(c, cmd.data(), cmd.size());
    }
    for (size_t k = i; k < end; ++k) {
      void* r = nullptr;
      if (redisGetReply(c, &r) != REDIS_OK || !r) die("load: connection error");
      auto* reply = static_cast<redisReply*>(r);
      if (reply->type == REDIS_REPLY_ERROR) die(std::string("load: ") + reply->str);
      freeReplyObject(reply);
    }
  }
}

struct Probe {
  double sent_wall_ms;
  double latency_us;
};

// GET of a missing key every period_us until stop; records each round trip.
void probe_loop(const Options& o, std::atomic<bool>& ready, std::atomic<bool>& stop, std::vector<Probe>& out) {
  redisContext* c = connect(o);
  out.reserve(200000);
  ready = true;
  int64_t next = mono_ns();
  while (!stop.load(std::memory_order_relaxed)) {
    const double sent = wall_ms();
    const int64_t t0 = mono_ns();
    auto* r = static_cast<redisReply*>(redisCommand(c, "GET expiry-drain:probe"));
    const int64_t t1 = mono_ns();
    if (!r) die("probe: connection error");
    freeReplyObject(r);
    out.push_back({sent, static_cast<double>(t1 - t0) / 1e3});
    next = std::max(next + o.probe_us * 1000, t1);
    timespec ts{static_cast<time_t>(next / 1'000'000'000), static_cast<long>(next % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  }
  redisFree(c);
}

// Nearest-rank percentile of a sorted vector.
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
    else if (a == "--keys") o.keys = std::atol(v);
    else if (a == "--spread-ms") o.spread_ms = std::atol(v);
    else if (a == "--lead-ms") o.lead_ms = std::atol(v);
    else if (a == "--poll-ms") o.poll_ms = std::atol(v);
    else if (a == "--probe-us") o.probe_us = std::atol(v);
    else if (a == "--timeout-ms") o.timeout_ms = std::atol(v);
    else if (a == "--seed") o.seed = static_cast<unsigned>(std::atol(v));
    else if (a == "--series") o.series = v;
    else die("unknown option " + std::string(a));
  }
  if (o.port <= 0 || o.keys <= 0 || o.spread_ms <= 0) die("need --port, and positive --keys and --spread-ms");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  redisContext* c = connect(o);

  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<long> offset(0, o.spread_ms - 1);
  std::vector<long> offsets(static_cast<size_t>(o.keys));
  for (long& off : offsets) off = offset(rng);

  int64_t base = 0;
  double load_ms = 0;
  int attempt = 0;
  for (;; ++attempt) {
    if (attempt == 3) die("the load never finished before the first deadline");
    command_ok(c, "FLUSHALL");
    const double t0 = wall_ms();
    base = static_cast<int64_t>(t0) + o.lead_ms;
    std::vector<int64_t> deadlines(offsets.size());
    for (size_t i = 0; i < offsets.size(); ++i) deadlines[i] = base + offsets[i];
    load(c, deadlines);
    const double t1 = wall_ms();
    load_ms = t1 - t0;
    if (t1 < static_cast<double>(base) - 300) break;
    o.lead_ms = std::max(o.lead_ms * 2, static_cast<long>(load_ms * 2) + 1000);
  }
  const long long loaded = command_int(c, "DBSIZE");
  if (loaded != o.keys) die("DBSIZE after load is " + std::to_string(loaded));
  const auto [lo, hi] = std::minmax_element(offsets.begin(), offsets.end());
  const int64_t first_deadline = base + *lo;
  const int64_t last_deadline = base + *hi;

  // The probe connects first; the record starts 300 ms before the first deadline.
  sleep_until_wall(static_cast<double>(first_deadline) - 500);
  std::atomic<bool> ready{false};
  std::atomic<bool> stop{false};
  std::vector<Probe> probes;
  std::thread prober(probe_loop, std::cref(o), std::ref(ready), std::ref(stop), std::ref(probes));
  while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  sleep_until_wall(static_cast<double>(first_deadline) - 300);

  std::vector<std::pair<double, long long>> series;  // (ms since first deadline, DBSIZE)
  series.reserve(100000);
  double drain_end = -1;
  long long left_at_last = loaded;
  const int64_t period_ns = o.poll_ms * 1'000'000;
  int64_t next = mono_ns();
  for (;;) {
    const long long n = command_int(c, "DBSIZE");
    const double now = wall_ms();
    series.emplace_back(now - static_cast<double>(first_deadline), n);
    if (now <= static_cast<double>(last_deadline)) left_at_last = n;
    if (n == 0) { drain_end = now; break; }
    if (now > static_cast<double>(last_deadline + o.timeout_ms)) break;
    next = std::max(next + period_ns, mono_ns());
    timespec ts{static_cast<time_t>(next / 1'000'000'000), static_cast<long>(next % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  }
  stop = true;
  prober.join();
  const double window_end = drain_end > 0 ? drain_end : wall_ms();

  std::vector<double> during;
  std::vector<double> before;
  for (const Probe& p : probes) {
    if (p.sent_wall_ms >= static_cast<double>(first_deadline) && p.sent_wall_ms <= window_end) {
      during.push_back(p.latency_us);
    } else if (p.sent_wall_ms < static_cast<double>(first_deadline) &&
               p.sent_wall_ms >= static_cast<double>(first_deadline) - 300) {
      before.push_back(p.latency_us);
    }
  }

  std::printf("keys=%ld\nspread_ms=%ld\npoll_ms=%ld\nprobe_us=%ld\nattempts=%d\nlead_ms=%ld\nload_ms=%.0f\n", o.keys,
              o.spread_ms, o.poll_ms, o.probe_us, attempt + 1, o.lead_ms, load_ms);
  std::printf("first_deadline=%lld\nlast_deadline=%lld\n", static_cast<long long>(first_deadline),
              static_cast<long long>(last_deadline));
  std::printf("drain_ms=%.1f\nleft_at_last=%lld\n",
              drain_end > 0 ? drain_end - static_cast<double>(last_deadline) : -1.0, left_at_last);
  print_latencies("probe_", during);
  print_latencies("base_probe_", before);

  if (!o.series.empty()) {
    FILE* f = std::fopen(o.series.c_str(), "w");
    if (!f) die("cannot write " + o.series);
    std::fprintf(f, "# ms_since_first_deadline keys_remaining (last deadline at %lld ms)\n",
                 static_cast<long long>(last_deadline - first_deadline));
    for (const auto& [t, n] : series) std::fprintf(f, "%.2f %lld\n", t, n);
    std::fclose(f);
  }
  redisFree(c);
  return drain_end > 0 ? 0 : 3;
}
