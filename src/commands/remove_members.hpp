#pragma once
// What SREM, ZREM and HDEL share: remove the members named by argv[2..]
// from the value at argv[1], delete the key when the last one goes (as
// Redis's dbDelete), and, if anything went, touch WATCH and publish the
// type's event (then `del` when the key went). Replies how many went.

#include <cstdint>
#include <string_view>

#include "engine/context.hpp"
#include "pubsub/event_class.hpp"

namespace lawnkv {

// value: the live set, sorted set or hash at argv[1], or nullptr when the
// key is absent (the caller replied WRONGTYPE already for another type).
// V has bool remove(std::string_view) and bool empty().
template <class V>
void remove_members(Call& call, V* value, uint32_t event_class, std::string_view event) {
  const std::string_view key = call.argv[1];
  if (value == nullptr) return call.reply.integer(0);
  int64_t removed = 0;
  bool key_removed = false;
  for (size_t i = 2; i < call.argv.size(); ++i) {
    if (!value->remove(call.argv[i])) continue;
    ++removed;
    if (value->empty()) {
      call.db().remove(key);  // frees value
      key_removed = true;
      break;
    }
  }
  if (removed > 0) {
    call.modified(key, event_class, event);
    if (key_removed) call.notify(pubsub::kGeneric, "del", key);
  }
  call.reply.integer(removed);
}

}  // namespace lawnkv
