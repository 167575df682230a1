#include "server/io_threads.hpp"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <time.h>

#include <cerrno>
#include <string>

#include "core/allocator.hpp"

namespace lawnkv::server {

namespace {

constexpr int kEvents = 256;  // epoll events taken a wait
// After a round that handed the main thread work, a thread watches its job
// queue this long before it sleeps: the replies to what it handed over
// usually come back within it, and then neither the main thread's wake-up
// write (kick) nor this thread's sleep and wake-up is paid.
constexpr int64_t kSpinNs = 50'000;

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Waits up to kSpinNs for a job; true if one came.
bool spin_for_jobs(const SpscQueue<IoMessage>& jobs) {
  const int64_t until = now_ns() + kSpinNs;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (!jobs.empty()) return true;
      cpu_relax();
    }
    if (now_ns() >= until) return false;
  }
}

}  // namespace

IoThreads::IoThreads(size_t threads, uv_loop_t* loop, std::function<void(const IoMessage&)> on_message,
                     std::function<void(const Batch&)> on_batch)
    : on_message_(std::move(on_message)), on_batch_(std::move(on_batch)) {
  notify_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  uv_poll_init(loop, &poll_, notify_fd_);
  poll_.data = this;
  uv_poll_start(&poll_, UV_READABLE, [](uv_poll_t* h, int, int) {
    auto* self = static_cast<IoThreads*>(h->data);
    // The writer left awake_ set: the loop is awake until before_sleep
    // clears it, and messages sent meanwhile wait for its look.
    uint64_t count;
    [[maybe_unused]] const ssize_t r = ::read(self->notify_fd_, &count, sizeof count);
    self->drain();
  });
  uv_idle_init(loop, &drain_idle_);
  drain_idle_.data = this;
  for (size_t i = 0; i < threads; ++i) {
    auto w = std::make_unique<Worker>();
    w->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
    w->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;
    ::epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, w->wake_fd, &ev);
    workers_.push_back(std::move(w));
  }
  for (size_t i = 0; i < threads; ++i) {
    Worker& w = *workers_[i];
    w.thread = std::thread([this, &w] { work(w); });
    // As Redis names its I/O threads (top -H, /proc/<pid>/task/*/comm).
    pthread_setname_np(w.thread.native_handle(), ("io_thd_" + std::to_string(i + 1)).c_str());
  }
}

IoThreads::~IoThreads() {
  stop();
  ::close(notify_fd_);
}

void IoThreads::stop() {
  if (stopped_) return;
  stopped_ = true;
  for (auto& w : workers_) {
    w->stop.store(true, std::memory_order_release);
    w->posted = true;
  }
  kick();
  for (auto& w : workers_) {
    w->thread.join();
    ::close(w->epoll_fd);
    ::close(w->wake_fd);
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&poll_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&drain_idle_), nullptr);
}

void IoThreads::notify_main() {
  // Against before_sleep's clearing of awake_ and its look at the queues:
  // either it sees these messages, or this sees it asleep and wakes it.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (awake_.load(std::memory_order_relaxed) || awake_.exchange(true, std::memory_order_seq_cst)) return;
  loop_wakeups_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(notify_fd_, &one, sizeof one);
}

bool IoThreads::messages_waiting() const {
  for (const auto& w : workers_)
    if (!w->messages.empty()) return true;
  return false;
}

void IoThreads::before_sleep() {
  if (stopped_) return;
  // No watch of the queues before sleeping: the threads' next batch comes
  // a read and a write round later (a hundred µs and more at -P 1), so a
  // spin long enough to catch it costs the main thread more CPU than the
  // wake-up it saves (bench/results/iothreads.md).
  bool found = messages_waiting();
  if (!found) {
    awake_.store(false, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    found = messages_waiting();
    // Awake again: a thread that saw it asleep meanwhile wrote the eventfd
    // too (one wake-up that finds little to drain).
    if (found) awake_.store(true, std::memory_order_relaxed);
  }
  if (found && !uv_is_active(reinterpret_cast<uv_handle_t*>(&drain_idle_))) {
    uv_idle_start(&drain_idle_, [](uv_idle_t* h) {
      uv_idle_stop(h);
      static_cast<IoThreads*>(h->data)->drain();
    });
  }
}

void IoThreads::post(size_t i, IoClient* c, uint8_t kinds) {
  Worker& w = *workers_[i];
  w.jobs.push(IoMessage{c, kinds, 0});
  w.posted = true;
}

void IoThreads::kick() {
  for (auto& w : workers_) {
    if (!w->posted) continue;
    w->posted = false;
    // Against the thread's store of asleep and its look at the queue: either
    // it sees the jobs, or this sees it asleep and wakes it.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (w->asleep.exchange(false, std::memory_order_seq_cst)) {
      const uint64_t one = 1;
      [[maybe_unused]] const ssize_t n = ::write(w->wake_fd, &one, sizeof one);
    }
  }
}

void IoThreads::drain() {
  Batch batch;
  batch.swap(scratch_);
  for (auto& w : workers_) {
    batch.clear();
    IoMessage m;
    while (w->messages.pop(&m)) batch.push_back(m);
    if (batch.empty()) continue;
    on_batch_(batch);
    for (const IoMessage& each : batch) on_message_(each);
  }
  batch.clear();
  scratch_.swap(batch);
}

void IoThreads::watch(Worker& w, IoClient* c, int op, bool out) {
  epoll_event ev{};
  const uint32_t in = c->io_reads ? static_cast<uint32_t>(EPOLLIN | EPOLLRDHUP) : 0u;
  ev.events = in | EPOLLET | (out ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  ev.data.ptr = c;
  ::epoll_ctl(w.epoll_fd, op, c->io_fd(), &ev);
}

void IoThreads::try_read(Worker& w, IoClient* c, bool* sent) {
  uint8_t idle = IoClient::kThreadIdle;
  if (!c->input_owner.compare_exchange_strong(idle, IoClient::kThreadReading, std::memory_order_acquire)) {
    // The main thread holds it: read when it gives it back (kResume).
    c->io_readable = true;
    return;
  }
  bool drained = false;
  const ssize_t result = c->io_read(&drained);
  c->io_readable = !drained;
  if (result == 0) {
    c->input_owner.store(IoClient::kThreadIdle, std::memory_order_release);
    return;
  }
  c->input_owner.store(IoClient::kMain, std::memory_order_release);
  w.messages.push(IoMessage{c, IoMessage::kRead, result});
  *sent = true;
}

void IoThreads::finish_write(Worker& w, IoClient* c, bool* sent) {
  bool failed = false;
  if (!c->io_write(&failed)) {
    if (!c->io_writing) watch(w, c, EPOLL_CTL_MOD, true);
    c->io_writing = true;
    return;
  }
  if (c->io_writing) watch(w, c, EPOLL_CTL_MOD, false);
  c->io_writing = false;
  // The client's write results are the main thread's from the state's
  // change on (release): nothing of the job is touched after it.
  uint8_t out = IoClient::kWriteOut;
  if (!failed && c->write_state.compare_exchange_strong(out, IoClient::kWriteDone, std::memory_order_acq_rel))
    return;
  c->write_state.store(IoClient::kWriteNotified, std::memory_order_release);
  w.messages.push(IoMessage{c, IoMessage::kWritten, 0});
  *sent = true;
}

void IoThreads::run_job(Worker& w, const IoMessage& job, bool* sent) {
  IoClient* c = job.client;
  if (job.kind & IoMessage::kClose) {
    ::epoll_ctl(w.epoll_fd, EPOLL_CTL_DEL, c->io_fd(), nullptr);
    w.messages.push(IoMessage{c, IoMessage::kClosed, 0});
    *sent = true;
    return;
  }
  if (job.kind & IoMessage::kAdd) {
    c->io_readable = c->io_reads;
    c->io_writing = false;
    watch(w, c, EPOLL_CTL_ADD, false);
  }
  if (job.kind & IoMessage::kWrite) finish_write(w, c, sent);
  if ((job.kind & (IoMessage::kResume | IoMessage::kAdd)) && c->io_readable) try_read(w, c, sent);
}

void IoThreads::work(Worker& w) {
  // Query buffers and replies are allocated here and freed on the loop
  // thread (and the other way round): used_memory counts both.
  allocator::join_counted_threads();
  epoll_event events[kEvents];
  bool handed = false;  // the last round sent the main thread messages
  for (;;) {
    bool sent = false;
    bool worked = false;  // ran jobs (replies written, quietly or not)
    IoMessage job;
    while (w.jobs.pop(&job)) {
      run_job(w, job, &sent);
      worked = true;
    }
    if (sent) notify_main();
    if (w.stop.load(std::memory_order_acquire)) break;
    // After replies went out too: the clients' next requests then wait a
    // moment for the socket events to gather, and this thread and the main
    // thread are woken once for them instead of once each.
    if ((handed || sent || worked) && spin_for_jobs(w.jobs)) {
      handed = false;
      continue;
    }
    handed = false;
    w.asleep.store(true, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // stop() posts no job: its flag is looked at here too, after asleep is
    // set, or a stop that found the thread still awake would never wake it.
    if (!w.jobs.empty() || w.stop.load(std::memory_order_acquire)) {
      w.asleep.store(false, std::memory_order_relaxed);
      continue;
    }
    const int n = ::epoll_wait(w.epoll_fd, events, kEvents, -1);
    w.asleep.store(false, std::memory_order_relaxed);
    sent = false;
    for (int i = 0; i < n; ++i) {
      auto* c = static_cast<IoClient*>(events[i].data.ptr);
      if (c == nullptr) {
        uint64_t count;
        [[maybe_unused]] const ssize_t r = ::read(w.wake_fd, &count, sizeof count);
        continue;
      }
      // An error or hang-up: the next read or write meets it and reports it.
      const uint32_t ev = events[i].events;
      if ((ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && c->io_writing) finish_write(w, c, &sent);
      if (c->io_reads && (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
        c->io_readable = true;
        try_read(w, c, &sent);
      }
    }
    if (sent) notify_main();
    handed = sent;
  }
  allocator::leave_counted_threads();
}

}  // namespace lawnkv::server
