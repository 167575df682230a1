#include "pubsub/notifier.hpp"

#include <charconv>
#include <cstring>
#include <string>

namespace lawnkv::pubsub {

namespace {

// "__keyspace@<db>__:<suffix>" or "__keyevent@<db>__:<suffix>", in a
// buffer on the stack when it fits (an event's channel, most keys'), so a
// keyspace event allocates nothing for its name.
class ChannelName {
 public:
  ChannelName(std::string_view prefix, int db, std::string_view suffix) {
    char digits[16];
    const auto end = std::to_chars(digits, digits + sizeof(digits), db).ptr;
    const std::string_view parts[] = {prefix, std::string_view(digits, static_cast<size_t>(end - digits)), "__:",
                                      suffix};
    size_t size = 0;
    for (std::string_view part : parts) size += part.size();
    char* p = buf_;
    if (size > sizeof(buf_)) {
      long_.resize(size);
      p = long_.data();
    }
    view_ = std::string_view(p, size);
    for (std::string_view part : parts) {
      std::memcpy(p, part.data(), part.size());
      p += part.size();
    }
  }
  ChannelName(const ChannelName&) = delete;
  ChannelName& operator=(const ChannelName&) = delete;
  std::string_view view() const { return view_; }

 private:
  char buf_[128];
  std::string long_;
  std::string_view view_;
};

}  // namespace

void Notifier::publish(std::string_view event, std::string_view key, int db) {
  if (!publisher_->has_subscribers()) return;
  if (flags_ & kKeyspaceChannel) publisher_->publish(ChannelName("__keyspace@", db, key).view(), event);
  if (flags_ & kKeyeventChannel) publisher_->publish(ChannelName("__keyevent@", db, event).view(), key);
}

}  // namespace lawnkv::pubsub
