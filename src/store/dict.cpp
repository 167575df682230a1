#include "store/dict.hpp"

#include <utility>

namespace lawnkv::store {

Dict::Dict() : table_(DictTraits{std::random_device{}()}) {}

Dict::~Dict() {
  clear([](Entry&) {});
}

Dict::Dict(Dict&& other) noexcept
    : table_(std::move(other.table_)),
      size_(std::exchange(other.size_, 0)),
      longest_chain_(other.longest_chain_) {}

Dict& Dict::operator=(Dict&& other) noexcept {
  if (this != &other) {
    table_.swap(other.table_);
    std::swap(size_, other.size_);
    std::swap(longest_chain_, other.longest_chain_);
  }
  return *this;
}

void Dict::insert(EntryPtr owned) {
  table_.rehash_step();
  table_.push(owned.release());
  table_.fit(++size_);
}

EntryPtr Dict::remove(std::string_view key) {
  table_.rehash_step();
  Table::Link* link = table_.link_to(key, table_.hash(key));
  if (*link == nullptr) return nullptr;
  Entry* e = table_.unlink(link);
  table_.fit(--size_);
  return EntryPtr(e);
}

EntryPtr Dict::replace(Entry* old, EntryPtr fresh) {
  return EntryPtr(table_.replace(table_.link_to(old), fresh.release()));
}

}  // namespace lawnkv::store
