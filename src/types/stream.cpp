#include "types/stream.hpp"

#include <algorithm>
#include <cstring>

namespace lawnkv::types {

namespace {

constexpr uint8_t kDeleted = 1;
constexpr uint8_t kSameFields = 2;
// A node never grows past this many bytes (Redis's STREAM_LISTPACK_MAX_SIZE).
constexpr size_t kNodeMaxSize = size_t{1} << 30;

void put_varint(std::string& b, uint64_t v) {
  while (v >= 0x80) {
    b.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  b.push_back(static_cast<char>(v));
}

uint64_t get_varint(const std::string& b, size_t* off) {
  uint64_t v = 0;
  int shift = 0;
  for (;;) {
    const auto c = static_cast<uint8_t>(b[(*off)++]);
    v |= uint64_t{c & 0x7fu} << shift;
    if (!(c & 0x80)) return v;
    shift += 7;
  }
}

void put_bytes(std::string& b, std::string_view s) {
  put_varint(b, s.size());
  b.append(s);
}

std::string_view get_bytes(const std::string& b, size_t* off) {
  const size_t n = get_varint(b, off);
  std::string_view s(b.data() + *off, n);
  *off += n;
  return s;
}

}  // namespace

struct Stream::Node {
  StreamId master;
  StreamId last;       // the last entry's ID, tombstone or not
  uint32_t live = 0;   // entries not deleted
  uint32_t total = 0;  // entries, tombstones included
  std::string buf;
};

namespace {

// Reads a node's entries in order. The master names are read from its first
// entry when the reader starts.
class NodeReader {
 public:
  explicit NodeReader(const Stream::Node& n) : n_(n) {
    if (n.total == 0) return;
    size_t off = 0;
    off++;  // flags: the first entry never has kSameFields
    get_varint(n.buf, &off);
    get_varint(n.buf, &off);
    const size_t count = get_varint(n.buf, &off);
    for (size_t i = 0; i < count; i++) {
      master_.push_back(get_bytes(n.buf, &off));
      get_bytes(n.buf, &off);
    }
  }
  const std::vector<std::string_view>& master() const { return master_; }
  bool done() const { return off_ >= n_.buf.size(); }
  size_t offset() const { return off_; }
  void seek(size_t off) { off_ = off; }

  // Reads the entry at the current offset; fields are filled when out is
  // given, else skipped.
  void next(uint8_t* flags, StreamId* id, std::vector<std::string_view>* fields) {
    *flags = static_cast<uint8_t>(n_.buf[off_++]);
    const uint64_t dms = get_varint(n_.buf, &off_);
    const uint64_t s = get_varint(n_.buf, &off_);
    id->ms = n_.master.ms + dms;
    id->seq = dms == 0 ? n_.master.seq + s : s;
    if (fields) fields->clear();
    if (*flags & kSameFields) {
      for (const auto name : master_) {
        const auto v = get_bytes(n_.buf, &off_);
        if (fields) {
          fields->push_back(name);
          fields->push_back(v);
        }
      }
      return;
    }
    const size_t count = get_varint(n_.buf, &off_);
    for (size_t i = 0; i < count; i++) {
      const auto name = get_bytes(n_.buf, &off_);
      const auto v = get_bytes(n_.buf, &off_);
      if (fields) {
        fields->push_back(name);
        fields->push_back(v);
      }
    }
  }

 private:
  const Stream::Node& n_;
  std::vector<std::string_view> master_;
  size_t off_ = 0;
};

}  // namespace

Stream::Stream(const Stream& other)
    : length_(other.length_),
      last_id_(other.last_id_),
      first_id_(other.first_id_),
      max_deleted_id_(other.max_deleted_id_),
      entries_added_(other.entries_added_) {
  for (const auto& [id, n] : other.nodes_) nodes_.emplace(id, std::make_unique<Node>(*n));
  for (const auto& [name, g] : other.groups_) {
    auto copy = std::make_unique<StreamGroup>();
    copy->last_id = g->last_id;
    copy->entries_read = g->entries_read;
    for (const auto& [cname, c] : g->consumers) {
      auto cc = std::make_unique<StreamConsumer>(*c);
      copy->consumers.emplace(cname, std::move(cc));
    }
    for (const auto& [id, nack] : g->pel) {
      StreamNack n = nack;
      n.consumer = copy->consumers.find(nack.consumer->name)->second.get();
      copy->pel.emplace(id, n);
    }
    groups_.emplace(name, std::move(copy));
  }
}

Stream::Stream() = default;
Stream::~Stream() = default;

std::unique_ptr<store::Object> Stream::clone() const { return std::make_unique<Stream>(*this); }

std::vector<StreamId> Stream::node_ids() const {
  std::vector<StreamId> out;
  out.reserve(nodes_.size());
  for (const auto& [id, n] : nodes_) out.push_back(id);
  return out;
}

void Stream::walk_nodes(const std::function<void(StreamId master, uint32_t live, uint32_t total)>& node,
                        const std::function<void(const StreamEntry& e, bool deleted)>& entry) const {
  StreamEntry e;
  uint8_t flags;
  for (const auto& [id, n] : nodes_) {
    node(id, n->live, n->total);
    NodeReader r(*n);
    while (!r.done()) {
      r.next(&flags, &e.id, &e.fields);
      entry(e, flags & kDeleted);
    }
  }
}

size_t Stream::memory_bytes() const {
  // A map node is about 48 bytes beside its value.
  size_t bytes = sizeof(Stream);
  for (const auto& [id, n] : nodes_) bytes += 48 + sizeof(Node) + n->buf.capacity();
  for (const auto& [name, g] : groups_) {
    bytes += 48 + name.size() + sizeof(StreamGroup) + g->pel.size() * (48 + sizeof(StreamNack));
    for (const auto& [cname, c] : g->consumers) bytes += 48 + sizeof(StreamConsumer) + cname.size() + c->pel.size() * 48;
  }
  return bytes;
}

namespace {

// Whether fields (name, value, ...) names the fields of n's master entry (its
// first), in order: read in place, nothing copied (XADD asks on every entry).
bool has_master_fields(const Stream::Node& n, const std::vector<std::string_view>& fields) {
  size_t off = 1;  // flags
  get_varint(n.buf, &off);
  get_varint(n.buf, &off);
  if (get_varint(n.buf, &off) * 2 != fields.size()) return false;
  for (size_t i = 0; i < fields.size(); i += 2) {
    if (get_bytes(n.buf, &off) != fields[i]) return false;
    get_bytes(n.buf, &off);
  }
  return true;
}

}  // namespace

void Stream::append(StreamId id, const std::vector<std::string_view>& fields, const StreamLimits& lim) {
  size_t value_bytes = 0;
  for (const auto f : fields) value_bytes += f.size();
  Node* tail = nodes_.empty() ? nullptr : nodes_.rbegin()->second.get();
  if (tail && tail_closed_) {
    tail->buf.shrink_to_fit();
    tail = nullptr;
  }
  tail_closed_ = false;
  if (tail) {
    size_t max_bytes = lim.node_max_bytes;
    if (max_bytes == 0 || max_bytes > kNodeMaxSize) max_bytes = kNodeMaxSize;
    if (tail->buf.size() + value_bytes >= max_bytes ||
        (lim.node_max_entries && tail->total >= static_cast<uint64_t>(lim.node_max_entries))) {
      tail->buf.shrink_to_fit();
      tail = nullptr;
    }
  }
  if (!tail) {
    auto n = std::make_unique<Node>();
    n->master = id;
    tail = n.get();
    nodes_.emplace(id, std::move(n));
  }
  const bool same = tail->total > 0 && has_master_fields(*tail, fields);
  std::string& b = tail->buf;
  b.push_back(static_cast<char>(same ? kSameFields : 0));
  const uint64_t dms = id.ms - tail->master.ms;
  put_varint(b, dms);
  put_varint(b, dms == 0 ? id.seq - tail->master.seq : id.seq);
  if (same) {
    for (size_t i = 1; i < fields.size(); i += 2) put_bytes(b, fields[i]);
  } else {
    put_varint(b, fields.size() / 2);
    for (const auto f : fields) put_bytes(b, f);
  }
  tail->last = id;
  tail->live++;
  tail->total++;
  length_++;
  entries_added_++;
  last_id_ = id;
  if (length_ == 1) first_id_ = id;
}

void Stream::load_entry(StreamId id, const std::vector<std::string_view>& fields, bool deleted, bool new_node) {
  if (new_node) tail_closed_ = true;
  const size_t at = nodes_.empty() || tail_closed_ ? 0 : nodes_.rbegin()->second->buf.size();
  append(id, fields, {.node_max_bytes = 0, .node_max_entries = 0});
  if (!deleted) return;
  Node& n = *nodes_.rbegin()->second;
  n.buf[at] = static_cast<char>(n.buf[at] | kDeleted);
  n.live--;
  length_--;
}

void Stream::range(StreamId start, StreamId end, bool reverse,
                   const std::function<bool(const StreamEntry&)>& visit) const {
  if (start > end || nodes_.empty()) return;
  StreamEntry e;
  uint8_t flags;
  if (!reverse) {
    auto it = nodes_.upper_bound(start);
    if (it != nodes_.begin()) --it;
    for (; it != nodes_.end() && it->first <= end; ++it) {
      const Node& n = *it->second;
      if (n.last < start || n.live == 0) continue;
      NodeReader r(n);
      while (!r.done()) {
        r.next(&flags, &e.id, &e.fields);
        if ((flags & kDeleted) || e.id < start) continue;
        if (e.id > end) return;
        if (!visit(e)) return;
      }
    }
    return;
  }
  auto it = nodes_.upper_bound(end);
  std::vector<size_t> offsets;
  while (it != nodes_.begin()) {
    --it;
    const Node& n = *it->second;
    if (n.last < start) return;
    if (n.live == 0) continue;
    NodeReader r(n);
    offsets.clear();
    StreamId id;
    while (!r.done()) {
      offsets.push_back(r.offset());
      r.next(&flags, &id, nullptr);
    }
    for (size_t i = offsets.size(); i-- > 0;) {
      r.seek(offsets[i]);
      r.next(&flags, &e.id, &e.fields);
      if ((flags & kDeleted) || e.id > end) continue;
      if (e.id < start) return;
      if (!visit(e)) return;
    }
  }
}

bool Stream::find(StreamId id, StreamEntry* out) const {
  bool found = false;
  range(id, id, false, [&](const StreamEntry& e) {
    found = true;
    if (out) *out = e;
    return false;
  });
  return found;
}

bool Stream::edge_id(bool first, bool with_tombstones, StreamId* id) const {
  if (!with_tombstones) {
    bool found = false;
    range({}, StreamId::max(), !first, [&](const StreamEntry& e) {
      *id = e.id;
      found = true;
      return false;
    });
    return found;
  }
  if (nodes_.empty()) return false;
  *id = first ? nodes_.begin()->first : nodes_.rbegin()->second->last;
  return true;
}

bool Stream::erase(StreamId id) {
  auto it = nodes_.upper_bound(id);
  if (it == nodes_.begin()) return false;
  --it;
  Node& n = *it->second;
  if (n.last < id) return false;
  NodeReader r(n);
  uint8_t flags;
  StreamId cur;
  while (!r.done()) {
    const size_t at = r.offset();
    r.next(&flags, &cur, nullptr);
    if (cur < id) continue;
    if (cur > id || (flags & kDeleted)) return false;
    n.buf[at] = static_cast<char>(flags | kDeleted);
    n.live--;
    length_--;
    if (n.live == 0) nodes_.erase(it);
    if (id > max_deleted_id_) max_deleted_id_ = id;
    if (length_ == 0) {
      first_id_ = {};
    } else if (id == first_id_) {
      edge_id(true, false, &first_id_);
    }
    return true;
  }
  return false;
}

int64_t Stream::trim(const StreamTrim& how) {
  if (how.by == StreamTrim::By::kNone) return 0;
  int64_t deleted = 0;
  auto it = nodes_.begin();
  while (it != nodes_.end()) {
    if (how.by == StreamTrim::By::kMaxLen && length_ <= how.maxlen) break;
    Node& n = *it->second;
    const int64_t entries = n.live;
    if (how.limit && deleted + entries > how.limit) break;
    const bool whole = how.by == StreamTrim::By::kMaxLen ? length_ - entries >= how.maxlen : n.last < how.minid;
    if (whole) {
      length_ -= entries;
      deleted += entries;
      it = nodes_.erase(it);
      continue;
    }
    if (how.approx) break;
    NodeReader r(n);
    uint8_t flags;
    StreamId cur;
    while (!r.done()) {
      const size_t at = r.offset();
      r.next(&flags, &cur, nullptr);
      const bool stop = how.by == StreamTrim::By::kMaxLen ? length_ <= how.maxlen : cur >= how.minid;
      if (stop) break;
      if (!(flags & kDeleted)) {
        n.buf[at] = static_cast<char>(flags | kDeleted);
        n.live--;
        length_--;
        deleted++;
      }
    }
    break;
  }
  if (length_ == 0) {
    first_id_ = {};
  } else if (deleted) {
    edge_id(true, false, &first_id_);
  }
  return deleted;
}

int64_t Stream::estimate_distance(StreamId id) const {
  if (!entries_added_) return 0;
  if (!length_ && id <= last_id_) return static_cast<int64_t>(entries_added_);
  if (id == last_id_) return static_cast<int64_t>(entries_added_);
  if (id > last_id_) return kEntriesReadUnknown;
  if (max_deleted_id_.zero() || max_deleted_id_ < first_id_) {
    if (id < first_id_) return static_cast<int64_t>(entries_added_ - length_);
    if (id == first_id_) return static_cast<int64_t>(entries_added_ - length_ + 1);
  }
  return kEntriesReadUnknown;
}

bool Stream::range_has_tombstones(StreamId start, const StreamId* end) const {
  if (!length_ || max_deleted_id_.zero()) return false;
  if (first_id_ > max_deleted_id_) return false;
  const StreamId e = end ? *end : StreamId::max();
  return start <= max_deleted_id_ && max_deleted_id_ <= e;
}

StreamGroup* Stream::group(std::string_view name) const {
  const auto it = groups_.find(name);
  return it == groups_.end() ? nullptr : it->second.get();
}

StreamGroup* Stream::create_group(std::string_view name, StreamId last_id, int64_t entries_read) {
  if (groups_.find(name) != groups_.end()) return nullptr;
  auto g = std::make_unique<StreamGroup>();
  g->last_id = last_id;
  g->entries_read = entries_read;
  StreamGroup* p = g.get();
  groups_.emplace(std::string(name), std::move(g));
  return p;
}

bool Stream::destroy_group(std::string_view name) {
  const auto it = groups_.find(name);
  if (it == groups_.end()) return false;
  groups_.erase(it);
  return true;
}

}  // namespace lawnkv::types
