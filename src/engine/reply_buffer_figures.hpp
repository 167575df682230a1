#pragma once
// CLIENT LIST's rbs and rbp as Redis 7.0 reports them: the size of a
// client's fixed reply buffer (c->buf_usable_size) and the most bytes it held
// since the last reset (c->buf_peak). lawnkv has no such buffer: a
// connection's replies collect in one string that grows as needed and is
// emptied by each write (server/connection.hpp). So these figures follow
// Redis's rules over lawnkv's replies, as if that buffer were there:
//
//   - a client starts with 16 KiB, and a peak of 16 KiB (createClient);
//   - the replies of a batch (what one write sends) fill it, up to its size
//     (what does not fit goes to Redis's reply list): peak = max(peak, held);
//     a write that sends everything empties it;
//   - Redis's clientsCron visits each client every 1000/hz ms (with few
//     clients) and, in clientsCronResizeOutputBuffer: shrinks the buffer to
//     max(1 KiB, peak + 1) when peak < size / 2 and size / 2 >= 1 KiB, or
//     doubles it (up to 16 KiB) when the peak reached the size; and sets the
//     peak to what the buffer holds when 5 s (reply-buffer-peak-reset-time)
//     have passed since the last reset. Redis 7.0.15 sets the first reset
//     time in seconds and compares it with milliseconds: the first visit
//     resets the peak, and an idle client shows rbs=1024 rbp=0 from its
//     second visit on.
//
// The visits are not run: they are applied when bytes are added or the
// figures are read (catch_up). A visit that changes nothing, while the peak
// equals what is held, changes nothing after it either, so catching up over
// a long idle time is O(1).

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace lawnkv {

class ReplyBufferFigures {
 public:
  static constexpr size_t kChunkBytes = 16 * 1024;  // PROTO_REPLY_CHUNK_BYTES
  static constexpr size_t kMinBytes = 1024;         // PROTO_REPLY_MIN_BYTES
  static constexpr int64_t kPeakResetMs = 5000;     // reply-buffer-peak-reset-time

  // The client connected at now_ms.
  void start(int64_t now_ms) { last_visit_ms_ = now_ms; }

  // A write hands these reply bytes to the kernel at now_ms (visits every
  // period_ms); all_sent: the write sent all the output there was.
  void add(int64_t now_ms, int64_t period_ms, size_t bytes, bool all_sent) {
    catch_up(now_ms, period_ms);
    held_ = std::min(size_, held_ + bytes);
    peak_ = std::max(peak_, held_);
    if (all_sent) held_ = 0;
  }
  // What was left unsent when added has been sent.
  void sent() { held_ = 0; }

  // rbs and rbp at now_ms (reading applies the visits due: they change
  // nothing but these figures).
  size_t size(int64_t now_ms, int64_t period_ms) const {
    catch_up(now_ms, period_ms);
    return size_;
  }
  size_t peak(int64_t now_ms, int64_t period_ms) const {
    catch_up(now_ms, period_ms);
    return peak_;
  }

 private:
  void catch_up(int64_t now_ms, int64_t period_ms) const {
    if (last_visit_ms_ < 0 || period_ms <= 0) return;
    while (last_visit_ms_ + period_ms <= now_ms) {
      last_visit_ms_ += period_ms;
      const size_t size = size_, peak = peak_;
      visit(last_visit_ms_);
      if (size_ == size && peak_ == peak && peak_ == held_) {
        // Nothing moves any more: skip to the last visit before now_ms,
        // keeping the resets' phase (one every reset_every ms of visits).
        last_visit_ms_ += (now_ms - last_visit_ms_) / period_ms * period_ms;
        const int64_t reset_every = (kPeakResetMs + period_ms - 1) / period_ms * period_ms;
        last_reset_ms_ += (last_visit_ms_ - last_reset_ms_) / reset_every * reset_every;
        return;
      }
    }
  }

  // clientsCronResizeOutputBuffer at now_ms.
  void visit(int64_t now_ms) const {
    size_t resized = 0;
    if (size_ / 2 >= kMinBytes && peak_ < size_ / 2) {
      resized = std::max(kMinBytes, peak_ + 1);
    } else if (size_ * 2 < kChunkBytes * 2 && peak_ == size_) {
      resized = std::min(kChunkBytes, size_ * 2);
    }
    if (last_reset_ms_ < 0 || now_ms - last_reset_ms_ >= kPeakResetMs) {
      peak_ = held_;
      last_reset_ms_ = now_ms;
    }
    if (resized != 0) size_ = resized;
  }

  mutable size_t size_ = kChunkBytes;
  mutable size_t peak_ = kChunkBytes;
  size_t held_ = 0;
  mutable int64_t last_visit_ms_ = -1;  // the last visit's time (start: the connection's); -1: not started
  mutable int64_t last_reset_ms_ = -1;  // -1: the first visit resets
};

}  // namespace lawnkv
