#include "engine/latency_monitor.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/ascii.hpp"
#include "core/sparkline.hpp"

namespace lawnkv {

void LatencyMonitor::add(std::string_view event, int64_t latency_ms, int64_t now_s) {
  auto it = events_.find(event);
  if (it == events_.end()) it = events_.emplace(std::string(event), Series{}).first;
  Series& s = it->second;
  if (latency_ms > s.max_ms) s.max_ms = latency_ms;
  // One sample a second: the largest.
  Sample& prev = s.samples[(s.next + kSamples - 1) % kSamples];
  if (prev.time_s == now_s) {
    if (latency_ms > prev.latency_ms) prev.latency_ms = latency_ms;
    return;
  }
  s.samples[s.next] = {now_s, latency_ms};
  s.next = (s.next + 1) % kSamples;
}

int LatencyMonitor::reset(std::string_view event) {
  for (auto it = events_.begin(); it != events_.end(); ++it) {
    if (iequals(it->first, event)) {
      events_.erase(it);
      return 1;
    }
  }
  return 0;
}

int LatencyMonitor::reset_all() {
  const int n = static_cast<int>(events_.size());
  events_.clear();
  return n;
}

std::string LatencyMonitor::graph(std::string_view event, const Series& s, int64_t now_s) {
  constexpr size_t kColumns = 80;
  constexpr int kRows = 4;
  std::vector<SparkSample> samples;
  int64_t low = 0, high = 0;
  for (size_t j = 0; j < kSamples; ++j) {
    const Sample& x = s.samples[(s.next + j) % kSamples];
    if (x.time_s == 0) continue;
    low = samples.empty() ? x.latency_ms : std::min(low, x.latency_ms);
    high = samples.empty() ? x.latency_ms : std::max(high, x.latency_ms);
    const int64_t ago = now_s - x.time_s;
    std::string label = ago < 60          ? std::to_string(ago) + "s"
                        : ago < 3600      ? std::to_string(ago / 60) + "m"
                        : ago < 3600 * 24 ? std::to_string(ago / 3600) + "h"
                                          : std::to_string(ago / (3600 * 24)) + "d";
    samples.push_back({static_cast<double>(x.latency_ms), std::move(label)});
  }
  std::string out(event);
  out += " - high " + std::to_string(high) + " ms, low " + std::to_string(low) + " ms (all time high " +
         std::to_string(s.max_ms) + " ms)\n";
  out += std::string(kColumns, '-') + "\n";
  out += render_sparkline(samples, kColumns, kRows);
  return out;
}

const LatencyMonitor::Series* LatencyMonitor::find(std::string_view event) const {
  const auto it = events_.find(event);
  return it == events_.end() ? nullptr : &it->second;
}

std::string LatencyMonitor::doctor(int64_t threshold_ms, int64_t now_s) const {
  if (events_.empty() && threshold_ms == 0)
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use "
           "\"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep "
           "space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n";
  if (events_.empty())
    return "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest "
           "bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n";
  std::string report =
      "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n";
  int n = 0;
  for (const auto& [event, s] : events_) {
    // Redis's analyzeLatencyForEvent: average, mean deviation, and the
    // seconds since the oldest sample held per sample.
    int64_t count = 0, sum = 0, oldest = 0;
    for (const Sample& x : s.samples) {
      if (x.time_s == 0) continue;
      ++count;
      sum += x.latency_ms;
      if (oldest == 0 || x.time_s < oldest) oldest = x.time_s;
    }
    int64_t range = count ? now_s - oldest : 0;
    if (count && range == 0) range = 1;
    const int64_t avg = count ? sum / count : 0;
    int64_t dev = 0;
    for (const Sample& x : s.samples)
      if (x.time_s != 0) dev += std::llabs(x.latency_ms - avg);
    const int64_t mad = count ? dev / count : 0;
    const double period = count ? static_cast<double>(range) / static_cast<double>(count) : 0;
    char line[512];
    std::snprintf(line, sizeof(line),
                  "%d. %s: %" PRId64 " latency spikes (average %" PRId64 "ms, mean deviation %" PRId64
                  "ms, period %.2f sec). Worst all time event %" PRId64 "ms.",
                  ++n, event.c_str(), count, avg, mad, period, s.max_ms);
    report += line;
    report += "\n";
  }
  report +=
      "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community "
      "to get some help, providing this report in your help request.\n";
  return report;
}

}  // namespace lawnkv
