#include "types/member_table.hpp"

#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "core/page_allocator.hpp"

namespace lawnkv::types {

namespace {

constexpr size_t kHeapPointerAt = 8;

// The arena block of a member of len bytes.
size_t block_size(size_t len) {
  const size_t raw = len <= MemberTable::kInlineMax ? 5 + len : kHeapPointerAt + sizeof(std::string*);
  return (raw + arena::kGranule - 1) & ~(arena::kGranule - 1);
}

std::string* heap_string(const void* node) {
  std::string* s;
  std::memcpy(&s, static_cast<const char*>(node) + kHeapPointerAt, sizeof(s));
  return s;
}

size_t heap_bytes(const std::string* s) { return sizeof(std::string) + s->capacity() + 1; }

size_t buckets_for(size_t members) {
  size_t n = MemberTable::kMinBuckets;
  while (n < members) n *= 2;
  return n;
}

}  // namespace

MemberTable::Link* MemberTable::allocate(size_t count) { return PageAllocator<Link>().allocate(count); }

void MemberTable::release(Link* links, size_t count) {
  if (links) PageAllocator<Link>().deallocate(links, count);
}

std::string_view MemberTable::member_of(const Node* n) {
  if (n->len == Node::kOnHeap) return *heap_string(n);
  return std::string_view(n->bytes(), n->len);
}

void MemberTable::destroy(Node* n, uint64_t* bytes) {
  size_t len = n->len;
  if (n->len == Node::kOnHeap) {
    std::string* s = heap_string(n);
    len = s->size();
    *bytes -= heap_bytes(s);
    delete s;
  }
  const size_t block = block_size(len);
  *bytes -= block;
  arena::deallocate(n, block);
}

MemberTable::MemberTable(uint64_t seed, size_t expected)
    : table_(allocate(buckets_for(expected))),
      seed_(seed),
      table_bits_(static_cast<uint8_t>(__builtin_ctzll(buckets_for(expected)))) {}

MemberTable::~MemberTable() {
  for (const Buckets& t : {table(), next()}) {
    for (size_t i = 0; i < t.count; ++i) {
      for (Node* n = t.links[i]; n;) {
        Node* next = n->next;
        destroy(n, &node_bytes_);
        n = next;
      }
    }
    release(t.links, t.count);
  }
}

MemberTable::MemberTable(const MemberTable& other) : MemberTable(other.seed_, other.size_) {
  other.for_each([&](std::string_view m) { insert(m); });
}

MemberTable::Link& MemberTable::bucket_of(uint64_t hash, bool* in_next) const {
  const size_t i = hash & table().mask();
  *in_next = rehashing() && i < rehash_at_;
  return *in_next ? next_[hash & next().mask()] : table_[i];
}

bool MemberTable::contains(std::string_view member) const {
  bool in_next;
  for (const Node* n = bucket_of(hash_of(member), &in_next); n; n = n->next)
    if (member_of(n) == member) return true;
  return false;
}

bool MemberTable::insert(std::string_view member) {
  rehash_step();
  bool in_next;
  Link& head = bucket_of(hash_of(member), &in_next);
  size_t chain = 1;
  for (const Node* n = head; n; n = n->next, ++chain)
    if (member_of(n) == member) return false;

  const size_t block = block_size(member.size());
  Node* n = static_cast<Node*>(arena::allocate(block));
  n->next = head;
  if (member.size() <= kInlineMax) {
    n->len = static_cast<uint8_t>(member.size());
    std::memcpy(n->bytes(), member.data(), member.size());
  } else {
    n->len = Node::kOnHeap;
    std::string* s = new std::string(member);
    std::memcpy(reinterpret_cast<char*>(n) + kHeapPointerAt, &s, sizeof(s));
    node_bytes_ += heap_bytes(s);
  }
  node_bytes_ += block;
  head = n;
  raise(in_next ? &next_max_chain_ : &max_chain_, chain);
  ++size_;
  maybe_resize();
  return true;
}

bool MemberTable::erase(std::string_view member) {
  rehash_step();
  bool in_next;
  Link* link = &bucket_of(hash_of(member), &in_next);
  while (*link != nullptr && member_of(*link) != member) link = &(*link)->next;
  Node* n = *link;
  if (n == nullptr) return false;
  *link = n->next;
  destroy(n, &node_bytes_);
  --size_;
  maybe_resize();
  return true;
}

void MemberTable::maybe_resize() {
  if (rehashing()) return;  // one at a time, as store::Dict
  const size_t n = table().count;
  if (size_ > n) {
    resize(n * 2);
  } else if (n > kMinBuckets && size_ * 8 < n) {
    resize(buckets_for(size_ * 2));
  }
}

void MemberTable::resize(size_t count) {
  next_ = allocate(count);
  next_bits_ = static_cast<uint8_t>(__builtin_ctzll(count));
  next_max_chain_ = 0;
  rehash_at_ = 0;
  const size_t old = table().count;
  rehash(old <= kResizeAtOnce ? old : kRehashBuckets);
}

void MemberTable::rehash(size_t chains) {
  const Buckets from = table(), to = next();
  size_t empty_visits = chains * 10;
  while (chains > 0 && rehash_at_ < from.count) {
    Link& old = from.links[rehash_at_];
    if (old == nullptr) {
      ++rehash_at_;
      if (--empty_visits == 0) break;
      continue;
    }
    for (Node* n = old; n;) {
      Node* next = n->next;
      Link& head = to.links[hash_of(member_of(n)) & to.mask()];
      n->next = head;
      head = n;
      size_t chain = 0;
      for (const Node* c = head; c; c = c->next) ++chain;
      raise(&next_max_chain_, chain);
      n = next;
    }
    old = nullptr;
    ++rehash_at_;
    --chains;
  }
  if (rehash_at_ == from.count) {
    release(from.links, from.count);
    table_ = std::exchange(next_, nullptr);
    table_bits_ = next_bits_;
    next_bits_ = 0;
    rehash_at_ = 0;
    max_chain_ = next_max_chain_ > 0 ? next_max_chain_ : 1;
    next_max_chain_ = 0;
  }
}

std::string_view MemberTable::random(std::mt19937_64& rng) const {
  // Buckets that may hold members: table_'s from rehash_at_ on, then next_'s.
  const Buckets t = table(), n = next();
  const size_t in_table = t.count - rehash_at_;
  const size_t buckets = in_table + n.count;
  const size_t bound = chain_bound();
  for (;;) {
    const size_t b = rng() % buckets;
    const Node* node = b < in_table ? t.links[rehash_at_ + b].get() : n.links[b - in_table].get();
    if (!node) continue;
    size_t pos = rng() % bound;
    while (node && pos > 0) {
      node = node->next;
      --pos;
    }
    if (node) return member_of(node);
  }
}

size_t MemberTable::memory_bytes() const {
  return sizeof(*this) + (table().count + next().count) * sizeof(Link) + node_bytes_;
}

}  // namespace lawnkv::types
