#pragma once
// One field of a server's INFO section, read over a RawClient: what the
// replication and Sentinel tests poll for (offsets, link status, roles).

#include <string>
#include <string_view>

#include "raw_client.hpp"
#include "resp_reply.hpp"

namespace lawnkv::test {

// The value of `name` in INFO `section`'s text, or `absent` if the server
// does not print it.
inline std::string info_field(RawClient& c, std::string_view section, std::string_view name,
                              std::string_view absent = "") {
  const std::string text = parse_reply(c.call({"INFO", section})).text;
  const std::string key = "\r\n" + std::string(name) + ":";
  size_t at = text.find(key);
  if (at == std::string::npos) return std::string(absent);
  at += key.size();
  return text.substr(at, text.find("\r\n", at) - at);
}

}  // namespace lawnkv::test
