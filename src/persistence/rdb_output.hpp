#pragma once
// Writing RDB's encodings: lengths, strings (integer, LZF or raw, as Redis's
// rdbSaveRawString chooses), millisecond times and module items, through a
// 64 KB buffer to a Sink, with the running CRC-64 of what went out.
//
//   length   < 64         1 byte   00LLLLLL
//            < 16384      2 bytes  01LLLLLL LLLLLLLL (big-endian)
//            < 2^32       5 bytes  0x80 + 32 bits big-endian
//            else         9 bytes  0x81 + 64 bits big-endian
//   string   up to 11 bytes that read as an integer in int32 range ("12",
//            "-7", not "012"): 0xC0 + int8 | 0xC1 + int16 | 0xC2 + int32,
//            little-endian;
//            else, when compressing and longer than 20 bytes, and LZF saves
//            at least 4 bytes: 0xC3 <len compressed> <len original> <LZF>;
//            else <len> <bytes>.
//
// The AOF's RDB preamble is meant to reuse this with a sink on its file.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "persistence/rdb_format.hpp"

namespace lawnkv::persistence {

// Where written bytes go. write returns false on an error (the writer then
// stops writing and reports failure).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual bool write(std::string_view bytes) = 0;
};

// Appends to a string (tests, DUMP-like uses).
class StringSink final : public Sink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}
  bool write(std::string_view bytes) override {
    out_.append(bytes);
    return true;
  }

 private:
  std::string& out_;
};

// Writes to a file descriptor (retrying short writes and EINTR).
class FdSink final : public Sink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}
  bool write(std::string_view bytes) override;
  int error() const { return errno_; }

 private:
  int fd_;
  int errno_ = 0;
};

class RdbOutput {
 public:
  // compress: rdbcompression; checksum: rdbchecksum (no: the CRC is 0).
  RdbOutput(Sink& sink, bool compress, bool checksum);
  RdbOutput(const RdbOutput&) = delete;
  RdbOutput& operator=(const RdbOutput&) = delete;

  void byte(uint8_t b) {
    if (buf_.size() >= kFlushAt) flush();
    buf_.push_back(static_cast<char>(b));
  }
  void bytes(std::string_view s);
  void len(uint64_t n);
  void string(std::string_view s);
  // A string holding v's decimal form (written as an integer when it fits).
  void integer(int64_t v);
  // 8 bytes little-endian (expiry times).
  void ms(int64_t t);
  // Items of a module value (RDB_TYPE_MODULE_2).
  void module_uint(uint64_t v) {
    len(rdb::kModuleUint);
    len(v);
  }
  void module_string(std::string_view s) {
    len(rdb::kModuleString);
    string(s);
  }

  // The header: "REDIS" and the 4-digit version.
  void header(int version);
  // An AUX field (0xFA name value).
  void aux(std::string_view name, std::string_view value);
  // The EOF opcode and the checksum, then everything to the sink. False if
  // any write failed.
  bool finish();
  // Everything buffered goes to the sink now (a DUMP payload, which has no
  // EOF). False if any write failed.
  bool drain() {
    flush();
    return ok_;
  }
  bool ok() const { return ok_; }
  // Bytes handed to the sink plus those still buffered.
  uint64_t written() const { return flushed_ + buf_.size(); }

 private:
  static constexpr size_t kFlushAt = 64 * 1024;
  void flush();

  Sink& sink_;
  bool compress_;
  bool checksum_;
  bool ok_ = true;
  uint64_t crc_ = 0;
  uint64_t flushed_ = 0;
  std::string buf_;
  std::string scratch_;  // LZF output
};

}  // namespace lawnkv::persistence
