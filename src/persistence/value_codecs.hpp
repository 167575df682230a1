#pragma once
// One codec per value type: how the writer saves a store::Object, how the
// loader rebuilds one from each RDB type that can hold it, and what the
// dataset digest (DEBUG DIGEST) reads of it. Strings are not Objects: the
// writer and loader handle RDB_TYPE_STRING themselves.
//
// Adding a type is one file, persistence/<type>_codec.cpp, defining a
// TypeCodec, its declaration below, one line in value_codecs.cpp's table
// and the configuration its loader needs in LoadContext:
//
//   extern const TypeCodec kListCodec;    // list_codec.cpp
//   const TypeCodec* const kCodecs[] = {&kHashCodec, &kSetCodec, ..., &kListCodec};
//
// The loader finds a codec by the RDB type byte (rdb_types), the writer by
// store::Type. An RDB type no codec claims is refused by name ("stream",
// "zset"...), with the key it was found under.

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "persistence/digest.hpp"
#include "persistence/rdb_input.hpp"
#include "persistence/rdb_output.hpp"
#include "store/entry.hpp"

namespace lawnkv::persistence {

// What a loaded value needs from the server's configuration and clock.
struct LoadContext {
  int64_t now_ms = 0;
  int64_t hash_max_listpack_entries = 128;
  int64_t hash_max_listpack_value = 64;
  int64_t set_max_intset_entries = 512;
  int64_t list_max_listpack_size = -2;
  int64_t zset_max_listpack_entries = 128;
  int64_t zset_max_listpack_value = 64;
  std::mt19937_64* rng = nullptr;  // seeds of new hash tables (nullptr: seed 0)
};

// A value as its codec rebuilt it.
struct LoadedValue {
  std::unique_ptr<store::Object> obj;  // null: nothing left (every part expired): skip the key
  size_t parts_expired = 0;            // hash fields dropped because their deadline passed
};

struct TypeCodec {
  store::Type type;                   // what the writer hands it
  std::span<const uint8_t> rdb_types;  // what the loader hands it
  // The RDB type byte to save obj as.
  uint8_t (*save_type)(const store::Object& obj);
  // Writes obj's value (after its type byte and key).
  void (*save)(RdbOutput& out, const store::Object& obj);
  // Reads a value saved as rdb_type. False (with in.fail's reason) on
  // anything malformed.
  bool (*load)(RdbInput& in, uint8_t rdb_type, const LoadContext& ctx, LoadedValue& out);
  // Folds obj's contents into d (equal contents, equal digest, whatever the
  // encoding or iteration order).
  void (*digest)(const store::Object& obj, Digest& d);
  // The RDB version a file holding obj needs (10 unless obj uses a newer
  // type, as a hash with field TTLs does).
  int (*version)(const store::Object& obj) = nullptr;
};

// The codec saving values of type t; nullptr if none.
const TypeCodec* codec_for(store::Type t);
// The codec loading RDB type byte rdb_type; nullptr if none.
const TypeCodec* codec_for_rdb(uint8_t rdb_type);

extern const TypeCodec kHashCodec;        // hash_codec.cpp
extern const TypeCodec kSetCodec;         // set_codec.cpp
extern const TypeCodec kDehydratorCodec;  // dehydrator_codec.cpp
extern const TypeCodec kListCodec;        // list_codec.cpp
extern const TypeCodec kZSetCodec;        // zset_codec.cpp
extern const TypeCodec kStreamCodec;      // stream_codec.cpp

}  // namespace lawnkv::persistence
