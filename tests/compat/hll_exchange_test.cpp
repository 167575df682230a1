// HyperLogLogs carried between redis-server 7.0.15 and lawnkv, both ways:
// sparse ones small and near hll-sparse-max-bytes, dense ones, a merge, and
// one whose cache is stale. The bytes one server GETs (or DUMPs) are SET
// (or RESTOREd) in the other, which then counts the same, PFDEBUG-decodes
// the same, and, fed the same further elements, holds the same bytes.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::test {

namespace {

void must(RawClient& c, std::vector<std::string> argv) {
  const Reply r = parse_reply(c.call(std::span<const std::string>(argv)));
  REQUIRE_MESSAGE(r.type != '-', r.text);
}

void pfadd(RawClient& c, const std::string& key, int from, int to, const std::string& prefix) {
  std::vector<std::string> argv{"PFADD", key};
  for (int i = from; i < to; ++i) argv.push_back(prefix + std::to_string(i));
  must(c, argv);
}

// HyperLogLogs of every shape on c.
void fill(RawClient& c) {
  pfadd(c, "empty", 0, 0, "");
  pfadd(c, "small", 0, 10, "a:");
  pfadd(c, "sparse", 0, 1200, "b:");  // ~2.3 kB: near the 3000-byte limit
  pfadd(c, "dense", 0, 20000, "c:");
  must(c, {"PFMERGE", "merged", "small", "sparse", "dense"});
  pfadd(c, "stale", 0, 50, "d:");  // no PFCOUNT since: its cache is stale
  must(c, {"PFCOUNT", "small"});
  must(c, {"PFCOUNT", "dense"});
  pfadd(c, "other", 0, 40, "e:");  // for unions, never carried nor changed
}

const std::vector<std::string> kKeys{"empty", "small", "sparse", "dense", "merged", "stale"};

std::string bulk(RawClient& c, std::vector<std::string> argv) {
  const Reply r = parse_reply(c.call(std::span<const std::string>(argv)));
  REQUIRE(r.type == '$');
  return r.text;
}

// Each key of from, its bytes SET (or its DUMP RESTOREd) in to as "copy:<key>".
void carry(RawClient& from, RawClient& to, bool dump, const std::string& label) {
  for (const std::string& key : kKeys) {
    CAPTURE(label);
    CAPTURE(key);
    const std::string copy = "copy:" + key;
    if (dump) {
      must(to, {"RESTORE", copy, "0", bulk(from, {"DUMP", key}), "REPLACE"});
    } else {
      must(to, {"SET", copy, bulk(from, {"GET", key})});
    }
    CHECK(to.call({"GET", copy}) == from.call({"GET", key}));
    CHECK(to.call({"PFCOUNT", copy}) == from.call({"PFCOUNT", key}));
    CHECK(to.call({"PFDEBUG", "ENCODING", copy}) == from.call({"PFDEBUG", "ENCODING", key}));
    CHECK(to.call({"PFCOUNT", copy, "other"}) == from.call({"PFCOUNT", key, "other"}));
    // The same further elements leave the same bytes on both.
    std::vector<std::string> more_to{"PFADD", copy}, more_from{"PFADD", key};
    for (int i = 0; i < 300; ++i) {
      more_to.push_back("more:" + std::to_string(i));
      more_from.push_back(more_to.back());
    }
    CHECK(to.call(std::span<const std::string>(more_to)) == from.call(std::span<const std::string>(more_from)));
    CHECK(to.call({"GET", copy}) == from.call({"GET", key}));
    CHECK(to.call({"PFCOUNT", copy}) == from.call({"PFCOUNT", key}));
  }
}

}  // namespace

TEST_CASE("compat: HyperLogLog bytes from redis-server count the same in lawnkv, and lawnkv's in redis-server") {
  ServerProcess redis = ServerProcess::redis();
  ServerProcess lawnkv = ServerProcess::lawnkv();
  RawClient r(redis.port());
  RawClient l(lawnkv.port());
  // Built apart, the same elements give the same bytes.
  fill(r);
  fill(l);
  for (const std::string& key : kKeys) {
    CAPTURE(key);
    CHECK(l.call({"GET", key}) == r.call({"GET", key}));
  }
  carry(r, l, false, "redis GET -> lawnkv SET");
  carry(l, r, false, "lawnkv GET -> redis SET");
  REQUIRE(r.call({"FLUSHALL"}) == "+OK\r\n");
  REQUIRE(l.call({"FLUSHALL"}) == "+OK\r\n");
  fill(r);
  fill(l);
  carry(r, l, true, "redis DUMP -> lawnkv RESTORE");
  carry(l, r, true, "lawnkv DUMP -> redis RESTORE");
}

}  // namespace lawnkv::test
