#include "types/list.hpp"

#include <malloc.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <new>

namespace lawnkv::types {

// A node: this header, then cap bytes; the elements occupy [begin, end).
// A node whose elements all have one length w (1..255) stores them as w
// bytes each, without lengths (width w); any other node has width 0 and
// the [len][bytes][len] entries.
struct List::Node {
  uint32_t cap;
  uint32_t begin;
  uint32_t end;
  uint32_t count : 24;  // at most 32,768 elements fit in 64 KiB: 24 bits are plenty
  uint32_t width : 8;

  char* data() { return reinterpret_cast<char*>(this + 1); }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  uint32_t used() const { return end - begin; }
};

namespace {

using Node = List::Node;

constexpr uint32_t kShortMax = 0x7f;  // longest element with a one-byte length
constexpr uint8_t kLongMark = 0x80;   // first (and last) byte of a five-byte length
// Redis's bytes per node for list-max-listpack-size -1 .. -5, and its cap on
// a node's bytes when the size is a count.
constexpr uint32_t kNodeBytes[] = {4096, 8192, 16384, 32768, 65536};
constexpr uint32_t kSafetyBytes = 8192;

constexpr size_t kMaxWidth = 255;

uint32_t variable_bytes(size_t len) { return static_cast<uint32_t>(len <= kShortMax ? len + 2 : len + 10); }

// The bytes an element of len bytes takes in n, whose format it must suit.
uint32_t entry_bytes(const Node* n, size_t len) { return n->width ? n->width : variable_bytes(len); }

// Whether v may go into n as n is (else n must first become variable).
bool suits(const Node* n, std::string_view v) { return n->width == 0 || v.size() == n->width; }

uint32_t load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void store32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }

void write_entry(Node* n, uint32_t off, std::string_view v) {
  char* p = n->data() + off;
  const auto len = static_cast<uint32_t>(v.size());
  if (n->width) {
    std::memcpy(p, v.data(), len);
    return;
  }
  if (len <= kShortMax) {
    p[0] = static_cast<char>(len);
    if (len) std::memcpy(p + 1, v.data(), len);
    p[1 + len] = static_cast<char>(len);
    return;
  }
  p[0] = static_cast<char>(kLongMark);
  store32(p + 1, len);
  std::memcpy(p + 5, v.data(), len);
  store32(p + 5 + len, len);
  p[9 + len] = static_cast<char>(kLongMark);
}

// A node whose buffer holds at least cap bytes: whatever the allocator's
// size class gives beyond that is buffer too.
Node* alloc_node(uint32_t cap) {
  void* p = std::malloc(sizeof(Node) + cap);
  if (p == nullptr) throw std::bad_alloc();
  const size_t usable = malloc_usable_size(p) - sizeof(Node);
  return new (p) Node{static_cast<uint32_t>(std::min<size_t>(usable, UINT32_MAX)), 0, 0, 0, 0};
}

void free_node(Node* n) { std::free(n); }

// A new node for its first element v, with room for it at its back
// (push_back) or at its front (push_front): of v's width when v may set one.
Node* new_node(std::string_view v, bool at_front) {
  const bool uniform = !v.empty() && v.size() <= kMaxWidth;
  Node* n = alloc_node(uniform ? static_cast<uint32_t>(v.size()) : variable_bytes(v.size()));
  n->width = uniform ? static_cast<uint32_t>(v.size()) : 0;
  if (at_front) n->begin = n->end = n->cap;
  return n;
}

// The most bytes a node's block may take (header included) under opts:
// Redis's limit on a listpack's bytes, so a full node is one 4..64 KiB
// block, as Redis's is. A node with one element may be larger.
size_t block_limit(const ListOptions& opts) {
  if (opts.fill >= 0) return kSafetyBytes;
  return kNodeBytes[std::min<int64_t>(-opts.fill, 5) - 1];
}

// n with at least front spare bytes before begin and back spare bytes after
// end: moved within its block, or copied to a larger one (n is then freed).
// The side that lacks room gets a quarter of the node's bytes more than it
// asked for, so a run of pushes moves each byte O(1) times, but a block
// grows past limit (block_limit) only by what was asked for.
Node* make_room(Node* n, uint32_t front, uint32_t back, size_t limit) {
  if (n->begin >= front && n->cap - n->end >= back) return n;
  const uint32_t used = n->used();
  const uint32_t extra = used / 4 + 16;
  uint32_t new_front = n->begin >= front ? std::min(n->begin, extra) : front + extra;
  uint32_t new_back = n->cap - n->end >= back ? std::min(n->cap - n->end, extra) : back + extra;
  const size_t max_buf = limit > sizeof(Node) ? limit - sizeof(Node) : 0;
  size_t need = size_t{new_front} + used + new_back;
  if (need > max_buf) {
    // Trim the spare beyond what was asked, the back's first.
    size_t over = need - max_buf;
    const uint32_t cut_back = static_cast<uint32_t>(std::min<size_t>(over, new_back - std::min(new_back, back)));
    new_back -= cut_back;
    over -= cut_back;
    new_front -= static_cast<uint32_t>(std::min<size_t>(over, new_front - std::min(new_front, front)));
    need = size_t{new_front} + used + new_back;
  }
  if (need <= n->cap) {
    std::memmove(n->data() + new_front, n->data() + n->begin, used);
  } else {
    Node* m = alloc_node(static_cast<uint32_t>(need));
    std::memcpy(m->data() + new_front, n->data() + n->begin, used);
    m->count = n->count;
    m->width = n->width;
    free_node(n);
    n = m;
  }
  n->begin = new_front;
  n->end = new_front + used;
  return n;
}

// n, or a copy of its elements in a block of their size (n is then freed)
// when n's buffer is past Redis's smallest node size and more than twice
// what its elements use: a node that held a long element overwritten by a
// short one (LSET) keeps no more than a listpack would, while the spare room
// that pushes leave stays.
Node* trimmed(Node* n) {
  const uint32_t used = n->used();
  if (n->cap <= kNodeBytes[0] || n->cap - used <= used) return n;
  Node* m = alloc_node(used);
  std::memcpy(m->data(), n->data() + n->begin, used);
  m->end = used;
  m->count = n->count;
  m->width = n->width;
  free_node(n);
  return m;
}

// Whether n may take one more element v (Redis's _quicklistNodeAllowInsert,
// on the block's bytes, counting the lengths a uniform node would gain):
// an empty node always may.
bool fits(const Node* n, std::string_view v, const ListOptions& opts) {
  if (n->count == 0) return true;
  const size_t add = suits(n, v) ? entry_bytes(n, v.size())
                                 : variable_bytes(v.size()) + size_t{n->count} * (variable_bytes(n->width) - n->width);
  const size_t bytes = sizeof(Node) + n->used() + add;
  if (opts.fill < 0) return bytes <= block_limit(opts);
  return static_cast<int64_t>(n->count) < opts.fill && bytes <= kSafetyBytes;
}

// Whether n holds more than opts allow (after an insert in the middle).
bool over(const Node* n, const ListOptions& opts) {
  if (n->count <= 1) return false;
  const size_t bytes = sizeof(Node) + n->used();
  if (opts.fill < 0) return bytes > block_limit(opts);
  return static_cast<int64_t>(n->count) > std::max<int64_t>(opts.fill, 1) || bytes > kSafetyBytes;
}

// Offset of the element k places after the one at off.
uint32_t skip_forward(const Node* n, uint32_t off, size_t k) {
  if (n->width) return static_cast<uint32_t>(off + k * n->width);
  const char* data = n->data();
  while (k-- > 0) {
    const auto b = static_cast<uint8_t>(data[off]);
    off += b < kLongMark ? b + 2 : load32(data + off + 1) + 10;
  }
  return off;
}

// Offset just after the element k places before the one that ends at end.
uint32_t skip_backward(const Node* n, uint32_t end, size_t k) {
  if (n->width) return static_cast<uint32_t>(end - k * n->width);
  const char* data = n->data();
  while (k-- > 0) {
    const auto b = static_cast<uint8_t>(data[end - 1]);
    end -= b < kLongMark ? b + 2 : load32(data + end - 5) + 10;
  }
  return end;
}

// n in the variable format: a uniform node rewritten with lengths (n is
// then freed), when an element of another length joins it.
Node* to_variable(Node* n) {
  if (n->width == 0) return n;
  const uint32_t w = n->width;
  const uint32_t bytes = variable_bytes(w);
  Node* m = alloc_node(n->count * bytes + n->used() / 4);
  m->count = n->count;
  for (uint32_t off = n->begin; off < n->end; off += w) {
    write_entry(m, m->end, std::string_view(n->data() + off, w));
    m->end += bytes;
  }
  free_node(n);
  return m;
}

}  // namespace

std::string_view List::read_forward(const Node* n, uint32_t off, uint32_t* next) {
  const char* data = n->data();
  if (n->width) {
    *next = off + n->width;
    return {data + off, n->width};
  }
  const auto b = static_cast<uint8_t>(data[off]);
  if (b < kLongMark) {
    *next = off + b + 2;
    return {data + off + 1, b};
  }
  const uint32_t len = load32(data + off + 1);
  *next = off + len + 10;
  return {data + off + 5, len};
}

std::string_view List::read_backward(const Node* n, uint32_t end, uint32_t* start) {
  const char* data = n->data();
  if (n->width) {
    *start = end - n->width;
    return {data + *start, n->width};
  }
  const auto b = static_cast<uint8_t>(data[end - 1]);
  if (b < kLongMark) {
    *start = end - b - 2;
    return {data + *start + 1, b};
  }
  const uint32_t len = load32(data + end - 5);
  *start = end - len - 10;
  return {data + *start + 5, len};
}

List::List(const List& other) : size_(other.size_) {
  if (other.nodes_ == 0) return;
  ring_cap_ = std::bit_ceil(other.nodes_);
  ring_ = static_cast<Node**>(std::malloc(ring_cap_ * sizeof(Node*)));
  if (ring_ == nullptr) throw std::bad_alloc();
  for (uint32_t i = 0; i < other.nodes_; ++i) {
    const Node* src = other.node(i);
    Node* n = alloc_node(src->used());
    std::memcpy(n->data(), src->data() + src->begin, src->used());
    n->end = src->used();
    n->count = src->count;
    n->width = src->width;
    ring_[i] = n;
    ++nodes_;
  }
}

List::~List() {
  for (uint32_t i = 0; i < nodes_; ++i) free_node(node(i));
  std::free(ring_);
}

size_t List::memory_bytes() const {
  size_t n = sizeof(*this) + ring_cap_ * sizeof(Node*);
  for (uint32_t i = 0; i < nodes_; ++i) n += sizeof(Node) + node(i)->cap;
  return n;
}

size_t List::element_bytes() const {
  size_t n = 0;
  for (uint32_t i = 0; i < nodes_; ++i) n += node(i)->end - node(i)->begin;
  return n;
}

std::unique_ptr<store::Object> List::clone() const { return std::make_unique<List>(*this); }

void List::node_span(size_t slot, const Node** data, uint32_t* begin, uint32_t* end) const {
  const Node* n = node(slot);
  *data = n;
  *begin = n->begin;
  *end = n->end;
}

void List::add_node(size_t slot, Node* n) {
  if (nodes_ == ring_cap_) {
    const uint32_t cap = ring_cap_ ? ring_cap_ * 2 : 1;
    auto** ring = static_cast<Node**>(std::malloc(cap * sizeof(Node*)));
    if (ring == nullptr) {
      free_node(n);
      throw std::bad_alloc();
    }
    for (uint32_t i = 0; i < nodes_; ++i) ring[i] = node(i);
    std::free(ring_);
    ring_ = ring;
    ring_cap_ = cap;
    head_ = 0;
  }
  if (slot == 0) {
    head_ = (head_ - 1) & (ring_cap_ - 1);
    ++nodes_;
  } else {
    ++nodes_;
    for (size_t i = nodes_ - 1; i > slot; --i) node_ref(i) = node(i - 1);
  }
  node_ref(slot) = n;
}

void List::drop_node(size_t slot) {
  free_node(node(slot));
  if (slot == 0) {
    head_ = (head_ + 1) & (ring_cap_ - 1);
  } else {
    for (size_t i = slot; i + 1 < nodes_; ++i) node_ref(i) = node(i + 1);
  }
  --nodes_;
}

void List::push_back(std::string_view v, const ListOptions& opts) {
  if (nodes_ == 0 || !fits(node(nodes_ - 1), v, opts)) add_node(nodes_, new_node(v, false));
  Node*& n = node_ref(nodes_ - 1);
  if (!suits(n, v)) n = to_variable(n);
  const uint32_t bytes = entry_bytes(n, v.size());
  n = make_room(n, 0, bytes, block_limit(opts));
  write_entry(n, n->end, v);
  n->end += bytes;
  ++n->count;
  ++size_;
}

void List::push_front(std::string_view v, const ListOptions& opts) {
  if (nodes_ == 0 || !fits(node(0), v, opts)) add_node(0, new_node(v, true));
  Node*& n = node_ref(0);
  if (!suits(n, v)) n = to_variable(n);
  const uint32_t bytes = entry_bytes(n, v.size());
  n = make_room(n, bytes, 0, block_limit(opts));
  n->begin -= bytes;
  write_entry(n, n->begin, v);
  ++n->count;
  ++size_;
}

std::string_view List::front() const {
  const Node* n = node(0);
  uint32_t next;
  return read_forward(n, n->begin, &next);
}

std::string_view List::back() const {
  const Node* n = node(nodes_ - 1);
  uint32_t start;
  return read_backward(n, n->end, &start);
}

std::string List::pop_front() {
  Node* n = node(0);
  uint32_t next;
  std::string v(read_forward(n, n->begin, &next));
  n->begin = next;
  --size_;
  if (--n->count == 0) drop_node(0);
  return v;
}

std::string List::pop_back() {
  Node* n = node(nodes_ - 1);
  uint32_t start;
  std::string v(read_backward(n, n->end, &start));
  n->end = start;
  --size_;
  if (--n->count == 0) drop_node(nodes_ - 1);
  return v;
}

List::Pos List::locate(size_t index) const {
  size_t slot = 0;
  size_t k = index;  // index within the node
  if (index < size_ / 2) {
    while (k >= node(slot)->count) k -= node(slot++)->count;
  } else {
    size_t r = size_ - 1 - index;  // places from the back
    slot = nodes_ - 1;
    while (r >= node(slot)->count) r -= node(slot--)->count;
    k = node(slot)->count - 1 - r;
  }
  const Node* n = node(slot);
  if (k <= n->count / 2) return {slot, skip_forward(n, n->begin, k)};
  const uint32_t after = skip_backward(n, n->end, n->count - 1 - k);
  uint32_t start;
  read_backward(n, after, &start);
  return {slot, start};
}

List::Pos List::locate_end(size_t index) const {
  Pos p = locate(index);
  uint32_t next;
  read_forward(node(p.slot), p.off, &next);
  return {p.slot, next};
}

std::string_view List::at(size_t index) const {
  const Pos p = locate(index);
  uint32_t next;
  return read_forward(node(p.slot), p.off, &next);
}

void List::splice(size_t slot, uint32_t off, uint32_t remove, const std::string_view* v,
                  const ListOptions& opts) {
  Node*& n = node_ref(slot);
  if (v && !suits(n, *v)) {
    // The node gains lengths: off and remove move to the new format.
    const uint32_t w = n->width;
    const uint32_t index = (off - n->begin) / w;
    const bool replaces = remove > 0;
    n = to_variable(n);
    off = skip_forward(n, n->begin, index);
    remove = replaces ? variable_bytes(w) : 0;
  }
  const uint32_t add = v ? entry_bytes(n, v->size()) : 0;
  if (add > remove) {
    const uint32_t rel = off - n->begin;
    n = make_room(n, 0, add - remove, block_limit(opts));
    off = n->begin + rel;
  }
  char* d = n->data();
  std::memmove(d + off + add, d + off + remove, n->end - off - remove);
  if (v) write_entry(n, off, *v);
  n->end = n->end + add - remove;
  if (add < remove) n = trimmed(n);
}

void List::split_if_over(size_t slot, const ListOptions& opts) {
  Node* n = node(slot);
  if (!over(n, opts)) return;
  const uint32_t keep = n->count / 2;
  const uint32_t mid = skip_forward(n, n->begin, keep);
  Node* m = alloc_node(n->end - mid);
  std::memcpy(m->data(), n->data() + mid, n->end - mid);
  m->end = n->end - mid;
  m->count = n->count - keep;
  m->width = n->width;
  n->end = mid;
  n->count = keep;
  add_node(slot + 1, m);
}

void List::set(size_t index, std::string_view v, const ListOptions& opts) {
  const Pos p = locate(index);
  uint32_t next;
  read_forward(node(p.slot), p.off, &next);
  splice(p.slot, p.off, next - p.off, &v, opts);
  split_if_over(p.slot, opts);
}

bool List::insert_at_pivot(std::string_view pivot, std::string_view v, bool before, const ListOptions& opts) {
  for (size_t slot = 0; slot < nodes_; ++slot) {
    const Node* n = node(slot);
    for (uint32_t off = n->begin; off < n->end;) {
      uint32_t next;
      if (read_forward(n, off, &next) == pivot) {
        splice(slot, before ? off : next, 0, &v, opts);
        ++node(slot)->count;
        ++size_;
        split_if_over(slot, opts);
        return true;
      }
      off = next;
    }
  }
  return false;
}

size_t List::remove_equal(std::string_view v, size_t limit, bool from_tail) {
  size_t removed = 0;
  const auto more = [&] { return limit == 0 || removed < limit; };
  // Each node is compacted in place, towards its end when walking from the
  // tail (the survivors keep their order either way).
  for (size_t i = 0; i < nodes_ && more();) {
    const size_t slot = from_tail ? nodes_ - 1 - i : i;
    Node* n = node(slot);
    char* d = n->data();
    if (!from_tail) {
      uint32_t w = n->begin;
      for (uint32_t off = n->begin; off < n->end;) {
        uint32_t next;
        const std::string_view e = read_forward(n, off, &next);
        if (more() && e == v) {
          ++removed;
          --n->count;
        } else {
          if (w != off) std::memmove(d + w, d + off, next - off);
          w += next - off;
        }
        off = next;
      }
      n->end = w;
    } else {
      uint32_t w = n->end;
      for (uint32_t end = n->end; end > n->begin;) {
        uint32_t start;
        const std::string_view e = read_backward(n, end, &start);
        if (more() && e == v) {
          ++removed;
          --n->count;
        } else {
          w -= end - start;
          if (w != start) std::memmove(d + w, d + start, end - start);
        }
        end = start;
      }
      n->begin = w;
    }
    // A node left empty goes; the next one to visit then has the same i.
    if (n->count == 0) {
      drop_node(slot);
    } else {
      ++i;
    }
  }
  size_ -= removed;
  return removed;
}

void List::drop_front(size_t k) {
  while (k > 0 && k >= node(0)->count) {
    k -= node(0)->count;
    size_ -= node(0)->count;
    drop_node(0);
  }
  if (k == 0) return;
  Node* n = node(0);
  n->begin = skip_forward(n, n->begin, k);
  n->count -= static_cast<uint32_t>(k);
  size_ -= k;
}

void List::drop_back(size_t k) {
  while (k > 0 && k >= node(nodes_ - 1)->count) {
    k -= node(nodes_ - 1)->count;
    size_ -= node(nodes_ - 1)->count;
    drop_node(nodes_ - 1);
  }
  if (k == 0) return;
  Node* n = node(nodes_ - 1);
  n->end = skip_backward(n, n->end, k);
  n->count -= static_cast<uint32_t>(k);
  size_ -= k;
}

}  // namespace lawnkv::types
