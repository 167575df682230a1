#include "engine/acl_categories.hpp"

#include "core/ascii.hpp"

namespace lawnkv {

namespace {

constexpr AclCategoryName kNames[] = {
    {kAclKeyspace, "keyspace"},     {kAclRead, "read"},
    {kAclWrite, "write"},           {kAclSet, "set"},
    {kAclSortedSet, "sortedset"},   {kAclList, "list"},
    {kAclHash, "hash"},             {kAclString, "string"},
    {kAclBitmap, "bitmap"},         {kAclHyperLogLog, "hyperloglog"},
    {kAclGeo, "geo"},               {kAclStream, "stream"},
    {kAclPubsub, "pubsub"},         {kAclAdmin, "admin"},
    {kAclFast, "fast"},             {kAclSlow, "slow"},
    {kAclBlocking, "blocking"},     {kAclDangerous, "dangerous"},
    {kAclConnection, "connection"}, {kAclTransaction, "transaction"},
    {kAclScripting, "scripting"},   {kAclDehydrator, "dehydrator"},
};

}  // namespace

std::span<const AclCategoryName> acl_category_names() { return kNames; }

std::optional<AclCategory> find_acl_category(std::string_view name) {
  for (const AclCategoryName& c : kNames)
    if (iequals(name, c.name)) return c.bit;
  return std::nullopt;
}

std::optional<uint32_t> parse_acl_categories(std::string_view text) {
  uint32_t bits = 0;
  while (!text.empty()) {
    const size_t end = text.find(' ');
    const std::string_view word = text.substr(0, end);
    if (!word.empty()) {
      if (word[0] != '@') return std::nullopt;
      const auto bit = find_acl_category(word.substr(1));
      if (!bit) return std::nullopt;
      bits |= *bit;
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return bits;
}


}  // namespace lawnkv
