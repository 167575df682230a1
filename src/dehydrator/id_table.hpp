#pragma once
// A dehydrator's elements by id: core/chained_table.hpp over the elements,
// linked through Element::next_in_bucket (no node allocation). Buckets and
// links are 32-bit arena links: 4 bytes a bucket, at most 8 per element at
// load 1/2 just after growing. Each element caches its id's hash
// (element.hpp), so a chain is walked comparing hashes before ids, removing
// an element the caller holds walks only its own chain comparing pointers,
// and a rehash never reads an id.
//
// The table owns nothing: the dehydrator makes and destroys the elements.
// Resizing is incremental (every insert and remove moves up to
// kRehashBuckets chains), so a dehydrator emptied by POLL gives its buckets
// back as it empties, and no single push or poll pays for rebuilding the
// table; once empty, it drops to the minimum at once.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/chained_table.hpp"
#include "dehydrator/element.hpp"

namespace lawnkv::dehydrator {

class IdTable {
 public:
  // Chains moved per insert or remove while a rehash is under way.
  static constexpr size_t kRehashBuckets = ChainedTableSizes::kRehashBuckets;

  IdTable() = default;
  IdTable(const IdTable&) = delete;
  IdTable& operator=(const IdTable&) = delete;

  Element* find(std::string_view id) const { return table_.find(id); }
  // Links e (its hash set, no element with its id present).
  void insert(Element* e) {
    table_.rehash_step();
    table_.push(e, e->hash);
    table_.fit(++size_);
  }
  // Unlinks e, which is in the table.
  void remove(Element* e) {
    table_.rehash_step();
    table_.unlink(table_.link_to(e));
    table_.fit(--size_);
  }
  // Puts fresh (same id and hash) where old is; old is unlinked.
  void replace(Element* old, Element* fresh) { table_.replace(table_.link_to(old), fresh); }
  // Unlinks every element, calling fn(Element*) on each after, and shrinks
  // to the minimum.
  template <class F>
  void clear(F&& fn) {
    table_.clear(fn);
    size_ = 0;
  }

  // Starts loading the bucket of an element with this hash (no wait);
  // inlined by force, as store::Dict's prefetches (dict.hpp).
  [[gnu::always_inline]] void prefetch(uint32_t hash) const { __builtin_prefetch(&table_.bucket(hash)); }

  template <class F>
  void for_each(F&& fn) const {
    table_.for_each([&](Element& e) { fn(&e); });
  }

  size_t size() const { return size_; }
  // The bucket count the table has, or is rehashing to.
  size_t bucket_count() const { return table_.bucket_count(); }
  bool rehashing() const { return table_.rehashing(); }
  size_t memory_bytes() const { return table_.memory_bytes(); }

 private:
  struct Traits {
    using Node = Element;
    using Link = arena::Ref<Element>;
    using Key = std::string_view;
    static Link& next(Element& e) { return e.next_in_bucket; }
    uint64_t hash(std::string_view id) const { return hash_id(id); }
    uint64_t hash(const Element& e) const { return e.hash; }
    bool equal(const Element& e, std::string_view id, uint64_t hash) const { return e.hash == hash && e.id() == id; }
  };

  ChainedTable<Traits> table_;
  size_t size_ = 0;
};

}  // namespace lawnkv::dehydrator
