#pragma once
// Time arguments shared by the command families: a blocking command's
// timeout, and the "invalid expire time" reply of the TTL-taking commands.
// The arithmetic itself is core/deadline.hpp's.

#include <cstdint>
#include <string_view>

#include "engine/context.hpp"

namespace lawnkv {

// A blocking command's timeout in seconds (BLPOP's, REDE.BPOLL's), parsed as
// Redis's getTimeoutFromObjectOrReply: a long double as string2ld reads it
// (decimals, exponents, "inf" allowed), then ceil(timeout * 1000) ms. Stores
// the absolute deadline in *deadline_ms (now + ms; kNoDeadline when ms is 0:
// wait forever, which also -0.001 does, its ms being -0.99999... in long
// double, in Redis as here) and returns true, or replies one of:
//   "ERR timeout is not a float or out of range"   not a number, NaN
//   "ERR timeout is negative"                      ms < 0, -inf included
//   "ERR timeout is out of range"                  ms or now + ms past INT64_MAX
// The last is Redis 7.2's text. Redis 7.0.15 checks neither overflow: on
// x86-64 it answers "ERR timeout is negative" for ms past INT64_MAX (1e16,
// inf: the conversion to long long is undefined and yields INT64_MIN), and
// for 9223372036854775 (whose ms fit, but not now + ms) it blocks on a
// deadline that wrapped negative. Neither is worth copying.
bool timeout_or_reply(Call& call, std::string_view arg, int64_t* deadline_ms);

// "ERR invalid expire time in '<command>' command", named after the running
// command as Redis's addReplyErrorExpireTime does: a TTL or timestamp whose
// deadline does not fit in 64 bits, or is not positive where it must be.
void reply_invalid_expire_time(Call& call);

}  // namespace lawnkv
