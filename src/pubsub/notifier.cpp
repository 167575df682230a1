#include "pubsub/notifier.hpp"

#include <charconv>
#include <string>

namespace lawnkv::pubsub {

namespace {

// "__keyspace@<db>__:<suffix>" or "__keyevent@<db>__:<suffix>"
std::string channel_name(std::string_view prefix, int db, std::string_view suffix) {
  char digits[16];
  const auto end = std::to_chars(digits, digits + sizeof(digits), db).ptr;
  std::string channel;
  channel.reserve(prefix.size() + 16 + suffix.size());
  channel.append(prefix);
  channel.append(digits, end);
  channel.append("__:");
  channel.append(suffix);
  return channel;
}

}  // namespace

void Notifier::publish(std::string_view event, std::string_view key, int db) {
  if (!publisher_->has_subscribers()) return;
  if (flags_ & kKeyspaceChannel) publisher_->publish(channel_name("__keyspace@", db, key), event);
  if (flags_ & kKeyeventChannel) publisher_->publish(channel_name("__keyevent@", db, event), key);
}

}  // namespace lawnkv::pubsub
