// Sorted sets in RDB.
//
// Saved as RDB_TYPE_ZSET_2 (a count, then per member: the member as a
// string, the score as an IEEE 754 double, 8 bytes little-endian), as Redis
// 7.0 writes a skiplist, from the highest score down (so a loader appends).
//
// Loaded from: ZSET_2, ZSET (scores as text: a length byte then the
// digits, or 253 = nan, 254 = +inf, 255 = -inf), ZSET_ZIPLIST (before 7.0)
// and ZSET_LISTPACK (7.0): member, score pairs, the score as a number's
// text. The set is rebuilt member by member, so its encoding follows
// zset-max-listpack-entries and -value, as Redis converts on load. A NaN
// score or a member listed twice is refused.

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "persistence/rdb_blobs.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/value_codecs.hpp"
#include "types/zset.hpp"

namespace lawnkv::persistence {

namespace {

using types::ZSet;

constexpr uint8_t kZSetTypes[] = {rdb::kTypeZSet, rdb::kTypeZSet2, rdb::kTypeZSetZiplist, rdb::kTypeZSetListpack};

const ZSet& as_zset(const store::Object& obj) { return static_cast<const ZSet& >(obj); }

uint8_t zset_save_type(const store::Object&) { return rdb::kTypeZSet2; }

uint64_t double_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

void zset_save(RdbOutput& out, const store::Object& obj) {
  const ZSet& z = as_zset(obj);
  out.len(z.size());
  z.walk(0, z.size(), true, [&](std::string_view member, double score) {
    out.string(member);
    out.ms(static_cast<int64_t>(double_bits(score)));  // 8 bytes little-endian
  });
}

// A score written as text ("1.5", "inf", "-3"): strtod on the whole text.
bool parse_score(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end;
  *out = std::strtod(text.c_str(), &end);
  return *end == '\0';
}

bool zset_load(RdbInput& in, uint8_t type, const LoadContext& ctx, LoadedValue& out) {
  auto z = std::make_unique<ZSet>();
  const types::ZSetOptions opts{.max_listpack_entries = static_cast<size_t>(ctx.zset_max_listpack_entries),
                                .max_listpack_value = static_cast<size_t>(ctx.zset_max_listpack_value),
                                .seeds = ctx.rng};
  auto add = [&](std::string_view member, double score) {
    if (std::isnan(score)) return in.fail("sorted set score is NaN");
    if (z->add(member, score, types::kZAddNone, opts) != types::ZAddResult::kAdded)
      return in.fail("duplicate sorted set member");
    return true;
  };
  std::string member;
  if (type == rdb::kTypeZSet2 || type == rdb::kTypeZSet) {
    uint64_t n;
    if (!in.len(&n)) return false;
    while (n-- > 0) {
      if (!in.string(&member)) return false;
      double score;
      if (type == rdb::kTypeZSet2) {
        int64_t bits;
        if (!in.ms(&bits)) return false;
        const auto u = static_cast<uint64_t>(bits);
        std::memcpy(&score, &u, 8);
      } else {
        uint8_t len;
        if (!in.u8(&len)) return false;
        if (len == 253) score = NAN;
        else if (len == 254) score = INFINITY;
        else if (len == 255) score = -INFINITY;
        else {
          std::string_view text;
          if (!in.bytes(len, &text)) return false;
          if (!parse_score(std::string(text), &score)) return in.fail("corrupt sorted set score");
        }
      }
      if (!add(member, score)) return false;
    }
  } else {
    std::string blob;
    if (!in.string(&blob)) return false;
    std::vector<std::string> items;
    const bool zip = type == rdb::kTypeZSetZiplist;
    if (!(zip ? decode_ziplist(blob, &items) : decode_listpack(blob, &items)))
      return in.fail(zip ? "corrupt sorted set ziplist" : "corrupt sorted set listpack");
    if (items.size() % 2) return in.fail("sorted set listpack with an odd element count");
    for (size_t i = 0; i < items.size(); i += 2) {
      double score;
      if (!parse_score(items[i + 1], &score)) return in.fail("corrupt sorted set score");
      if (!add(items[i], score)) return false;
    }
  }
  if (!z->empty()) out.obj = std::move(z);
  return true;
}

void zset_digest(const store::Object& obj, Digest& d) {
  // Ordered by score then member: one order for equal contents.
  const ZSet& z = as_zset(obj);
  z.walk(0, z.size(), false, [&](std::string_view member, double score) {
    d.mix(member);
    d.mix_int(static_cast<int64_t>(double_bits(score == 0 ? 0.0 : score)));  // -0 and 0 are one score
  });
}

}  // namespace

const TypeCodec kZSetCodec = {
    .type = store::Type::kZSet,
    .rdb_types = kZSetTypes,
    .save_type = zset_save_type,
    .save = zset_save,
    .load = zset_load,
    .digest = zset_digest,
};

}  // namespace lawnkv::persistence
