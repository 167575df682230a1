#pragma once
// A command over a RawClient with its reply parsed, and one that must not
// fail: the set-up steps of the compat tests that drive servers directly.

#include <doctest/doctest.h>

#include <initializer_list>
#include <string_view>

#include "raw_client.hpp"
#include "resp_reply.hpp"

namespace lawnkv::test {

inline Reply call(RawClient& c, std::initializer_list<std::string_view> argv) { return parse_reply(c.call(argv)); }

// Sends argv; an error reply fails the test with its text.
inline void must(RawClient& c, std::initializer_list<std::string_view> argv) {
  const Reply r = call(c, argv);
  REQUIRE_MESSAGE(r.type != '-', r.text);
}

}  // namespace lawnkv::test
