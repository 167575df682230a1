// ACL categories as bits (engine/acl_categories.hpp): the implicit ones
// each flag gives, lawnkv's own rows covered by Redis's categories, and a
// row naming an unknown category or a taken name refused when added.

#include <doctest/doctest.h>

#include <stdexcept>

#include "commands/families.hpp"
#include "engine/acl_categories.hpp"
#include "engine/table.hpp"

namespace lawnkv::test {
namespace {

CommandSpec row(std::string name, uint32_t flags, std::string_view acl) {
  return CommandSpec{.name = std::move(name), .arity = 1, .flags = flags, .acl = acl, .group = "generic",
                     .since = "1.0.0", .complexity = "O(1)", .summary = "s", .handler = [](Call&) {}};
}

TEST_CASE("acl categories: names, parsing and Redis's order") {
  CHECK(parse_acl_categories("@read @string @fast") == (kAclRead | kAclString | kAclFast));
  CHECK(parse_acl_categories("") == 0u);
  CHECK_FALSE(parse_acl_categories("@nosuch").has_value());
  CHECK_FALSE(parse_acl_categories("read").has_value());
  CHECK(find_acl_category("SortedSet") == kAclSortedSet);
  CHECK_FALSE(find_acl_category("all").has_value());
  CHECK(acl_category_names().front().name == "keyspace");
  CHECK(acl_category_names().size() == 22);
}

TEST_CASE("acl categories: the flags imply categories as Redis's setImplicitACLCategories") {
  CommandTable t;
  t.add(row("w", kWrite | kFast, ""));
  t.add(row("r", kReadonly, ""));
  t.add(row("s", kReadonly, "@scripting"));
  t.add(row("a", kAdmin, ""));
  t.add(row("p", kPubsub | kFast, ""));
  t.add(row("b", kWrite | kBlocking, "@list"));
  CHECK(t.find("w")->acl_bits == (kAclWrite | kAclFast));
  CHECK(t.find("r")->acl_bits == (kAclRead | kAclSlow));
  CHECK(t.find("s")->acl_bits == (kAclScripting | kAclSlow));  // scripts are not @read
  CHECK(t.find("a")->acl_bits == (kAclAdmin | kAclDangerous | kAclSlow));
  CHECK(t.find("p")->acl_bits == (kAclPubsub | kAclFast));
  CHECK(t.find("b")->acl_bits == (kAclWrite | kAclList | kAclBlocking | kAclSlow));
}

TEST_CASE("acl categories: the REDE.* rows are covered by @write and @read") {
  CommandTable t;
  register_all_commands(t);
  const CommandSpec* push = t.find("rede.push");
  REQUIRE(push != nullptr);
  CHECK((push->acl_bits & kAclDehydrator) != 0);
  CHECK((push->acl_bits & kAclWrite) != 0);
  const CommandSpec* bpoll = t.find("rede.bpoll");
  REQUIRE(bpoll != nullptr);
  CHECK((bpoll->acl_bits & (kAclWrite | kAclBlocking)) == (kAclWrite | kAclBlocking));
  // Every row is @fast or @slow, never both.
  t.for_each_spec([](const CommandSpec& c) {
    CAPTURE(c.name);
    CHECK(((c.acl_bits & kAclFast) != 0) != ((c.acl_bits & kAclSlow) != 0));
  });
}

TEST_CASE("acl categories: a row with an unknown category, or a name taken, is refused") {
  CommandTable t;
  CHECK_THROWS_AS(t.add(row("x", kReadonly, "@read @nosuch")), std::logic_error);
  t.add(row("y", kReadonly, "@read"));
  CHECK_THROWS_AS(t.add(row("y", kWrite, "@write")), std::logic_error);
  CHECK(t.find("y")->has(kReadonly));
}

}  // namespace
}  // namespace lawnkv::test
