#pragma once
// LZF, the compression of long strings in RDB files (rdbcompression yes),
// written from the format's description. A compressed block is a sequence of
// items, each opened by a control byte:
//
//   000LLLLL                      a literal run: the next L+1 bytes (1..32)
//                                 are copied as they are
//   LLLooooo oooooooo             a back reference: copy L+2 bytes (L in
//   111ooooo LLLLLLLL oooooooo    1..6, or 7 plus the extra length byte:
//                                 up to 264) starting o+1 bytes (1..8192)
//                                 behind the output's end; the source may
//                                 overlap what is being written (a run)
//
// Example: "abcabcabcabc" (12 bytes) is the literal "abc" (0x02 'a' 'b' 'c')
// then a 9-byte reference 3 bytes back: L = 9 - 2 = 7, so the long form,
// 0xe0 (111, offset high bits 0), extra length 0x00, offset low byte 0x02
// (3 - 1): 7 bytes in all.

#include <cstddef>
#include <string>
#include <string_view>

namespace lawnkv::persistence {

// Compresses in into out (replacing it). Returns false, with out
// unspecified, when the result would take more than max_out bytes: RDB
// stores such a string uncompressed.
bool lzf_compress(std::string_view in, size_t max_out, std::string& out);

// Decompresses in into out[0..out_len): true only if in decodes to exactly
// out_len bytes, with every reference inside what was already written. Any
// other input (truncated, hostile) returns false without reading or writing
// out of bounds.
bool lzf_decompress(std::string_view in, char* out, size_t out_len);

}  // namespace lawnkv::persistence
