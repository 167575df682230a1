#pragma once
// A look ahead in the query buffer that parses nothing for real: where the
// next complete RESP multibulk request ends, and its second argument (the
// key of GET, SET and most commands). The connection uses it to start the
// cache misses of a pipelined batch's keys before executing any of them
// (store::Db::prefetch). Anything unusual (an inline command, a partial
// request, a malformed header) just ends the look ahead; the real parser
// decides what it is. Count and length lines are read as the parser's
// one-pass path reads them (resp/number_line.hpp), so the look ahead ends a
// request where the parser will.

#include <cstddef>
#include <string_view>

namespace lawnkv::resp {

// The length of the complete multibulk request at the start of buf, or 0.
// *second_arg is its second argument (empty if it has fewer than two).
size_t peek_request(std::string_view buf, std::string_view* second_arg);

}  // namespace lawnkv::resp
