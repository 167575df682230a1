#include "stream_dataset.hpp"

#include <doctest/doctest.h>

namespace lawnkv::itest {

void write_stream_dataset(Client& c) {
  REQUIRE(c.call({"SELECT", "0"}) == status("OK"));
  for (int i = 1; i <= 40; ++i) {
    const std::string n = std::to_string(i);
    REQUIRE(c.call({"XADD", "st", n + "-" + std::to_string(i % 3), "f", n, "g", std::string(i % 5, 'x')}).type == '$');
    REQUIRE(c.call({"XADD", "st2", "*", "n", n}).type == '$');
  }
  REQUIRE(c.call({"XDEL", "st", "5-2", "6-0", "30-0"}) == integer(3));
  REQUIRE(c.call({"XTRIM", "st", "MINID", "3"}) == integer(2));
  REQUIRE(c.call({"XADD", "st2", "MAXLEN", "~", "10", "*", "n", "last"}).type == '$');
  REQUIRE(c.call({"XGROUP", "CREATE", "st", "g1", "0"}) == status("OK"));
  REQUIRE(c.call({"XGROUP", "CREATE", "st", "g2", "$", "ENTRIESREAD", "3"}) == status("OK"));
  REQUIRE(c.call({"XGROUP", "CREATE", "st2", "g", "0"}) == status("OK"));
  REQUIRE(c.call({"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "6", "STREAMS", "st", ">"}).elements.size() == 1);
  REQUIRE(c.call({"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "4", "STREAMS", "st", ">"}).elements.size() == 1);
  REQUIRE(c.call({"XREADGROUP", "GROUP", "g1", "carol", "NOACK", "COUNT", "3", "STREAMS", "st", ">"}).elements.size() == 1);
  REQUIRE(c.call({"XREADGROUP", "GROUP", "g1", "alice", "STREAMS", "st", "0"}).elements.size() == 1);
  REQUIRE(c.call({"XREADGROUP", "GROUP", "g", "c", "COUNT", "5", "STREAMS", "st2", ">"}).elements.size() == 1);
  REQUIRE(c.call({"XACK", "st", "g1", "4-1", "7-1"}) == integer(2));
  REQUIRE(c.call({"XCLAIM", "st", "g1", "dave", "0", "8-2", "RETRYCOUNT", "7"}).elements.size() == 1);
  REQUIRE(c.call({"XAUTOCLAIM", "st", "g1", "erin", "0", "0", "COUNT", "2"}).elements.size() == 3);
  REQUIRE(c.call({"XGROUP", "CREATECONSUMER", "st", "g2", "idle"}) == integer(1));
  REQUIRE(c.call({"XGROUP", "DELCONSUMER", "st", "g1", "carol"}) == integer(0));
  REQUIRE(c.call({"XGROUP", "SETID", "st2", "g", "0", "ENTRIESREAD", "0"}) == status("OK"));
  REQUIRE(c.call({"XADD", "meta", "5-5", "f", "v"}).type == '$');
  REQUIRE(c.call({"XSETID", "meta", "9-9", "ENTRIESADDED", "30", "MAXDELETEDID", "7-7"}) == status("OK"));
}

namespace {

void zero_seen_times(Reply& r) {
  for (size_t i = 0; i + 1 < r.elements.size(); ++i)
    if (r.elements[i].text == "seen-time") r.elements[i + 1] = integer(0);
  for (Reply& child : r.elements) zero_seen_times(child);
}

}  // namespace

std::string stream_dataset_state(Client& c, bool without_seen) {
  std::string out;
  for (const char* key : {"st", "st2", "meta"}) {
    Reply r = c.call({"XINFO", "STREAM", key, "FULL"});
    if (without_seen) zero_seen_times(r);
    out += wire(r);
  }
  return out;
}

}  // namespace lawnkv::itest
