#include "persistence/value_codecs.hpp"

#include <algorithm>

namespace lawnkv::persistence {

namespace {
const TypeCodec* const kCodecs[] = {&kHashCodec, &kSetCodec, &kDehydratorCodec, &kListCodec, &kZSetCodec, &kStreamCodec};
}  // namespace

const TypeCodec* codec_for(store::Type t) {
  for (const TypeCodec* c : kCodecs)
    if (c->type == t) return c;
  return nullptr;
}

const TypeCodec* codec_for_rdb(uint8_t rdb_type) {
  for (const TypeCodec* c : kCodecs)
    if (std::find(c->rdb_types.begin(), c->rdb_types.end(), rdb_type) != c->rdb_types.end()) return c;
  return nullptr;
}

}  // namespace lawnkv::persistence
