// The command table (src/commands/table.hpp): find() through its hash index
// agrees with the name-ordered rows, in any letter case.

#include <doctest/doctest.h>

#include <string>

#include "commands/families.hpp"
#include "commands/table.hpp"

namespace lawnkv {
namespace {

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

}  // namespace

TEST_CASE("command table: every row is found by its name in any case") {
  CommandTable t;
  register_all_commands(t);
  REQUIRE(t.all().size() > 64);  // the index has grown past its first size
  for (const auto& [name, spec] : t.all()) {
    CAPTURE(name);
    // find() compares folded input with the stored name: rows must be lower case.
    CHECK(name == to_lower(name));
    CHECK(t.find(name) == &spec);
    CHECK(t.find(upper(name)) == &spec);
    std::string mixed = name;
    for (size_t i = 0; i < mixed.size(); i += 2) mixed[i] = upper(std::string(1, mixed[i]))[0];
    CHECK(t.find(mixed) == &spec);
  }
}

TEST_CASE("command table: unknown names") {
  CommandTable t;
  CHECK(t.find("get") == nullptr);  // empty table
  register_all_commands(t);
  CHECK(t.find("") == nullptr);
  CHECK(t.find("ge") == nullptr);
  CHECK(t.find("gett") == nullptr);
  CHECK(t.find(std::string_view("get\0", 4)) == nullptr);
  CHECK(t.find("config|get") == nullptr);  // subcommands are not top-level rows
  CHECK(t.find(std::string(100, 'g')) == nullptr);
  // Only ASCII letters fold: bytes that differ from a name's in bit 5
  // elsewhere are other names ('{' is not '[', 0xC5 is not 0xE5).
  CHECK(t.find("get{") == nullptr);
  CHECK(t.find("\xc5xists") == nullptr);
  CHECK(t.find("\x05XISTS") == nullptr);
  // A row added later is found too, and the others still are.
  CommandSpec extra{"zz-test-only", 1, 0, 0, 0, 0, nullptr, "", {}};
  t.add(extra);
  CHECK(t.find("ZZ-TEST-ONLY") != nullptr);
  CHECK(t.find("exists") != nullptr);
}

}  // namespace lawnkv
