// Hashes in RDB.
//
// Saved as RDB_TYPE_HASH (a count, then field/value strings), which every
// Redis since 2.0 loads, and which Redis 7.0 turns into a listpack when small.
// A hash with a field TTL is saved as Redis 7.4's RDB_TYPE_HASH_METADATA
// (the earliest field deadline as 8 bytes, a count, then per field: its
// deadline as a length, 0 for none or deadline - earliest + 1, the field,
// the value), which needs RDB version 12: the writer then heads the file
// with 12 (Redis 7.0 refuses it; 7.4 loads it).
//
// Loaded from: HASH, HASH_ZIPLIST (before 7.0), HASH_LISTPACK (7.0),
// HASH_METADATA and HASH_LISTPACK_EX (7.4; the listpack holds field, value,
// absolute deadline or 0) and their 7.4 release-candidate forms (absolute
// deadlines, no leading earliest one). A field whose deadline has passed
// is dropped; a hash left empty is not loaded.

#include <algorithm>
#include <climits>
#include <set>
#include <string>
#include <vector>

#include "core/numbers.hpp"
#include "persistence/rdb_blobs.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/value_codecs.hpp"
#include "types/hash.hpp"

namespace lawnkv::persistence {

namespace {

using types::Hash;

constexpr uint8_t kHashTypes[] = {rdb::kTypeHash,         rdb::kTypeHashZiplist,         rdb::kTypeHashListpack,
                                  rdb::kTypeHashMetadata, rdb::kTypeHashMetadataPreGa,   rdb::kTypeHashListpackEx,
                                  rdb::kTypeHashListpackExPreGa};

const Hash& as_hash(const store::Object& obj) { return static_cast<const Hash&>(obj); }

uint8_t hash_save_type(const store::Object& obj) {
  return as_hash(obj).ttl_fields() ? rdb::kTypeHashMetadata : rdb::kTypeHash;
}

int hash_version(const store::Object& obj) {
  return as_hash(obj).ttl_fields() ? rdb::kVersionFieldTtl : rdb::kVersion;
}

void hash_save(RdbOutput& out, const store::Object& obj) {
  const Hash& h = as_hash(obj);
  if (!h.ttl_fields()) {
    out.len(h.size());
    h.for_each([&](std::string_view f, std::string_view v) {
      out.string(f);
      out.string(v);
    });
    return;
  }
  int64_t earliest = INT64_MAX;
  h.for_each([&](std::string_view f, std::string_view) {
    const int64_t d = h.deadline_of(f);
    if (d >= 0) earliest = std::min(earliest, d);
  });
  out.ms(earliest);
  out.len(h.size());
  h.for_each([&](std::string_view f, std::string_view v) {
    const int64_t d = h.deadline_of(f);
    out.len(d >= 0 ? static_cast<uint64_t>(d - earliest) + 1 : 0);
    out.string(f);
    out.string(v);
  });
}

// Builds the hash field by field; fields with a passed deadline are left out.
class HashBuilder {
 public:
  HashBuilder(const LoadContext& ctx, LoadedValue& out)
      : ctx_(ctx), out_(out), hash_(std::make_unique<Hash>()),
        limits_{ctx.hash_max_listpack_entries, ctx.hash_max_listpack_value} {}

  // deadline < 0: none.
  bool add(RdbInput& in, std::string_view field, std::string_view value, int64_t deadline) {
    if (deadline >= 0 && deadline < ctx_.now_ms) {
      ++out_.parts_expired;
      if (!expired_.insert(std::string(field)).second) return in.fail("duplicate hash field");
      return true;
    }
    if (expired_.count(std::string(field)) || !hash_->set(field, value, limits_))
      return in.fail("duplicate hash field");
    // set_ttl drops a field whose deadline is <= its now: give it one just
    // before, since a field lives through its deadline's millisecond.
    if (deadline >= 0) hash_->set_ttl({}, field, deadline, 0, Hash::Condition::kNone, std::min(ctx_.now_ms, deadline - 1));
    return true;
  }
  void finish() {
    if (!hash_->empty()) out_.obj = std::move(hash_);
  }

 private:
  const LoadContext& ctx_;
  LoadedValue& out_;
  std::unique_ptr<Hash> hash_;
  Hash::Limits limits_;
  std::set<std::string> expired_;  // to refuse a field listed twice when the first one expired
};

// A listpack's or ziplist's elements as field/value pairs, or (with_ttl)
// field/value/deadline triples.
bool load_packed(RdbInput& in, const std::vector<std::string>& items, bool with_ttl, HashBuilder& b) {
  const size_t step = with_ttl ? 3 : 2;
  if (items.size() % step) return in.fail("hash listpack with an odd element count");
  for (size_t i = 0; i < items.size(); i += step) {
    int64_t deadline = -1;
    if (with_ttl) {
      long long d;
      if (!string_to_ll(items[i + 2], &d) || d < 0) return in.fail("hash listpack with a bad field deadline");
      if (d != 0) deadline = d;
    }
    if (!b.add(in, items[i], items[i + 1], deadline)) return false;
  }
  return true;
}

bool hash_load(RdbInput& in, uint8_t type, const LoadContext& ctx, LoadedValue& out) {
  HashBuilder b(ctx, out);
  std::string field, value;
  switch (type) {
    case rdb::kTypeHash: {
      uint64_t n;
      if (!in.len(&n)) return false;
      while (n-- > 0) {
        if (!in.string(&field) || !in.string(&value) || !b.add(in, field, value, -1)) return false;
      }
      break;
    }
    case rdb::kTypeHashMetadata:
    case rdb::kTypeHashMetadataPreGa: {
      int64_t earliest = 0;
      if (type == rdb::kTypeHashMetadata && !in.ms(&earliest)) return false;
      uint64_t n;
      if (!in.len(&n)) return false;
      while (n-- > 0) {
        uint64_t ttl;
        if (!in.len(&ttl) || !in.string(&field) || !in.string(&value)) return false;
        int64_t deadline = -1;
        if (ttl != 0) {
          const uint64_t at = type == rdb::kTypeHashMetadata ? ttl + static_cast<uint64_t>(earliest) - 1 : ttl;
          if (at > static_cast<uint64_t>(INT64_MAX) / 2) return in.fail("hash field deadline out of range");
          deadline = static_cast<int64_t>(at);
        }
        if (!b.add(in, field, value, deadline)) return false;
      }
      break;
    }
    default: {  // a packed blob
      if (type == rdb::kTypeHashListpackEx) {
        int64_t earliest;
        if (!in.ms(&earliest)) return false;
      }
      std::string blob;
      if (!in.string(&blob)) return false;
      std::vector<std::string> items;
      const bool ok = type == rdb::kTypeHashZiplist ? decode_ziplist(blob, &items) : decode_listpack(blob, &items);
      if (!ok) return in.fail(type == rdb::kTypeHashZiplist ? "corrupt hash ziplist" : "corrupt hash listpack");
      const bool with_ttl = type == rdb::kTypeHashListpackEx || type == rdb::kTypeHashListpackExPreGa;
      if (!load_packed(in, items, with_ttl, b)) return false;
    }
  }
  b.finish();
  return true;
}

void hash_digest(const store::Object& obj, Digest& d) {
  const Hash& h = as_hash(obj);
  h.for_each([&](std::string_view f, std::string_view v) {
    Digest field;
    field.mix(f);
    field.mix(v);
    const int64_t deadline = h.deadline_of(f);
    if (deadline >= 0) field.mix_int(deadline);
    d.combine(field);
  });
}

}  // namespace

const TypeCodec kHashCodec = {
    .type = store::Type::kHash,
    .rdb_types = kHashTypes,
    .save_type = hash_save_type,
    .save = hash_save,
    .load = hash_load,
    .digest = hash_digest,
    .version = hash_version,
};

}  // namespace lawnkv::persistence
