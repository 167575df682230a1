// expiry-drain: how fast a server reclaims keys that fall due together, and
// what a client sees meanwhile. Run against lawnkv and redis-server alike.
//
//   expiry-drain --port N [--host 127.0.0.1] [--keys 1000000] [--spread-ms 1000]
//                [--lead-ms 3000] [--poll-ms 2] [--probe-us 1000]
//                [--timeout-ms 60000] [--tail-ms 200] [--seed 1] [--series FILE]
//                [--hashes H [--events 1]] [--value-bytes 16]
//                [--slow-file FILE [--slow-us 1500]] [--level2-at-ms N]
//
// With --hashes, the --keys items are hash fields instead of keys (Redis
// 7.4's field TTLs): field i is "f:%014d" in hash "h:%06d" (i mod H), loaded
// with HSET and HPEXPIREAT ... FIELDS 1; a hash is deleted with its last
// field, so DBSIZE 0 still means every item is gone. --events 1 also
// subscribes to __keyevent@0__:hexpired (after CONFIG SET
// notify-keyspace-events Eh) and reports how late the events come. An event
// names a hash, not its fields (Redis 7.4 and lawnkv publish one per hash and
// reaping pass), so each field is credited to the first event of its hash
// received at least 1 ms after its deadline (a field lives while now <=
// deadline, whole ms): its lag is that event's receive time minus the
// deadline (fields_reported, events_received, event_lag_p50_ms,
// event_lag_p99_ms, event_lag_max_ms). A field reaped by a pass whose event
// was still on its way when the field fell due is credited to that earlier
// event, so the lag can read low by at most one event's delivery time.
// After the drain the tool PUBLISHes an end marker on the same channel, which
// reaches the subscriber after every event the server sent before it.
//
// 1. FLUSHALL, then load --keys keys "exp:%012d" (16 bytes) = 16-byte value
//    ("val:%012d", padded with 'x' to --value-bytes when that is larger)
//    with SET key value PXAT deadline, pipelined. Deadlines are uniform random
//    whole milliseconds in [base, base + spread-ms), base = now + lead-ms. If
//    the load ends less than 300 ms before base, it starts again with a longer
//    lead (up to 3 attempts), so no key is due before the load is complete.
//    Then CONFIG RESETSTAT, so the server's step maxima (below) are the
//    flood's, not the load's.
// 2. From 300 ms before base, the main connection sends DBSIZE every poll-ms
//    and records the count; it stops at the first reply of 0 (or timeout-ms
//    after the last deadline).
// 3. Meanwhile a second connection (the probe) sends GET of a missing key
//    every probe-us and times each reply, until tail-ms after the drain's
//    end: the memory of the reaped keys goes back to the system around then.
//
// Output on stdout, one "name=value" a line:
//   drain_ms       first DBSIZE reply of 0, received, minus the last deadline
//                  (an upper bound; the resolution is the DBSIZE round trip
//                  plus poll-ms); -1 if timed out
//   left_at_last   DBSIZE at the last poll before the last deadline passed
//   probe_*        probe GET latencies (us) sent between the first deadline
//                  and tail-ms after the drain's end: n, p50, p99, p999, max
//   probe_worst    the five slowest of those, "latency_us@ms" with ms the
//                  send time minus the last deadline
//   base_probe_*   the same for probes sent in the 300 ms before the first
//                  deadline (the idle reference)
//   load_ms, lead_ms, attempts, keys, first_deadline, last_deadline
//   step_*         lawnkv's INFO expiry fields *_max_us after the drain: the
//                  longest loop iteration, expiry cycle and memory-release step
//                  in the loop thread's CPU time and in wall time (absent for
//                  redis-server), and the expired_lag_* fields
// --series FILE gets "ms_since_first_deadline keys_remaining" per poll.
// --level2-at-ms N delays the flood (up to 4,096 ms more lead) so that N ms
// after the first deadline a multiple of 4,096 ms falls: where lawnkv's
// wheel enters a level-2 slot, which holds the rest of the flood
// (expiry/wheel.hpp). Otherwise where that happens, if at all, depends on
// the time of the run.
// --slow-file FILE gets "sent_ns received_ns latency_us ms_from_last_deadline"
// (CLOCK_MONOTONIC) for every probe of the window above (idle reference
// included) slower than --slow-us: bench/server/loop_trace_match.py lines
// them up with the server's loop trace (server/loop_trace.hpp). Its first
// line, "# last_deadline_mono_ns N", places the last deadline on that clock.

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
  long tail_ms = 200;
  unsigned seed = 1;
  std::string series;
  long hashes = 0;  // > 0: items are fields of this many hashes
  bool events = false;
  long value_bytes = 16;
  std::string slow_file;
  long slow_us = 1500;
  long level2_at_ms = -1;
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

// Appends one RESP command to cmd.
void append_command(std::string& cmd, std::initializer_list<std::string_view> args) {
  cmd += "*" + std::to_string(args.size()) + "\r\n";
  for (std::string_view a : args) {
    cmd += "$" + std::to_string(a.size()) + "\r\n";
    cmd.append(a);
    cmd += "\r\n";
  }
}

// Loads every item with its deadline, pipelined in batches; checks each
// reply. A key is one SET ... PXAT; a field an HSET and an HPEXPIREAT.
void load(redisContext* c, const Options& o, const std::vector<int64_t>& deadlines) {
  constexpr size_t kBatch = 2000;
  std::string cmd;
  char key[32];
  char field[32];
  char value[32];
  std::string padded;
  for (size_t i = 0; i < deadlines.size(); i += kBatch) {
    const size_t end = std::min(deadlines.size(), i + kBatch);
    size_t replies = 0;
    for (size_t k = i; k < end; ++k) {
      const std::string when = std::to_string(deadlines[k]);
      std::snprintf(value, sizeof value, "val:%012zu", k);
      padded = value;
      if (o.value_bytes > static_cast<long>(padded.size())) padded.resize(static_cast<size_t>(o.value_bytes), 'x');
      cmd.clear();
      if (o.hashes > 0) {
        std::snprintf(key, sizeof key, "h:%06zu", k % static_cast<size_t>(o.hashes));
        std::snprintf(field, sizeof field, "f:%014zu", k);
        append_command(cmd, {"HSET", key, field, padded});
        append_command(cmd, {"HPEXPIREAT", key, when, "FIELDS", "1", field});
        replies += 2;
      } else {
        std::snprintf(key, sizeof key, "exp:%012zu", k);
        append_command(cmd, {"SET", key, padded, "PXAT", when});
        replies += 1;
      }
      redisAppendFormattedCommand(c, cmd.data(), cmd.size());
    }
    for (size_t k = 0; k < replies; ++k) {
      void* r = nullptr;
      if (redisGetReply(c, &r) != REDIS_OK || !r) die("load: connection error");
      auto* reply = static_cast<redisReply*>(r);
      if (reply->type == REDIS_REPLY_ERROR) die(std::string("load: ") + reply->str);
      freeReplyObject(reply);
    }
  }
}

// Field mode's hexpired events: (receive wall ms, hash index), read by their
// own thread until the end marker (kEndMarker) or stop.
struct Event {
  double at_ms;
  long hash;
};

constexpr const char* kEndMarker = "end-of-run";

void event_loop(const Options& o, std::atomic<bool>& ready, std::atomic<bool>& stop, std::atomic<bool>& done,
                size_t expected, std::vector<Event>& out) {
  redisContext* c = connect(o);
  auto* r = static_cast<redisReply*>(redisCommand(c, "SUBSCRIBE __keyevent@0__:hexpired"));
  if (!r) die("events: cannot subscribe");
  freeReplyObject(r);
  redisSetTimeout(c, timeval{0, 100000});  // wake every 100 ms to look at stop
  out.reserve(expected);
  ready = true;
  while (!stop.load(std::memory_order_relaxed)) {
    void* reply = nullptr;
    if (redisGetReply(c, &reply) != REDIS_OK) {
      if (c->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        c->err = 0;  // a timeout: read on
        continue;
      }
      die("events: connection error");
    }
    const double now = wall_ms();
    auto* m = static_cast<redisReply*>(reply);
    bool end = false;
    if (m->type == REDIS_REPLY_ARRAY && m->elements == 3 && m->element[2]->type == REDIS_REPLY_STRING) {
      const std::string_view payload(m->element[2]->str, m->element[2]->len);
      end = payload == kEndMarker;
      if (!end && payload.size() > 2) out.push_back({now, std::atol(m->element[2]->str + 2)});
    }
    freeReplyObject(m);
    if (end) break;
  }
  redisFree(c);
  done = true;
}

// Field lags (ms): each field against the first event of its hash received
// at least 1 ms after its deadline (see the header). Fields no event
// covered are left out (fields_reported says how many were covered).
std::vector<double> event_lags(const Options& o, const std::vector<int64_t>& deadlines,
                               const std::vector<Event>& events) {
  std::vector<std::vector<int64_t>> per_hash(static_cast<size_t>(o.hashes));
  for (size_t k = 0; k < deadlines.size(); ++k) per_hash[k % per_hash.size()].push_back(deadlines[k]);
  for (auto& d : per_hash) std::sort(d.begin(), d.end());
  std::vector<size_t> covered(per_hash.size());
  std::vector<double> lags;
  lags.reserve(deadlines.size());
  for (const Event& e : events) {  // in the order received
    if (e.hash < 0 || static_cast<size_t>(e.hash) >= per_hash.size()) continue;
    const auto h = static_cast<size_t>(e.hash);
    const std::vector<int64_t>& d = per_hash[h];
    for (size_t& i = covered[h]; i < d.size() && static_cast<double>(d[i] + 1) <= e.at_ms; ++i)
      lags.push_back(e.at_ms - static_cast<double>(d[i]));
  }
  return lags;
}

struct Probe {
  double sent_wall_ms;
  double latency_us;
  int64_t sent_ns;  // CLOCK_MONOTONIC
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
    out.push_back({sent, static_cast<double>(t1 - t0) / 1e3, t0});
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
    else if (a == "--tail-ms") o.tail_ms = std::atol(v);
    else if (a == "--seed") o.seed = static_cast<unsigned>(std::atol(v));
    else if (a == "--series") o.series = v;
    else if (a == "--hashes") o.hashes = std::atol(v);
    else if (a == "--events") o.events = std::atoi(v) != 0;
    else if (a == "--value-bytes") o.value_bytes = std::atol(v);
    else if (a == "--slow-file") o.slow_file = v;
    else if (a == "--slow-us") o.slow_us = std::atol(v);
    else if (a == "--level2-at-ms") o.level2_at_ms = std::atol(v);
    else die("unknown option " + std::string(a));
  }
  if (o.port <= 0 || o.keys <= 0 || o.spread_ms <= 0) die("need --port, and positive --keys and --spread-ms");
  if (o.events && o.hashes <= 0) die("--events needs --hashes");
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
  std::vector<int64_t> deadlines(offsets.size());
  if (o.events) command_ok(c, "CONFIG SET notify-keyspace-events Eh");
  for (;; ++attempt) {
    if (attempt == 3) die("the load never finished before the first deadline");
    command_ok(c, "FLUSHALL");
    const double t0 = wall_ms();
    base = static_cast<int64_t>(t0) + o.lead_ms;
    if (o.level2_at_ms >= 0) {
      const int64_t at = base + *std::min_element(offsets.begin(), offsets.end()) + o.level2_at_ms;
      base += (4096 - at % 4096) % 4096;
    }
    for (size_t i = 0; i < offsets.size(); ++i) deadlines[i] = base + offsets[i];
    load(c, o, deadlines);
    const double t1 = wall_ms();
    load_ms = t1 - t0;
    if (t1 < static_cast<double>(base) - 300) break;
    o.lead_ms = std::max(o.lead_ms * 2, static_cast<long>(load_ms * 2) + 1000);
  }
  const long long loaded = command_int(c, "DBSIZE");
  const long expected = o.hashes > 0 ? std::min(o.hashes, o.keys) : o.keys;
  if (loaded != expected) die("DBSIZE after load is " + std::to_string(loaded));
  command_ok(c, "CONFIG RESETSTAT");
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
  std::atomic<bool> events_ready{!o.events};
  std::atomic<bool> events_stop{false};
  std::atomic<bool> events_done{false};
  std::vector<Event> events;
  std::thread listener;
  if (o.events) {
    listener = std::thread(event_loop, std::cref(o), std::ref(events_ready), std::ref(events_stop),
                           std::ref(events_done), deadlines.size(), std::ref(events));
    while (!events_ready) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
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
  if (drain_end > 0) sleep_until_wall(drain_end + static_cast<double>(o.tail_ms));
  stop = true;
  prober.join();
  if (o.events) {
    // The marker follows every event the server published before it; the
    // wait is bounded in case the subscriber lost its connection.
    command_int(c, (std::string("PUBLISH __keyevent@0__:hexpired ") + kEndMarker).c_str());
    const double give_up = wall_ms() + 10000;
    while (!events_done && wall_ms() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    events_stop = true;
    listener.join();
  }
  const double window_end = drain_end > 0 ? drain_end + static_cast<double>(o.tail_ms) : wall_ms();

  std::vector<double> during;
  std::vector<double> before;
  std::vector<Probe> worst;
  for (const Probe& p : probes) {
    if (p.sent_wall_ms >= static_cast<double>(first_deadline) && p.sent_wall_ms <= window_end) {
      during.push_back(p.latency_us);
      worst.push_back(p);
    } else if (p.sent_wall_ms < static_cast<double>(first_deadline) &&
               p.sent_wall_ms >= static_cast<double>(first_deadline) - 300) {
      before.push_back(p.latency_us);
    }
  }

  std::printf("keys=%ld\nspread_ms=%ld\npoll_ms=%ld\nprobe_us=%ld\ntail_ms=%ld\nattempts=%d\nlead_ms=%ld\nload_ms=%.0f\n",
              o.keys, o.spread_ms, o.poll_ms, o.probe_us, o.tail_ms, attempt + 1, o.lead_ms, load_ms);
  std::printf("first_deadline=%lld\nlast_deadline=%lld\n", static_cast<long long>(first_deadline),
              static_cast<long long>(last_deadline));
  std::printf("drain_ms=%.1f\nleft_at_last=%lld\n",
              drain_end > 0 ? drain_end - static_cast<double>(last_deadline) : -1.0, left_at_last);
  print_latencies("probe_", during);
  print_latencies("base_probe_", before);
  const size_t shown = std::min<size_t>(5, worst.size());
  std::partial_sort(worst.begin(), worst.begin() + static_cast<long>(shown), worst.end(),
                    [](const Probe& a, const Probe& b) { return a.latency_us > b.latency_us; });
  std::printf("probe_worst=");
  for (size_t i = 0; i < shown; ++i)
    std::printf("%s%.0f@%+.0f", i ? "," : "", worst[i].latency_us,
                worst[i].sent_wall_ms - static_cast<double>(last_deadline));
  std::printf("\n");
  if (o.events) {
    std::vector<double> lags = event_lags(o, deadlines, events);
    std::sort(lags.begin(), lags.end());
    std::printf("hashes=%ld\nevents_received=%zu\nfields_reported=%zu\nevent_lag_p50_ms=%.2f\n"
                "event_lag_p99_ms=%.2f\nevent_lag_max_ms=%.2f\n",
                o.hashes, events.size(), lags.size(), pct(lags, 0.5), pct(lags, 0.99),
                lags.empty() ? -1.0 : lags.back());
  }

  if (auto* info = static_cast<redisReply*>(redisCommand(c, "INFO expiry"))) {
    if (info->type == REDIS_REPLY_STRING) {
      const std::string text(info->str, info->len);
      for (size_t at = 0; at < text.size();) {
        size_t eol = text.find("\r\n", at);
        if (eol == std::string::npos) eol = text.size();
        const std::string line = text.substr(at, eol - at);
        const size_t colon = line.find(':');
        if (colon != std::string::npos &&
            (line.find("_max_us") != std::string::npos || line.rfind("expired_lag", 0) == 0))
          std::printf("step_%s=%s\n", line.substr(0, colon).c_str(), line.substr(colon + 1).c_str());
        at = eol + 2;
      }
    }
    freeReplyObject(info);
  }

  if (!o.slow_file.empty()) {
    FILE* f = std::fopen(o.slow_file.c_str(), "w");
    if (!f) die("cannot write " + o.slow_file);
    // The last deadline on CLOCK_MONOTONIC, for the trace's timeline.
    const double mono_at = static_cast<double>(mono_ns()) - (wall_ms() - static_cast<double>(last_deadline)) * 1e6;
    std::fprintf(f, "# last_deadline_mono_ns %.0f\n", mono_at);
    for (const Probe& p : probes) {
      if (p.latency_us <= static_cast<double>(o.slow_us)) continue;
      if (p.sent_wall_ms < static_cast<double>(first_deadline) - 300 || p.sent_wall_ms > window_end) continue;
      std::fprintf(f, "%lld %lld %.0f %+.1f\n", static_cast<long long>(p.sent_ns),
                   static_cast<long long>(p.sent_ns + static_cast<int64_t>(p.latency_us * 1e3)), p.latency_us,
                   p.sent_wall_ms - static_cast<double>(last_deadline));
    }
    std::fclose(f);
  }

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
