#pragma once
// The latency monitor (Redis's latency.c): for each event class
// ("command", "fast-command"), the last 160 seconds that had a spike of at
// least latency-monitor-threshold ms, one sample a second (the largest of
// that second), and the largest spike ever seen. LATENCY LATEST, HISTORY,
// RESET, DOCTOR and GRAPH read it.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace lawnkv {

class LatencyMonitor {
 public:
  static constexpr size_t kSamples = 160;

  struct Sample {
    int64_t time_s = 0;  // 0: an empty slot
    int64_t latency_ms = 0;
  };
  struct Series {
    std::array<Sample, kSamples> samples{};
    size_t next = 0;  // the slot the next second's sample takes
    int64_t max_ms = 0;
    const Sample& latest() const { return samples[(next + kSamples - 1) % kSamples]; }
  };

  // Records a spike of latency_ms for event when monitoring is on
  // (threshold_ms > 0) and it reaches the threshold.
  void add_if_needed(std::string_view event, int64_t latency_ms, int64_t threshold_ms, int64_t now_s) {
    if (threshold_ms > 0 && latency_ms >= threshold_ms) add(event, latency_ms, now_s);
  }
  void add(std::string_view event, int64_t latency_ms, int64_t now_s);
  // Forgets event (any case); returns 1 if it had samples, else 0.
  int reset(std::string_view event);
  // Forgets every event; returns how many there were.
  int reset_all();
  const Series* find(std::string_view event) const;
  const std::map<std::string, Series, std::less<>>& events() const { return events_; }

  // LATENCY DOCTOR's report, as Redis words it for what lawnkv records.
  std::string doctor(int64_t threshold_ms, int64_t now_s) const;
  // LATENCY GRAPH's drawing of s (event's samples), as Redis's latency.c:
  // "<event> - high H ms, low L ms (all time high M ms)", a rule of 80
  // '-', then the samples' sparkline (core/sparkline.hpp), 80 columns by
  // 4 rows, each labelled with how long before now_s it was ("12s", "3m",
  // "2h", "1d").
  static std::string graph(std::string_view event, const Series& s, int64_t now_s);

 private:
  std::map<std::string, Series, std::less<>> events_;
};

}  // namespace lawnkv
