#include "commands/lists_ops.hpp"

#include <memory>

#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

ListRef as_list(store::Entry* e) {
  if (e == nullptr) return {};
  if (e->type() != store::Type::kList) return {nullptr, true};
  return {static_cast<types::List*>(e->obj()), false};
}

}  // namespace

ListRef list_for_read(DbContext& call, std::string_view key) { return as_list(lookup_read(call, key)); }

ListRef list_for_write(DbContext& call, std::string_view key) { return as_list(lookup_write(call, key)); }

types::ListOptions list_options(const Call& call) { return {.fill = call.cfg().list_max_listpack_size}; }

types::List& create_list(DbContext& call, std::string_view key) {
  return static_cast<types::List&>(*call.db().add_object(key, std::make_unique<types::List>()).obj());
}

}  // namespace lawnkv
