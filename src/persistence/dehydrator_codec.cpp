// Dehydrators in RDB, as a module value (RDB_TYPE_MODULE_2), the way a
// Redis module type is saved: the 64-bit module type id, then module items
// (unsigned integers and strings, each behind its opcode), then the module
// EOF item. The type is lawnkv's own, named "lawn-rede", encoding version
// 1; its items:
//
//   uint count, then per element: string id, string value,
//   uint deadline (absolute Unix ms), uint 1 if it waits on the due list
//   (polled order) else 0
//
// elements listed in the order they come out (Dehydrator::saved_order).
// Redis without a module of that name refuses the file, naming the type (no
// released ReDe module reads it: a bonus the issue leaves open). Deadlines
// stay absolute, so an element whose time passed while the server was down
// is due at once after loading, never dropped.
//
// A module value of any other type is refused, naming its module type.

#include <string>

#include "dehydrator/dehydrator.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/value_codecs.hpp"

namespace lawnkv::persistence {

namespace {

using dehydrator::Dehydrator;

constexpr uint8_t kDehydratorTypes[] = {rdb::kTypeModule2};
constexpr std::string_view kModuleName = "lawn-rede";
constexpr uint64_t kEncodingVersion = 1;
// Module type names are 9 characters of this set, 6 bits each.
constexpr std::string_view kNameChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Redis's module type id: the 9 characters' 6-bit codes, first one highest,
// then 10 bits of encoding version.
constexpr uint64_t module_id(std::string_view name, uint64_t encver) {
  uint64_t id = 0;
  for (char c : name) id = (id << 6) | kNameChars.find(c);
  return (id << 10) | encver;
}
constexpr uint64_t kModuleId = module_id(kModuleName, kEncodingVersion);

std::string module_name(uint64_t id) {
  std::string name(9, '?');
  uint64_t bits = id >> 10;
  for (int i = 8; i >= 0; --i, bits >>= 6) name[static_cast<size_t>(i)] = kNameChars[bits & 63];
  return name;
}

uint8_t dehydrator_save_type(const store::Object&) { return rdb::kTypeModule2; }

void dehydrator_save(RdbOutput& out, const store::Object& obj) {
  const auto& d = static_cast<const Dehydrator&>(obj);
  const std::vector<Dehydrator::Saved> all = d.saved_order();
  out.len(kModuleId);
  out.module_uint(all.size());
  for (const Dehydrator::Saved& e : all) {
    out.module_string(e.id);
    out.module_string(e.value);
    out.module_uint(static_cast<uint64_t>(e.deadline));
    out.module_uint(e.due ? 1 : 0);
  }
  out.len(rdb::kModuleEof);
}

bool dehydrator_load(RdbInput& in, uint8_t, const LoadContext&, LoadedValue& out) {
  uint64_t id;
  if (!in.len(&id)) return false;
  if ((id >> 10) != (kModuleId >> 10))
    return in.fail("module type '" + module_name(id) + "' is not one lawnkv serves");
  if ((id & 1023) != kEncodingVersion)
    return in.fail("lawn-rede encoding version " + std::to_string(id & 1023) + " is not known");
  uint64_t n;
  if (!in.module_uint(&n)) return false;
  auto d = std::make_unique<Dehydrator>();
  std::string eid, value;
  while (n-- > 0) {
    uint64_t deadline, due;
    if (!in.module_string(&eid) || !in.module_string(&value) || !in.module_uint(&deadline) || !in.module_uint(&due))
      return false;
    if (due > 1 || deadline > static_cast<uint64_t>(Dehydrator::kMaxDeadline))
      return in.fail("corrupt dehydrator element");
    if (!d->restore(eid, value, static_cast<int64_t>(deadline), due == 1))
      return in.fail("duplicate dehydrator element id");
  }
  uint64_t eof;
  if (!in.len(&eof)) return false;
  if (eof != rdb::kModuleEof) return in.fail("module value not terminated");
  if (d->size()) out.obj = std::move(d);
  return true;
}

void dehydrator_digest(const store::Object& obj, Digest& d) {
  // Ordered: the order elements come out in is part of the value.
  for (const Dehydrator::Saved& e : static_cast<const Dehydrator&>(obj).saved_order()) {
    d.mix(e.id);
    d.mix(e.value);
    d.mix_int(e.deadline);
    d.mix_int(e.due);
  }
}

}  // namespace

const TypeCodec kDehydratorCodec = {
    .type = store::Type::kDehydrator,
    .rdb_types = kDehydratorTypes,
    .save_type = dehydrator_save_type,
    .save = dehydrator_save,
    .load = dehydrator_load,
    .digest = dehydrator_digest,
};

}  // namespace lawnkv::persistence
