#include "types/zset.hpp"

#include <cmath>

namespace lawnkv::types {

ZSet::ZSet(bool skiplist, uint64_t seed) {
  if (skiplist) list_ = std::make_unique<ZTree>(seed);
}

ZSet::ZSet(const ZSet& other) : pack_(other.pack_) {
  if (!other.list_) return;
  list_ = std::make_unique<ZTree>(other.list_->seed());
  other.walk(0, other.size(), false, [&](std::string_view m, double s) { list_->insert(m, s); });
}

size_t ZSet::memory_bytes() const {
  return sizeof(*this) + (list_ ? list_->memory_bytes() : pack_.memory_bytes() - sizeof(pack_));
}

std::unique_ptr<store::Object> ZSet::clone() const { return std::make_unique<ZSet>(*this); }

std::optional<double> ZSet::score(std::string_view member) const {
  if (list_) {
    const ZTree::Elem* n = list_->find(member);
    if (!n) return std::nullopt;
    return n->score;
  }
  double s;
  if (pack_.find(member, &s) == pack_.end()) return std::nullopt;
  return s;
}

ZAddResult ZSet::add(std::string_view member, double score, unsigned flags, const ZSetOptions& opts,
                     double* newscore) {
  if (std::isnan(score)) return ZAddResult::kNan;
  const bool incr = flags & kZAddIncr;
  // The member's current score, wherever it lives.
  double cur = 0;
  size_t off = pack_.end();
  const ZTree::Elem* node = nullptr;
  bool present;
  if (list_) {
    node = list_->find(member);
    present = node != nullptr;
    if (present) cur = node->score;
  } else {
    off = pack_.find(member, &cur);
    present = off != pack_.end();
  }
  if (present) {
    if (flags & kZAddNx) return ZAddResult::kNop;
    if (incr) {
      score += cur;
      if (std::isnan(score)) return ZAddResult::kNan;
    }
    if (((flags & kZAddLt) && score >= cur) || ((flags & kZAddGt) && score <= cur)) return ZAddResult::kNop;
    if (newscore) *newscore = score;
    if (score == cur) return ZAddResult::kSame;
    if (list_) {
      list_->rescore(node, score);
    } else {
      pack_.rescore(off, member, score);
    }
    return ZAddResult::kUpdated;
  }
  if (flags & kZAddXx) return ZAddResult::kNop;
  // Past the entry or length limits, or when the buffer would pass
  // ZPack::kMaxBytes (Redis's lpSafeToAdd, 1 GB), the set becomes a skiplist.
  if (!list_ && (pack_.size() + 1 > opts.max_listpack_entries || member.size() > opts.max_listpack_value ||
                 pack_.end() + member.size() + ZPack::kMaxEntryOverhead > ZPack::kMaxBytes))
    to_skiplist(opts.seed());
  if (list_) {
    list_->insert(member, score);
  } else {
    pack_.insert(member, score);
  }
  if (newscore) *newscore = score;
  return ZAddResult::kAdded;
}

bool ZSet::remove(std::string_view member) {
  if (list_) {
    const ZTree::Elem* n = list_->find(member);
    if (!n) return false;
    list_->erase(n);
    return true;
  }
  double s;
  const size_t off = pack_.find(member, &s);
  if (off == pack_.end()) return false;
  pack_.erase(off, pack_.next(off), 1);
  return true;
}

std::optional<size_t> ZSet::rank(std::string_view member) const {
  if (list_) {
    const ZTree::Elem* n = list_->find(member);
    if (!n) return std::nullopt;
    return list_->rank_of(n);
  }
  double s;
  size_t r;
  if (pack_.find(member, &s, &r) == pack_.end()) return std::nullopt;
  return r;
}

void ZSet::erase_ranks(size_t start, size_t end) {
  if (start >= end) return;
  if (list_) {
    // Element by element: each erase may reshape the tree, so the next one
    // is found again at the same rank.
    for (size_t i = start; i < end; ++i) list_->erase_rank(start);
    return;
  }
  size_t off = pack_.begin(), from = 0;
  for (size_t i = 0; i < end; ++i) {
    if (i == start) from = off;
    off = pack_.next(off);
  }
  pack_.erase(from, off, end - start);
}

void ZSet::compact_if_fits(const ZSetOptions& opts, size_t max_len) {
  if (!list_ || list_->size() > opts.max_listpack_entries || max_len > opts.max_listpack_value) return;
  // A bound on the buffer's length (every member max_len long), which must
  // stay within ZPack::kMaxBytes.
  if (list_->size() * (max_len + ZPack::kMaxEntryOverhead) > ZPack::kMaxBytes) return;
  ZPack pack;
  walk(0, size(), false, [&](std::string_view m, double s) { pack.push_back(m, s); });
  pack_ = std::move(pack);
  list_.reset();
}

void ZSet::to_skiplist(uint64_t seed) {
  if (list_) return;
  auto list = std::make_unique<ZTree>(seed);
  for (size_t off = pack_.begin(); off < pack_.end();) {
    const ZPack::Item it = pack_.at(off);
    list->insert(it.member, it.score);
    off = it.next;
  }
  pack_ = ZPack();
  list_ = std::move(list);
}

}  // namespace lawnkv::types
