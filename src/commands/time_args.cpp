#include "commands/time_args.hpp"

#include <string>

namespace lawnkv {

void reply_invalid_expire_time(Call& call) {
  call.error("ERR invalid expire time in '" + call.spec->name + "' command");
}

}  // namespace lawnkv
