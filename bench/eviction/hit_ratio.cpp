// hit-ratio: a read-through cache client replaying one synthetic trace
// against a server (lawnkv or redis-server alike), and the same trace through
// exact LRU and Belady's optimum offline, as references.
//
//   hit-ratio --port N [--pid PID] [--ttl SECONDS] [--freq]      replay
//   hit-ratio --simulate K1,K2,...                                 references
//   common:   [--keys 200000] [--alpha 0.99] [--requests 2000000]
//             [--scan-every 100000] [--scan-len 10000] [--warmup 200000]
//             [--shift-every 0 --shift-keys 0]
//             [--value 100] [--batch 128] [--seed 1]
//
// The trace (the same for the same options): --requests draws of Zipf(alpha)
// over --keys keys (rank r drawn with probability proportional to
// 1 / (r + 1)^alpha, key name "key:%08u" of r), and after every --scan-every
// of them a one-time scan: --scan-len keys never seen before or since (names
// "key:%08u" from --keys upwards, each used exactly once). With the defaults,
// 2,000,000 Zipf requests and 20 scans of 10,000 keys: 2,200,000 requests,
// 9% of them scan keys.
// --shift-every N --shift-keys S (not by default): popularity drifts; after
// every N Zipf requests the key of rank r becomes key (r + offset) mod keys,
// offset growing by S each time, so the S hottest keys are suddenly cold
// ones and every other key moves S ranks up: a test of how fast a policy
// forgets (LFU's decay).
//
// Replay: each request is "GET key; on a miss, SET key <value> [EX ttl]"
// (a read-through cache). For speed the client pipelines: it takes the next
// requests as long as their keys are distinct (at most --batch), sends their
// GETs together, then the SETs of the ones that missed. Per key the order is
// that of the trace: a key never appears twice in a batch, so its SET always
// comes before its next GET; only accesses to different keys are reordered
// within a batch (GET b before SET a), which changes nothing a cache keeps.
// Hits and misses are counted from request --warmup on (the cache fills
// during the first 200,000 requests); the server's CPU time (utime + stime
// of --pid from /proc) is read before and after the whole replay. The server
// must be empty and configured (maxmemory, policy) before.
//
// Output, one "name=value" a line: requests, measured, hits, hit_ratio (all
// measured requests), zipf_hit_ratio (the Zipf requests alone; scan keys
// always miss), dbsize, used_memory, evicted_keys, set_errors, batches,
// wall_s, cpu_ticks, clk_tck, cpu_us_per_req (server CPU per trace request,
// its GET and its SET if any). --freq adds freq_rank_R=COUNTER (OBJECT FREQ
// of the key of Zipf rank R, if held) and freq_hist_C=KEYS (a histogram of
// OBJECT FREQ over the keys of ranks 0..keys-1 that are held): what the use
// counters look like at the end under an LFU policy.
//
// --simulate: for each cache size K (in keys), exact LRU and Belady's MIN
// (on a miss the key is admitted unless its next use is the farthest, so the
// optimum may decline to cache it), counted over the same window:
// lru_K=..., belady_K=..., and their zipf_ variants.

#include <hiredis/hiredis.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace {

struct Options {
  std::string host = "127.0.0.1";
  int port = 0;
  long pid = 0;
  long ttl = 0;
  bool freq = false;
  std::string simulate;
  uint32_t keys = 200000;
  double alpha = 0.99;
  long requests = 2000000;
  long scan_every = 100000;
  long scan_len = 10000;
  long warmup = 200000;
  long shift_every = 0;
  uint32_t shift_keys = 0;
  size_t value = 100;
  size_t batch = 128;
  uint64_t seed = 1;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "hit-ratio: %s\n", what.c_str());
  std::exit(1);
}

double mono_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The trace: key ids; ids >= keys are scan keys, each used once.
std::vector<uint32_t> make_trace(const Options& o) {
  std::vector<double> cdf(o.keys);
  double sum = 0;
  for (uint32_t r = 0; r < o.keys; ++r) {
    sum += 1.0 / std::pow(static_cast<double>(r) + 1.0, o.alpha);
    cdf[r] = sum;
  }
  for (double& c : cdf) c /= sum;
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<uint32_t> t;
  t.reserve(static_cast<size_t>(o.requests + (o.requests / o.scan_every + 1) * o.scan_len));
  uint32_t next_scan = o.keys;
  uint32_t offset = 0;  // popularity shift: key of rank r is (r + offset) mod keys
  for (long i = 0; i < o.requests; ++i) {
    if (o.shift_every > 0 && i > 0 && i % o.shift_every == 0) offset = (offset + o.shift_keys) % o.keys;
    const auto it = std::lower_bound(cdf.begin(), cdf.end(), u(rng));
    const auto rank = static_cast<uint32_t>(std::min<ptrdiff_t>(it - cdf.begin(), o.keys - 1));
    t.push_back(static_cast<uint32_t>((uint64_t{rank} + offset) % o.keys));
    if (o.scan_every > 0 && (i + 1) % o.scan_every == 0)
      for (long s = 0; s < o.scan_len; ++s) t.push_back(next_scan++);
  }
  return t;
}

struct Counts {
  long measured = 0, hits = 0, zipf = 0, zipf_hits = 0;
  void add(bool hit, bool zipf_key) {
    ++measured;
    hits += hit;
    zipf += zipf_key;
    zipf_hits += hit && zipf_key;
  }
  double ratio() const { return measured ? static_cast<double>(hits) / static_cast<double>(measured) : 0; }
  double zipf_ratio() const { return zipf ? static_cast<double>(zipf_hits) / static_cast<double>(zipf) : 0; }
};

// ------------------------------------------------------------ offline models
Counts exact_lru(const Options& o, const std::vector<uint32_t>& t, size_t k) {
  const uint32_t n = *std::max_element(t.begin(), t.end()) + 1;
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> prev(n, kNone), next(n, kNone);
  std::vector<char> in(n, 0);
  uint32_t head = kNone, tail = kNone;  // head: most recent
  size_t size = 0;
  auto unlink = [&](uint32_t x) {
    (prev[x] == kNone ? head : next[prev[x]]) = next[x];
    (next[x] == kNone ? tail : prev[next[x]]) = prev[x];
  };
  auto push_front = [&](uint32_t x) {
    prev[x] = kNone;
    next[x] = head;
    (head == kNone ? tail : prev[head]) = x;
    head = x;
  };
  Counts c;
  for (size_t i = 0; i < t.size(); ++i) {
    const uint32_t x = t[i];
    const bool hit = in[x];
    if (static_cast<long>(i) >= o.warmup) c.add(hit, x < o.keys);
    if (hit) {
      unlink(x);
    } else {
      if (size == k) {
        const uint32_t victim = tail;
        unlink(victim);
        in[victim] = 0;
        --size;
      }
      in[x] = 1;
      ++size;
    }
    push_front(x);
  }
  return c;
}

Counts belady(const Options& o, const std::vector<uint32_t>& t, size_t k) {
  const uint32_t n = *std::max_element(t.begin(), t.end()) + 1;
  const uint64_t kNever = UINT64_MAX;
  std::vector<uint64_t> next_use(t.size());
  std::vector<uint64_t> seen(n, kNever);
  for (size_t i = t.size(); i-- > 0;) {
    next_use[i] = seen[t[i]] == kNever ? kNever - t[i] : seen[t[i]];  // distinct "never"s
    seen[t[i]] = i;
  }
  std::set<std::pair<uint64_t, uint32_t>> cache;  // (next use, key): farthest last
  std::vector<uint64_t> cached_next(n, 0);
  std::vector<char> in(n, 0);
  Counts c;
  for (size_t i = 0; i < t.size(); ++i) {
    const uint32_t x = t[i];
    const bool hit = in[x];
    if (static_cast<long>(i) >= o.warmup) c.add(hit, x < o.keys);
    if (hit) {
      cache.erase({cached_next[x], x});
    } else if (cache.size() == k) {
      auto far = std::prev(cache.end());
      if (far->first < next_use[i]) continue;  // x itself is needed last: do not cache it
      in[far->second] = 0;
      cache.erase(far);
    }
    in[x] = 1;
    cached_next[x] = next_use[i];
    cache.insert({next_use[i], x});
  }
  return c;
}

// -------------------------------------------------------------------- replay
redisContext* connect(const Options& o) {
  redisContext* c = redisConnectWithTimeout(o.host.c_str(), o.port, timeval{5, 0});
  if (!c || c->err) die("cannot connect to " + o.host + ":" + std::to_string(o.port));
  redisSetTimeout(c, timeval{120, 0});
  return c;
}

redisReply* reply_of(redisContext* c) {
  void* r = nullptr;
  if (redisGetReply(c, &r) != REDIS_OK || !r) die("connection error");
  return static_cast<redisReply*>(r);
}

std::string info_field(redisContext* c, const char* section, const std::string& name) {
  auto* r = static_cast<redisReply*>(redisCommand(c, "INFO %s", section));
  if (!r || r->type != REDIS_REPLY_STRING) die("INFO failed");
  std::string text(r->str, r->len);
  freeReplyObject(r);
  const size_t at = text.find("\n" + name + ":");
  if (at == std::string::npos) return "";
  const size_t from = at + name.size() + 2;
  return text.substr(from, text.find_first_of("\r\n", from) - from);
}

long long int_command(redisContext* c, const char* cmd) {
  auto* r = static_cast<redisReply*>(redisCommand(c, cmd));
  if (!r || r->type != REDIS_REPLY_INTEGER) die(std::string(cmd) + " failed");
  const long long v = r->integer;
  freeReplyObject(r);
  return v;
}

long cpu_ticks(long pid) {
  if (pid <= 0) return 0;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t close = s.rfind(')');
  if (close == std::string::npos) die("cannot read /proc/" + std::to_string(pid) + "/stat");
  // Fields after "pid (comm) ": state is field 3; utime and stime are 14 and 15.
  std::vector<std::string> fields;
  size_t p = close + 2;
  while (p < s.size()) {
    const size_t e = s.find(' ', p);
    fields.push_back(s.substr(p, e == std::string::npos ? std::string::npos : e - p));
    if (e == std::string::npos) break;
    p = e + 1;
  }
  return std::atol(fields.at(11).c_str()) + std::atol(fields.at(12).c_str());
}

void key_name(uint32_t id, char* out) { std::snprintf(out, 16, "key:%08u", id); }

int replay(const Options& o, const std::vector<uint32_t>& t) {
  redisContext* c = connect(o);
  const std::string value = [&] {
    std::string v(o.value, 'v');
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<char>('a' + i % 26);
    return v;
  }();
  const std::string ttl = std::to_string(o.ttl);
  Counts counts;
  long set_errors = 0, batches = 0;
  std::vector<uint32_t> batch;
  std::unordered_set<uint32_t> in_batch;
  std::vector<size_t> missed;
  char key[16];
  const long t0 = cpu_ticks(o.pid);
  const double w0 = mono_s();
  for (size_t i = 0; i < t.size();) {
    batch.clear();
    in_batch.clear();
    const size_t first = i;
    while (i < t.size() && batch.size() < o.batch && in_batch.insert(t[i]).second) batch.push_back(t[i++]);
    ++batches;
    for (uint32_t id : batch) {
      key_name(id, key);
      redisAppendCommand(c, "GET %s", key);
    }
    missed.clear();
    for (size_t j = 0; j < batch.size(); ++j) {
      redisReply* r = reply_of(c);
      if (r->type == REDIS_REPLY_ERROR) die(std::string("GET: ") + r->str);
      const bool hit = r->type == REDIS_REPLY_STRING;
      freeReplyObject(r);
      if (static_cast<long>(first + j) >= o.warmup) counts.add(hit, batch[j] < o.keys);
      if (!hit) missed.push_back(j);
    }
    for (size_t j : missed) {
      key_name(batch[j], key);
      if (o.ttl > 0) {
        redisAppendCommand(c, "SET %s %b EX %s", key, value.data(), value.size(), ttl.c_str());
      } else {
        redisAppendCommand(c, "SET %s %b", key, value.data(), value.size());
      }
    }
    for (size_t j = 0; j < missed.size(); ++j) {
      redisReply* r = reply_of(c);
      set_errors += r->type == REDIS_REPLY_ERROR;
      freeReplyObject(r);
    }
  }
  const double w1 = mono_s();
  const long t1 = cpu_ticks(o.pid);
  const long hz = sysconf(_SC_CLK_TCK);
  std::printf("requests=%zu\nmeasured=%ld\nhits=%ld\nhit_ratio=%.4f\nzipf_hit_ratio=%.4f\n", t.size(), counts.measured,
              counts.hits, counts.ratio(), counts.zipf_ratio());
  std::printf("dbsize=%lld\nused_memory=%s\nevicted_keys=%s\nset_errors=%ld\nbatches=%ld\n", int_command(c, "DBSIZE"),
              info_field(c, "memory", "used_memory").c_str(), info_field(c, "stats", "evicted_keys").c_str(),
              set_errors, batches);
  std::printf("wall_s=%.2f\ncpu_ticks=%ld\nclk_tck=%ld\ncpu_us_per_req=%.3f\n", w1 - w0, t1 - t0, hz,
              o.pid > 0 ? static_cast<double>(t1 - t0) / static_cast<double>(hz) / static_cast<double>(t.size()) * 1e6
                        : -1.0);
  if (o.freq) {
    std::map<long long, long> hist;
    for (uint32_t r = 0; r < o.keys; ++r) {
      key_name(r, key);
      redisAppendCommand(c, "OBJECT FREQ %s", key);
    }
    for (uint32_t r = 0; r < o.keys; ++r) {
      redisReply* rep = reply_of(c);
      if (rep->type == REDIS_REPLY_INTEGER) {
        ++hist[rep->integer];
        if (r == 0 || r == 10 || r == 100 || r == 1000 || r == 10000 || r == 100000)
          std::printf("freq_rank_%u=%lld\n", r, rep->integer);
      }
      freeReplyObject(rep);
    }
    for (const auto& [f, n] : hist) std::printf("freq_hist_%lld=%ld\n", f, n);
  }
  redisFree(c);
  return 0;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--freq") {
      o.freq = true;
      continue;
    }
    if (i + 1 >= argc) die("missing value after " + std::string(a));
    const char* v = argv[++i];
    if (a == "--host") o.host = v;
    else if (a == "--port") o.port = std::atoi(v);
    else if (a == "--pid") o.pid = std::atol(v);
    else if (a == "--ttl") o.ttl = std::atol(v);
    else if (a == "--simulate") o.simulate = v;
    else if (a == "--keys") o.keys = static_cast<uint32_t>(std::atol(v));
    else if (a == "--alpha") o.alpha = std::atof(v);
    else if (a == "--requests") o.requests = std::atol(v);
    else if (a == "--scan-every") o.scan_every = std::atol(v);
    else if (a == "--scan-len") o.scan_len = std::atol(v);
    else if (a == "--warmup") o.warmup = std::atol(v);
    else if (a == "--shift-every") o.shift_every = std::atol(v);
    else if (a == "--shift-keys") o.shift_keys = static_cast<uint32_t>(std::atol(v));
    else if (a == "--value") o.value = static_cast<size_t>(std::atol(v));
    else if (a == "--batch") o.batch = static_cast<size_t>(std::atol(v));
    else if (a == "--seed") o.seed = static_cast<uint64_t>(std::atoll(v));
    else die("unknown option " + std::string(a));
  }
  if (o.keys == 0 || o.requests <= 0 || o.batch == 0) die("need positive --keys, --requests and --batch");
  if (o.port <= 0 && o.simulate.empty()) die("need --port or --simulate");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::vector<uint32_t> t = make_trace(o);
  if (o.simulate.empty()) return replay(o, t);
  for (size_t p = 0; p < o.simulate.size();) {
    size_t e = o.simulate.find(',', p);
    if (e == std::string::npos) e = o.simulate.size();
    const size_t k = std::strtoull(o.simulate.substr(p, e - p).c_str(), nullptr, 10);
    p = e + 1;
    if (k == 0) continue;
    const Counts l = exact_lru(o, t, k), b = belady(o, t, k);
    std::printf("lru_%zu=%.4f\nzipf_lru_%zu=%.4f\nbelady_%zu=%.4f\nzipf_belady_%zu=%.4f\n", k, l.ratio(), k,
                l.zipf_ratio(), k, b.ratio(), k, b.zipf_ratio());
  }
  return 0;
}
