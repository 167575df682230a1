// Microbenchmarks of the expiry index (src/expiry/) side by side with a binary
// min-heap (bench/heap_baseline.hpp, libuv's structure; Heap reschedules as
// libuv does, stop + insert, HeapInPlace with an in-place key change), at 1,000,000 timers
// for three TTL mixes:
//   0 = 16 distinct TTLs (1 s .. 7 days), 1 = 1,000 distinct TTLs (1 s .. 1 h),
//   2 = continuous: TTL uniform in 1 ms .. 1 h, plus 10% absolute deadlines
//       (PXAT, ttl 0) uniform up to 5 years ahead.
// Timer i is added at now_i = T + i/100 (100 adds per ms) with deadline
// now_i + ttl. Each benchmark times only its operation (manual time: setup and
// teardown are excluded) and reports nanoseconds per operation:
//   Add          N adds into an empty index (AddFloor: just streaming the
//                workload and writing the Timers, no index: the floor)
//   Cancel       N cancels of scheduled timers, random order
//   Reschedule   N refreshes in time order of randomly chosen timers
//                (EXPIRE again: same TTL, deadline now' + ttl, now' = T + 10 s..)
//   CancelWarm, RescheduleWarm: the same, with the timer's cache line loaded
//                first (untimed), as after the server's key lookup
//   DrainAll     everything due at once, drained in batches of 4,096: per entry
//   EventLoop    the server's loop: now = max(now + 1, next_deadline() + 1),
//                drain(now, 1000); per expired entry, ticks included
//   WorstDrain   the same loop timing each drain: worst_us = slowest call
//   IdleTick     drain(now, 1000) + next_deadline() with nothing due: per tick
//   HotTtls/K    Lawn only: 1M timers over K = 1, 1,000, 1,000,000 hot TTLs
//                (K queues): idle tick and per-entry event loop, to show the
//                tick cost does not grow with K.
// Times are thread CPU time (see Clock below).
// Run: build/bench-expiry --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <time.h>

#include "core/arena.hpp"
#include "expiry/index.hpp"
#include "heap_baseline.hpp"

namespace {

using lawnkv::expiry::Index;
using lawnkv::expiry::kNever;
using lawnkv::expiry::Timer;

// Time is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not the wall clock:
// the benchmarks run on a shared machine, and a preemption in the middle of a
// timed loop would be charged to the structure under test.
struct Clock {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<Clock, duration>;
  static time_point now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return time_point(duration(int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec));
  }
};

constexpr int64_t kT = 1'700'000'000'000;
constexpr size_t kN = 1'000'000;
constexpr int64_t kHour = 3'600'000;
constexpr int64_t kDay = 24 * kHour;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Every contender's nodes come from the arena: the index links only Timers
// that live there (expiry/timer.hpp), and the heap gets the same memory.
template <class Node>
using Nodes = std::vector<Node, lawnkv::arena::Allocator<Node>>;

struct Workload {
  std::vector<int64_t> deadline, ttl;  // timer i: added at T + i/100
  std::vector<uint32_t> cancel_order;  // a random permutation
  std::vector<uint32_t> refresh_key;   // refresh j hits timer refresh_key[j] ...
  std::vector<int64_t> refresh_deadline;  // ... with this deadline
  std::vector<int64_t> refresh_ttl;       // ... and this ttl (the key's own)
};

std::unique_ptr<Workload> make_workload(int mix) {
  auto w = std::make_unique<Workload>();
  std::mt19937_64 rng(static_cast<uint64_t>(mix) + 1);
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  std::vector<int64_t> ttls;
  if (mix == 0) {
    ttls = {1'000, 2'000, 5'000, 10'000, 15'000, 30'000, 60'000, 120'000, 300'000, 600'000,
            900'000, 1'800'000, kHour, 2 * kHour, kDay, 7 * kDay};
  } else if (mix == 1) {
    for (int i = 0; i < 1000; ++i) ttls.push_back(uniform(1'000, kHour));
  }
  // The TTL a timer gets, and its deadline when set at now.
  auto draw = [&](int64_t now, int64_t* ttl) {
    if (mix != 2) {
      *ttl = ttls[static_cast<size_t>(uniform(0, static_cast<int64_t>(ttls.size()) - 1))];
      return now + *ttl;
    }
    if (uniform(0, 9) == 0) {
      *ttl = 0;
      return now + uniform(1, 5 * 365 * kDay);
    }
    *ttl = uniform(1, kHour);
    return now + *ttl;
  };
  w->deadline.resize(kN);
  w->ttl.resize(kN);
  for (size_t i = 0; i < kN; ++i) w->deadline[i] = draw(kT + static_cast<int64_t>(i / 100), &w->ttl[i]);
  w->cancel_order.resize(kN);
  for (size_t i = 0; i < kN; ++i) w->cancel_order[i] = static_cast<uint32_t>(i);
  std::shuffle(w->cancel_order.begin(), w->cancel_order.end(), rng);
  w->refresh_key.resize(kN);
  w->refresh_deadline.resize(kN);
  w->refresh_ttl.resize(kN);
  for (size_t j = 0; j < kN; ++j) {
    const uint32_t key = static_cast<uint32_t>(uniform(0, kN - 1));
    const int64_t now = kT + 10'000 + static_cast<int64_t>(j / 100);
    w->refresh_key[j] = key;
    const int64_t ttl = w->ttl[key];
    w->refresh_ttl[j] = ttl;
    w->refresh_deadline[j] = ttl > 0 ? now + ttl : now + uniform(1, 5 * 365 * kDay);
  }
  return w;
}

std::array<std::unique_ptr<Workload>, 3> workloads;  // built on first use

const Workload& workload(int64_t mix) {
  auto& w = workloads[static_cast<size_t>(mix)];
  if (!w) w = make_workload(static_cast<int>(mix));
  return *w;
}

// The two contenders behind one face.
struct Lawn {
  using Node = Timer;
  Index ix;
  Lawn() { ix.drain(kT, 1, [](Timer*) {}); }  // the loop has run once: cursor at T
  void add(Node* n, int64_t d, int64_t ttl) { ix.add(n, d, ttl); }
  void cancel(Node* n) { ix.cancel(n); }
  void reschedule(Node* n, int64_t d, int64_t ttl) { ix.reschedule(n, d, ttl); }
  template <class F>
  size_t drain(int64_t now, size_t max, F&& f) { return ix.drain(now, max, f); }
  int64_t next_deadline() const { return ix.next_deadline(); }
  size_t size() const { return ix.size(); }
  size_t memory_bytes() const { return ix.memory_bytes(); }
};

// Reschedule as libuv does it (uv_timer_start on an active timer: stop, then
// insert).
struct Heap {
  using Node = lawnkv::bench::HeapTimer;
  lawnkv::bench::MinHeap h;
  void add(Node* n, int64_t d, int64_t) { h.add(n, d); }
  void cancel(Node* n) { h.cancel(n); }
  void reschedule(Node* n, int64_t d, int64_t) {
    h.cancel(n);
    h.add(n, d);
  }
  template <class F>
  size_t drain(int64_t now, size_t max, F&& f) { return h.drain(now, max, f); }
  int64_t next_deadline() const { return h.next_deadline(); }
  size_t size() const { return h.size(); }
  size_t memory_bytes() const { return h.memory_bytes(); }
};

// The stronger heap: reschedule changes the key in place (one sift).
struct HeapInPlace : Heap {
  void reschedule(Node* n, int64_t d, int64_t) { h.reschedule(n, d); }
};

// A fresh contender holding the whole workload.
template <class Impl>
struct Loaded {
  std::unique_ptr<Impl> impl = std::make_unique<Impl>();
  Nodes<typename Impl::Node> nodes;
  Loaded() : nodes(kN) {}
  explicit Loaded(const Workload& w) : nodes(kN) {
    for (size_t i = 0; i < kN; ++i) impl->add(&nodes[i], w.deadline[i], w.ttl[i]);
  }
};

template <class Impl>
void BM_Add(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  size_t bytes = 0;
  for (auto _ : state) {
    auto impl = std::make_unique<Impl>();
    Nodes<typename Impl::Node> nodes(kN);
    const auto t0 = Clock::now();
    for (size_t i = 0; i < kN; ++i) impl->add(&nodes[i], w.deadline[i], w.ttl[i]);
    state.SetIterationTime(seconds(Clock::now() - t0) / kN);
    bytes = impl->memory_bytes();
  }
  state.counters["index_B_per_timer"] = static_cast<double>(bytes) / kN;
}

// Not a contender: the cost of streaming the workload and writing each
// Timer's 16 bytes (linked to the previous one), the floor under any add.
void BM_AddFloor(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  for (auto _ : state) {
    Nodes<Timer> nodes(kN + 1);
    Timer& head = nodes[kN];
    Timer* last = &head;
    const auto t0 = Clock::now();
    for (size_t i = 0; i < kN; ++i) {
      Timer* t = &nodes[i];
      t->deadline = w.deadline[i] + w.ttl[i];
      t->prev = last;
      t->next = &head;
      last->next = t;
      last = t;
    }
    state.SetIterationTime(seconds(Clock::now() - t0) / kN);
    benchmark::DoNotOptimize(last);
  }
}

template <class Impl>
void BM_Cancel(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  for (auto _ : state) {
    Loaded<Impl> l(w);
    const auto t0 = Clock::now();
    for (uint32_t i : w.cancel_order) l.impl->cancel(&l.nodes[i]);
    state.SetIterationTime(seconds(Clock::now() - t0) / kN);
  }
}

template <class Impl>
void BM_Reschedule(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  for (auto _ : state) {
    Loaded<Impl> l(w);
    const auto t0 = Clock::now();
    for (size_t j = 0; j < kN; ++j) {
      l.impl->reschedule(&l.nodes[w.refresh_key[j]], w.refresh_deadline[j], w.refresh_ttl[j]);
    }
    state.SetIterationTime(seconds(Clock::now() - t0) / kN);
  }
}

// Cancel and Reschedule again, as the server does them: right after the key's
// lookup, so the timer's own cache line is already loaded (what remains is
// the structure's work: neighbours for Lawn, the heap array and sift for the
// heap). Batches of 256: an untimed pass touches the 256 timers, a timed pass
// operates on them (two clock reads per batch are included, ~1-2 ns per op).
template <class Impl, bool kReschedule>
void warm_ops(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  constexpr size_t kBatch = 256;
  for (auto _ : state) {
    Loaded<Impl> l(w);
    Clock::duration spent{};
    int64_t sink = 0;
    for (size_t b = 0; b < kN; b += kBatch) {
      const size_t e = std::min(b + kBatch, kN);
      for (size_t j = b; j < e; ++j) {
        sink += l.nodes[kReschedule ? w.refresh_key[j] : w.cancel_order[j]].deadline;
      }
      const auto t0 = Clock::now();
      for (size_t j = b; j < e; ++j) {
        if (kReschedule) {
          l.impl->reschedule(&l.nodes[w.refresh_key[j]], w.refresh_deadline[j], w.refresh_ttl[j]);
        } else {
          l.impl->cancel(&l.nodes[w.cancel_order[j]]);
        }
      }
      spent += Clock::now() - t0;
    }
    benchmark::DoNotOptimize(sink);
    state.SetIterationTime(seconds(spent) / kN);
  }
}

template <class Impl>
void BM_CancelWarm(benchmark::State& state) { warm_ops<Impl, false>(state); }

template <class Impl>
void BM_RescheduleWarm(benchmark::State& state) { warm_ops<Impl, true>(state); }

template <class Impl>
void BM_DrainAll(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  for (auto _ : state) {
    Loaded<Impl> l(w);
    size_t n = 0;
    uintptr_t sink = 0;
    const auto t0 = Clock::now();
    while (l.impl->size() > 0) {
      n += l.impl->drain(kNever, 4096, [&](auto* t) { sink += reinterpret_cast<uintptr_t>(t); });
    }
    state.SetIterationTime(seconds(Clock::now() - t0) / static_cast<double>(n));
    benchmark::DoNotOptimize(sink);
  }
}

// The server's loop over the whole workload; returns entries reaped. With
// worst != nullptr each drain is timed and the slowest kept.
template <class Impl>
size_t event_loop(Impl& impl, double* worst) {
  int64_t now = kT;
  size_t n = 0;
  uintptr_t sink = 0;
  for (;;) {
    const int64_t next = impl.next_deadline();
    if (next == kNever) break;
    now = std::max(now + 1, next + 1);
    if (worst != nullptr) {
      const auto t0 = Clock::now();
      n += impl.drain(now, 1000, [&](auto* t) { sink += reinterpret_cast<uintptr_t>(t); });
      *worst = std::max(*worst, seconds(Clock::now() - t0));
    } else {
      n += impl.drain(now, 1000, [&](auto* t) { sink += reinterpret_cast<uintptr_t>(t); });
    }
  }
  benchmark::DoNotOptimize(sink);
  return n;
}

template <class Impl>
void BM_EventLoop(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  for (auto _ : state) {
    Loaded<Impl> l(w);
    const auto t0 = Clock::now();
    const size_t n = event_loop(*l.impl, nullptr);
    state.SetIterationTime(seconds(Clock::now() - t0) / static_cast<double>(n));
  }
}

template <class Impl>
void BM_WorstDrain(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  double worst = 0;
  for (auto _ : state) {
    Loaded<Impl> l(w);
    double this_worst = 0;
    const auto t0 = Clock::now();
    const size_t n = event_loop(*l.impl, &this_worst);
    state.SetIterationTime(seconds(Clock::now() - t0) / static_cast<double>(n));
    worst = std::max(worst, this_worst);
  }
  state.counters["worst_us"] = worst * 1e6;
}

template <class Impl>
void BM_IdleTick(benchmark::State& state) {
  const Workload& w = workload(state.range(0));
  constexpr int kTicks = 1'000'000;
  for (auto _ : state) {
    Loaded<Impl> l(w);
    const int64_t now = kT + 1;  // every deadline is >= T + 1: nothing due
    l.impl->drain(now, 1000, [](auto*) {});
    int64_t sink = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < kTicks; ++i) {
      l.impl->drain(now, 1000, [](auto*) {});
      sink += l.impl->next_deadline();
    }
    state.SetIterationTime(seconds(Clock::now() - t0) / kTicks);
    benchmark::DoNotOptimize(sink);
  }
}

// 1M timers over K hot TTLs (1000 + k ms), each TTL made hot first.
std::unique_ptr<Loaded<Lawn>> load_hot_ttls(size_t k) {
  auto l = std::make_unique<Loaded<Lawn>>();
  Nodes<Timer> scratch(1);
  for (size_t i = 0; i < kN; ++i) {
    const int64_t ttl = 1000 + static_cast<int64_t>(i % k);
    const int64_t deadline = kT + static_cast<int64_t>(i / 100) + ttl;
    if (i < k) {  // the TTL's first timer: 3 arrivals before it make it hot
      for (uint32_t a = 1; a < lawnkv::expiry::TtlTable::kHotAfter; ++a) {
        l->impl->add(&scratch[0], deadline, ttl);
        l->impl->cancel(&scratch[0]);
      }
    }
    l->impl->add(&l->nodes[i], deadline, ttl);
  }
  return l;
}

void BM_HotTtlsIdleTick(benchmark::State& state) {
  const size_t k = static_cast<size_t>(state.range(0));
  constexpr int kTicks = 1'000'000;
  size_t queues = 0;
  for (auto _ : state) {
    auto l = load_hot_ttls(k);
    queues = l->impl->ix.queues();
    const int64_t now = kT + 1;
    l->impl->drain(now, 1000, [](auto*) {});
    int64_t sink = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < kTicks; ++i) {
      l->impl->drain(now, 1000, [](auto*) {});
      sink += l->impl->next_deadline();
    }
    state.SetIterationTime(seconds(Clock::now() - t0) / kTicks);
    benchmark::DoNotOptimize(sink);
  }
  state.counters["queues"] = static_cast<double>(queues);
}

void BM_HotTtlsEventLoop(benchmark::State& state) {
  const size_t k = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    auto l = load_hot_ttls(k);
    const auto t0 = Clock::now();
    const size_t n = event_loop(*l->impl, nullptr);
    state.SetIterationTime(seconds(Clock::now() - t0) / static_cast<double>(n));
  }
}

void mixes(benchmark::internal::Benchmark* b) {
  b->ArgName("mix")->Arg(0)->Arg(1)->Arg(2)->UseManualTime()->Iterations(2)->Unit(benchmark::kNanosecond);
}

}  // namespace

BENCHMARK_TEMPLATE(BM_Add, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_Add, Heap)->Apply(mixes);
BENCHMARK(BM_AddFloor)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_Cancel, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_Cancel, Heap)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_Reschedule, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_Reschedule, Heap)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_Reschedule, HeapInPlace)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_CancelWarm, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_CancelWarm, Heap)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_RescheduleWarm, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_RescheduleWarm, Heap)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_RescheduleWarm, HeapInPlace)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_DrainAll, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_DrainAll, Heap)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_EventLoop, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_EventLoop, Heap)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_WorstDrain, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_WorstDrain, Heap)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_IdleTick, Lawn)->Apply(mixes);
BENCHMARK_TEMPLATE(BM_IdleTick, Heap)->Apply(mixes);
BENCHMARK(BM_HotTtlsIdleTick)->ArgName("ttls")->Arg(1)->Arg(1000)->Arg(1'000'000)->UseManualTime()->Iterations(2)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_HotTtlsEventLoop)->ArgName("ttls")->Arg(1)->Arg(1000)->Arg(1'000'000)->UseManualTime()->Iterations(2)->Unit(benchmark::kNanosecond);

BENCHMARK_MAIN();
