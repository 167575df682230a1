#include "types/zset_tree.hpp"

#include <cstdlib>
#include <new>

namespace lawnkv::types {

namespace {

// A node below this many entries merges with a neighbour when the two fit
// in kMergeMax.
constexpr int kMinFill = ZTree::kCap / 4;
constexpr int kMergeMax = ZTree::kCap * 3 / 4;

// How many of v[0, n), ascending, are below x: the last of every block of
// eight is compared, which tells the block where the count ends, then the
// entries of that block. At most 12 comparisons for a node's 33 entries,
// none of them a branch, and the loads of each stage independent of each
// other, so a node's cache lines come in together: a binary search's
// branches on random scores are mispredicted half the time, and each of its
// loads waits for the last.
int count_below_score(const double* v, int n, double x) {
  int block = 0;
  for (int k = 7; k < n; k += 8) block += v[k] < x;
  const int lo = block * 8, hi = lo + 8 < n ? lo + 8 : n;
  int c = lo;
  for (int k = lo; k < hi; ++k) c += v[k] < x;
  return c;
}

// The first index in [0, n) whose key (scores[i], elem(i)) is not before
// (score, member), or n. The scores alone place it among the entries of
// other scores; members are compared only among the entries of an equal
// score, which follow.
template <class ElemAt>
int lower_bound(const double* scores, ElemAt elem, int n, double score, std::string_view member) {
  int i = count_below_score(scores, n, score);
  while (i < n && scores[i] == score && compare_member_bytes(elem(i)->member(), member) < 0) ++i;
  return i;
}

}  // namespace

ZTree::ZTree(uint64_t seed) : root_(new Leaf()), hash_(HashTraits{seed}) { node_bytes_ = sizeof(Leaf); }

ZTree::~ZTree() {
  // Every element is in the hash table: free them from there, then the nodes.
  hash_.clear([](Elem* e) { std::free(e); });
  free_node(root_);
}

void ZTree::free_node(Node* n) {
  if (!n->leaf) {
    Inner* in = static_cast<Inner*>(n);
    for (int i = 0; i < in->n; ++i) free_node(in->child[i]);
    delete in;
  } else {
    delete static_cast<Leaf*>(n);
  }
}

bool ZTree::consistent() const {
  size_t count = 0;
  double max_score = 0;
  const Elem* max_elem = nullptr;
  return consistent(root_, &count, &max_score, &max_elem) && count == size_;
}

size_t ZTree::depth() const {
  size_t d = 0;
  for (const Node* x = root_; !x->leaf; x = static_cast<const Inner*>(x)->child[0]) ++d;
  return d;
}

bool ZTree::consistent(const Node* n, size_t* count, double* max_score, const Elem** max_elem) {
  if (n->leaf) {
    const Leaf* l = static_cast<const Leaf*>(n);
    *count = static_cast<size_t>(l->n);
    if (l->n > 0) {
      *max_score = l->scores[l->n - 1];
      *max_elem = l->elems[l->n - 1];
    }
    return true;
  }
  const Inner* in = static_cast<const Inner*>(n);
  *count = 0;
  for (int i = 0; i < in->n; ++i) {
    size_t c = 0;
    if (!consistent(in->child[i], &c, max_score, max_elem)) return false;
    if (c != in->count[i] || *max_score != in->max_score[i] || *max_elem != in->max_elem[i]) return false;
    *count += c;
  }
  return true;
}

size_t ZTree::memory_bytes() const {
  return sizeof(*this) + hash_.memory_bytes() + elem_bytes_ + node_bytes_;
}

ZTree::Leaf* ZTree::descend(double score, std::string_view member, Path* path) const {
  Node* x = root_;
  path->depth = 0;
  while (!x->leaf) {
    Inner* in = static_cast<Inner*>(x);
    int i = lower_bound(in->max_score, [&](int k) { return in->max_elem[k]; }, in->n, score, member);
    if (i == in->n) i = in->n - 1;
    path->node[path->depth] = in;
    path->idx[path->depth] = i;
    ++path->depth;
    x = in->child[i];
  }
  return static_cast<Leaf*>(x);
}

void ZTree::refresh(Inner* p, int i) {
  const Node* c = p->child[i];
  if (c->leaf) {
    p->count[i] = static_cast<size_t>(c->n);
  } else {
    const Inner* in = static_cast<const Inner*>(c);
    size_t sum = 0;
    for (int k = 0; k < in->n; ++k) sum += in->count[k];
    p->count[i] = sum;
  }
  copy_max(p, i);
}

void ZTree::copy_max(Inner* p, int i) {
  const Node* c = p->child[i];
  if (c->leaf) {
    const Leaf* l = static_cast<const Leaf*>(c);
    p->max_score[i] = l->scores[l->n - 1];
    p->max_elem[i] = l->elems[l->n - 1];
  } else {
    const Inner* in = static_cast<const Inner*>(c);
    p->max_score[i] = in->max_score[in->n - 1];
    p->max_elem[i] = in->max_elem[in->n - 1];
  }
}

void ZTree::insert_entry(Inner* p, int at, Node* child) {
  const int tail = p->n - at;
  std::memmove(p->child + at + 1, p->child + at, tail * sizeof(p->child[0]));
  std::memmove(p->count + at + 1, p->count + at, tail * sizeof(p->count[0]));
  std::memmove(p->max_score + at + 1, p->max_score + at, tail * sizeof(p->max_score[0]));
  std::memmove(p->max_elem + at + 1, p->max_elem + at, tail * sizeof(p->max_elem[0]));
  p->child[at] = child;
  ++p->n;
  refresh(p, at);
}

void ZTree::remove_entry(Inner* p, int at) {
  const int tail = p->n - at - 1;
  std::memmove(p->child + at, p->child + at + 1, tail * sizeof(p->child[0]));
  std::memmove(p->count + at, p->count + at + 1, tail * sizeof(p->count[0]));
  std::memmove(p->max_score + at, p->max_score + at + 1, tail * sizeof(p->max_score[0]));
  std::memmove(p->max_elem + at, p->max_elem + at + 1, tail * sizeof(p->max_elem[0]));
  --p->n;
}

ZTree::Node* ZTree::split(Node* n, bool appended) {
  const int keep = appended ? n->n - 1 : n->n / 2, move = n->n - keep;
  if (n->leaf) {
    Leaf* l = static_cast<Leaf*>(n);
    Leaf* r = new Leaf();
    node_bytes_ += sizeof(Leaf);
    std::memcpy(r->scores, l->scores + keep, move * sizeof(double));
    std::memcpy(r->elems, l->elems + keep, move * sizeof(Elem*));
    r->n = move;
    l->n = keep;
    r->next = l->next;
    r->prev = l;
    if (l->next) l->next->prev = r;
    l->next = r;
    return r;
  }
  Inner* l = static_cast<Inner*>(n);
  Inner* r = new Inner();
  node_bytes_ += sizeof(Inner);
  std::memcpy(r->child, l->child + keep, move * sizeof(l->child[0]));
  std::memcpy(r->count, l->count + keep, move * sizeof(l->count[0]));
  std::memcpy(r->max_score, l->max_score + keep, move * sizeof(l->max_score[0]));
  std::memcpy(r->max_elem, l->max_elem + keep, move * sizeof(l->max_elem[0]));
  r->n = move;
  l->n = keep;
  return r;
}

void ZTree::merge(Node* left, Node* right) {
  if (left->leaf) {
    Leaf* l = static_cast<Leaf*>(left);
    Leaf* r = static_cast<Leaf*>(right);
    std::memcpy(l->scores + l->n, r->scores, r->n * sizeof(double));
    std::memcpy(l->elems + l->n, r->elems, r->n * sizeof(Elem*));
    l->n += r->n;
    r->n = 0;
    l->next = r->next;
    if (r->next) r->next->prev = l;
    delete r;
    node_bytes_ -= sizeof(Leaf);
    return;
  }
  Inner* l = static_cast<Inner*>(left);
  Inner* r = static_cast<Inner*>(right);
  std::memcpy(l->child + l->n, r->child, r->n * sizeof(l->child[0]));
  std::memcpy(l->count + l->n, r->count, r->n * sizeof(l->count[0]));
  std::memcpy(l->max_score + l->n, r->max_score, r->n * sizeof(l->max_score[0]));
  std::memcpy(l->max_elem + l->n, r->max_elem, r->n * sizeof(l->max_elem[0]));
  l->n += r->n;
  r->n = 0;
  delete r;
  node_bytes_ -= sizeof(Inner);
}

bool ZTree::merge_small(Inner* p, int i) {
  if (p->n < 2) return false;
  const int l = i + 1 < p->n ? i : i - 1;  // the pair (l, l + 1)
  if (p->child[l]->n + p->child[l + 1]->n > kMergeMax) return false;
  merge(p->child[l], p->child[l + 1]);
  remove_entry(p, l + 1);
  refresh(p, l);
  return true;
}

void ZTree::link(Elem* e) {
  Path path;
  Leaf* leaf = descend(e->score, e->member(), &path);
  const int at = lower_bound(leaf->scores, [&](int k) { return leaf->elems[k]; }, leaf->n, e->score, e->member());
  const int tail = leaf->n - at;
  std::memmove(leaf->scores + at + 1, leaf->scores + at, tail * sizeof(double));
  std::memmove(leaf->elems + at + 1, leaf->elems + at, tail * sizeof(Elem*));
  leaf->scores[at] = e->score;
  leaf->elems[at] = e;
  ++leaf->n;
  ++size_;
  // The entries above count one more element; their largest keys change
  // only along the path's right edge from the leaf up, where e went last.
  bool max_moved = at == leaf->n - 1;
  bool appended = max_moved && !leaf->next;  // past every member
  Node* split_off = leaf->n > kCap ? split(leaf, appended) : nullptr;
  for (int k = path.depth - 1; k >= 0; --k) {
    Inner* p = path.node[k];
    const int i = path.idx[k];
    if (split_off) {
      refresh(p, i);
      insert_entry(p, i + 1, split_off);
      appended = appended && i + 2 == p->n;
      split_off = p->n > kCap ? split(p, appended) : nullptr;
      max_moved = true;  // p's entries changed: the level above reads its largest key again
    } else {
      ++p->count[i];
      if (max_moved) copy_max(p, i);
      max_moved = max_moved && i == p->n - 1;
    }
  }
  if (split_off) {
    Inner* root = new Inner();
    node_bytes_ += sizeof(Inner);
    root->n = 0;
    insert_entry(root, 0, root_);
    insert_entry(root, 1, split_off);
    root_ = root;
  }
}

void ZTree::unlink(const Elem* e) {
  Path path;
  Leaf* leaf = descend(e->score, e->member(), &path);
  remove_at(leaf, lower_bound(leaf->scores, [&](int k) { return leaf->elems[k]; }, leaf->n, e->score, e->member()),
            path);
}

void ZTree::remove_at(Leaf* leaf, int at, const Path& path) {
  const int tail = leaf->n - at - 1;
  std::memmove(leaf->scores + at, leaf->scores + at + 1, tail * sizeof(double));
  std::memmove(leaf->elems + at, leaf->elems + at + 1, tail * sizeof(Elem*));
  --leaf->n;
  --size_;
  // As in link: one element fewer below each entry of the path, and a new
  // largest key only along the right edge where the last one left.
  bool max_moved = at == leaf->n;
  Node* child = leaf;
  for (int k = path.depth - 1; k >= 0; --k) {
    Inner* p = path.node[k];
    const int i = path.idx[k];
    if (child->n == 0) {
      if (child->leaf) {
        Leaf* l = static_cast<Leaf*>(child);
        if (l->prev) l->prev->next = l->next;
        if (l->next) l->next->prev = l->prev;
        delete l;
        node_bytes_ -= sizeof(Leaf);
      } else {
        delete static_cast<Inner*>(child);
        node_bytes_ -= sizeof(Inner);
      }
      remove_entry(p, i);
      max_moved = true;
    } else if (child->n < kMinFill && merge_small(p, i)) {
      max_moved = true;
    } else {
      --p->count[i];
      if (max_moved) copy_max(p, i);
      max_moved = max_moved && i == p->n - 1;
    }
    child = p;
  }
  // A root with one child gives way to it.
  while (!root_->leaf && root_->n == 1) {
    Inner* old = static_cast<Inner*>(root_);
    root_ = old->child[0];
    delete old;
    node_bytes_ -= sizeof(Inner);
  }
  if (!root_->leaf && root_->n == 0) {
    delete static_cast<Inner*>(root_);
    node_bytes_ -= sizeof(Inner);
    root_ = new Leaf();
    node_bytes_ += sizeof(Leaf);
  }
}

void ZTree::insert(std::string_view member, double score) {
  const size_t bytes = sizeof(Elem) + member.size();
  Elem* e = static_cast<Elem*>(std::malloc(bytes));
  if (!e) throw std::bad_alloc();
  e->score = score;
  e->chain = nullptr;
  e->len = static_cast<uint32_t>(member.size());
  if (!member.empty()) std::memcpy(e + 1, member.data(), member.size());
  elem_bytes_ += bytes;
  hash_.rehash_step();
  hash_.push(e);
  link(e);
  hash_.fit(size_);
}

void ZTree::rescore(const Elem* ce, double score) {
  Elem* e = const_cast<Elem*>(ce);
  unlink(e);
  e->score = score;
  link(e);
}

void ZTree::erase(const Elem* e) {
  unlink(e);
  release(e);
}

void ZTree::erase_rank(size_t rank) {
  Path path;
  const Pos p = descend_rank(rank, &path);
  const Elem* e = get(p);
  remove_at(p.leaf, p.i, path);
  release(e);
}

void ZTree::release(const Elem* e) {
  hash_.rehash_step();
  hash_.unlink(hash_.link_to(e));
  hash_.fit(size_);
  elem_bytes_ -= sizeof(Elem) + e->len;
  std::free(const_cast<Elem*>(e));
}

size_t ZTree::rank_of(const Elem* e) const {
  Path path;
  const Leaf* leaf = descend(e->score, e->member(), &path);
  size_t rank = 0;
  for (int k = 0; k < path.depth; ++k)
    for (int i = 0; i < path.idx[k]; ++i) rank += path.node[k]->count[i];
  return rank + static_cast<size_t>(
                    lower_bound(leaf->scores, [&](int k) { return leaf->elems[k]; }, leaf->n, e->score, e->member()));
}

ZTree::Pos ZTree::descend_rank(size_t rank, Path* path) const {
  const Node* x = root_;
  if (path) path->depth = 0;
  while (!x->leaf) {
    Inner* in = static_cast<Inner*>(const_cast<Node*>(x));
    int i = 0;
    while (i < in->n - 1 && rank >= in->count[i]) rank -= in->count[i++];
    if (path) {
      path->node[path->depth] = in;
      path->idx[path->depth] = i;
      ++path->depth;
    }
    x = in->child[i];
  }
  return {const_cast<Leaf*>(static_cast<const Leaf*>(x)), static_cast<int>(rank)};
}

}  // namespace lawnkv::types
