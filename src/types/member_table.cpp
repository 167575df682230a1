#include "types/member_table.hpp"

#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "core/page_allocator.hpp"

namespace lawnkv::types {

namespace {

constexpr size_t kHeapPointerAt = 16;

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

size_t MemberTable::block_size(size_t len) {
  static_assert(offsetof(Node, len) + 1 == Node::kHeader);
  const size_t raw = len <= kInlineMax ? Node::kHeader + len : kHeapPointerAt + sizeof(std::string*);
  return (raw + arena::kGranule - 1) & ~(arena::kGranule - 1);
}

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
      table_bits_(static_cast<uint8_t>(__builtin_ctzll(buckets_for(expected)))) {
  slots_.reserve(expected);
}

MemberTable::~MemberTable() {
  for (size_t i = 0; i < slots_.size(); ++i) destroy(slots_[i], &node_bytes_);
  release(table_, table().count);
  release(next_, next().count);
}

MemberTable::MemberTable(const MemberTable& other) : MemberTable(other.seed_, other.size()) {
  for (size_t i = 0; i < other.slots_.size(); ++i) insert(member_of(other.slots_[i]));
}

MemberTable::Link& MemberTable::bucket_of(uint64_t hash) const {
  const size_t i = hash & table().mask();
  return rehashing() && i < rehash_at_ ? next_[hash & next().mask()] : table_[i];
}

bool MemberTable::contains(std::string_view member) const {
  for (const Node* n = bucket_of(hash_of(member)); n; n = n->next)
    if (member_of(n) == member) return true;
  return false;
}

bool MemberTable::insert(std::string_view member) {
  rehash_step();
  Link& head = bucket_of(hash_of(member));
  for (const Node* n = head; n; n = n->next)
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
  n->slot = static_cast<uint32_t>(slots_.size());
  slots_.push_back(n);
  maybe_resize();
  return true;
}

bool MemberTable::erase(std::string_view member) {
  rehash_step();
  Link* link = &bucket_of(hash_of(member));
  while (*link != nullptr && member_of(*link) != member) link = &(*link)->next;
  if (*link == nullptr) return false;
  unlink(link);
  return true;
}

void MemberTable::erase_slot(size_t slot) {
  rehash_step();
  const Node* n = slots_[slot];
  Link* link = &bucket_of(hash_of(member_of(n)));
  while (*link != n) link = &(*link)->next;
  unlink(link);
}

void MemberTable::unlink(Link* link) {
  Node* n = *link;
  *link = n->next;
  // The last member moves into n's slot.
  Node* last = slots_.back();
  slots_[n->slot] = last;
  last->slot = n->slot;
  slots_.pop_back();
  destroy(n, &node_bytes_);
  maybe_resize();
}

void MemberTable::maybe_resize() {
  if (rehashing()) return;  // one at a time, as store::Dict
  const size_t n = table().count;
  if (size() > n) {
    resize(n * 2);
  } else if (n > kMinBuckets && size() * 8 < n) {
    resize(buckets_for(size() * 2));
  }
}

void MemberTable::resize(size_t count) {
  next_ = allocate(count);
  next_bits_ = static_cast<uint8_t>(__builtin_ctzll(count));
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
  }
}

size_t MemberTable::memory_bytes() const {
  return sizeof(*this) + (table().count + next().count) * sizeof(Link) + slots_.memory_bytes() + node_bytes_;
}

std::string MemberTable::check() const {
  size_t chained = 0;
  std::string wrong;
  for (const Buckets& t : {table(), next()})
    for (size_t i = 0; i < t.count && wrong.empty(); ++i)
      for (const Node* n = t.links[i]; n && wrong.empty(); n = n->next, ++chained)
        if (n->slot >= slots_.size() || slots_[n->slot] != n)
          wrong = "member " + std::string(member_of(n)) + " names slot " + std::to_string(n->slot) + ", which does not hold it";
  if (wrong.empty() && chained != slots_.size())
    wrong = std::to_string(chained) + " members in chains, " + std::to_string(slots_.size()) + " slots";
  return wrong;
}

}  // namespace lawnkv::types
