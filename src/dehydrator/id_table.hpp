#pragma once
// A dehydrator's elements by id: chained buckets, a power-of-two bucket
// count, elements linked through Element::next_in_bucket (no node
// allocation). Buckets and links are 32-bit arena links: 4 bytes a bucket,
// at most 8 per element at load 1/2 just after growing. Each element caches
// its id's hash (element.hpp), so removing an element the caller holds walks
// only its own chain comparing pointers, and a rehash never reads an id.
//
// The table owns nothing: the dehydrator makes and destroys the elements.
//
// Resizing is incremental, as store::Dict's (store/dict.hpp): growing (at load
// 1) or shrinking (at load 1/8, to the smallest power of two >= twice the
// elements; 4 buckets when empty) allocates the new bucket array, then every
// insert and remove moves up to kRehashBuckets chains of the old one (visiting
// at most 10 empty buckets per chain). Meanwhile an element is in the old
// table if its bucket there is not yet moved, else in the new one. So a
// dehydrator emptied by POLL gives its buckets back as it empties, and no
// single push or poll pays for rebuilding the table. Once empty, the table
// drops to the minimum at once (nothing is left to move).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/page_allocator.hpp"
#include "dehydrator/element.hpp"

namespace lawnkv::dehydrator {

class IdTable {
 public:
  // Chains moved per insert or remove while a rehash is under way.
  static constexpr size_t kRehashBuckets = 2;

  IdTable();
  IdTable(const IdTable&) = delete;
  IdTable& operator=(const IdTable&) = delete;

  Element* find(std::string_view id) const;
  // Links e (its hash set, no element with its id present).
  void insert(Element* e);
  // Unlinks e, which is in the table.
  void remove(Element* e);
  // Puts fresh (same id and hash) where old is; old is unlinked.
  void replace(Element* old, Element* fresh);
  // Unlinks every element, calling fn(Element*) on each after, and shrinks
  // to the minimum.
  template <class F>
  void clear(F&& fn);

  // Starts loading the bucket of an element with this hash (no wait).
  void prefetch(uint32_t hash) const { __builtin_prefetch(&bucket_of(hash)); }

  template <class F>
  void for_each(F&& fn) const {
    for (const Buckets* t : {&table_, &next_})
      for (Element* head : *t)
        for (Element* e = head; e; e = e->next_in_bucket) fn(e);
  }

  size_t size() const { return size_; }
  // The bucket count the table has, or is rehashing to.
  size_t bucket_count() const { return (rehashing() ? next_ : table_).size(); }
  bool rehashing() const { return !next_.empty(); }
  size_t memory_bytes() const { return (table_.capacity() + next_.capacity()) * sizeof(Link); }

 private:
  using Link = arena::Ref<Element>;
  using Buckets = std::vector<Link, PageAllocator<Link>>;

  static size_t mask(const Buckets& t) { return t.size() - 1; }
  // The bucket a hash's chain lives in, in whichever table holds it now.
  Link& bucket_of(uint32_t hash);
  const Link& bucket_of(uint32_t hash) const { return const_cast<IdTable*>(this)->bucket_of(hash); }
  static void push_front(Link& head, Element* e) {
    e->next_in_bucket = head;
    head = e;
  }
  // The link that points at e, which is in the table.
  Link& link_to(Element* e);
  void rehash_step() {
    if (rehashing()) rehash(kRehashBuckets);
  }
  // Back to the minimum table, empty.
  void reset();
  // Starts a resize if the load calls for one and none is under way.
  void maybe_resize();
  // Moves up to chains non-empty buckets of table_ to next_.
  void rehash(size_t chains);

  Buckets table_;
  Buckets next_;          // non-empty while a rehash is under way
  size_t rehash_at_ = 0;  // table_'s buckets below this have moved to next_
  size_t size_ = 0;
};

template <class F>
void IdTable::clear(F&& fn) {
  for (Buckets* t : {&table_, &next_}) {
    for (Link& head : *t) {
      for (Element* e = head; e;) {
        Element* next = e->next_in_bucket;
        e->next_in_bucket = nullptr;
        fn(e);
        e = next;
      }
    }
  }
  reset();
}

}  // namespace lawnkv::dehydrator
