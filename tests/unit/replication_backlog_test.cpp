// The replication backlog (replication/backlog.hpp) and the history's ids
// and offsets (replication/replication_state.hpp).

#include <doctest/doctest.h>

#include <string>

#include "replication/backlog.hpp"
#include "replication/replication_state.hpp"

namespace lawnkv::test {
namespace {

using replication::Backlog;
using replication::ReplicationState;

std::string from(const Backlog& b, int64_t offset) {
  std::string out;
  b.copy_from(offset, out);
  return out;
}

TEST_CASE("backlog: the header's worked example") {
  Backlog b(4, 11);
  b.append("abc");
  CHECK(b.first_byte_offset() == 11);
  CHECK(b.histlen() == 3);
  CHECK(from(b, 11) == "abc");
  b.append("de");
  CHECK(b.first_byte_offset() == 12);
  CHECK(b.histlen() == 4);
  CHECK(from(b, 12) == "bcde");
  CHECK(from(b, 14) == "de");
  CHECK(from(b, 16) == "");  // just past the history: nothing to send yet
  CHECK(b.covers(16));
  CHECK_FALSE(b.covers(11));
  CHECK_FALSE(b.covers(17));
}

TEST_CASE("backlog: a feed longer than the ring keeps its last bytes") {
  Backlog b(4, 1);
  b.append("xy");
  b.append("0123456789");
  CHECK(b.first_byte_offset() == 9);
  CHECK(b.histlen() == 4);
  CHECK(from(b, 9) == "6789");
}

TEST_CASE("backlog: resizing keeps the newest bytes") {
  Backlog b(8, 1);
  b.append("abcdefgh");
  b.append("ij");  // the ring wrapped
  b.resize(3);
  CHECK(b.first_byte_offset() == 8);
  CHECK(from(b, 8) == "hij");
  b.resize(16);
  b.append("klm");
  CHECK(from(b, 8) == "hijklm");
}

TEST_CASE("replication state: feeding counts the offset and fills the backlog once created") {
  ReplicationState s;
  CHECK(s.replid().size() == 40);
  CHECK(s.replid2() == std::string(40, '0'));
  CHECK(s.second_repl_offset() == -1);
  s.feed("abc");  // no backlog yet: no stream
  CHECK(s.master_repl_offset() == 0);
  s.feed("abc");
  s.create_backlog(1024);
  s.feed("defg");
  CHECK(s.master_repl_offset() == 4);
  REQUIRE(s.backlog_active());
  CHECK(s.backlog()->first_byte_offset() == 1);
  CHECK(from(*s.backlog(), 1) == "defg");
}

TEST_CASE("replication state: a promotion keeps the former history as replid2") {
  ReplicationState s;
  s.create_backlog(64);
  s.feed("12345");
  const std::string old = s.replid();
  s.shift_replid();
  CHECK(s.replid2() == old);
  CHECK(s.replid() != old);
  CHECK(s.second_repl_offset() == 6);
  s.clear_replid2();
  CHECK(s.replid2() == std::string(40, '0'));
  CHECK(s.second_repl_offset() == -1);
}

}  // namespace
}  // namespace lawnkv::test
