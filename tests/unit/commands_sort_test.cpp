// SORT through the dispatcher where redis-server cannot be asked the same
// way (tests/compat/cases/sort.txt compares the rest byte for byte): a
// client without a socket (a script) gets a set's members sorted even with
// BY nosort, as Redis sorts them for a Lua client, and SORT ... STORE
// records itself and counts its elements as changes.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "engine/detached_session.hpp"

namespace lawnkv::test {

TEST_CASE("sort: a set sorted BY nosort for a script comes out ALPHA-sorted") {
  CommandServer s;
  std::vector<std::string> add{"sadd", "letters"};
  for (char c = 'z'; c >= 'a'; --c) add.emplace_back(1, c);
  s.run(add);
  DetachedSession script;
  std::string want = "*26\r\n";
  for (char c = 'a'; c <= 'z'; ++c) want += "$1\r\n" + std::string(1, c) + "\r\n";
  CHECK(s.run_as(script, {"sort", "letters", "by", "nosort"}) == want);
  // A client with a socket gets the set's own order, which is not sorted
  // here (26 members in a hash table).
  CHECK(s.run({"sort", "letters", "by", "nosort"}) != want);
}

TEST_CASE("sort: STORE counts one change a stored element, and an empty result deletes") {
  CommandServer s;
  s.run({"rpush", "l", "3", "1", "2"});
  const uint64_t before = s.state.data.dirty;
  CHECK(s.run({"sort", "l", "store", "out"}) == ":3\r\n");
  CHECK(s.state.data.dirty - before == 3);
  CHECK(s.run({"lrange", "out", "0", "-1"}) == "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
  s.log.take();
  CHECK(s.run({"sort", "missing", "store", "out"}) == ":0\r\n");
  CHECK(s.log.take() == std::vector<std::string>{"keymiss missing", "del out"});
  CHECK(s.run({"exists", "out"}) == ":0\r\n");
}

}  // namespace lawnkv::test
