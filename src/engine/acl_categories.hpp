#pragma once
// ACL categories as bits: what `-@write` or `+@read` will act on, and what
// COMMAND INFO and COMMAND LIST FILTERBY ACLCAT report. A row names its
// categories in text (CommandSpec::acl); the table (table.cpp) turns that
// into bits when the row is added, and adds the implicit ones its flags
// give, as Redis's setImplicitACLCategories does:
//   write -> @write; readonly -> @read (unless @scripting); admin ->
//   @admin @dangerous; pubsub -> @pubsub; fast -> @fast; blocking ->
//   @blocking; and whatever is not @fast is @slow.
// So REDE.PUSH (write, denyoom, fast; "@dehydrator") is @write @fast
// @dehydrator, and `-@write` covers it.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace lawnkv {

enum AclCategory : uint32_t {
  kAclKeyspace = 1u << 0,
  kAclRead = 1u << 1,
  kAclWrite = 1u << 2,
  kAclSet = 1u << 3,
  kAclSortedSet = 1u << 4,
  kAclList = 1u << 5,
  kAclHash = 1u << 6,
  kAclString = 1u << 7,
  kAclBitmap = 1u << 8,
  kAclHyperLogLog = 1u << 9,
  kAclGeo = 1u << 10,
  kAclStream = 1u << 11,
  kAclPubsub = 1u << 12,
  kAclAdmin = 1u << 13,
  kAclFast = 1u << 14,
  kAclSlow = 1u << 15,
  kAclBlocking = 1u << 16,
  kAclDangerous = 1u << 17,
  kAclConnection = 1u << 18,
  kAclTransaction = 1u << 19,
  kAclScripting = 1u << 20,
  kAclDehydrator = 1u << 21,  // lawnkv's own: the REDE.* commands
};

struct AclCategoryName {
  AclCategory bit;
  std::string_view name;  // without '@'
};
// Every category, in the order Redis 7.0 lists them (lawnkv's last).
std::span<const AclCategoryName> acl_category_names();

// The category named name (without '@', any case); nullopt if none.
std::optional<AclCategory> find_acl_category(std::string_view name);

// The bits of a row's text ("@read @string @fast"); nullopt if it names a
// category that does not exist.
std::optional<uint32_t> parse_acl_categories(std::string_view text);

}  // namespace lawnkv
