#pragma once
// Error texts that quote client bytes, made as Redis 7.0 makes them
// (addReplyErrorFormat in networking.c, rejectCommandFormat in server.c).
// Every error reply that echoes an argument goes through format_error, so a
// client's CR, LF or NUL reaches the wire exactly as Redis lets it.
//
//   format_error("ERR Unsupported option %s", {"x\r\n"})
//       -> "ERR Unsupported option x"          (CR LF at the end: trimmed)
//   format_error("ERR Syntax error in HELLO option '%s'", {"x\r\n"})
//       -> "ERR Syntax error in HELLO option 'x  '"   (inside: spaces)
//   format_error("ERR Syntax error in HELLO option '%s'", {"\0e"})
//       -> "ERR Syntax error in HELLO option ''"      (%s stops at a NUL)
//   format_error("ERR unknown subcommand '%.128s'. Try %s HELP.", {arg, "CONFIG"})
//       -> at most 128 bytes of arg
//
// The steps, in Redis's order:
// 1. printf: "%s" is the argument up to its first NUL; "%.Ns" at most N
//    bytes of that; "%c" the argument's one byte. Any other byte of fmt,
//    '%' included, is copied.
// 2. sdscatvprintf measures the result with strlen: it ends at its first
//    NUL (only a "%c" of NUL can put one there).
// 3. sdstrim(s, "\r\n"): CR and LF bytes are removed from both ends.
// 4. sdsmapchars(s, "\r\n", "  "): every other CR and LF becomes a space.
//
// rejectCommandFormat (unknown command, unknown subcommand) skips step 3;
// its texts start with "ERR" and end with text of their own (a space, a
// period), so the step changes nothing there and one function serves both.

#include <initializer_list>
#include <string>
#include <string_view>

namespace lawnkv {

// fmt with its directives replaced by args in order (as many as it has
// directives), through the steps above. fmt includes the error code
// ("ERR ...").
std::string format_error(std::string_view fmt, std::initializer_list<std::string_view> args);

}  // namespace lawnkv
