#pragma once
// A list: the value type behind LPUSH, RPOP, LRANGE... ("list" to TYPE).
//
// A deque of packed nodes. Each node is ONE heap block: a 16-byte header,
// then a byte buffer whose middle part [begin, end) holds the node's
// elements back to back, in one of two formats:
//
//   uniform (width w)      every element of the node is w bytes long
//                          (1 <= w <= 255): the bytes alone, no lengths;
//                          element k of the node is at begin + k * w
//   variable (width 0)     each element as [len][bytes][len]: len < 128 is
//                          one byte (the length itself), else five: 0x80
//                          then the length (4 bytes, little endian) before
//                          the bytes, the same reversed after
//
// so a node is read from either end without an offset table. A node starts
// uniform at the width of its first element (if 1..255 bytes) and turns
// variable, for good, when an element of another length joins it. Lists
// of fixed-size values (ids, hashes, timestamps) cost their bytes alone: a
// 16-byte element takes 16 bytes, where a listpack takes 18; with mixed
// lengths an element takes what it takes in a listpack. Unlike a listpack,
// a node keeps spare room at both ends: LPUSH writes before `begin`, RPUSH
// after `end`, LPOP and RPOP move them, with no memmove of the node (Redis
// moves the whole listpack on every LPUSH and LPOP). A node grows by a
// quarter when it runs out of room on a side (and uses all of the
// allocator's size class), and is full at list-max-listpack-size, as Redis
// counts it: -2 = a block of 8 KiB (header included), a positive n = n
// elements (and at most 8 KiB); a push past that starts a new node. The
// nodes' pointers sit in a ring buffer, so adding or dropping a node at
// either end is O(1).
//
// Worked example, 16-byte elements of one length: 10 of them are a 40-byte
// List, an 8-byte ring and one node of 16 + 160 bytes (jemalloc's 192-byte
// class): 24 bytes an element. 1,000,000 of them: 511 elements in each
// 8 KiB node, 16.04 bytes an element with the ring's 8 bytes a node. With
// lengths 14..18 bytes: 18 bytes an element in 454-element nodes.
//
// OBJECT ENCODING reports "quicklist" for every list, as Redis 7.0 does
// (its "listpack" lists came with 7.2). list-compress-depth is accepted
// and ignored: nodes are never compressed.
//
// Costs: push and pop at either end O(1) amortised; reaching index i walks
// the nodes from the nearer end, then the elements of one node (O(1) in a
// uniform node); LINSERT, LSET and LREM move the bytes of one node after
// the change (and give a uniform node its lengths first, when the new
// element's length differs).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "store/entry.hpp"

namespace lawnkv::types {

// How full a node may get: list-max-listpack-size.
struct ListOptions {
  int64_t fill = -2;
};

class List final : public store::Object {
 public:
  struct Node;  // list.cpp: a node's header and layout
  List() = default;
  List(const List& other);
  List& operator=(const List&) = delete;
  ~List() override;

  store::Type type() const override { return store::Type::kList; }
  size_t memory_bytes() const override;
  std::unique_ptr<store::Object> clone() const override;
  std::string_view encoding() const override { return "quicklist"; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t node_count() const { return nodes_; }
  // The bytes the nodes' elements take (lengths included, spare room not).
  size_t element_bytes() const;

  void push_front(std::string_view v, const ListOptions& opts);
  void push_back(std::string_view v, const ListOptions& opts);
  // The list must not be empty.
  std::string pop_front();
  std::string pop_back();
  std::string_view front() const;
  std::string_view back() const;

  // The element at index (0 <= index < size()); the view is valid until the
  // list changes.
  std::string_view at(size_t index) const;
  // Replaces the element at index (0 <= index < size()).
  void set(size_t index, std::string_view v, const ListOptions& opts);
  // Inserts v before the first element equal to pivot (after it if !before);
  // false if no element equals pivot.
  bool insert_at_pivot(std::string_view pivot, std::string_view v, bool before, const ListOptions& opts);
  // Removes up to limit elements equal to v (0: all), the first ones or,
  // from_tail, the last ones; returns how many.
  size_t remove_equal(std::string_view v, size_t limit, bool from_tail);
  // Removes n elements from the front (from the back): n <= size().
  void drop_front(size_t n);
  void drop_back(size_t n);

  // Calls fn(std::string_view) on the elements from index first on (first
  // <= size()), towards the back, until fn returns false or the list ends.
  // The views are valid during the call; fn must not change the list.
  template <class F>
  void for_each_from(size_t first, F&& fn) const;
  // The same from index last (last < size()) towards the front.
  template <class F>
  void for_each_back_from(size_t last, F&& fn) const;

 private:
  // Where an element is: a node's slot in the ring, a byte offset in it.
  struct Pos {
    size_t slot;
    uint32_t off;
  };

  Node* node(size_t slot) const { return ring_[(head_ + slot) & (ring_cap_ - 1)]; }
  Node*& node_ref(size_t slot) { return ring_[(head_ + slot) & (ring_cap_ - 1)]; }
  Pos locate(size_t index) const;
  void add_node(size_t slot, Node* n);
  void drop_node(size_t slot);
  // Splits the node at slot in two if it holds more than opts allow.
  void split_if_over(size_t slot, const ListOptions& opts);
  // Replaces the remove bytes at off in the node at slot by v's entry (none
  // if v is null).
  void splice(size_t slot, uint32_t off, uint32_t remove, const std::string_view* v, const ListOptions& opts);

  Node** ring_ = nullptr;  // ring_cap_ slots (a power of two), nodes_ used from head_
  uint32_t ring_cap_ = 0;
  uint32_t head_ = 0;
  uint32_t nodes_ = 0;
  size_t size_ = 0;

  // The node at slot, its begin and end offsets.
  void node_span(size_t slot, const Node** n, uint32_t* begin, uint32_t* end) const;
  // Reads the element at off in n: its bytes; *next is the offset after it.
  static std::string_view read_forward(const Node* n, uint32_t off, uint32_t* next);
  // Reads the element that ends at end: its bytes; *start is its offset.
  static std::string_view read_backward(const Node* n, uint32_t end, uint32_t* start);
  // The offset just after the element at index's end (for backward walks).
  Pos locate_end(size_t index) const;
};

template <class F>
void List::for_each_from(size_t first, F&& fn) const {
  if (first >= size_) return;
  Pos p = locate(first);
  for (size_t slot = p.slot; slot < nodes_; ++slot) {
    const Node* data;
    uint32_t begin, end;
    node_span(slot, &data, &begin, &end);
    uint32_t off = slot == p.slot ? p.off : begin;
    while (off < end) {
      uint32_t next;
      if (!fn(read_forward(data, off, &next))) return;
      off = next;
    }
  }
}

template <class F>
void List::for_each_back_from(size_t last, F&& fn) const {
  if (last >= size_) return;
  Pos p = locate_end(last);
  for (size_t slot = p.slot + 1; slot-- > 0;) {
    const Node* data;
    uint32_t begin, end;
    node_span(slot, &data, &begin, &end);
    uint32_t off = slot == p.slot ? p.off : end;
    while (off > begin) {
      uint32_t start;
      if (!fn(read_backward(data, off, &start))) return;
      off = start;
    }
  }
}

}  // namespace lawnkv::types
