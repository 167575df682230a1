// Sets in RDB.
//
// Saved as RDB_TYPE_SET (a count, then the members as strings; an intset's
// integers go out in the integer string form), which every Redis loads and
// Redis 7.0 makes an intset again when every member is an integer.
//
// Loaded from: SET, SET_INTSET and SET_LISTPACK (Redis 7.2). The set is
// rebuilt by adding members one by one, so its encoding follows lawnkv's
// rules (an intset while every member is an integer and there are at most
// set-max-intset-entries), as Redis 7.0 converts on load.

#include <vector>

#include "persistence/rdb_blobs.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/value_codecs.hpp"
#include "types/set.hpp"

namespace lawnkv::persistence {

namespace {

using types::Set;

constexpr uint8_t kSetTypes[] = {rdb::kTypeSet, rdb::kTypeSetIntset, rdb::kTypeSetListpack};

const Set& as_set(const store::Object& obj) { return static_cast<const Set&>(obj); }

uint8_t set_save_type(const store::Object&) { return rdb::kTypeSet; }

void set_save(RdbOutput& out, const store::Object& obj) {
  const Set& s = as_set(obj);
  out.len(s.size());
  s.for_each([&](const types::Member& m) {
    if (m.is_int) out.integer(m.value);
    else out.string(m.bytes);
  });
}

bool set_load(RdbInput& in, uint8_t type, const LoadContext& ctx, LoadedValue& out) {
  auto set = std::make_unique<Set>();
  const types::SetOptions opts{.max_intset_entries = static_cast<size_t>(ctx.set_max_intset_entries),
                               .seeds = ctx.rng};
  auto add = [&](std::string_view member) { return set->add(member, opts) || in.fail("duplicate set member"); };
  if (type == rdb::kTypeSet) {
    uint64_t n;
    if (!in.len(&n)) return false;
    std::string member;
    while (n-- > 0)
      if (!in.string(&member) || !add(member)) return false;
  } else {
    std::string blob;
    if (!in.string(&blob)) return false;
    std::vector<std::string> items;
    const bool ok = type == rdb::kTypeSetIntset ? decode_intset(blob, &items) : decode_listpack(blob, &items);
    if (!ok) return in.fail(type == rdb::kTypeSetIntset ? "corrupt intset" : "corrupt set listpack");
    for (const std::string& m : items)
      if (!add(m)) return false;
  }
  if (!set->empty()) out.obj = std::move(set);
  return true;
}

void set_digest(const store::Object& obj, Digest& d) {
  as_set(obj).for_each([&](const types::Member& m) {
    Digest member;
    member.mix(m.to_string());
    d.combine(member);
  });
}

}  // namespace

const TypeCodec kSetCodec = {
    .type = store::Type::kSet,
    .rdb_types = kSetTypes,
    .save_type = set_save_type,
    .save = set_save,
    .load = set_load,
    .digest = set_digest,
};

}  // namespace lawnkv::persistence
