#pragma once
// One client connection: reads into its query buffer, parses every complete
// request of a read in order, dispatches each, and writes all their replies
// together (one write per read batch when the socket takes it).
//
// Limits (client_limits.hpp), checked whenever its output grows: a client
// that breaks its class's client-output-buffer-limit, or that has not
// authenticated and has more than 16 KB of replies pending, is closed at
// once, as Redis closes it. Backpressure: once more than
// pause_output_bytes() of replies wait for a client that is not reading
// them (4 MB without a limit), its requests are not read (or parsed) until
// they drain, so a pipelining client that never reads cannot make the server
// buffer without bound, nor hold the loop for long with one batch.
// The memory of a Connection is freed in its uv_close callback.
//
// With io-threads > 1 (io_threads.hpp) the socket is not a libuv stream:
// a uv_poll_t watches it, the main thread collects the connections that
// became readable (ServerHost::read_ready) and writable, and the I/O
// threads run their system calls: read_job() reads into the query buffer
// and parses the first request (as Redis's I/O threads do), write_job()
// writes the pending replies. The main thread runs after_read() and
// after_write() for each once every job of the batch has returned: stats,
// limits, running the requests, closing. A job touches only this
// connection's buffers, parser and socket, and never runs while the main
// thread does anything else, so every command behaves as with one thread.

#include <uv.h>

#include <string>

#include "config/config.hpp"
#include "engine/session.hpp"
#include "resp/parser.hpp"
#include "server/input_buffer.hpp"

namespace lawnkv::server {

// "ip:port" of a socket address, as CLIENT LIST prints addr= and laddr=.
std::string sockaddr_text(const sockaddr_storage& sa);

class ServerHost;

class Connection final : public Session {
 public:
  Connection(ServerHost& server, uint64_t id);
  uv_stream_t* stream() { return reinterpret_cast<uv_stream_t*>(&tcp_); }
  uv_tcp_t* tcp() { return &tcp_; }

  // After accept: records addresses and starts reading.
  void start();
  // Reads what the socket holds now and runs it, as the loop's read
  // callback does, from outside the loop's callbacks (a busy script's
  // Server::serve_while_busy).
  void read_now();
  // Its requests are running now (a script may be busy under them): the
  // busy loop neither reads nor writes it.
  bool processing() const { return processing_; }
  // Hands pending output to the kernel; closes if the client asked for it.
  void flush();
  // Closes the socket now; the object is deleted by libuv's close callback.
  void close();
  bool closing() const { return closing_; }

  // io-threads > 1: its socket's work is done by I/O threads' jobs.
  bool threaded() const { return io_ != nullptr; }
  // On an I/O thread (or inline): reads what the socket holds into the
  // query buffer and parses the first request.
  void read_job();
  // On the main thread, after read_job: counts the read, checks the limits
  // and runs the requests, as the loop's read callback does.
  void after_read();
  // Whether write_job has something to write now: replies, or the rest of
  // a write the kernel refused, once the socket has become writable.
  bool wants_write() const;
  // On an I/O thread (or inline): writes the pending replies.
  void write_job();
  // On the main thread, after write_job (or in its place): counts what was
  // written, closes on an error or after a last reply, and resumes reading
  // once the output has drained, as flush() does.
  void after_write();

  // Closes this client if its pending output breaks its limits (counted in
  // client_output_buffer_limit_disconnections, logged as Redis logs it);
  // true if it did. from_cron: the clients cron found it, not a reply.
  bool close_if_output_over_limit(int64_t now_ms, bool from_cron);
  // The clients cron's visit to its query buffer (InputBuffer::
  // resize_from_cron): idle means nothing read or written for more than 2
  // whole seconds, as Redis's clientsCronResizeQueryBuffer.
  void resize_query_buffer(int64_t now_ms);

  // Seen at or over its soft output limit when last checked.
  bool over_soft_limit() const { return soft_limit_since_ms_ >= 0; }

  // Session
  std::string peer_address() const override { return peer_; }
  std::string local_address() const override { return local_; }
  int fd() const override { return fd_; }
  // As Redis's qbuf: the complete arguments of a pending request have left
  // Redis's query buffer (they are argv), so they do not count.
  size_t query_buffer_bytes() const override { return in_.size() - parser_.parsed_bytes(); }
  size_t query_buffer_free() const override { return in_.free_bytes(); }
  size_t output_buffer_bytes() const override { return out_.size() + writing_.size() - writing_offset_; }
  // CLIENT LIST's tot-mem, what maxmemory-clients counts: the connection
  // itself and the memory of its query and output buffers.
  size_t memory_bytes() const override {
    return sizeof(Connection) + in_.capacity() + out_.capacity() + writing_.capacity();
  }
  void deliver(std::string_view frame) override;
  void close_soon() override;
  void resume() override;

 private:
  static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_write(uv_write_t* req, int status);
  static void on_close(uv_handle_t* h);
  static void on_poll(uv_poll_t* h, int status, int events);

  // The loop's read callback's work once nread bytes were read (< 0: an
  // error or EOF, which close the connection).
  void handle_read(ssize_t nread);
  // Watches for what the connection waits for now (threaded): readable
  // while reading, writable while a write waits for room.
  void update_poll();

  // Pipelining: starts the cache misses of the keys of the next complete
  // requests in pending (up to store::Db::kPrefetchKeys) before they run;
  // returns how many bytes of pending those requests cover.
  size_t prefetch_keys(std::string_view pending);
  void process_input();
  bool query_buffer_over_limit() const;
  bool output_over_limit(int64_t now_ms);
  const config::OutputLimit& output_limit() const;
  void pause_reading();
  void resume_reading();
  // Tells the server whether this connection now holds a query buffer, and
  // how much memory it now uses (none once closing).
  void note_memory();

  ServerHost& server_;
  uv_tcp_t tcp_;
  uv_write_t write_req_;
  InputBuffer in_;
  resp::Parser parser_;
  std::string out_;      // replies not yet handed to the kernel
  std::string writing_;  // the uv_write in flight sends writing_[writing_offset_..]
  size_t writing_offset_ = 0;
  bool write_in_flight_ = false;
  bool reading_ = false;
  bool closing_ = false;
  bool queued_for_flush_ = false;
  bool holds_query_buffer_ = false;  // counted in ServerHost::query_buffers_held
  bool processing_ = false;  // inside process_input (which never runs twice at once)
  size_t counted_memory_ = 0;        // this connection's share of ServerHost::clients_memory
  int64_t soft_limit_since_ms_ = -1;  // output over its soft limit since (-1: not)
  std::string peer_, local_;
  int fd_ = -1;

  // What a threaded connection keeps apart (null with io-threads 1): the
  // poll handle (freed by its own close callback) and the results a job
  // leaves for the main thread.
  struct ThreadedIo {
    uv_poll_t poll;
    int events = 0;              // what poll watches now
    bool read_queued = false;    // in the server's read batch
    bool writable = false;       // poll saw the socket writable
    ssize_t read_result = 0;     // > 0 bytes read, 0 none (EAGAIN), < 0 a libuv error
    bool over_limit = false;     // the query buffer limit, checked before parsing
    bool parsed = false;         // the first request was parsed: status
    resp::Status status = resp::Status::kPending;
    size_t written = 0;
    uint64_t write_calls = 0;
    int write_error = 0;         // errno of a failed write
  };
  ThreadedIo* io_ = nullptr;

  friend class Server;
};

}  // namespace lawnkv::server
