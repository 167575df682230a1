#include "types/zset_pack.hpp"

#include "types/zset_tree.hpp"

namespace lawnkv::types {

size_t ZPack::find(std::string_view member, double* score) const {
  for (size_t off = 0; off < buf_.size();) {
    const Item it = at(off);
    if (it.member == member) {
      *score = it.score;
      return off;
    }
    off = it.next;
  }
  return buf_.size();
}

size_t ZPack::place_of(std::string_view member, double score) const {
  size_t off = 0;
  while (off < buf_.size()) {
    const Item it = at(off);
    if (zset_before(score, member, it.score, it.member)) break;
    off = it.next;
  }
  return off;
}

void ZPack::insert_at(size_t off, std::string_view member, double score) {
  // Redis's listpack keeps an integral score as an integer: -0 becomes 0.
  if (score == 0) score = 0;
  char entry[5 + 8];
  size_t head = 1;
  if (member.size() < kLongLen) {
    entry[0] = static_cast<char>(member.size());
  } else {
    entry[0] = static_cast<char>(kLongLen);
    const uint32_t l = static_cast<uint32_t>(member.size());
    std::memcpy(entry + 1, &l, 4);
    head = 5;
  }
  const size_t n = head + member.size() + 8;
  if (buf_.capacity() < buf_.size() + n) {
    std::vector<char> grown;
    grown.reserve(buf_.size() + n);
    grown.assign(buf_.begin(), buf_.end());
    buf_.swap(grown);
  }
  const auto at = buf_.insert(buf_.begin() + static_cast<long>(off), n, 0);
  std::memcpy(&*at, entry, head);
  if (!member.empty()) std::memcpy(&*at + head, member.data(), member.size());
  std::memcpy(&*at + head + member.size(), &score, 8);
  ++count_;
}

void ZPack::erase(size_t from, size_t to, size_t n) {
  buf_.erase(buf_.begin() + static_cast<long>(from), buf_.begin() + static_cast<long>(to));
  count_ -= static_cast<uint32_t>(n);
  if (count_ == 0) buf_.shrink_to_fit();
}

}  // namespace lawnkv::types
