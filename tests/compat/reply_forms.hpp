#pragma once
// The forms in which two servers' replies are compared when byte-for-byte
// equality would compare something unspecified (an order, a version).
// Each takes a reply's wire bytes and returns wire bytes (or a <...> note);
// bytes that do not parse as one reply are returned unchanged.

#include <string>
#include <string_view>

namespace lawnkv::test {

// The reply with the elements of every array, set and push sorted, and the
// pairs of every map sorted by key, at every depth: for replies whose order
// Redis leaves unspecified (KEYS, a SCAN batch).
std::string sorted_form(std::string_view reply);

// A HELLO reply (RESP2 flat array or RESP3 map) without its "server",
// "version" and "id" fields: the product name, its version and the
// connection's id differ between two servers by design; the fields a client
// relies on (proto, mode, role, modules) stay.
std::string hello_form(std::string_view reply);

// Only the reply's type byte and whether it is a null: for replies whose
// value differs by design (CLIENT ID, INFO, TIME).
std::string type_form(std::string_view reply);

}  // namespace lawnkv::test
