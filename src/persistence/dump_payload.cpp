#include "persistence/dump_payload.hpp"

#include <algorithm>

#include "persistence/crc64.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/rdb_input.hpp"
#include "persistence/rdb_output.hpp"

namespace lawnkv::persistence {

namespace {

constexpr size_t kFooter = 10;  // version (2) + CRC-64 (8)

}  // namespace

std::string dump_payload(const store::Entry& e, bool compress) {
  const store::Object* obj = e.obj();
  const TypeCodec* c = obj ? codec_for(obj->type()) : nullptr;
  if (obj && !c) return {};
  std::string payload;
  StringSink sink(payload);
  RdbOutput out(sink, compress, false);
  int version = rdb::kVersion;
  if (c) {
    out.byte(c->save_type(*obj));
    c->save(out, *obj);
    if (c->version) version = std::max(version, c->version(*obj));
  } else {
    out.byte(rdb::kTypeString);
    out.string(e.str());
  }
  out.drain();
  payload.push_back(static_cast<char>(version & 0xff));
  payload.push_back(static_cast<char>((version >> 8) & 0xff));
  const uint64_t crc = crc64(0, payload.data(), payload.size());
  for (int shift = 0; shift < 64; shift += 8) payload.push_back(static_cast<char>(crc >> shift));
  return payload;
}

bool dump_payload_valid(std::string_view payload) {
  if (payload.size() < kFooter) return false;
  const auto* footer = reinterpret_cast<const uint8_t*>(payload.data() + payload.size() - kFooter);
  const int version = footer[0] | (footer[1] << 8);
  if (version > rdb::kMaxVersion) return false;
  uint64_t stored = 0;
  for (int i = 8; i-- > 0;) stored = (stored << 8) | footer[2 + i];
  return crc64(0, payload.data(), payload.size() - 8) == stored;
}

bool restore_payload(std::string_view payload, const LoadContext& ctx, RestoredValue& out) {
  // As Redis, the value is read from the whole payload: a length that runs
  // into the footer takes its bytes, one that runs past it is refused.
  RdbInput in(payload);
  uint8_t type;
  if (!in.u8(&type)) return false;
  if (type == rdb::kTypeString) {
    out.is_string = true;
    return in.string(&out.str);
  }
  const TypeCodec* c = codec_for_rdb(type);
  if (!c || !c->load(in, type, ctx, out.value)) return false;
  // An empty value is malformed, unless its parts had all expired.
  return out.value.obj != nullptr || out.value.parts_expired > 0;
}

}  // namespace lawnkv::persistence
