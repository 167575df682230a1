#pragma once
// Redis's packed encodings, as they appear inside RDB strings for small
// values, decoded into plain lists of elements. Each validates the blob's
// header and every entry's bounds and returns false on anything malformed.
//
//   intset    uint32 width (2, 4 or 8), uint32 count, count integers of
//             that width; all little-endian (RDB_TYPE_SET_INTSET)
//   listpack  uint32 total bytes, uint16 count, entries, 0xFF; an entry is
//             an encoding byte (7-bit uint, 6/12/32-bit string length,
//             13/16/24/32/64-bit int), its data, then its own length
//             backwards in 1..5 bytes (RDB_TYPE_HASH_LISTPACK, SET_LISTPACK,
//             HASH_LISTPACK_EX)
//   ziplist   uint32 bytes, uint32 tail offset, uint16 count, entries, 0xFF;
//             an entry is the previous entry's length (1 or 5 bytes), an
//             encoding (6/14/32-bit string length, 8/16/24/32/64-bit int or
//             a 4-bit immediate), its data (RDB_TYPE_HASH_ZIPLIST, written by
//             Redis before 7.0)
//
// Integers come out as their decimal text, as Redis hands them to clients.

#include <string>
#include <string_view>
#include <vector>

namespace lawnkv::persistence {

bool decode_intset(std::string_view blob, std::vector<std::string>* out);
bool decode_listpack(std::string_view blob, std::vector<std::string>* out);
bool decode_ziplist(std::string_view blob, std::vector<std::string>* out);

}  // namespace lawnkv::persistence
