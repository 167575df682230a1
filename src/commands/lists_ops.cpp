#include "commands/lists_ops.hpp"

#include <memory>

#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

}  // namespace

types::ListOptions list_options(const Call& call) { return {.fill = call.cfg().list_max_listpack_size}; }

types::List& create_list(DbContext& call, std::string_view key) {
  return static_cast<types::List&>(*call.db().add_object(key, std::make_unique<types::List>()).obj());
}

}  // namespace lawnkv
