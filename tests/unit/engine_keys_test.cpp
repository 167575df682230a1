// Key positions (engine/keys.hpp): the header's worked example and each
// shape of row, pinned as a table; COMMAND GETKEYS is checked against
// redis-server in tests/compat/cases/command_keys.txt.

#include <doctest/doctest.h>

#include <span>
#include <string>
#include <vector>

#include "commands/families.hpp"
#include "engine/keys.hpp"

namespace lawnkv::test {
namespace {

// "pos/spec" for each key of the command line, as find_keys gives them.
std::string keys_of(const CommandTable& t, std::vector<std::string_view> argv) {
  const CommandSpec* c = t.find(argv[0]);
  REQUIRE(c != nullptr);
  std::string out;
  for (const KeyRef& k : find_keys(*c, argv)) out += std::to_string(k.pos) + "/" + std::to_string(k.spec) + " ";
  return out;
}

TEST_CASE("keys: each shape of row, as Redis finds them") {
  CommandTable t;
  register_all_commands(t);
  struct Row {
    std::vector<std::string_view> argv;
    std::string keys;
  };
  const Row rows[] = {
      {{"get", "a"}, "1/0 "},
      {{"mset", "a", "1", "b", "2"}, "1/0 3/0 "},
      {{"rename", "a", "b"}, "1/0 2/1 "},
      {{"lcs", "a", "b"}, "1/0 2/0 "},
      {{"sinterstore", "d", "a", "b"}, "1/0 2/1 3/1 "},
      {{"bitop", "and", "d", "a", "b"}, "2/0 3/1 4/1 "},
      {{"del", "a", "b", "c"}, "1/0 2/0 3/0 "},
      // The worked example.
      {{"zunionstore", "d", "2", "a", "b", "weights", "1", "2"}, "1/0 3/1 4/1 "},
      {{"zunion", "2", "a", "b"}, "2/0 3/0 "},
      {{"lmpop", "2", "a", "b", "left"}, "2/0 3/0 "},
      {{"blmpop", "0", "1", "a", "left"}, "3/0 "},
      {{"sintercard", "2x", "a", "b"}, "2/0 3/0 "},  // atoi: 2
      // A count below 1 or past the arguments: no keys at all.
      {{"zunionstore", "d", "0", "a"}, ""},
      {{"zunionstore", "d", "3", "a", "b"}, ""},
      {{"zunion", "x", "a"}, ""},
      {{"lmpop", "-1", "a", "left"}, ""},
      {{"ping"}, ""},
  };
  for (const Row& r : rows) {
    CAPTURE(r.argv[0]);
    CHECK(keys_of(t, r.argv) == r.keys);
  }
}

TEST_CASE("keys: SORT's STORE key, found by keyword as Redis's sortGetKeys") {
  CommandTable t;
  register_all_commands(t);
  CHECK(keys_of(t, {"sort", "a"}) == "1/0 ");
  CHECK(keys_of(t, {"sort", "a", "STORE", "b"}) == "1/0 3/2 ");
  // LIMIT's, BY's and GET's arguments are skipped; the last STORE wins.
  CHECK(keys_of(t, {"sort", "a", "BY", "store", "GET", "store", "LIMIT", "store", "x", "store", "c", "store", "d"}) ==
        "1/0 12/2 ");
  // STORE's own argument is read as an option next (Redis's quirk).
  CHECK(keys_of(t, {"sort", "a", "store", "limit", "1", "2", "store", "c"}) == "1/0 7/2 ");
  CHECK(keys_of(t, {"sort", "a", "store", "store", "x"}) == "1/0 4/2 ");
  CHECK(keys_of(t, {"sort", "a", "STORE"}) == "1/0 ");
  CHECK(keys_of(t, {"sort_ro", "a", "STORE", "b"}) == "1/0 ");
}

TEST_CASE("keys: the specs COMMAND INFO lists") {
  CommandTable t;
  register_all_commands(t);
  auto shape = [&](std::string_view name) {
    std::string out;
    for (const KeySpec& s : key_specs(*t.find(name)))
      out += s.unknown  ? std::string("unknown ")
             : s.keynum ? "keynum(" + std::to_string(s.index) + "," + std::to_string(s.firstkey) + ") "
                      : "range(" + std::to_string(s.index) + "," + std::to_string(s.lastkey) + ") ";
    return out;
  };
  CHECK(shape("mset") == "range(1,-1) ");
  CHECK(shape("lcs") == "range(1,1) ");
  CHECK(shape("rename") == "range(1,0) range(2,0) ");
  CHECK(shape("sunionstore") == "range(1,0) range(2,-1) ");
  CHECK(shape("zdiffstore") == "range(1,0) keynum(2,1) ");
  CHECK(shape("bzmpop") == "keynum(2,1) ");
  CHECK(shape("sort") == "range(1,0) unknown unknown ");
  CHECK(shape("sort_ro") == "range(1,0) unknown ");
  CHECK(shape("ping") == "");
  CHECK_FALSE(has_key_arguments(*t.find("ping")));
  CHECK(has_key_arguments(*t.find("zunion")));
}

TEST_CASE("keys: a row's plan (ACL checks walk its ranges) finds what find_keys finds") {
  CommandTable t;
  register_all_commands(t);
  CHECK(key_plan(*t.find("get")).ranges_only);
  CHECK(key_plan(*t.find("mset")).ranges_only);
  CHECK_FALSE(key_plan(*t.find("zunionstore")).ranges_only);  // keynum
  CHECK_FALSE(key_plan(*t.find("xread")).ranges_only);        // keyword
  CHECK_FALSE(key_plan(*t.find("sort")).ranges_only);         // get_keys
  CHECK(key_plan(*t.find("get")).bits[0] == kKeySpecReads);
  // SET's entry as COMMAND INFO lists it; a call's own flags replace it (variable_key_flags).
  CHECK(key_plan(*t.find("set")).bits[0] == (kKeySpecReads | kKeySpecWrites | kKeySpecVariable));
  CHECK(key_plan(*t.find("spublish")).bits[0] == kKeySpecNotKey);
  CHECK(&key_plan(*t.find("get")) == &key_plan(*t.find("get")));  // made once
  CHECK(key_spec_access("RO access") == kKeySpecReads);
  CHECK(key_spec_access("OW update") == kKeySpecWrites);
  CHECK(key_spec_access("RW access update") == (kKeySpecReads | kKeySpecWrites));
  CHECK(key_spec_access("RM delete") == kKeySpecWrites);
  CHECK(key_spec_access("OW insert") == kKeySpecWrites);
  CHECK(key_spec_access("RO accessed updates not_key") == 0);
  // Every range-only row and subcommand, with 1 to 9 arguments: the same
  // positions and specs, in the same order.
  std::vector<std::string_view> argv(9, "3");
  int rows = 0;
  t.for_each_spec([&](const CommandSpec& c) {
    const KeyPlan& plan = key_plan(c);
    if (!plan.ranges_only) return;
    ++rows;
    for (size_t argc = 1; argc <= argv.size(); ++argc) {
      const std::span<const std::string_view> args(argv.data(), argc);
      std::string walked, found;
      for_each_range_key(plan, static_cast<int>(argc), [&](int pos, int spec) {
        walked += std::to_string(pos) + "/" + std::to_string(spec) + " ";
        return true;
      });
      for (const KeyRef& k : find_keys(c, args)) found += std::to_string(k.pos) + "/" + std::to_string(k.spec) + " ";
      CAPTURE(c.name);
      CAPTURE(argc);
      CHECK(walked == found);
    }
  });
  CHECK(rows > 100);
}

}  // namespace
}  // namespace lawnkv::test
