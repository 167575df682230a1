#pragma once
// A bench-only trace of the loop's phases: where an iteration's time went,
// to tell a client's slow reply that waited behind lawnkv's own work (a
// phase that ran long) from one that waited on the machine (no phase
// running: the process was not given the CPU).
//
// Off unless the environment names a file: LAWNKV_LOOP_TRACE=path. Then
// every phase below is recorded as (phase, start, duration) on
// CLOCK_MONOTONIC (uv_hrtime: the clock a client on the same machine reads
// with clock_gettime), in a ring of kCapacity records (the latest 2^21, 48
// MiB, allocated only when on), written to the file as text when the
// server stops ("phase start_ns dur_ns cpu_ns" a line, oldest first; cpu_ns
// the loop thread's CPU time in the phase, -1 where not measured).
// bench/server/loop_trace_match.py lines the records up with a probe's
// slow replies (bench/server/expiry_drain.cpp --slow-file).
//
// Off, a phase costs one predictable branch (on() false): no clock read.
//
// Phases, in libuv's order within an iteration:
//   cron      a timer callback (clients cron, aging, snapshots, replication)
//   expiry    one expiry cycle (server/expiry_cycle.hpp), its flush included
//   chunk     one reap call of that cycle, recorded when over 100 us
//   release   one memory release step (arena chunks, pending unmaps)
//   evict     one eviction slice
//   prepare   the prepare callback (blocked clients, flush, arming)
//   flush     sending the waiting replies (inside prepare or expiry)
//   wait      blocked in poll (libuv's idle-time metric)
//   io        poll's callbacks: reads, parsing, commands, accepts, the
//             expiry timer's wake-up (from poll's return to the check phase)
//   read      one connection's read: parsing and its commands (inside io)
//   aging     one step of the keys' aging pass (server/aging_cron.hpp)
//   late      not a phase: a reap call raised expired_lag_max_ms past 2;
//             the span runs from the late key's deadline to that call's end

#include <time.h>
#include <uv.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace lawnkv::server {

class LoopTrace {
 public:
  enum Phase : uint8_t { kCron, kExpiry, kChunk, kRelease, kEvict, kPrepare, kFlush, kWait, kIo, kRead, kAging, kLate };
  static constexpr size_t kCapacity = size_t{1} << 21;

  // On when LAWNKV_LOOP_TRACE names a file.
  LoopTrace() {
    if (const char* path = std::getenv("LAWNKV_LOOP_TRACE"); path != nullptr && *path != '\0') {
      path_ = path;
      ring_.resize(kCapacity);
    }
  }

  bool on() const { return !path_.empty(); }
  static uint64_t now_ns() { return uv_hrtime(); }

  // The loop thread's CPU time (CLOCK_THREAD_CPUTIME_ID, a system call of
  // ~0.5 us: read only while on, twice a Span): a phase whose CPU time falls
  // short of its wall time lost the CPU to something else (an interrupt, the
  // hypervisor, a kernel path that does not preempt).
  static uint64_t cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
  }
  static constexpr uint32_t kNoCpu = UINT32_MAX;

  void record(Phase phase, uint64_t start_ns, uint64_t end_ns, uint32_t cpu = kNoCpu) {
    Record& r = ring_[next_++ & (kCapacity - 1)];
    r.start_ns = start_ns;
    r.dur_ns = static_cast<uint32_t>(end_ns > start_ns ? end_ns - start_ns : 0);
    r.cpu_ns = cpu;
    r.phase = phase;
  }

  // Writes the ring to the file named at start (nothing when off).
  void write() const {
    if (!on()) return;
    FILE* f = std::fopen(path_.c_str(), "w");
    if (f == nullptr) return;
    static constexpr const char* kNames[] = {"cron",    "expiry", "chunk", "release", "evict",
                                             "prepare", "flush",  "wait",  "io",      "read", "aging", "late"};
    const uint64_t first = next_ > kCapacity ? next_ - kCapacity : 0;
    for (uint64_t i = first; i < next_; ++i) {
      const Record& r = ring_[i & (kCapacity - 1)];
      std::fprintf(f, "%s %llu %u %lld\n", kNames[r.phase], static_cast<unsigned long long>(r.start_ns), r.dur_ns,
                   r.cpu_ns == kNoCpu ? -1LL : static_cast<long long>(r.cpu_ns));
    }
    std::fclose(f);
  }

  // Records the phase from construction to destruction (when on).
  class Span {
   public:
    Span(LoopTrace& trace, Phase phase)
        : trace_(trace), phase_(phase), start_(trace.on() ? now_ns() : 0), cpu_(trace.on() ? cpu_ns() : 0) {}
    ~Span() {
      if (start_ != 0) trace_.record(phase_, start_, now_ns(), static_cast<uint32_t>(cpu_ns() - cpu_));
    }
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;

   private:
    LoopTrace& trace_;
    Phase phase_;
    uint64_t start_;
    uint64_t cpu_;
  };

 private:
  struct Record {
    uint64_t start_ns;
    uint32_t dur_ns;
    uint32_t cpu_ns;  // kNoCpu: not measured (wait, io, chunk, late)
    Phase phase;
  };
  std::string path_;
  std::vector<Record> ring_;
  uint64_t next_ = 0;
};

}  // namespace lawnkv::server
