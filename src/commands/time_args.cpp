#include "commands/time_args.hpp"

#include <string>

#include "core/deadline.hpp"
#include "core/numbers.hpp"
#include "engine/errors.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kTimeoutNotFloat = "ERR timeout is not a float or out of range";
constexpr std::string_view kTimeoutOutOfRange = "ERR timeout is out of range";

}  // namespace

bool timeout_or_reply(Call& call, std::string_view arg, int64_t* deadline_ms) {
  long double seconds;
  if (!string_to_ld(arg, &seconds)) {
    call.error(kTimeoutNotFloat);
    return false;
  }
  const TimeoutDeadline t = timeout_deadline(seconds, call.now_ms);
  switch (t.status) {
    case TimeoutStatus::kOk: *deadline_ms = t.deadline_ms; return true;
    case TimeoutStatus::kNegative: call.error(err::kTimeoutNegative); return false;
    case TimeoutStatus::kOutOfRange: call.error(kTimeoutOutOfRange); return false;
  }
  return false;
}

void reply_invalid_expire_time(Call& call) {
  call.error("ERR invalid expire time in '" + call.spec->name + "' command");
}

}  // namespace lawnkv
