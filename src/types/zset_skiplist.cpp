#include "types/zset_skiplist.hpp"

#include <cstdlib>
#include <new>

namespace lawnkv::types {

namespace {

constexpr size_t kMinBuckets = 4;

bool before(const ZSkipList::Node* a, const ZSkipList::Node* b) {
  return zset_before(a->score, a->member(), b->score, b->member());
}

}  // namespace

ZSkipList::ZSkipList(uint64_t seed)
    : buckets_(static_cast<Node**>(std::calloc(kMinBuckets, sizeof(Node*)))),
      mask_(kMinBuckets - 1),
      seed_(seed),
      rng_(seed | 1) {
  if (!buckets_) throw std::bad_alloc();
  head_ = static_cast<Node*>(std::malloc(Node::bytes_for(kMaxHeight, 0)));
  if (!head_) throw std::bad_alloc();
  head_->score = 0;
  head_->back = nullptr;
  head_->chain = nullptr;
  head_->len = 0;
  head_->height = kMaxHeight;
  for (int i = 0; i < kMaxHeight; ++i) head_->levels()[i] = {nullptr, 0};
}

ZSkipList::~ZSkipList() {
  for (Node* n = head_->levels()[0].next; n;) {
    Node* next = n->levels()[0].next;
    std::free(n);
    n = next;
  }
  std::free(head_);
  std::free(buckets_);
}

size_t ZSkipList::memory_bytes() const {
  return sizeof(*this) + Node::bytes_for(kMaxHeight, 0) + (mask_ + 1) * sizeof(Node*) + node_bytes_;
}

int ZSkipList::random_height() {
  int h = 1;
  for (;;) {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    // Two bits at a time: each further level with probability 1/4.
    uint64_t r = rng_;
    for (int k = 0; k < 32; ++k, r >>= 2) {
      if ((r & 3) != 0 || h == kMaxHeight) return h;
      ++h;
    }
  }
}

ZSkipList::Node* ZSkipList::make_node(std::string_view member, double score) {
  const int h = random_height();
  const size_t bytes = Node::bytes_for(h, member.size());
  Node* n = static_cast<Node*>(std::malloc(bytes));
  if (!n) throw std::bad_alloc();
  n->score = score;
  n->back = nullptr;
  n->chain = nullptr;
  n->len = static_cast<uint32_t>(member.size());
  n->height = static_cast<uint8_t>(h);
  if (!member.empty()) std::memcpy(n->levels() + h, member.data(), member.size());
  node_bytes_ += bytes;
  return n;
}

const ZSkipList::Node* ZSkipList::find(std::string_view member) const {
  for (const Node* n = *bucket(member); n; n = n->chain)
    if (n->member() == member) return n;
  return nullptr;
}

void ZSkipList::rehash(size_t count) {
  Node** fresh = static_cast<Node**>(std::calloc(count, sizeof(Node*)));
  if (!fresh) throw std::bad_alloc();
  const uint64_t old_count = mask_ + 1;
  Node** old = buckets_;
  buckets_ = fresh;
  mask_ = count - 1;
  for (uint64_t i = 0; i < old_count; ++i) {
    for (Node* n = old[i]; n;) {
      Node* next = n->chain;
      Node** b = bucket(n->member());
      n->chain = *b;
      *b = n;
      n = next;
    }
  }
  std::free(old);
}

void ZSkipList::hash_add(Node* n) {
  if (size_ > mask_) rehash((mask_ + 1) * 2);
  Node** b = bucket(n->member());
  n->chain = *b;
  *b = n;
}

void ZSkipList::hash_remove(const Node* n) {
  for (Node** p = bucket(n->member()); *p; p = &(*p)->chain) {
    if (*p == n) {
      *p = n->chain;
      break;
    }
  }
  if (mask_ + 1 > kMinBuckets && size_ * 8 < mask_ + 1) rehash((mask_ + 1) / 2);
}

void ZSkipList::link(Node* n) {
  Node* update[kMaxHeight];
  size_t rank[kMaxHeight];
  Node* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    rank[i] = i == height_ - 1 ? 0 : rank[i + 1];
    while (x->levels()[i].next && before(x->levels()[i].next, n)) {
      rank[i] += x->levels()[i].span;
      x = x->levels()[i].next;
    }
    update[i] = x;
  }
  const int h = n->height;
  if (h > height_) {
    for (int i = height_; i < h; ++i) {
      rank[i] = 0;
      update[i] = head_;
      head_->levels()[i].span = size_;
    }
    height_ = h;
  }
  for (int i = 0; i < h; ++i) {
    Node::Level& up = update[i]->levels()[i];
    n->levels()[i].next = up.next;
    up.next = n;
    n->levels()[i].span = up.span - (rank[0] - rank[i]);
    up.span = rank[0] - rank[i] + 1;
  }
  for (int i = h; i < height_; ++i) ++update[i]->levels()[i].span;
  n->back = update[0] == head_ ? nullptr : update[0];
  if (Node* next = n->levels()[0].next) {
    next->back = n;
  } else {
    tail_ = n;
  }
  ++size_;
}

void ZSkipList::unlink(Node* n) {
  Node* update[kMaxHeight];
  Node* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].next && before(x->levels()[i].next, n)) x = x->levels()[i].next;
    update[i] = x;
  }
  for (int i = 0; i < height_; ++i) {
    Node::Level& up = update[i]->levels()[i];
    if (up.next == n) {
      up.span += n->levels()[i].span - 1;
      up.next = n->levels()[i].next;
    } else {
      --up.span;
    }
  }
  if (Node* next = n->levels()[0].next) {
    next->back = n->back;
  } else {
    tail_ = n->back;
  }
  while (height_ > 1 && head_->levels()[height_ - 1].next == nullptr) --height_;
  --size_;
}

void ZSkipList::insert(std::string_view member, double score) {
  Node* n = make_node(member, score);
  hash_add(n);
  link(n);
}

void ZSkipList::rescore(const Node* cn, double score) {
  Node* n = const_cast<Node*>(cn);
  // Still between its neighbours: the score changes in place.
  const Node* p = n->back;
  const Node* q = n->levels()[0].next;
  if ((!p || zset_before(p->score, p->member(), score, n->member())) &&
      (!q || zset_before(score, n->member(), q->score, q->member()))) {
    n->score = score;
    return;
  }
  unlink(n);
  n->score = score;
  link(n);
}

void ZSkipList::erase(const Node* cn) {
  Node* n = const_cast<Node*>(cn);
  unlink(n);
  hash_remove(n);
  node_bytes_ -= Node::bytes_for(n->height, n->len);
  std::free(n);
}

size_t ZSkipList::rank_of(const Node* n) const {
  return count_below([&](double s, std::string_view m) { return zset_before(s, m, n->score, n->member()); });
}

const ZSkipList::Node* ZSkipList::at(size_t rank) const {
  const size_t target = rank + 1;  // spans count from the head
  const Node* x = head_;
  size_t traversed = 0;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].next && traversed + x->levels()[i].span <= target) {
      traversed += x->levels()[i].span;
      x = x->levels()[i].next;
    }
    if (traversed == target) return x;
  }
  return nullptr;
}

}  // namespace lawnkv::types
