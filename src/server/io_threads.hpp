#pragma once
// The I/O threads of `io-threads N` (N > 1): N - 1 threads that the main
// thread hands a batch of jobs to and waits for, as Redis 6 and 7 do
// (handleClientsWithPendingWritesUsingThreads, ...ReadsUsingThreads).
//
// run(count, job) calls job(i) for every i in [0, count), job i on thread
// i % threads, and returns once every call has returned. While it waits, the
// main thread does nothing else: a job may touch whatever the main thread
// owns that no other job touches (one connection's buffers, its parser, its
// socket), with no lock, and what it wrote is visible to the main thread
// after run() (the release of each thread's count of finished jobs, the
// acquire of the wait). That barrier is what keeps every command's
// semantics: commands run on the main thread only, in each client's order,
// never while a thread touches a buffer.
//
// The main thread does not spin while it waits: it sleeps on a futex
// (std::atomic::wait), so its own CPU time counts only its share of the
// work, which is what the main-thread CPU per request of bench/iothreads
// measures. A thread with no work in a batch is not woken.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace lawnkv::server {

class IoThreads {
 public:
  // Starts `threads` (>= 1) threads, which sleep until run() wakes them.
  explicit IoThreads(size_t threads);
  // Stops and joins them (never while run() runs).
  ~IoThreads();
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  size_t threads() const { return workers_.size(); }

  // Calls job(i) for each i < count on the threads and waits for them all.
  // job must not throw.
  void run(size_t count, const std::function<void(size_t)>& job);

 private:
  struct Worker {
    std::thread thread;
    std::atomic<uint32_t> round{0};  // bumped by run() to wake this thread
  };
  void work(size_t index);

  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<uint32_t> busy_{0};  // threads of the current round not finished yet
  // The current round, written by run() before it wakes the threads.
  const std::function<void(size_t)>* job_ = nullptr;
  size_t count_ = 0;
  size_t active_ = 0;
  bool stop_ = false;
};

}  // namespace lawnkv::server
