// maxmemory-clients (server/client_eviction.hpp): the limit, the buckets,
// and which clients go, pinned with the header's worked example.

#include <doctest/doctest.h>

#include "server/client_eviction.hpp"

namespace lawnkv::server {
namespace {

constexpr size_t kKb = 1024;

TEST_CASE("the client eviction limit: bytes, a percentage of maxmemory, at least 128 KB") {
  config::Values v;
  CHECK(client_eviction_limit(v) == 0);
  v.maxmemory_clients = 1 << 20;
  CHECK(client_eviction_limit(v) == 1 << 20);
  v.maxmemory_clients = 1000;
  CHECK(client_eviction_limit(v) == 128 * kKb);
  v.maxmemory_clients = -10;  // 10%
  CHECK(client_eviction_limit(v) == 0);  // of no maxmemory: none
  v.maxmemory = 100 << 20;
  CHECK(client_eviction_limit(v) == 10 << 20);
  v.maxmemory = 1 << 20;
  CHECK(client_eviction_limit(v) == 128 * kKb);
}

TEST_CASE("client memory buckets: up to 32 KB, then by powers of two up to 4 GB") {
  CHECK(client_memory_bucket(0) == 0);
  CHECK(client_memory_bucket(32 * kKb - 1) == 0);
  CHECK(client_memory_bucket(32 * kKb) == 1);
  CHECK(client_memory_bucket(64 * kKb - 1) == 1);
  CHECK(client_memory_bucket(64 * kKb) == 2);
  CHECK(client_memory_bucket(size_t{1} << 32) == 18);
  CHECK(client_memory_bucket(size_t{1} << 40) == 18);
}

TEST_CASE("the clients using the most are evicted first, until under the limit") {
  // The header's example: c (NO-EVICT) is not a candidate but counts.
  const size_t total = (20 + 700 + 400 + 300) * kKb;
  const std::vector<EvictionCandidate> candidates{{1, 20 * kKb}, {2, 700 * kKb}, {4, 300 * kKb}};
  CHECK(clients_to_evict(candidates, total, 1024 * kKb) == std::vector<uint64_t>{2});
  CHECK(clients_to_evict(candidates, total, 500 * kKb) == std::vector<uint64_t>{2, 4});
  CHECK(clients_to_evict(candidates, total, 100 * kKb) == std::vector<uint64_t>{2, 4, 1});
  CHECK(clients_to_evict(candidates, total, 10 * kKb) == std::vector<uint64_t>{2, 4, 1});  // all, still over
  CHECK(clients_to_evict(candidates, 900 * kKb, 1024 * kKb).empty());
  // One bucket: the oldest connection first, not the largest.
  const std::vector<EvictionCandidate> same{{7, 600 * kKb}, {3, 520 * kKb}};
  CHECK(clients_to_evict(same, 1120 * kKb, 1024 * kKb) == std::vector<uint64_t>{3});
}

}  // namespace
}  // namespace lawnkv::server
