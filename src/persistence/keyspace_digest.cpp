#include "persistence/keyspace_digest.hpp"

#include "persistence/value_codecs.hpp"

namespace lawnkv::persistence {

Digest value_digest(const store::Entry& e) {
  Digest d;
  d.mix_int(static_cast<int64_t>(e.type()));
  const store::Object* obj = e.obj();
  if (!obj) {
    d.mix(e.str());
  } else if (const TypeCodec* c = codec_for(obj->type())) {
    Digest parts;
    c->digest(*obj, parts);
    d.mix(parts.hex());
  }
  return d;
}

Digest keyspace_digest(const store::Keyspace& ks) {
  Digest total;
  for (int i = 0; i < ks.databases(); ++i) {
    ks.db(i).dict().for_each([&](const store::Entry& e) {
      Digest key;
      key.mix_int(i);
      key.mix(e.key());
      key.mix(value_digest(e).hex());
      if (e.has_ttl()) key.mix_int(e.deadline());
      total.combine(key);
    });
  }
  return total;
}

}  // namespace lawnkv::persistence
