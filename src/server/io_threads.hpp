#pragma once
// The I/O threads of `io-threads N` (N > 1), asynchronous as Valkey 8's:
// N - 1 threads, each with its own epoll, own the sockets of a share of the
// connections. A thread reads a connection's requests into its query buffer
// (and parses the first one; with io-threads-do-reads no the main thread's
// loop reads and parses instead, IoClient::io_reads, and the thread only
// writes), and hands the connection to the main thread
// over a lock-free queue; the main thread runs the requests, in each
// client's order, and hands the replies back to the thread to write. The
// main thread never polls, reads or writes a threaded socket, and no thread
// waits for another: the main thread is woken once for a batch of messages
// (an eventfd that a uv_poll_t watches, written only while the loop is
// asleep and no wake-up is pending: not uv_async_t, whose receiver spins
// while a sender is inside its write), a thread once for a batch of jobs
// (its eventfd, written only while it sleeps). Messages sent while the loop
// is awake cost no system call on either side: the loop looks at the queues
// before it sleeps (before_sleep).
//
// Who may touch what (so every command's semantics stay those of one
// thread: commands run on the main thread only):
// - The read side (the socket's reads, the query buffer, the parser)
//   belongs to whoever IoClient::input_owner names. The thread takes it
//   from kThreadIdle to read (kThreadReading) and gives it to the main
//   thread (kMain) with what it read; the main thread gives it back
//   (kThreadIdle, then a kResume job) once it has run what it could. The
//   main thread may take an idle read side back at any time (a CAS; it
//   waits out a read in progress, one system call): CLIENT PAUSE's end, an
//   unblocked client, the clients cron.
// - The output is the main thread's; it hands a filled buffer to the
//   thread with a kWrite job and does not touch that buffer until the
//   thread says the write is done. Most writes are done at once and the
//   main thread needs to know only when it next looks at the client (its
//   next read, its next flush): the thread says it through
//   IoClient::write_state alone, and sends no message (nor wakes the main
//   thread). The main thread asks for a kWritten message when it must act
//   on the end of the write: more output waits, a close after the reply,
//   reading paused behind the output, a big buffer to release.
// - The socket is closed by the main thread only after the thread has
//   dropped it from its epoll (kClose, then kClosed), so no thread ever
//   reads a descriptor that was closed and reused.
// The queues' release/acquire order is what makes the other side's writes
// visible; the states of input_owner, for the read side.

#include <sys/types.h>
#include <uv.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "server/spsc_queue.hpp"

namespace lawnkv::server {

// A connection as its I/O thread sees it.
class IoClient {
 public:
  enum : uint8_t { kThreadIdle = 0, kThreadReading = 1, kMain = 2 };
  std::atomic<uint8_t> input_owner{kMain};

  // The last write job's end, and who is told of it. The main thread sets
  // kWriteOut or kWriteNotify before it posts the job; it may turn
  // kWriteOut into kWriteNotify later (a compare-exchange). The thread,
  // once the write is done (or failed), turns kWriteOut into kWriteDone
  // (no message: the main thread takes the results in when it looks), or,
  // when a notice was asked for or the write failed, stores kWriteNotified
  // and sends kWritten. Exactly one of the two sides thus ends each job.
  enum : uint8_t { kWriteOut = 0, kWriteNotify = 1, kWriteDone = 2, kWriteNotified = 3 };
  std::atomic<uint8_t> write_state{kWriteDone};

  // On the I/O thread, while it owns the read side: reads what the socket
  // holds (parsing the first request); > 0 bytes read, 0 nothing now
  // (EAGAIN), < 0 a libuv error (UV_EOF at the end). *drained: the last
  // read met EAGAIN (under edge-triggered epoll, nothing more can be
  // there until the next event).
  virtual ssize_t io_read(bool* drained) = 0;
  // On the I/O thread, while a write job is out: writes what it can of the
  // handed output; true once it is all written or the write failed (*failed).
  virtual bool io_write(bool* failed) = 0;
  virtual int io_fd() const = 0;

  // Whether the thread reads the socket (io-threads-do-reads yes) or only
  // writes it (no: the main thread's loop reads it, as Redis 7.0's does):
  // set before the kAdd job, never changed after.
  bool io_reads = true;

  // The I/O thread's own notes (no other thread reads them).
  bool io_readable = false;  // an event came that no read has answered yet
  bool io_writing = false;   // a write job waits for room (EPOLLOUT armed)

 protected:
  ~IoClient() = default;
};

struct IoMessage {
  enum Kind : uint8_t {
    // main -> thread (bits of one job)
    kAdd = 1,     // start watching the socket (the read side is the thread's)
    kWrite = 2,   // write the handed output
    kResume = 4,  // the read side is the thread's again: read if it may have data
    kClose = 8,   // stop watching the socket, answer kClosed
    // thread -> main
    kRead = 16,     // value: io_read's result; the read side is the main thread's
    kWritten = 32,  // a write job the main thread asked to hear of (or that failed) is done
    kClosed = 64,   // the thread let go of the socket: it may be closed
  };
  IoClient* client = nullptr;
  uint8_t kind = 0;
  int64_t value = 0;
};

class IoThreads {
 public:
  // Starts `threads` (>= 1) threads. on_message runs on the loop's thread
  // for every message the threads send (the loop wakes for them through a
  // uv_poll_t on loop); before it runs those of a batch (what one thread
  // sent since the last drain), on_batch sees them all (to prefetch the
  // keys of their requests).
  using Batch = std::vector<IoMessage>;
  IoThreads(size_t threads, uv_loop_t* loop, std::function<void(const IoMessage&)> on_message,
            std::function<void(const Batch&)> on_batch);
  // Stops and joins the threads (stop()).
  ~IoThreads();
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  size_t threads() const { return workers_.size(); }
  // The thread a new connection goes to (in turn).
  size_t assign() { return next_++ % workers_.size(); }
  // Queues a job (kind bits) for thread i; it runs after the next kick().
  void post(size_t i, IoClient* c, uint8_t kinds);
  // Wakes the threads that were posted jobs since the last kick.
  void kick();
  // Runs on_message for every message waiting (the uv_poll_t's callback;
  // also called by a busy script's serve_while_busy).
  void drain();
  // The loop's last step before it may sleep (its prepare phase): a look
  // at the queues, which the threads filled without waking it while it
  // was awake. Messages found are drained at the start of the next
  // iteration (an idle handle keeps poll from blocking); with none, the
  // loop counts as asleep from here on, and the next message wakes it
  // through the eventfd.
  void before_sleep();
  // On the loop's thread: whether a thread's message waits in a queue.
  bool messages_waiting() const;
  // How many times a thread wrote the eventfd to wake the loop.
  uint64_t loop_wakeups() const { return loop_wakeups_.load(std::memory_order_relaxed); }
  // The threads finish the jobs they were posted (their kClosed messages
  // wait for drain()), then end; the loop's handle is closed. Idempotent.
  void stop();
  bool stopped() const { return stopped_; }

 private:
  struct Worker {
    std::thread thread;
    int epoll_fd = -1;
    int wake_fd = -1;                 // eventfd, in epoll_fd with a null pointer
    std::atomic<bool> asleep{false};  // in (or about to enter) epoll_wait
    std::atomic<bool> stop{false};
    bool posted = false;              // the main thread's: jobs since the last kick
    SpscQueue<IoMessage> jobs;        // main -> thread
    SpscQueue<IoMessage> messages;    // thread -> main
  };
  void work(Worker& w);
  void run_job(Worker& w, const IoMessage& job, bool* sent);
  void try_read(Worker& w, IoClient* c, bool* sent);
  void finish_write(Worker& w, IoClient* c, bool* sent);
  void watch(Worker& w, IoClient* c, int op, bool out);
  // On a thread, after it queued messages: wakes the main thread unless it
  // is awake or a wake-up is already pending.
  void notify_main();

  std::vector<std::unique_ptr<Worker>> workers_;
  std::function<void(const IoMessage&)> on_message_;
  std::function<void(const Batch&)> on_batch_;
  // drain()'s batch, swapped out while in use: a busy script under one of
  // its messages drains again, into a batch of its own.
  Batch scratch_;
  uv_poll_t poll_;
  uv_idle_t drain_idle_;  // active while before_sleep found messages: drains them
  int notify_fd_ = -1;    // eventfd the main thread's loop watches
  // The loop looks at the queues before it sleeps: it is awake (between a
  // wake-up and before_sleep's last look), or the eventfd was written and
  // not yet read. A thread that finds it false sets it and writes the
  // eventfd; a thread that finds it true writes nothing.
  std::atomic<bool> awake_{true};
  std::atomic<uint64_t> loop_wakeups_{0};
  size_t next_ = 0;
  bool stopped_ = false;
};

}  // namespace lawnkv::server
