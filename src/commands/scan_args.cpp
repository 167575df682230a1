#include "commands/scan_args.hpp"

#include <cctype>

#include "engine/args.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

namespace {
constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
}  // namespace

bool scan_cursor_or_reply(Call& call, std::string_view arg, uint64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (i < arg.size() && (arg[i] == '+' || arg[i] == '-')) negative = arg[i++] == '-';
  const size_t digits = i;
  uint64_t v = 0;
  bool overflow = false;
  for (; i < arg.size() && arg[i] >= '0' && arg[i] <= '9'; ++i) {
    const uint64_t d = static_cast<uint64_t>(arg[i] - '0');
    if (v > (UINT64_MAX - d) / 10) overflow = true;
    v = v * 10 + d;
  }
  // With no digit strtoul consumes nothing: only an empty string passes.
  const size_t end = i == digits ? 0 : i;
  const bool leading_space = !arg.empty() && std::isspace(static_cast<unsigned char>(arg[0]));
  const bool rest_empty = end == arg.size() || arg[end] == '\0';
  if (leading_space || !rest_empty || overflow) {
    call.error(kInvalidCursor);
    return false;
  }
  *out = i == digits ? 0 : (negative ? 0 - v : v);
  return true;
}

bool scan_options_or_reply(Call& call, size_t first, bool allow_type, ScanOptions* opts) {
  const auto& argv = call.argv;
  for (size_t i = first; i < argv.size(); i += 2) {
    const bool has_value = i + 1 < argv.size();
    if (has_value && is_option(argv[i], "count")) {
      if (!integer_or_reply(call, argv[i + 1], &opts->count)) return false;
      if (opts->count < 1) {
        call.error(err::kSyntax);
        return false;
      }
    } else if (has_value && is_option(argv[i], "match")) {
      opts->pattern = argv[i + 1];
      opts->use_pattern = opts->pattern != "*";
    } else if (allow_type && has_value && is_option(argv[i], "type")) {
      opts->has_type = true;
      opts->type = c_string(argv[i + 1]);  // compared with strcasecmp
    } else {
      call.error(err::kSyntax);
      return false;
    }
  }
  return true;
}

void reply_empty_scan(Call& call) {
  call.reply.array(2);
  call.reply.bulk("0");
  call.reply.array(0);
}

}  // namespace lawnkv
