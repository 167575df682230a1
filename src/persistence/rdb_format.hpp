#pragma once
// The constants of Redis's RDB format, as Redis 7.0 (version 10) and 7.4
// (version 12) write them. A file is
//
//   "REDIS" + 4 decimal digits of version
//   AUX fields        0xFA <string name> <string value> (redis-ver, ctime...)
//   per database      0xFE <len db>  0xFB <len keys> <len keys with a TTL>
//     per key         [0xFC <int64 LE deadline ms>] <type byte> <string key>
//                     <value, as its type writes it>
//   0xFF, then the CRC-64 of everything before it, 8 bytes little-endian
//   (0 when written with rdbchecksum no; a reader then skips the check).
//
// Lengths (rdb_output.hpp) are 1, 2, 5 or 9 bytes; strings are a length and
// bytes, or an integer, or LZF-compressed (rdb_input.hpp reads all three).

#include <cstdint>
#include <string_view>

namespace lawnkv::persistence::rdb {

// What lawnkv writes: version 10, or 12 when a hash field has a TTL (only
// Redis 7.4's hash types can carry one; Redis 7.0 refuses such a file).
constexpr int kVersion = 10;
constexpr int kVersionFieldTtl = 12;
// The newest version lawnkv reads.
constexpr int kMaxVersion = 12;

// Value types.
constexpr uint8_t kTypeString = 0;
constexpr uint8_t kTypeList = 1;
constexpr uint8_t kTypeSet = 2;
constexpr uint8_t kTypeZSet = 3;
constexpr uint8_t kTypeHash = 4;
constexpr uint8_t kTypeZSet2 = 5;
constexpr uint8_t kTypeModulePreGa = 6;
constexpr uint8_t kTypeModule2 = 7;
constexpr uint8_t kTypeHashZipmap = 9;
constexpr uint8_t kTypeListZiplist = 10;
constexpr uint8_t kTypeSetIntset = 11;
constexpr uint8_t kTypeZSetZiplist = 12;
constexpr uint8_t kTypeHashZiplist = 13;
constexpr uint8_t kTypeListQuicklist = 14;
constexpr uint8_t kTypeStreamListpacks = 15;
constexpr uint8_t kTypeHashListpack = 16;
constexpr uint8_t kTypeZSetListpack = 17;
constexpr uint8_t kTypeListQuicklist2 = 18;
constexpr uint8_t kTypeStreamListpacks2 = 19;
constexpr uint8_t kTypeSetListpack = 20;
constexpr uint8_t kTypeStreamListpacks3 = 21;
constexpr uint8_t kTypeHashMetadataPreGa = 22;
constexpr uint8_t kTypeHashListpackExPreGa = 23;
constexpr uint8_t kTypeHashMetadata = 24;
constexpr uint8_t kTypeHashListpackEx = 25;
constexpr uint8_t kLastType = 25;

// Opcodes between keys.
constexpr uint8_t kOpSlotInfo = 244;
constexpr uint8_t kOpFunction2 = 245;
constexpr uint8_t kOpFunctionPreGa = 246;
constexpr uint8_t kOpModuleAux = 247;
constexpr uint8_t kOpIdle = 248;
constexpr uint8_t kOpFreq = 249;
constexpr uint8_t kOpAux = 250;
constexpr uint8_t kOpResizeDb = 251;
constexpr uint8_t kOpExpireTimeMs = 252;
constexpr uint8_t kOpExpireTime = 253;
constexpr uint8_t kOpSelectDb = 254;
constexpr uint8_t kOpEof = 255;

// Module values (RDB_TYPE_MODULE_2): a 64-bit module type id, then items
// each opened by one of these, up to kModuleEof.
constexpr uint64_t kModuleEof = 0;
constexpr uint64_t kModuleSint = 1;
constexpr uint64_t kModuleUint = 2;
constexpr uint64_t kModuleFloat = 3;
constexpr uint64_t kModuleDouble = 4;
constexpr uint64_t kModuleString = 5;

// The name Redis gives a value type in its messages ("stream", "zset"...),
// or "unknown".
std::string_view type_name(uint8_t type);

}  // namespace lawnkv::persistence::rdb
