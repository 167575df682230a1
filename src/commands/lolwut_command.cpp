// LOLWUT [VERSION version] [art arguments]: Redis 7.0's lolwut.c. The art
// chosen is by version as Redis chooses it from "<version>.0.0": 5 (and
// 4.9) draws Schotter (lolwut_art.hpp; arguments cols, squares per row,
// squares per column: 66 8 12 by default), 6 (and 5.9) the skyline (cols,
// rows: 80 20); any other, the default included (lawnkv answers as Redis
// 7.0.15), only "Redis ver. 7.0.15". Arguments are longs, clamped to
// Redis's limits. The reply is verbatim text (a bulk string in RESP2).

#include <algorithm>
#include <string>

#include "commands/families.hpp"
#include "commands/lolwut_art.hpp"
#include "config/values.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"

namespace lawnkv {

namespace {

// The art arguments after LOLWUT [VERSION v]: each a long, clamped to
// [1, max[i]], or the default.
bool art_args_or_reply(Call& call, std::span<const std::string_view> args, std::span<long> values,
                       std::span<const long> max) {
  for (size_t i = 0; i < values.size() && i < args.size(); ++i) {
    long long v;
    if (!integer_or_reply(call, args[i], &v)) return false;
    values[i] = static_cast<long>(std::clamp<long long>(v, 1, max[i]));
  }
  return true;
}

/* LOLWUT [VERSION version] */
void lolwut_command(Call& call) {
  std::span<const std::string_view> args = call.argv.subspan(1);
  std::string version(config::kRedisVersion);
  if (call.argv.size() >= 3 && is_option(call.argv[1], "version")) {
    long long v;
    if (!integer_or_reply(call, call.argv[2], &v)) return;
    // As Redis's "%u.0.0" of the number cast to unsigned int.
    version = std::to_string(static_cast<unsigned int>(v)) + ".0.0";
    args = call.argv.subspan(3);
  }
  auto is = [&](std::string_view prefix, bool nine) {
    return version.size() >= 3 && version.compare(0, 2, prefix) == 0 && (version[2] == '9') == nine;
  };
  const std::string ver_line = "Redis ver. " + std::string(config::kRedisVersion) + "\n";
  std::string text;
  if (is("5.", false) || is("4.", true)) {
    long values[3] = {66, 8, 12};
    constexpr long kMax[3] = {1000, 200, 200};
    if (!art_args_or_reply(call, args, values, kMax)) return;
    text = lolwut::schotter(static_cast<int>(values[0]), static_cast<int>(values[1]), static_cast<int>(values[2]),
                            call.data.keyspace.rng());
    text += "\nGeorg Nees - schotter, plotter on paper, 1968. " + ver_line;
  } else if (is("6.", false) || is("5.", true)) {
    long values[2] = {80, 20};
    constexpr long kMax[2] = {1000, 1000};
    if (!art_args_or_reply(call, args, values, kMax)) return;
    text = lolwut::skyline(static_cast<int>(values[0]), static_cast<int>(values[1]), call.data.keyspace.rng());
    text +=
        "\nDedicated to the 8 bit game developers of past and present.\n"
        "Original 8 bit image from Plaguemon by hikikomori. " + ver_line;
  } else {
    text = ver_line;
  }
  call.reply.verbatim(text);
}

}  // namespace

void register_lolwut_command(CommandTable& t) {
  t.add({.name = "lolwut", .arity = -1, .flags = kReadonly | kFast,
         .acl = "@read @fast",
         .group = "server", .since = "5.0.0", .complexity = "O(N) where N is the size of the drawing",
         .summary = "Draws some computer art and shows the server's version",
         .handler = lolwut_command});
}

}  // namespace lawnkv
