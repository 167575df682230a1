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

MemberTable::Buckets MemberTable::allocate(size_t count) {
  return Buckets{PageAllocator<Link>().allocate(count), count};
}

void MemberTable::release(Buckets& b) {
  if (b.links) PageAllocator<Link>().deallocate(b.links, b.count);
  b = Buckets();
}

std::string_view MemberTable::member_of(const Node* n) {
  if (n->len == Node::kOnHeap) return *heap_string(n);
  return std::string_view(n->bytes(), n->len);
}

void MemberTable::destroy(Node* n, size_t* bytes) {
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
    : table_(allocate(buckets_for(expected))), seed_(seed) {}

MemberTable::~MemberTable() {
  for (Buckets* t : {&table_, &next_}) {
    for (size_t i = 0; i < t->count; ++i) {
      for (Node* n = t->links[i]; n;) {
        Node* next = n->next;
        destroy(n, &node_bytes_);
        n = next;
      }
    }
    release(*t);
  }
}

MemberTable::MemberTable(const MemberTable& other) : MemberTable(other.seed_, other.size_) {
  other.for_each([&](std::string_view m) { insert(m); });
}

MemberTable::Link& MemberTable::bucket_of(uint64_t hash, bool* in_next) const {
  const size_t i = hash & table_.mask();
  *in_next = rehashing() && i < rehash_at_;
  return *in_next ? next_.links[hash & next_.mask()] : table_.links[i];
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
  size_t& bound = in_next ? next_max_chain_ : max_chain_;
  if (chain > bound) bound = chain;
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
  const size_t n = table_.count;
  if (size_ > n) {
    resize(n * 2);
  } else if (n > kMinBuckets && size_ * 8 < n) {
    resize(buckets_for(size_ * 2));
  }
}

void MemberTable::resize(size_t count) {
  next_ = allocate(count);
  next_max_chain_ = 0;
  rehash_at_ = 0;
  rehash(kRehashBuckets);
}

void MemberTable::rehash(size_t chains) {
  const size_t m = next_.mask();
  size_t empty_visits = chains * 10;
  while (chains > 0 && rehash_at_ < table_.count) {
    Link& old = table_.links[rehash_at_];
    if (old == nullptr) {
      ++rehash_at_;
      if (--empty_visits == 0) break;
      continue;
    }
    for (Node* n = old; n;) {
      Node* next = n->next;
      Link& head = next_.links[hash_of(member_of(n)) & m];
      n->next = head;
      head = n;
      size_t chain = 0;
      for (const Node* c = head; c; c = c->next) ++chain;
      if (chain > next_max_chain_) next_max_chain_ = chain;
      n = next;
    }
    old = nullptr;
    ++rehash_at_;
    --chains;
  }
  if (rehash_at_ == table_.count) {
    release(table_);
    table_ = std::exchange(next_, Buckets());
    rehash_at_ = 0;
    max_chain_ = next_max_chain_ > 0 ? next_max_chain_ : 1;
    next_max_chain_ = 0;
  }
}

std::string_view MemberTable::random(std::mt19937_64& rng) const {
  // Buckets that may hold members: table_'s from rehash_at_ on, then next_'s.
  const size_t in_table = table_.count - rehash_at_;
  const size_t buckets = in_table + next_.count;
  const size_t bound = chain_bound();
  for (;;) {
    const size_t b = rng() % buckets;
    const Node* n = b < in_table ? table_.links[rehash_at_ + b].get() : next_.links[b - in_table].get();
    if (!n) continue;
    size_t pos = rng() % bound;
    while (n && pos > 0) {
      n = n->next;
      --pos;
    }
    if (n) return member_of(n);
  }
}

size_t MemberTable::memory_bytes() const {
  return sizeof(*this) + (table_.count + next_.count) * sizeof(Link) + node_bytes_;
}

}  // namespace lawnkv::types
