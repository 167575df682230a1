#pragma once
// Facts about a client's address text, as the server formats it
// ("127.0.0.1:52546", "::1:52546" or "[::1]:52546").

#include <string_view>

namespace lawnkv {

// Whether addr is on the loopback interface (127.0.0.0/8 or ::1): protected
// mode and `enable-debug-command local` admit only such clients.
inline bool is_loopback(std::string_view addr) {
  return addr.starts_with("127.") || addr.starts_with("[::1]") || addr.starts_with("::1");
}

}  // namespace lawnkv
