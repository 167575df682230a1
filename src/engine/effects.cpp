#include "engine/effects.hpp"

#include <algorithm>

namespace lawnkv {

namespace {

std::vector<std::string> strings(std::initializer_list<std::string_view> argv) {
  return std::vector<std::string>(argv.begin(), argv.end());
}

}  // namespace

void Effects::attach(EffectSink* sink) {
  if (std::find(sinks_.begin(), sinks_.end(), sink) == sinks_.end()) sinks_.push_back(sink);
}

void Effects::detach(EffectSink* sink) {
  std::erase(sinks_, sink);
  if (sinks_.empty()) {
    pending_.clear();
    batched_.clear();
  }
}

void Effects::begin() {
  if (sinks_.empty()) return;
  flush_batch();
  frames_.emplace_back();
}

void Effects::end(int db, std::span<const std::string_view> argv, bool record_own) {
  // A frame is popped even when the sink went meanwhile, so none is left
  // behind to hold back the records of later commands.
  if (frames_.empty()) return;
  Frame frame = std::move(frames_.back());
  frames_.pop_back();
  if (sinks_.empty()) return;
  if (record_own && !frame.dropped) {
    if (frame.replacement) {
      pending_.push_back({db, std::move(*frame.replacement)});
    } else {
      pending_.push_back({db, std::vector<std::string>(argv.begin(), argv.end())});
    }
  }
  flush_if_outside();
}

void Effects::replace_own(std::initializer_list<std::string_view> argv) {
  if (!sinks_.empty() && !frames_.empty()) frames_.back().replacement = strings(argv);
}

void Effects::replace_own(std::vector<std::string> argv) {
  if (!sinks_.empty() && !frames_.empty()) frames_.back().replacement = std::move(argv);
}

void Effects::drop_own() {
  if (!sinks_.empty() && !frames_.empty()) frames_.back().dropped = true;
}

void Effects::add(int db, std::initializer_list<std::string_view> argv) {
  if (!sinks_.empty()) add(db, strings(argv));
}

void Effects::add(int db, std::vector<std::string> argv) {
  if (sinks_.empty()) return;
  if (batching_ && frames_.empty()) {
    batched_.push_back({db, std::move(argv)});
    return;
  }
  pending_.push_back({db, std::move(argv)});
  flush_if_outside();
}

void Effects::flush_if_outside() {
  if (!frames_.empty() || pending_.empty()) return;
  for (EffectSink* sink : sinks_) sink->append(pending_);
  pending_.clear();
}

void Effects::flush_batch() {
  if (batched_.empty()) return;
  for (EffectSink* sink : sinks_) sink->append_each(batched_);
  batched_.clear();
}

void Effects::key_expired(int db, std::string_view key) {
  add(db, {"DEL", key});
  if (next_ != nullptr) next_->key_expired(db, key);
}

void Effects::parts_expired(int db, std::string_view key, std::span<const std::string> parts,
                            bool key_deleted) {
  if (!sinks_.empty()) {
    std::vector<std::string> argv{"HDEL", std::string(key)};
    argv.insert(argv.end(), parts.begin(), parts.end());
    add(db, std::move(argv));
  }
  if (next_ != nullptr) next_->parts_expired(db, key, parts, key_deleted);
}

}  // namespace lawnkv
