#pragma once
// Time arguments shared by the command families: the "invalid expire time"
// reply of the TTL-taking commands. The arithmetic itself is
// core/deadline.hpp's.

#include "commands/context.hpp"

namespace lawnkv {

// "ERR invalid expire time in '<command>' command", named after the running
// command as Redis's addReplyErrorExpireTime does: a TTL or timestamp whose
// deadline does not fit in 64 bits, or is not positive where it must be.
void reply_invalid_expire_time(Call& call);

}  // namespace lawnkv
