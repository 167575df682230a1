// Memory of freed keys goes back to the system: after FLUSHALL and FLUSHDB
// before the reply (as redis-server does), and after keys that were written
// together expire together, without a flush. The figure is the server's RSS
// (VmRSS of /proc/PID/status) against what it was before the keys were
// written; the fill is 400k keys of 100-byte values, about 55 MB.

#include <doctest/doctest.h>
#include <sys/types.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "../support/poll_until.hpp"
#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;

constexpr long long kKeys = 400'000;
constexpr long long kMB = 1024 * 1024;
// What the fill must add at least, and what may stay after it is freed: the
// allocator's caches and metadata, a dictionary's smallest table, the
// clients' buffers (measured: 0.2 MB after FLUSHALL of 1.26M keys).
constexpr long long kFillAtLeast = 40 * kMB;
constexpr long long kMayStay = 8 * kMB;

long long rss_bytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  FAIL("no VmRSS in /proc/" << pid << "/status");
  return 0;
}

std::string key_name(long long i) {
  char name[32];
  std::snprintf(name, sizeof name, "key:%012lld", i);  // 16 bytes
  return name;
}

std::string value_of(long long i) { return std::string(100, static_cast<char>('a' + i % 26)); }

// SETs n keys (with `extra`, e.g. PX 100000), pipelined 1000 at a time.
void fill(Client& c, long long first, long long n, std::initializer_list<std::string> extra = {}) {
  constexpr long long kBatch = 1000;
  for (long long i = first; i < first + n; i += kBatch) {
    const long long end = std::min(first + n, i + kBatch);
    for (long long j = i; j < end; ++j) {
      Argv argv{"SET", key_name(j), value_of(j)};
      argv.insert(argv.end(), extra);
      c.append(argv);
    }
    for (long long j = i; j < end; ++j) REQUIRE(c.read() == status("OK"));
  }
}

TEST_CASE("FLUSHALL gives the keys' memory back before it replies") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  const long long before = rss_bytes(server.pid());
  fill(c, 0, kKeys);
  REQUIRE(c.call({"SELECT", "3"}) == status("OK"));
  fill(c, kKeys, kKeys / 8);
  const long long filled = rss_bytes(server.pid());
  REQUIRE_MESSAGE(filled - before >= kFillAtLeast, "RSS " << before << " -> " << filled);

  REQUIRE(c.call({"FLUSHALL"}) == status("OK"));
  const long long after = rss_bytes(server.pid());
  CHECK_MESSAGE(after - before <= kMayStay, "RSS before the fill " << before / kMB << " MB, filled "
                                                                      << filled / kMB << " MB, after FLUSHALL "
                                                                      << after / kMB << " MB");
  // The memory given back is used again.
  fill(c, 0, 1000);
  CHECK(c.call({"GET", key_name(999)}) == bulk(value_of(999)));
}

TEST_CASE("FLUSHDB gives back what that db held; the other dbs keep their keys") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  const long long before = rss_bytes(server.pid());
  REQUIRE(c.call({"SELECT", "1"}) == status("OK"));
  fill(c, 0, 1000);
  REQUIRE(c.call({"SELECT", "0"}) == status("OK"));
  fill(c, 1000, kKeys);
  const long long filled = rss_bytes(server.pid());
  REQUIRE(filled - before >= kFillAtLeast);

  REQUIRE(c.call({"FLUSHDB"}) == status("OK"));
  const long long after = rss_bytes(server.pid());
  CHECK_MESSAGE(after - before <= kMayStay, "RSS before the fill " << before / kMB << " MB, filled "
                                                                      << filled / kMB << " MB, after FLUSHDB "
                                                                      << after / kMB << " MB");
  CHECK(c.integer({"DBSIZE"}) == 0);
  REQUIRE(c.call({"SELECT", "1"}) == status("OK"));
  CHECK(c.integer({"DBSIZE"}) == 1000);
  for (long long i = 0; i < 1000; ++i) REQUIRE(c.call({"GET", key_name(i)}) == bulk(value_of(i)));
}

TEST_CASE("keys written together that expire together give their memory back without a flush") {
  auto server = ServerProcess::lawnkv();
  Client c(server.port());
  const long long before = rss_bytes(server.pid());
  fill(c, 0, kKeys, {"PX", "100000"});
  const long long filled = rss_bytes(server.pid());
  REQUIRE(filled - before >= kFillAtLeast);

  REQUIRE(c.call({"DEBUG", "ADVANCE-TIME", "200000"}) == status("OK"));
  // Active expiry reaps a budget per loop iteration: wait until it is done.
  REQUIRE(test::poll_until(std::chrono::steady_clock::now() + 10s, [&] { return c.integer({"DBSIZE"}) == 0; }));
  // The emptied chunks go back after the frees, one a loop iteration.
  long long after = 0;
  test::poll_until(std::chrono::steady_clock::now() + 10s, [&] {
    after = rss_bytes(server.pid());
    return after - before <= kMayStay + 4 * kMB;
  });
  // The last chunks to empty (kKeptEmptyChunks, 4 MB) stay for reuse.
  CHECK_MESSAGE(after - before <= kMayStay + 4 * kMB, "RSS before the fill " << before / kMB << " MB, filled "
                                                                                << filled / kMB
                                                                                << " MB, after expiry "
                                                                                << after / kMB << " MB");
}

// Issue 25: 100 keys of 1 MB, each SET again to 1,000 bytes. redis-server
// 7.0.15's used_memory goes from 105.8 MB back to 2.3 MB; lawnkv's stayed
// at 105.8 MB (each key kept its 1 MB buffer). Both servers run here.
TEST_CASE("values SET again shorter give their memory back (used_memory), as redis-server's do") {
  for (bool redis : {false, true}) {
    CAPTURE(redis);
    auto server = redis ? ServerProcess::redis() : ServerProcess::lawnkv();
    Client c(server.port());
    // A sanitizer build (libc's malloc under ASan) reports no heap in
    // used_memory: nothing to compare there.
    if (c.call({"INFO", "memory"}).text.find("mem_allocator:libc") != std::string::npos) continue;
    const std::string big(1 << 20, 'a'), small(1000, 'b');
    for (int i = 0; i < 100; ++i) REQUIRE(c.call({"SET", "key:" + std::to_string(i), big}) == status("OK"));
    const long long full = info_int(c.call({"INFO", "memory"}).text, "used_memory");
    CHECK(full > 100 * kMB);
    for (int i = 0; i < 100; ++i) REQUIRE(c.call({"SET", "key:" + std::to_string(i), small}) == status("OK"));
    const long long shrunk = info_int(c.call({"INFO", "memory"}).text, "used_memory");
    CHECK_MESSAGE(shrunk < 5 * kMB, "used_memory " << full / kMB << " MB -> " << shrunk / kMB << " MB");
  }
}

}  // namespace
}  // namespace lawnkv::itest
