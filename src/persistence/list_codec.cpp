// Lists in RDB.
//
// Saved as RDB_TYPE_LIST (a count, then the elements as strings, head
// first), which Redis 7.0 still loads into a quicklist.
//
// Loaded from: LIST, LIST_ZIPLIST (one ziplist, before 3.2), LIST_QUICKLIST
// (a count of ziplists, 3.2 to 6.2) and LIST_QUICKLIST_2 (7.0: a count of
// nodes, each a container kind, 1 = one plain element, 2 = a listpack, then
// the node as a string). The list is rebuilt element by element, so its
// nodes follow list-max-listpack-size.

#include <vector>

#include "persistence/rdb_blobs.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/value_codecs.hpp"
#include "types/list.hpp"

namespace lawnkv::persistence {

namespace {

using types::List;

constexpr uint8_t kListTypes[] = {rdb::kTypeList, rdb::kTypeListZiplist, rdb::kTypeListQuicklist,
                                  rdb::kTypeListQuicklist2};
constexpr uint64_t kContainerPlain = 1;
constexpr uint64_t kContainerPacked = 2;

const List& as_list(const store::Object& obj) { return static_cast<const List&>(obj); }

uint8_t list_save_type(const store::Object&) { return rdb::kTypeList; }

void list_save(RdbOutput& out, const store::Object& obj) {
  const List& l = as_list(obj);
  out.len(l.size());
  l.for_each_from(0, [&](std::string_view v) {
    out.string(v);
    return true;
  });
}

bool list_load(RdbInput& in, uint8_t type, const LoadContext& ctx, LoadedValue& out) {
  auto list = std::make_unique<List>();
  const types::ListOptions opts{.fill = ctx.list_max_listpack_size};
  std::string blob;
  std::vector<std::string> items;
  // One packed node: a ziplist (before 7.0) or a listpack.
  auto unpack = [&](bool ziplist) {
    if (!in.string(&blob)) return false;
    if (!(ziplist ? decode_ziplist(blob, &items) : decode_listpack(blob, &items)))
      return in.fail(ziplist ? "corrupt list ziplist" : "corrupt list listpack");
    for (const std::string& v : items) list->push_back(v, opts);
    return true;
  };
  if (type == rdb::kTypeListZiplist) {
    if (!unpack(true)) return false;
  } else {
    uint64_t n;
    if (!in.len(&n)) return false;
    while (n-- > 0) {
      if (type == rdb::kTypeList) {
        if (!in.string(&blob)) return false;
        list->push_back(blob, opts);
      } else if (type == rdb::kTypeListQuicklist) {
        if (!unpack(true)) return false;
      } else {
        uint64_t container;
        if (!in.len(&container)) return false;
        if (container == kContainerPlain) {
          if (!in.string(&blob)) return false;
          list->push_back(blob, opts);
        } else if (container == kContainerPacked) {
          if (!unpack(false)) return false;
        } else {
          return in.fail("unknown quicklist container " + std::to_string(container));
        }
      }
    }
  }
  if (!list->empty()) out.obj = std::move(list);
  return true;
}

void list_digest(const store::Object& obj, Digest& d) {
  // Ordered: the elements' order is the value.
  as_list(obj).for_each_from(0, [&](std::string_view v) {
    d.mix(v);
    return true;
  });
}

}  // namespace

const TypeCodec kListCodec = {
    .type = store::Type::kList,
    .rdb_types = kListTypes,
    .save_type = list_save_type,
    .save = list_save,
    .load = list_load,
    .digest = list_digest,
};

}  // namespace lawnkv::persistence
