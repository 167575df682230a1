#pragma once
// A replica's full sync loads the primary's snapshot in steps of about a
// millisecond of work each, so the loop serves clients in between; while
// it runs ServerFacts::loading is set, and dispatch answers every command
// without the loading flag "-LOADING Redis is loading the dataset in
// memory", as Redis does while it loads (between its loading-process-
// events-interval-bytes turns of the event loop).
//
// With repl-diskless-load the snapshot loads as it arrives
// (begin_streaming, feed, input_done: persistence::RdbStreamLoad): no file,
// and only the bytes not yet parsed are held.
//
// The snapshot loads into a fresh keyspace; the dataset is replaced by it
// only once whole (Snapshots::adopt_dataset), so a failed load or a link
// dropped meanwhile leaves the dataset as it was.
//
// With appendonly yes the append-only file starts anew once the dataset is
// replaced (a rewrite writes the new dataset as its base; the stream is
// appended after it), so a restart brings back the primary's data.
//
// key-load-delay (Redis's test hook) acts as in Redis: microseconds slept
// after each key; a negative value -n sleeps 1 us after one key in n, on
// average.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/server_state.hpp"
#include "persistence/rdb_loader.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::replication {

class SnapshotLoad {
 public:
  // kStarved: a streamed load parsed what it holds and waits for bytes.
  enum class Status { kMore, kStarved, kDone, kFailed };
  // Work per step before it gives the loop back.
  static constexpr int64_t kStepNs = 1'000'000;

  explicit SnapshotLoad(ServerState& server);
  ~SnapshotLoad();
  SnapshotLoad(const SnapshotLoad&) = delete;
  SnapshotLoad& operator=(const SnapshotLoad&) = delete;

  // The snapshot received into temp becomes dir/dbfilename and starts to
  // load. Returns "" or why it cannot.
  std::string begin(const std::string& temp, int64_t now_ms);
  // repl-diskless-load: the snapshot loads as its bytes come (feed), whole
  // once input_done(); no file is written. With async the old dataset
  // serves clients meanwhile (ServerFacts::async_loading: only
  // no-async-loading commands are refused), as Redis's swapdb load of the
  // history it already follows.
  void begin_streaming(int64_t now_ms, bool async);
  void feed(std::string_view bytes) { stream_->feed(bytes); }
  void input_done() { stream_->finish(); }
  bool streaming() const { return stream_ != nullptr; }
  // Streamed: bytes received and not yet parsed.
  size_t buffered() const { return stream_ ? stream_->buffered() : 0; }
  // One step. kDone: the dataset is the snapshot's; kFailed: error() says
  // why, the dataset is unchanged.
  Status step();
  const std::string& error() const { return error_; }
  const persistence::LoadResult& result() const { return stream_ ? stream_->result() : load_->result(); }

 private:
  void start(std::string data, int64_t now_ms, bool async);
  void set_loading(int64_t now_ms, bool async, size_t total_bytes);
  // The load is over: the fresh keyspace replaces the dataset.
  void adopt();
  void finish_loading();

  ServerState& server_;
  store::Keyspace fresh_;
  std::unique_ptr<persistence::RdbLoad> load_;
  std::unique_ptr<persistence::RdbStreamLoad> stream_;
  std::string error_;
  uint64_t delay_calls_ = 0;  // negative key-load-delay: keys since the last sleep
};

}  // namespace lawnkv::replication
