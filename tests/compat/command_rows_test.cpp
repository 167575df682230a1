// Every command row against redis-server 7.0.15's COMMAND INFO: name,
// arity, flags, key positions, ACL categories, tips and key specs must be Redis's, for
// each command and subcommand lawnkv serves (its own REDE.* aside, and
// Redis 7.4's hash-field TTL commands, which 7.0 lacks). The
// row's docs are checked for completeness by the unit test of the table
// (tests/unit/engine_table_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"
#include "../support/server_process.hpp"

namespace lawnkv::test {

namespace {

// The fields of one COMMAND INFO entry that a row must share with Redis's:
// name, arity, flags, first key, last key, key step, ACL categories, tips.
// Flags, categories and tips are sets (RESP3) or arrays: compared sorted.
std::vector<std::string> comparable(const Reply& info) {
  std::vector<std::string> out;
  for (size_t i = 0; i < 8 && i < info.elements.size(); ++i) {
    const Reply& field = info.elements[i];
    if (!field.is_aggregate()) {
      out.push_back(field.text);
      continue;
    }
    std::vector<std::string> items;
    for (const Reply& e : field.elements) items.push_back(e.text);
    std::sort(items.begin(), items.end());
    std::string joined;
    for (const std::string& s : items) joined += s + " ";
    out.push_back(joined);
  }
  return out;
}

// A reply as one line: its text, or its elements in brackets, in order.
std::string flatten(const Reply& r) {
  if (!r.is_aggregate()) return r.text;
  std::string out = "[";
  for (const Reply& e : r.elements) out += flatten(e) + " ";
  return out + "]";
}

// Whether a command Redis 7.0 lacks is one of a later version (its docs'
// since): CLIENT SETINFO of 7.2, the hash-field TTLs of 7.4, HGETEX, HSETEX
// and HGETDEL of 8.0, whose rows follow those versions' command files.
bool newer_than_7_0(RawClient& ours, std::string_view name) {
  const std::string docs = ours.call({"COMMAND", "DOCS", name});
  for (std::string_view since : {"$5\r\n7.2.0\r\n", "$5\r\n7.4.0\r\n", "$5\r\n8.0.0\r\n"})
    if (docs.find(since) != std::string::npos) return true;
  return false;
}

void compare_entry(RawClient& client, const Reply& ours, const Reply& theirs) {
  REQUIRE(ours.elements.size() == 10);
  CAPTURE(ours.elements[0].text);
  REQUIRE(theirs.elements.size() == 10);
  CHECK(comparable(ours) == comparable(theirs));
  // The key specs (engine/keys.hpp), in order: flags, begin_search, find_keys.
  CHECK(flatten(ours.elements[8]) == flatten(theirs.elements[8]));
  // Subcommands: every one lawnkv serves must be Redis's, field for field.
  for (const Reply& sub : ours.elements[9].elements) {
    const Reply* match = nullptr;
    for (const Reply& r : theirs.elements[9].elements)
      if (r.elements.at(0).text == sub.elements.at(0).text) match = &r;
    CAPTURE(sub.elements.at(0).text);
    if (match == nullptr) {
      CHECK(newer_than_7_0(client, sub.elements.at(0).text));
      continue;
    }
    compare_entry(client, sub, *match);
  }
}

}  // namespace

TEST_CASE("compat: every command row is Redis 7.0's (arity, flags, keys, categories, tips)") {
  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  RawClient ours(lawnkv.port()), theirs(redis.port());
  const Reply names = parse_reply(ours.call({"COMMAND", "LIST"}));
  size_t compared = 0;
  for (const Reply& name : names.elements) {
    if (name.text.rfind("rede.", 0) == 0) continue;  // lawnkv's own
    CAPTURE(name.text);
    const Reply mine = parse_reply(ours.call({"COMMAND", "INFO", name.text}));
    const Reply reference = parse_reply(theirs.call({"COMMAND", "INFO", name.text}));
    REQUIRE(mine.elements.size() == 1);
    REQUIRE(reference.elements.size() == 1);
    if (reference.elements[0].null) {
      // Only commands newer than Redis 7.0 may be missing from it.
      CHECK(newer_than_7_0(ours, name.text));
      continue;
    }
    compare_entry(ours, mine.elements[0], reference.elements[0]);
    ++compared;
  }
  CHECK(compared > 90);
}

}  // namespace lawnkv::test
