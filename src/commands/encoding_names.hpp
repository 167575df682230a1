#pragma once
// The encoding Redis 7.0 would report for a value (OBJECT ENCODING, DEBUG
// OBJECT): a string is "int" when it reads as a 64-bit integer in at most
// 20 bytes, "embstr" up to 44 bytes, else "raw", and "raw" once APPEND,
// SETRANGE or a bit command edited it (Entry::raw_encoding), as Redis's
// encodings go. (Redis stores INCRBYFLOAT's result as embstr even when it is
// integral; lawnkv reports int for such a value.) Other types name their own
// (store::Object::encoding).

#include <string_view>

#include "store/entry.hpp"

namespace lawnkv {

std::string_view encoding_name(const store::Entry& e);

// The integer a string value holds in Redis's "int" encoding, if it has one.
bool int_encoded(const store::Entry& e, long long* v);

}  // namespace lawnkv
