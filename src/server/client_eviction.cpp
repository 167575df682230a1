#include "server/client_eviction.hpp"

#include <algorithm>

namespace lawnkv::server {

namespace {

constexpr int kMinLog = 15;  // Redis's CLIENT_MEM_USAGE_BUCKET_MIN_LOG: up to 32 KB
constexpr int kMaxLog = 33;  // CLIENT_MEM_USAGE_BUCKET_MAX_LOG: 4 GB and above
constexpr size_t kLeastLimit = 128 * 1024;

}  // namespace

size_t client_eviction_limit(const config::Values& cfg) {
  size_t limit;
  if (cfg.maxmemory_clients < 0 && cfg.maxmemory > 0) {
    limit = static_cast<size_t>(static_cast<double>(cfg.maxmemory) * -static_cast<double>(cfg.maxmemory_clients) / 100);
  } else if (cfg.maxmemory_clients > 0) {
    limit = static_cast<size_t>(cfg.maxmemory_clients);
  } else {
    return 0;
  }
  return std::max(limit, kLeastLimit);
}

int client_memory_bucket(size_t bytes) {
  const int bits = bytes == 0 ? 0 : 64 - __builtin_clzll(bytes);
  return std::clamp(bits, kMinLog, kMaxLog) - kMinLog;
}

std::vector<uint64_t> clients_to_evict(std::vector<EvictionCandidate> candidates, size_t total, size_t limit) {
  std::sort(candidates.begin(), candidates.end(), [](const EvictionCandidate& a, const EvictionCandidate& b) {
    const int ba = client_memory_bucket(a.bytes), bb = client_memory_bucket(b.bytes);
    return ba != bb ? ba > bb : a.id < b.id;
  });
  std::vector<uint64_t> out;
  for (const EvictionCandidate& c : candidates) {
    if (total < limit) break;
    out.push_back(c.id);
    total -= std::min(total, c.bytes);
  }
  return out;
}

}  // namespace lawnkv::server
