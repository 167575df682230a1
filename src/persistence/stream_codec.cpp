// Streams in RDB.
//
// Saved as RDB_TYPE_STREAM_LISTPACKS_2, as Redis 7.0 writes it: the number
// of nodes, then per node its master ID (16 bytes, big endian) and its
// entries as one listpack in Redis's stream layout (a master entry: live
// count, deleted count, the first entry's field names, 0; then per entry:
// flags, ms delta, seq delta, [field count and names unless they are the
// master's], values, the entry's element count), tombstones included; then
// length, last ID, first ID, max deleted ID, entries added; then the groups
// (name, last ID, entries read, the pending list with delivery time and
// count, the consumers with seen time and the IDs they own).
//
// Loaded from STREAM_LISTPACKS (5.0..6.2: no first ID, max deleted ID,
// entries added or entries read, which are then derived as Redis derives
// them) and STREAM_LISTPACKS_2. Nodes and tombstones are kept as saved
// (XINFO STREAM's radix tree figures survive a round trip); a pending entry
// without an owner, an owned ID not pending in its group, or a malformed
// node is refused.

#include <set>
#include <string>
#include <vector>

#include "core/numbers.hpp"
#include "persistence/listpack_builder.hpp"
#include "persistence/rdb_blobs.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/value_codecs.hpp"
#include "types/stream.hpp"

namespace lawnkv::persistence {

namespace {

using types::Stream;
using types::StreamEntry;
using types::StreamGroup;
using types::StreamId;

constexpr uint8_t kStreamTypes[] = {rdb::kTypeStreamListpacks, rdb::kTypeStreamListpacks2};
constexpr int64_t kDeleted = 1;
constexpr int64_t kSameFields = 2;

const Stream& as_stream(const store::Object& obj) { return static_cast<const Stream&>(obj); }

uint8_t stream_save_type(const store::Object&) { return rdb::kTypeStreamListpacks2; }

std::string raw_id(StreamId id) {
  std::string k(16, '\0');
  for (int i = 0; i < 8; i++) {
    k[static_cast<size_t>(i)] = static_cast<char>(id.ms >> (56 - 8 * i));
    k[static_cast<size_t>(8 + i)] = static_cast<char>(id.seq >> (56 - 8 * i));
  }
  return k;
}

StreamId id_of_raw(std::string_view k) {
  StreamId id;
  for (int i = 0; i < 8; i++) {
    id.ms = (id.ms << 8) | static_cast<uint8_t>(k[static_cast<size_t>(i)]);
    id.seq = (id.seq << 8) | static_cast<uint8_t>(k[static_cast<size_t>(8 + i)]);
  }
  return id;
}

// One node's listpack, built as its entries come.
struct NodeWriter {
  StreamId master;
  uint32_t live = 0, total = 0;
  std::vector<std::string> names;  // the master entry's fields
  ListpackBuilder entries;
  bool first = true;

  void entry(const StreamEntry& e, bool deleted) {
    const size_t nf = e.fields.size() / 2;
    if (first) {
      for (size_t i = 0; i < nf; i++) names.emplace_back(e.fields[2 * i]);
      first = false;
    }
    bool same = names.size() == nf;
    for (size_t i = 0; same && i < nf; i++) same = names[i] == e.fields[2 * i];
    entries.add((deleted ? kDeleted : 0) | (same ? kSameFields : 0));
    entries.add(static_cast<int64_t>(e.id.ms - master.ms));
    entries.add(static_cast<int64_t>(e.id.seq - master.seq));
    if (same) {
      for (size_t i = 0; i < nf; i++) entries.add(e.fields[2 * i + 1]);
      entries.add(static_cast<int64_t>(nf + 3));
    } else {
      entries.add(static_cast<int64_t>(nf));
      for (const auto f : e.fields) entries.add(f);
      entries.add(static_cast<int64_t>(2 * nf + 4));
    }
  }

  std::string finish() const {
    ListpackBuilder lp;
    lp.add(static_cast<int64_t>(live));
    lp.add(static_cast<int64_t>(total - live));
    lp.add(static_cast<int64_t>(names.size()));
    for (const auto& n : names) lp.add(n);
    lp.add(int64_t{0});
    lp.append(entries);
    return lp.finish();
  }
};

void save_pel_ids(RdbOutput& out, const std::set<StreamId>& ids) {
  out.len(ids.size());
  for (const auto id : ids) out.bytes(raw_id(id));
}

void stream_save(RdbOutput& out, const store::Object& obj) {
  const Stream& s = as_stream(obj);
  out.len(s.node_count());
  NodeWriter w;
  bool open = false;
  auto flush = [&] {
    if (!open) return;
    out.string(raw_id(w.master));
    out.string(w.finish());
  };
  s.walk_nodes(
      [&](StreamId master, uint32_t live, uint32_t total) {
        flush();
        w = NodeWriter{};
        w.master = master;
        w.live = live;
        w.total = total;
        open = true;
      },
      [&](const StreamEntry& e, bool deleted) { w.entry(e, deleted); });
  flush();
  out.len(s.length());
  out.len(s.last_id().ms);
  out.len(s.last_id().seq);
  out.len(s.first_id().ms);
  out.len(s.first_id().seq);
  out.len(s.max_deleted_id().ms);
  out.len(s.max_deleted_id().seq);
  out.len(s.entries_added());
  out.len(s.groups().size());
  for (const auto& [name, g] : s.groups()) {
    out.string(name);
    out.len(g->last_id.ms);
    out.len(g->last_id.seq);
    out.len(static_cast<uint64_t>(g->entries_read));
    out.len(g->pel.size());
    for (const auto& [id, nack] : g->pel) {
      out.bytes(raw_id(id));
      out.ms(nack.delivery_time);
      out.len(nack.delivery_count);
    }
    out.len(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      out.string(cname);
      out.ms(c->seen_time);
      save_pel_ids(out, c->pel);
    }
  }
}

bool to_int(const std::string& s, int64_t* v) {
  long long ll;
  if (!string_to_ll(s, &ll)) return false;
  *v = ll;
  return true;
}

// One node's listpack: its live entries appended to s.
bool load_node(RdbInput& in, StreamId master, const std::vector<std::string>& items, Stream& s) {
  auto bad = [&] { return in.fail("corrupt stream listpack"); };
  size_t i = 0;
  auto next = [&](int64_t* v) { return i < items.size() && to_int(items[i++], v); };
  int64_t live, deleted, nf;
  if (!next(&live) || !next(&deleted) || !next(&nf) || nf < 0 || live + deleted <= 0) return bad();
  if (items.size() < i + static_cast<size_t>(nf) + 1) return bad();
  std::vector<std::string_view> names(items.begin() + static_cast<long>(i),
                                      items.begin() + static_cast<long>(i + static_cast<size_t>(nf)));
  i += static_cast<size_t>(nf);
  int64_t zero;
  if (!next(&zero) || zero != 0) return bad();
  std::vector<std::string_view> fields;
  int64_t seen = 0;
  while (i < items.size()) {
    int64_t flags, dms, dseq, count;
    if (!next(&flags) || !next(&dms) || !next(&dseq)) return bad();
    const StreamId id{master.ms + static_cast<uint64_t>(dms), master.seq + static_cast<uint64_t>(dseq)};
    fields.clear();
    if (flags & kSameFields) {
      if (items.size() < i + static_cast<size_t>(nf)) return bad();
      for (int64_t k = 0; k < nf; k++) {
        fields.push_back(names[static_cast<size_t>(k)]);
        fields.push_back(items[i++]);
      }
    } else {
      int64_t n;
      if (!next(&n) || n < 0 || items.size() < i + 2 * static_cast<size_t>(n)) return bad();
      for (int64_t k = 0; k < 2 * n; k++) fields.push_back(items[i++]);
    }
    if (!next(&count)) return bad();
    if (s.node_count() && id <= s.last_id()) return in.fail("stream entries out of order");
    s.load_entry(id, fields, flags & kDeleted, seen == 0);
    seen++;
  }
  if (seen != live + deleted) return bad();
  return true;
}

bool load_id(RdbInput& in, StreamId* id) { return in.len(&id->ms) && in.len(&id->seq); }

bool load_raw_id(RdbInput& in, StreamId* id) {
  std::string_view raw;
  if (!in.bytes(16, &raw)) return false;
  *id = id_of_raw(raw);
  return true;
}

bool stream_load(RdbInput& in, uint8_t type, const LoadContext&, LoadedValue& out) {
  auto s = std::make_unique<Stream>();
  uint64_t nodes;
  if (!in.len(&nodes)) return false;
  for (uint64_t n = 0; n < nodes; n++) {
    std::string key, blob;
    if (!in.string(&key) || !in.string(&blob)) return false;
    if (key.size() != 16) return in.fail("stream node key is not 16 bytes");
    std::vector<std::string> items;
    if (!decode_listpack(blob, &items) || items.empty()) return in.fail("corrupt stream listpack");
    if (!load_node(in, id_of_raw(key), items, *s)) return false;
  }
  uint64_t length;
  StreamId last, first, max_deleted;
  uint64_t added = 0;
  if (!in.len(&length) || !load_id(in, &last)) return false;
  const bool v2 = type == rdb::kTypeStreamListpacks2;
  if (v2 && (!load_id(in, &first) || !load_id(in, &max_deleted) || !in.len(&added))) return false;
  if (length != s->length()) return in.fail("stream length does not match its entries");
  if (!v2) {
    added = length;
    if (length) s->edge_id(true, false, &first);
  }
  s->set_last_id(last);
  s->set_first_id(first);
  s->set_max_deleted_id(max_deleted);
  s->set_entries_added(added);
  uint64_t ngroups;
  if (!in.len(&ngroups)) return false;
  for (uint64_t k = 0; k < ngroups; k++) {
    std::string name;
    StreamId glast;
    if (!in.string(&name) || !load_id(in, &glast)) return false;
    int64_t entries_read;
    if (v2) {
      uint64_t raw;
      if (!in.len(&raw)) return false;
      entries_read = static_cast<int64_t>(raw);
    } else {
      entries_read = s->estimate_distance(glast);
    }
    StreamGroup* g = s->create_group(name, glast, entries_read);
    if (!g) return in.fail("duplicate stream group name");
    uint64_t pending;
    if (!in.len(&pending)) return false;
    for (uint64_t p = 0; p < pending; p++) {
      StreamId id;
      int64_t when;
      uint64_t count;
      if (!load_raw_id(in, &id) || !in.ms(&when) || !in.len(&count)) return false;
      if (!g->pel.emplace(id, types::StreamNack{when, count, nullptr}).second)
        return in.fail("duplicate stream pending entry");
    }
    uint64_t consumers;
    if (!in.len(&consumers)) return false;
    for (uint64_t c = 0; c < consumers; c++) {
      std::string cname;
      int64_t seen;
      uint64_t owned;
      if (!in.string(&cname) || !in.ms(&seen) || !in.len(&owned)) return false;
      bool created;
      types::StreamConsumer* consumer = g->consumer_or_create(cname, seen, &created);
      if (!created) return in.fail("duplicate stream consumer");
      for (uint64_t o = 0; o < owned; o++) {
        StreamId id;
        if (!load_raw_id(in, &id)) return false;
        const auto it = g->pel.find(id);
        if (it == g->pel.end() || it->second.consumer) return in.fail("stream consumer owns an entry not pending");
        it->second.consumer = consumer;
        consumer->pel.insert(id);
      }
    }
    for (const auto& [id, nack] : g->pel)
      if (!nack.consumer) return in.fail("stream pending entry without a consumer");
  }
  out.obj = std::move(s);
  return true;
}

// As Redis's DEBUG DIGEST of a stream: each entry's "ms.seq", then its
// fields and values (groups are not part of it).
void stream_digest(const store::Object& obj, Digest& d) {
  as_stream(obj).range({}, StreamId::max(), false, [&](const StreamEntry& e) {
    d.mix(std::to_string(e.id.ms) + "." + std::to_string(e.id.seq));
    for (const auto f : e.fields) d.mix(f);
    return true;
  });
}

}  // namespace

const TypeCodec kStreamCodec = {
    .type = store::Type::kStream,
    .rdb_types = kStreamTypes,
    .save_type = stream_save_type,
    .save = stream_save,
    .load = stream_load,
    .digest = stream_digest,
};

}  // namespace lawnkv::persistence
