// Connection's side of io-threads > 1 (connection.hpp, io_threads.hpp): what
// its I/O thread runs (io_read, io_write), and what the main thread does
// with the thread's messages and at flush time.

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "engine/dispatch.hpp"
#include "server/client_limits.hpp"
#include "server/connection.hpp"
#include "server/host.hpp"

namespace lawnkv::server {

namespace {

constexpr size_t kReadChunk = 16 * 1024;
// Most reads for one event while what was read holds no complete request
// (a big upload), as libuv's uv__read.
constexpr int kReadsPerEvent = 32;
// Output buffers that grew past this are released once empty.
constexpr size_t kKeepOutputBytes = static_cast<size_t>(kPauseOutputBytes);

}  // namespace

ssize_t Connection::io_read(bool* drained) {
  // Reads of up to 16 KB (more for a declared bulk), as each of libuv's
  // reads; another only while the first request is not complete yet. The
  // query buffer limit is checked after each read, before any parsing.
  // The configuration is read from what the main thread published.
  const ServerHost::IoLimits& shared = server_.io_limits();
  resp::Limits limits;
  limits.max_bulk_len = shared.max_bulk_len.load(std::memory_order_relaxed);
  const int64_t qbuf_limit = shared.query_buffer_limit.load(std::memory_order_relaxed);
  io_->parsed = false;
  io_->over_limit = false;
  *drained = false;
  ssize_t total = 0;
  ssize_t last = 0;
  size_t parsed_size = 0;  // the query buffer's size when it was last parsed
  for (int i = 0; i < kReadsPerEvent; ++i) {
    const size_t wanted = parser_.bytes_wanted();
    size_t need = kReadChunk;
    if (wanted > in_.size() && wanted - in_.size() > need) need = wanted - in_.size();
    in_.reserve_free(need);
    do {
      last = ::read(fd_, in_.tail(), need);
    } while (last < 0 && errno == EINTR);
    if (last <= 0) break;
    in_.commit(static_cast<size_t>(last));
    total += last;
    io_->over_limit = static_cast<int64_t>(in_.size() - parser_.parsed_bytes()) > qbuf_limit;
    if (io_->over_limit || static_cast<size_t>(last) < need) break;
    io_->status = parser_.parse(in_.view(), limits, io_->authenticated);
    io_->parsed = true;
    parsed_size = in_.size();
    if (io_->status != resp::Status::kPending) break;
  }
  const bool again = last < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  *drained = again;
  if (total == 0) {
    if (again) return 0;
    // The end or an error: nothing more will come.
    *drained = true;
    return last == 0 ? static_cast<ssize_t>(UV_EOF) : static_cast<ssize_t>(-errno);
  }
  // An error or EOF after data: the next read meets it again. The first
  // request only, as Redis's I/O threads: the ones after it may depend on
  // what it does (AUTH changes the parser's limits), and the main thread
  // parses them as it runs them.
  if (!io_->over_limit && (!io_->parsed || parsed_size != in_.size())) {
    io_->status = parser_.parse(in_.view(), limits, io_->authenticated);
    io_->parsed = true;
  }
  // Its command's row too, as Valkey's I/O threads look it up.
  io_->found = io_->parsed && io_->status == resp::Status::kRequest
                   ? find_runnable(server_.state().commands, parser_.argv())
                   : nullptr;
  return total;
}

bool Connection::io_write(bool* failed) {
  while (writing_offset_ < writing_.size()) {
    ssize_t w;
    do {
      w = ::send(fd_, writing_.data() + writing_offset_, writing_.size() - writing_offset_, MSG_NOSIGNAL);
    } while (w < 0 && errno == EINTR);
    ++io_->write_calls;
    if (w < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      io_->write_error = errno;
      *failed = true;
      return true;
    }
    io_->written += static_cast<size_t>(w);
    writing_offset_ += static_cast<size_t>(w);
  }
  return true;
}

void Connection::after_read(ssize_t nread) {
  io_->input_held = true;
  io_->read_in_flight = false;
  if (closing_) return;
  // The reply to its last request was most likely written at once.
  if (write_done_quietly() && take_write() != 0) {
    close();
    return;
  }
  note_memory();  // the read made room in the query buffer
  handle_read(nread);
  if (io_ != nullptr) io_->parsed = false;  // not run: parsed again when it is
}

bool Connection::write_done_quietly() const {
  return io_->write_posted && !io_->write_notice &&
         write_state.load(std::memory_order_acquire) == kWriteDone;
}

bool Connection::ask_write_notice() {
  if (io_->write_notice) return true;
  uint8_t out = kWriteOut;
  if (write_state.compare_exchange_strong(out, kWriteNotify, std::memory_order_acq_rel) || out == kWriteNotified) {
    // Asked in time, or the write failed: its kWritten is on the way.
    io_->write_notice = true;
    return true;
  }
  return false;  // done quietly: take_write() now
}

int Connection::take_write() {
  io_->write_posted = false;
  io_->write_notice = false;
  // Counted when it was handed over as one call that writes it all
  // (flush_threaded): what the thread did differently.
  auto& stats = server_.state().facts.stats;
  stats.total_writes_processed += io_->write_calls - 1;
  const uint64_t unwritten = io_->write_bytes - io_->written;
  stats.total_net_output_bytes -= std::min<uint64_t>(unwritten, stats.total_net_output_bytes);
  io_->write_bytes = 0;
  const int error = io_->write_error;
  io_->write_calls = 0;
  io_->written = 0;
  io_->write_error = 0;
  writing_.clear();
  writing_offset_ = 0;
  if (writing_.capacity() > kKeepOutputBytes) writing_.shrink_to_fit();
  return error;
}

void Connection::after_write() {
  if (closing_) {
    take_write();
    return;
  }
  // A write that waited for room: the client interacted when it ended.
  if (io_->written > 0) last_interaction_ms = server_.io_batch_ms();
  const int error = take_write();
  note_memory();
  // A busy script runs under this client's command (its messages are
  // drained by serve_while_busy): the rest, a close included, waits for the
  // command's end, whose flush is queued.
  if (processing_) {
    if (error != 0) close_after_reply = true;
    return;
  }
  if (error != 0) {
    close();
    return;
  }
  flush_threaded();
}

void Connection::after_close() {
  io_->attached = false;
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_close);
}

void Connection::detach_io() {
  if (!io_ || !io_->attached) return;
  io_->attached = false;
  io_->input_held = true;
  io_->read_in_flight = false;
  if (closing_) uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_close);
}

void Connection::hold_input() {
  if (!io_ || io_->input_held) return;
  uint8_t side = kThreadIdle;
  while (!input_owner.compare_exchange_weak(side, kMain, std::memory_order_acquire)) {
    if (side == kMain) {
      // The thread handed it over, and its kRead is still on its way.
      io_->read_in_flight = true;
      break;
    }
    side = kThreadIdle;  // a read in progress: one system call
  }
  io_->input_held = true;
  // Given back at the flush.
  if (!queued_for_flush_ && !closing_) {
    queued_for_flush_ = true;
    server_.queue_flush(this);
  }
}

bool Connection::release_input() {
  if (!io_->reads || !io_->input_held || io_->read_in_flight || !reading_ || processing_ || closing_) return false;
  io_->in_capacity = in_.capacity();
  io_->qbuf = in_.size() - parser_.parsed_bytes();
  io_->qbuf_free = in_.free_bytes();
  io_->authenticated = authenticated;
  io_->input_held = false;
  input_owner.store(kThreadIdle, std::memory_order_release);
  return true;
}

void Connection::flush_threaded() {
  // Handing the output over swaps buffers and giving the read side back
  // keeps its figures: the memory counted changes only when a write ended.
  bool took = false;
  if (io_->write_posted) {
    // Take in a write done at once; ask to hear of one still out when what
    // comes next waits for its end.
    const bool waiting = !out_.empty() || close_after_reply || !reading_;
    if (write_done_quietly() || (waiting && !ask_write_notice())) {
      took = true;
      if (take_write() != 0) {
        close();
        return;
      }
    }
  }
  uint8_t job = 0;
  if (!io_->write_posted && !out_.empty()) {
    // out_ becomes the thread's writing_; replies made meanwhile collect in
    // the (swapped-in, empty) out_. (CLIENT LIST's reply buffer figures
    // count it as sent: the thread's write is not waited for.)
    note_reply_bytes(out_.size(), true, server_.flush_ms());
    writing_.swap(out_);
    out_.clear();
    writing_offset_ = 0;
    io_->write_posted = true;
    io_->write_bytes = writing_.size();
    io_->writing_capacity = writing_.capacity();
    // Counted as written now, in one call (take_write corrects it): most
    // writes are, and INFO then needs nothing of a write done quietly.
    auto& stats = server_.state().facts.stats;
    ++stats.io_threaded_writes_processed;
    ++stats.total_writes_processed;
    stats.total_net_output_bytes += writing_.size();
    last_interaction_ms = server_.flush_ms();
    // The end of the write matters at once when the client is to be
    // closed after it, reads nothing until its output drains, or holds a
    // buffer to give back: then a kWritten is asked for now.
    io_->write_notice = close_after_reply || !reading_ || writing_.capacity() > kKeepOutputBytes;
    // Published to the thread by the job's push.
    write_state.store(io_->write_notice ? kWriteNotify : kWriteOut, std::memory_order_relaxed);
    job |= IoMessage::kWrite;
  }
  if (!io_->write_posted && close_after_reply) {
    close();
    return;
  }
  if (!io_->write_posted && !reading_) {
    // Output has drained: serve the requests left unread while paused.
    resume_reading();
    if (in_.size() > 0) process_input();
    if (closing_) return;
  }
  if (release_input()) job |= IoMessage::kResume;
  if (job != 0) server_.io_threads().post(io_->thread, this, job);
  if (took) note_memory();
}

}  // namespace lawnkv::server
