#include "pubsub/notifier.hpp"

#include <string>

namespace lawnkv::pubsub {

void Notifier::publish(std::string_view event, std::string_view key, int db) {
  const std::string dbs = std::to_string(db);
  if (flags_ & kKeyspaceChannel) {
    std::string channel = "__keyspace@" + dbs + "__:";
    channel.append(key);
    publisher_->publish(channel, event);
  }
  if (flags_ & kKeyeventChannel) {
    std::string channel = "__keyevent@" + dbs + "__:";
    channel.append(event);
    publisher_->publish(channel, key);
  }
}

}  // namespace lawnkv::pubsub
