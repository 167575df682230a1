#include "server/io_threads.hpp"

#include <pthread.h>

#include <algorithm>
#include <string>

#include "core/allocator.hpp"

namespace lawnkv::server {

IoThreads::IoThreads(size_t threads) {
  for (size_t i = 0; i < threads; ++i) workers_.push_back(std::make_unique<Worker>());
  for (size_t i = 0; i < threads; ++i) {
    workers_[i]->thread = std::thread([this, i] { work(i); });
    // As Redis names its I/O threads (top -H, /proc/<pid>/task/*/comm).
    pthread_setname_np(workers_[i]->thread.native_handle(), ("io_thd_" + std::to_string(i + 1)).c_str());
  }
}

IoThreads::~IoThreads() {
  stop_ = true;
  for (auto& w : workers_) {
    w->round.fetch_add(1, std::memory_order_release);
    w->round.notify_one();
  }
  for (auto& w : workers_) w->thread.join();
}

void IoThreads::run(size_t count, const std::function<void(size_t)>& job) {
  if (count == 0) return;
  job_ = &job;
  count_ = count;
  // A round of fewer jobs than threads wakes only as many threads.
  active_ = std::min(count, workers_.size());
  busy_.store(static_cast<uint32_t>(active_), std::memory_order_relaxed);
  for (size_t i = 0; i < active_; ++i) {
    workers_[i]->round.fetch_add(1, std::memory_order_release);
    workers_[i]->round.notify_one();
  }
  for (uint32_t left = busy_.load(std::memory_order_acquire); left != 0;
       left = busy_.load(std::memory_order_acquire))
    busy_.wait(left, std::memory_order_acquire);
}

void IoThreads::work(size_t index) {
  Worker& me = *workers_[index];
  // Query buffers and replies are allocated here and freed on the loop
  // thread (and the other way round): used_memory counts both.
  allocator::join_counted_threads();
  uint32_t seen = 0;
  for (;;) {
    me.round.wait(seen, std::memory_order_acquire);
    seen = me.round.load(std::memory_order_acquire);
    if (stop_) {
      allocator::leave_counted_threads();
      return;
    }
    const size_t step = active_;
    for (size_t i = index; i < count_; i += step) (*job_)(i);
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) busy_.notify_one();
  }
}

}  // namespace lawnkv::server
