#pragma once
// Replies as servers send them, RESP2 and RESP3: finding where one complete
// reply ends in a byte stream, parsing it into a tree, and writing a tree back
// to the exact bytes it came from.
//
// Types, by their first byte:
//   simple line:  + (status)  - (error)  : (integer)  _ (null)  , (double)
//                 # (boolean)  ( (big number)
//   bulk:         $ (string; "$-1" is RESP2's null)  = (verbatim)  ! (blob error)
//   aggregate:    * (array; "*-1" is RESP2's null)  ~ (set)  > (push)
//                 % (map: 2n elements)  | (attribute: 2n elements, then the
//                 reply they annotate, kept as the last element)

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lawnkv::test {

// Thrown for bytes that cannot be a RESP reply.
struct RespError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Reply {
  char type = '_';               // the type byte, see above
  bool null = false;             // "$-1" and "*-1" only; "_" is type '_'
  std::string text;              // line of simple types; payload of bulk types
  std::vector<Reply> elements;   // aggregates (maps flattened: k1 v1 k2 v2 ...)

  bool is_aggregate() const;
  bool operator==(const Reply&) const = default;
};

// The length of the first complete reply at the start of `bytes`, or 0 when
// `bytes` holds only part of one. Throws RespError when `bytes` cannot start
// a reply.
size_t reply_length(std::string_view bytes);

// `bytes` must hold exactly one complete reply; throws RespError otherwise.
Reply parse_reply(std::string_view bytes);

// The wire bytes of `reply`; write_reply(parse_reply(b)) == b.
std::string write_reply(const Reply& reply);

}  // namespace lawnkv::test
