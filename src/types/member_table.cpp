#include "types/member_table.hpp"

#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <utility>

namespace lawnkv::types {

namespace {

constexpr size_t kHeapPointerAt = 16;

std::string* heap_string(const void* node) {
  std::string* s;
  std::memcpy(&s, static_cast<const char*>(node) + kHeapPointerAt, sizeof(s));
  return s;
}

size_t heap_bytes(const std::string* s) { return sizeof(std::string) + s->capacity() + 1; }

}  // namespace

size_t MemberTable::block_size(size_t len) {
  static_assert(offsetof(Node, len) + 1 == Node::kHeader);
  const size_t raw = len <= kInlineMax ? Node::kHeader + len : kHeapPointerAt + sizeof(std::string*);
  return (raw + arena::kGranule - 1) & ~(arena::kGranule - 1);
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

MemberTable::MemberTable(uint64_t seed, size_t expected) : table_(Traits{seed}, expected) {
  slots_.reserve(expected);
}

MemberTable::~MemberTable() {
  for (size_t i = 0; i < slots_.size(); ++i) destroy(slots_[i], &node_bytes_);
}

MemberTable::MemberTable(const MemberTable& other) : MemberTable(other.table_.traits().seed, other.size()) {
  for (size_t i = 0; i < other.slots_.size(); ++i) insert(member_of(other.slots_[i]));
}

bool MemberTable::contains(std::string_view member) const { return table_.find(member) != nullptr; }

bool MemberTable::insert(std::string_view member) {
  table_.rehash_step();
  const uint64_t hash = table_.hash(member);
  if (table_.find(member, hash)) return false;

  const size_t block = block_size(member.size());
  Node* n = static_cast<Node*>(arena::allocate(block));
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
  table_.push(n, hash);
  n->slot = static_cast<uint32_t>(slots_.size());
  slots_.push_back(n);
  table_.fit(size());
  return true;
}

bool MemberTable::erase(std::string_view member) {
  table_.rehash_step();
  Link* link = table_.link_to(member, table_.hash(member));
  if (*link == nullptr) return false;
  unlink(link);
  return true;
}

void MemberTable::erase_slot(size_t slot) {
  table_.rehash_step();
  unlink(table_.link_to(slots_[slot]));
}

void MemberTable::unlink(Link* link) {
  Node* n = table_.unlink(link);
  // The last member moves into n's slot.
  Node* last = slots_.back();
  slots_[n->slot] = last;
  last->slot = n->slot;
  slots_.pop_back();
  destroy(n, &node_bytes_);
  table_.fit(size());
}

size_t MemberTable::memory_bytes() const {
  return sizeof(*this) + table_.memory_bytes() + slots_.memory_bytes() + node_bytes_;
}

std::string MemberTable::check() const {
  size_t chained = 0;
  std::string wrong;
  table_.for_each([&](const Node& n) {
    ++chained;
    if (n.slot >= slots_.size() || slots_[n.slot] != &n)
      wrong = "member " + std::string(member_of(&n)) + " names slot " + std::to_string(n.slot) + ", which does not hold it";
    return wrong.empty();
  });
  if (wrong.empty() && chained != slots_.size())
    wrong = std::to_string(chained) + " members in chains, " + std::to_string(slots_.size()) + " slots";
  return wrong;
}

}  // namespace lawnkv::types
