// Every Redis command that takes a time or a TTL, fed every edge value
// (tests/support/time_edges.hpp) side by side with redis-server: the reply
// must be the same bytes, the key must end up with the same deadline, and
// lawnkv must still be running after each.
//
// Each case starts from `SET k v` (no TTL) on both servers, runs the command,
// then reads back EXISTS, TTL and EXPIRETIME (which may differ by 1 s where
// the deadline is relative: the servers read their clocks a moment apart)
// and, for absolute deadlines, PEXPIRETIME exactly.
#include <doctest/doctest.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/raw_client.hpp"
#include "../support/server_process.hpp"
#include "../support/time_edges.hpp"

namespace lawnkv::test {

namespace {

struct Form {
  std::vector<std::string> argv;  // "V" stands for the value
  bool absolute;                  // the value is a Unix time
};

const Form kForms[] = {
    {{"EXPIRE", "k", "V"}, false},           {{"PEXPIRE", "k", "V"}, false},
    {{"EXPIREAT", "k", "V"}, true},          {{"PEXPIREAT", "k", "V"}, true},
    {{"EXPIRE", "k", "V", "GT"}, false},     {{"PEXPIREAT", "k", "V", "NX"}, true},
    {{"SET", "k", "v", "EX", "V"}, false},   {{"SET", "k", "v", "PX", "V"}, false},
    {{"SET", "k", "v", "EXAT", "V"}, true},  {{"SET", "k", "v", "PXAT", "V"}, true},
    {{"SET", "k", "v", "PX", "V", "GET"}, false},
    {{"SETEX", "k", "V", "v"}, false},       {{"PSETEX", "k", "V", "v"}, false},
    {{"GETEX", "k", "EX", "V"}, false},      {{"GETEX", "k", "PX", "V"}, false},
    {{"GETEX", "k", "EXAT", "V"}, true},     {{"GETEX", "k", "PXAT", "V"}, true},
};

long long integer_of(const std::string& reply) {
  return reply.size() > 1 && reply[0] == ':' ? std::strtoll(reply.c_str() + 1, nullptr, 10) : LLONG_MIN;
}

// Equal, or both integer replies >= 0 within 1 of each other.
bool near(const std::string& got, const std::string& want) {
  if (got == want) return true;
  const long long a = integer_of(got), b = integer_of(want);
  return a >= 0 && b >= 0 && a - b <= 1 && b - a <= 1;
}

}  // namespace

TEST_CASE("compat: every time and TTL argument at the int64 edges, as redis-server answers") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  RawClient ours(lawnkv.port());
  RawClient theirs(redis.port());
  const long long now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count();
  const std::vector<std::string> values = time_edge_values(now_ms);
  int cases = 0;
  for (const Form& form : kForms) {
    for (const std::string& value : values) {
      std::vector<std::string> argv = form.argv;
      std::string line;
      for (std::string& a : argv) {
        if (a == "V") a = value;
        line += (line.empty() ? "" : " ") + escape_bytes(a);
      }
      CAPTURE(line);
      REQUIRE(ours.call({"SET", "k", "v"}) == "+OK\r\n");
      REQUIRE(theirs.call({"SET", "k", "v"}) == "+OK\r\n");
      const std::string want = theirs.call(argv);
      std::string got;
      try {
        got = ours.call(argv);
      } catch (const std::exception& e) {
        FAIL("lawnkv did not answer (", e.what(), "); redis-server: ", escape_bytes(want));
      }
      CHECK(escape_bytes(got) == escape_bytes(want));
      CHECK(ours.call({"EXISTS", "k"}) == theirs.call({"EXISTS", "k"}));
      for (const char* read : {"TTL", "EXPIRETIME"}) {
        const std::string a = ours.call({read, "k"}), b = theirs.call({read, "k"});
        CAPTURE(read);
        CHECK_MESSAGE(near(a, b), "lawnkv ", escape_bytes(a), " redis ", escape_bytes(b));
      }
      if (form.absolute) CHECK(ours.call({"PEXPIRETIME", "k"}) == theirs.call({"PEXPIRETIME", "k"}));
      ++cases;
    }
  }
  CHECK(lawnkv.running());
  MESSAGE("time edges: " << cases << " commands, each on both servers");
}

}  // namespace lawnkv::test
