#pragma once
// Client eviction (Redis 7.0's maxmemory-clients, evictClients in
// networking.c): when the memory of all normal and pubsub clients together
// (their query and output buffers and the client itself: CLIENT LIST's
// tot-mem) reaches the limit, clients are disconnected, those using the
// most first, until it is under the limit again. A client with CLIENT
// NO-EVICT on is never chosen, but its memory counts in the total.
//
// Redis keeps the clients in buckets by the log2 of their memory (up to
// 32 KB, 64 KB, ... 4 GB and above) and evicts from the highest bucket
// down, each bucket's clients in the order they entered it; lawnkv sorts
// the candidates by the same buckets when it must evict, and within a
// bucket by id (the oldest connection first). Each connection keeps its
// share of the total current (Connection::note_memory), so checking the
// limit costs nothing until it is passed. The server checks it after each
// read and before it polls (Redis: before each command and before it sleeps).
//
// Worked example: maxmemory-clients 1mb; clients a (20 KB), b (700 KB),
// c (400 KB, NO-EVICT), d (300 KB): total 1,420 KB >= 1,024 KB. Buckets:
// b in 2^20 (512 KB..1 MB), d in 2^19, a in 2^15. b goes first (720 KB
// left, under the limit): a, c and d stay.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config/values.hpp"

namespace lawnkv::server {

// The limit in bytes (getClientEvictionLimit): maxmemory-clients, or its
// percentage of maxmemory (none while maxmemory is 0), at least 128 KB so
// that a bad setting cannot cut every client off; 0 for no limit.
size_t client_eviction_limit(const config::Values& cfg);

// The memory bucket of a client using `bytes`: 0 for up to 32 KB (2^15),
// then one per power of two, the last (18) for 4 GB (2^32) and above.
int client_memory_bucket(size_t bytes);

struct EvictionCandidate {
  uint64_t id;
  size_t bytes;
};

// The ids to disconnect, in order, to bring `total` under `limit`: the
// candidates by bucket, the highest first, then by id. All of them when even
// that is not enough (Redis then logs "Over client maxmemory after evicting
// all evictable clients").
std::vector<uint64_t> clients_to_evict(std::vector<EvictionCandidate> candidates, size_t total, size_t limit);

}  // namespace lawnkv::server
