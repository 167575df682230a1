#pragma once
// Loading an RDB file (versions 1 to 12; rdb_format.hpp) into a keyspace.
//
// What is refused, with a message naming the offset: a file that is not
// RDB, a version past 12, a checksum that does not match (unless the file
// carries 0, or checking is off), anything truncated or malformed, a db
// number past the configured databases, a key listed twice, functions and
// module data of other modules, and any value of a type lawnkv does not
// serve: "key 'events' (db 0) has type stream (RDB type 21), which lawnkv
// does not serve".
//
// Deadlines across a restart: a key whose deadline has passed is dropped as
// it is read (not loaded, no `expired` event: it expired while nothing was
// serving it), and so is a hash field; a dehydrator's elements keep their
// deadlines, so those whose time passed are due at once.
//
// Values are loaded one by one into the keyspace given, so a failure leaves
// it partly filled: load into a fresh keyspace and move the keys over on
// success (move_keys), as DEBUG RELOAD does, or give up the process, as
// start-up does.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/value_codecs.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::persistence {

struct LoadOptions {
  LoadContext values;
  bool verify_checksum = true;  // rdbchecksum
  // The RDB image may be followed by other bytes (an AOF's RDB preamble):
  // loading stops after its checksum and LoadResult::end says where.
  bool allow_trailing = false;
};

struct LoadResult {
  std::string error;            // "" on success
  size_t keys_loaded = 0;
  size_t keys_expired = 0;      // dropped: their deadline had passed
  int version = 0;
  size_t end = 0;               // bytes the RDB image took (allow_trailing)
  // FUNCTION libraries' code, in file order (RDB_OPCODE_FUNCTION2; a
  // Redis 7.0 release candidate's records turned into the same form).
  std::vector<std::string> functions;
  bool ok() const { return error.empty(); }
};

class Loader;

// Loading in steps, for a server that serves clients meanwhile (a replica's
// full sync: clients hear -LOADING between steps). The image is owned here;
// the keyspace must outlive the load.
class RdbLoad {
 public:
  enum class Step { kMore, kDone, kFailed };
  RdbLoad(std::string data, store::Keyspace& ks, LoadOptions opts);
  ~RdbLoad();
  RdbLoad(const RdbLoad&) = delete;
  RdbLoad& operator=(const RdbLoad&) = delete;

  // Loads until the end, an error, or enough() (asked after each key)
  // says true. After kDone or kFailed, result() is the whole load's.
  Step step(const std::function<bool()>& enough);
  const LoadResult& result() const { return result_; }
  size_t loaded_bytes() const;
  size_t total_bytes() const { return data_.size(); }

 private:
  std::string data_;
  LoadOptions opts_;
  LoadResult result_;
  std::unique_ptr<Loader> loader_;
  Step state_ = Step::kMore;
};

// Loading an RDB image as its bytes arrive (a replica's diskless load:
// repl-diskless-load), without the whole image in memory: only the bytes
// not yet parsed are held. A record (a key with its value, an opcode)
// whose bytes are not all there yet is read again once more have come;
// after such a miss the next try waits until the bytes held have doubled
// (or the image is whole), so a large value costs a bounded number of
// tries, not one per read. The CRC-64 runs over the bytes as they are
// dropped, and is checked against the image's at its end.
class RdbStreamLoad {
 public:
  enum class Step { kMore, kStarved, kDone, kFailed };
  RdbStreamLoad(store::Keyspace& ks, LoadOptions opts);
  ~RdbStreamLoad();
  RdbStreamLoad(const RdbStreamLoad&) = delete;
  RdbStreamLoad& operator=(const RdbStreamLoad&) = delete;

  // The image's next bytes.
  void feed(std::string_view bytes);
  // The image is whole: what remains must parse to its end.
  void finish() { complete_ = true; }
  // Loads what the bytes held allow, until enough() (asked after each key)
  // says so (kMore), the bytes run short (kStarved: feed more), the end
  // (kDone, once finish() was called) or an error (kFailed).
  Step step(const std::function<bool()>& enough);
  const LoadResult& result() const { return result_; }
  // Bytes received and not yet parsed (held in memory).
  size_t buffered() const { return buf_.size() - done_; }
  // Bytes of the image parsed so far.
  uint64_t loaded_bytes() const { return base_ + done_; }

 private:
  // Drops the parsed bytes from the buffer once they are many.
  void compact();

  LoadOptions opts_;
  LoadResult result_;
  std::unique_ptr<Loader> loader_;
  std::string buf_;
  size_t done_ = 0;         // of buf_: bytes parsed (up to the record being read)
  uint64_t base_ = 0;       // bytes of the image dropped before buf_
  uint64_t crc_ = 0;        // their CRC-64
  size_t retry_at_ = 0;     // after a miss: bytes held (from done_) before the next try
  bool complete_ = false;
  bool ended_ = false;      // the EOF opcode and checksum were read
  Step state_ = Step::kMore;
};

// Loads the RDB image data into ks.
LoadResult load_rdb(std::string_view data, store::Keyspace& ks, const LoadOptions& opts);

// Reads path whole into *data: "" or the error. *missing is set (and
// nothing read) when the file does not exist.
std::string read_rdb_file(const std::string& path, std::string* data, bool* missing);

// Reads path and loads it. *missing is set (and nothing loaded) when the
// file does not exist.
LoadResult load_rdb_file(const std::string& path, store::Keyspace& ks, const LoadOptions& opts, bool* missing);

// Moves every key of from into the same db of to (which must not hold any
// of them), with its deadline and its value's timed parts.
void move_keys(store::Keyspace& from, store::Keyspace& to);

}  // namespace lawnkv::persistence
