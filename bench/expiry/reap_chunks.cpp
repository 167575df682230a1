// The reaper's own work in a mass expiry, in thread CPU time, without a
// socket or a scheduler in the way: N keys (PXAT, deadlines spread over one
// second) all come due at once, and the expiry cycle's loop runs over them
// as the server runs it (chunks of --chunk keys until --budget-us of wall
// time has passed, then the next cycle). Prints the per-chunk and per-cycle
// CPU maxima and the mean cost of a key. Between two cycles it runs the
// memory release steps as the loop does (core/arena.hpp, page_allocator.hpp),
// timed apart.
//
//   build/bench/reap-chunks --keys 1000000 --value-bytes 1024 [--chunk 128]
//       [--budget-us 1000] [--no-time-bound] [--seed 1]
//
// --no-time-bound: chunks bounded by their key count alone (the reaper as
// it was before a chunk learned to stop at the cycle's budget).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/allocator.hpp"
#include "core/arena.hpp"
#include "core/clock.hpp"
#include "core/page_allocator.hpp"
#include "store/keyspace.hpp"

using namespace lawnkv;

namespace {

struct Options {
  size_t keys = 1'000'000;
  size_t value_bytes = 16;
  size_t chunk = 128;
  int64_t budget_us = 1000;
  bool time_bound = true;
  uint64_t seed = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::strtoull(argv[++i], nullptr, 10);
    };
    if (a == "--keys") o.keys = next();
    else if (a == "--value-bytes") o.value_bytes = next();
    else if (a == "--chunk") o.chunk = next();
    else if (a == "--budget-us") o.budget_us = static_cast<int64_t>(next());
    else if (a == "--seed") o.seed = next();
    else if (a == "--no-time-bound") o.time_bound = false;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  return o;
}

uint64_t percentile(std::vector<uint64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  store::Keyspace ks(16);
  store::Db& db = ks.db(0);
  std::mt19937_64 rng(o.seed);
  const int64_t t0 = 1'700'000'000'000;
  const std::string value(o.value_bytes, 'v');
  char key[32];
  for (size_t i = 0; i < o.keys; ++i) {
    std::snprintf(key, sizeof key, "key:%zu", i);
    store::Entry& e = db.add_string(key, value, true);
    db.set_deadline(e, t0 + static_cast<int64_t>(rng() % 1000), 0);
  }
  const int64_t now_ms = t0 + 1001;  // every key due
  std::printf("allocator %s\n", std::string(allocator::name()).c_str());  // also links its malloc_conf
  std::vector<uint64_t> chunks_us, cycles_us, releases_us;
  const int64_t start_all = Clock::thread_cpu_ns();
  size_t reaped = 0;
  const store::SteadyReapClock clock;
  while (reaped < o.keys) {
    const int64_t cycle_cpu = Clock::thread_cpu_ns();
    const int64_t stop_ns = Clock::steady_ns() + o.budget_us * 1000;
    const store::Keyspace::ReapPass pass(ks);
    for (;;) {
      const int64_t c = Clock::thread_cpu_ns();
      const size_t n = o.time_bound ? ks.reap(now_ms, store::ReapLimit{o.chunk, &clock, stop_ns})
                                    : ks.reap(now_ms, o.chunk);
      chunks_us.push_back(static_cast<uint64_t>(Clock::thread_cpu_ns() - c) / 1000);
      reaped += n;
      if (n < o.chunk && ks.next_deadline() >= now_ms) break;
      if (Clock::steady_ns() >= stop_ns) break;
    }
    cycles_us.push_back(static_cast<uint64_t>(Clock::thread_cpu_ns() - cycle_cpu) / 1000);
    const int64_t r = Clock::thread_cpu_ns();
    arena::release_step();
    page_release_step();
    releases_us.push_back(static_cast<uint64_t>(Clock::thread_cpu_ns() - r) / 1000);
  }
  const double total_ns = static_cast<double>(Clock::thread_cpu_ns() - start_all);
  std::printf("keys %zu value_bytes %zu chunk %zu budget_us %lld time_bound %d\n", o.keys, o.value_bytes, o.chunk,
              static_cast<long long>(o.budget_us), o.time_bound ? 1 : 0);
  std::printf("ns_per_key %.0f chunks %zu chunk_cpu_us p50 %llu p99 %llu p999 %llu max %llu\n",
              total_ns / static_cast<double>(reaped), chunks_us.size(),
              static_cast<unsigned long long>(percentile(chunks_us, 0.5)),
              static_cast<unsigned long long>(percentile(chunks_us, 0.99)),
              static_cast<unsigned long long>(percentile(chunks_us, 0.999)),
              static_cast<unsigned long long>(*std::max_element(chunks_us.begin(), chunks_us.end())));
  std::printf("cycles %zu cycle_cpu_us p50 %llu p99 %llu max %llu\n", cycles_us.size(),
              static_cast<unsigned long long>(percentile(cycles_us, 0.5)),
              static_cast<unsigned long long>(percentile(cycles_us, 0.99)),
              static_cast<unsigned long long>(*std::max_element(cycles_us.begin(), cycles_us.end())));
  std::printf("release_step_cpu_us max %llu (total reap+release ns_per_key above)\n",
              static_cast<unsigned long long>(*std::max_element(releases_us.begin(), releases_us.end())));
  return 0;
}
