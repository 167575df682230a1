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
// an I/O thread owns it (with io-threads-do-reads no the stream still reads
// it, as with one thread, and the thread only writes). The thread reads into the query buffer and parses
// the first request (io_read), then hands the read side to the main thread
// (after_read), which runs the requests and, at flush time, hands the
// replies to the thread to write (a kWrite job; after_write when it is done)
// and the read side back (a kResume job). Whatever of the read side the
// main thread reads while the thread holds it (CLIENT LIST's qbuf, the
// memory counts) comes from figures taken when it handed it over; the main
// thread takes it back (hold_input) before anything else. The socket is
// closed once the thread has let it go (after_close).
//
// TLS (a connection accepted on tls-port): the same stream carries
// ciphertext, and a TlsSession (tls_session.hpp) sits between it and the
// buffers: a read is decrypted into the query buffer, and flush() seals the
// replies just before it writes them. A plain connection pays one
// predictable test of tls_ per read and per flush. TLS connections stay on
// the main thread under io-threads (never threaded).

#include <uv.h>

#include <memory>
#include <string>

#include "config/config.hpp"
#include "engine/session.hpp"
#include "resp/parser.hpp"
#include "server/input_buffer.hpp"
#include "server/tls_session.hpp"
#include "server/io_threads.hpp"

namespace lawnkv::server {

// "ip:port" of a socket address, as CLIENT LIST prints addr= and laddr=.
std::string sockaddr_text(const sockaddr_storage& sa);

class ServerHost;

class Connection final : public Session, public IoClient {
 public:
  Connection(ServerHost& server, uint64_t id);
  ~Connection();
  uv_stream_t* stream() { return reinterpret_cast<uv_stream_t*>(&tcp_); }
  uv_tcp_t* tcp() { return &tcp_; }

  // Before start(): the connection speaks TLS through ssl (owned from here).
  void use_tls(SSL* ssl) { tls_ = std::make_unique<TlsSession>(ssl); }
  bool tls() const { return tls_ != nullptr; }
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

  // io-threads > 1: its socket's work is done by an I/O thread: its
  // writes, and its reads too with io-threads-do-reads yes.
  bool threaded() const { return io_ != nullptr; }
  bool thread_reads() const { return io_ != nullptr && io_->reads; }
  // The main thread's part of the thread's messages: the thread read
  // (nread as io_read returned it) and handed over the read side; the
  // write job is done; the thread let go of the socket.
  void after_read(ssize_t nread);
  void after_write();
  void after_close();
  // The I/O threads have stopped (shutdown): the socket is the main
  // thread's alone, and closing closes it at once.
  void detach_io();

  // IoClient, on the I/O thread.
  ssize_t io_read(bool* drained) override;
  bool io_write(bool* failed) override;
  int io_fd() const override { return fd_; }

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
  size_t query_buffer_bytes() const override {
    return io_ && !io_->input_held ? io_->qbuf : in_.size() - parser_.parsed_bytes();
  }
  size_t query_buffer_free() const override { return io_ && !io_->input_held ? io_->qbuf_free : in_.free_bytes(); }
  // Threaded: what was handed to the thread counts until it is written.
  size_t output_buffer_bytes() const override {
    if (!io_) return out_.size() + writing_.size() - writing_offset_;
    return out_.size() + (write_done_quietly() ? 0 : io_->write_bytes);
  }
  // CLIENT LIST's tot-mem, what maxmemory-clients counts: the connection
  // itself and the memory of its query and output buffers.
  size_t memory_bytes() const override {
    const size_t in = input_capacity();
    const size_t writing = io_ && io_->write_posted ? io_->writing_capacity : writing_.capacity();
    return sizeof(Connection) + in + out_.capacity() + writing;
  }
  void deliver(std::string_view frame) override;
  void close_soon() override;
  void resume() override;

 private:
  static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_write(uv_write_t* req, int status);
  static void on_close(uv_handle_t* h);

  // The loop's read callback's work once nread bytes were read (< 0: an
  // error or EOF, which close the connection).
  void handle_read(ssize_t nread);
  // The read callback's work for a TLS connection: nread bytes of
  // ciphertext are in the session's read room.
  void handle_tls_read(ssize_t nread);
  // The session failed or the peer ended it: logs a failed handshake as
  // Redis does, sends the alert OpenSSL left, closes.
  void tls_failed();
  // The query buffer room a read makes: 16 KB, or what a declared bulk
  // still needs.
  size_t read_room() const;
  // The query buffer's capacity (threaded, while the thread holds the read
  // side: as it was when it was handed over).
  size_t input_capacity() const { return io_ && !io_->input_held ? io_->in_capacity : in_.capacity(); }
  // Threaded: flush()'s work: hands the replies to the thread (unless a
  // write is out), the read side back once its requests have run, and
  // closes or resumes reading once the output has drained.
  void flush_threaded();
  // bytes of replies go to the kernel at now_ms (all_sent: and nothing is
  // left to send): CLIENT LIST's reply buffer figures
  // (engine/reply_buffer_figures.hpp).
  void note_reply_bytes(size_t bytes, bool all_sent, int64_t now_ms);
  // Threaded: takes the read side from the thread (waiting out a read in
  // progress), so the main thread may touch the query buffer and parser.
  void hold_input();
  // Threaded: gives it back, noting the figures the main thread reports
  // meanwhile; true if it did (the thread is to be sent kResume).
  bool release_input();
  // Threaded, a write job out (io_threads.hpp, IoClient::write_state):
  // whether the thread finished it without a message, for the main thread
  // to take in (take_write) when it next looks at the client.
  bool write_done_quietly() const;
  // Asks the thread for kWritten at the write's end; false if it is
  // already done quietly (take it in now).
  bool ask_write_notice();
  // The end of the write job, on the main thread: the output buffer is the
  // main thread's again and the statistics are corrected by what the
  // thread did. Returns the errno of a failed write (0: none).
  int take_write();

  // Pipelining: starts the cache misses of the keys of the next complete
  // requests in pending (up to store::Db::kPrefetchKeys) before they run;
  // returns how many bytes of pending those requests cover.
  size_t prefetch_keys(std::string_view pending);
  void process_input();
  bool query_buffer_over_limit() const;
  bool output_over_limit(int64_t now_ms);
  const config::OutputLimit& output_limit() const;
  // Whether output_over_limit could say yes: a client that logged in, under
  // a class with neither limit set and not over a soft one before, cannot
  // (the default for normal clients; spares the check after each request).
  bool output_limited(const config::OutputLimit& lim) const {
    return !authenticated || lim.hard_bytes > 0 || lim.soft_bytes > 0 || over_soft_limit();
  }
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
  size_t flush_slot_ = 0;  // its place in the server's flush list while queued
  bool holds_query_buffer_ = false;  // counted in ServerHost::query_buffers_held
  bool processing_ = false;  // inside process_input (which never runs twice at once)
  size_t counted_memory_ = 0;        // this connection's share of ServerHost::clients_memory
  int64_t soft_limit_since_ms_ = -1;  // output over its soft limit since (-1: not)
  std::string peer_, local_;
  int fd_ = -1;
  std::unique_ptr<TlsSession> tls_;  // null: plain TCP

  // What a threaded connection keeps apart (null with io-threads 1). The
  // main thread's fields, then the results the thread leaves for it (read
  // after the message that says they are there).
  struct ThreadedIo {
    size_t thread = 0;            // the I/O thread that owns the socket
    bool reads = true;            // it reads it too (io-threads-do-reads); else the loop does
    bool attached = false;        // the thread watches the socket (kClose due before closing it)
    bool input_held = false;      // the main thread holds the read side
    bool read_in_flight = false;  // taken back while a kRead was on its way: it is still to come
    bool write_posted = false;    // a kWrite job is out: writing_ is the thread's
    bool write_notice = false;    // its end comes as a kWritten message (asked for, or failed)
    size_t write_bytes = 0;       // handed to the thread, not yet known to be written
    // The read side's figures when it was handed to the thread, and
    // writing_'s capacity when it was.
    size_t in_capacity = 0, qbuf = 0, qbuf_free = 0, writing_capacity = 0;
    // What the thread parses with: authenticated when it was handed over
    // (ACL DELUSER clears another client's flag while its thread reads).
    bool authenticated = false;
    // Left by the thread.
    bool over_limit = false;      // the query buffer limit, checked before parsing
    bool parsed = false;          // the first request was parsed: status
    resp::Status status = resp::Status::kPending;
    const CommandSpec* found = nullptr;  // its row, when find_runnable found it
    size_t written = 0;
    uint64_t write_calls = 0;
    int write_error = 0;          // errno of a failed write
  };
  ThreadedIo* io_ = nullptr;

  friend class Server;
};

}  // namespace lawnkv::server
