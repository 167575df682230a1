#include "persistence/rdb_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/numbers.hpp"
#include "persistence/crc64.hpp"
#include "persistence/lzf.hpp"
#include "persistence/rdb_format.hpp"

namespace lawnkv::persistence {

bool FdSink::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      errno_ = errno;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

RdbOutput::RdbOutput(Sink& sink, bool compress, bool checksum)
    : sink_(sink), compress_(compress), checksum_(checksum) {
  buf_.reserve(kFlushAt + 16);
}

void RdbOutput::flush() {
  if (buf_.empty()) return;
  if (checksum_) crc_ = crc64(crc_, buf_.data(), buf_.size());
  if (ok_ && !sink_.write(buf_)) ok_ = false;
  flushed_ += buf_.size();
  buf_.clear();
}

void RdbOutput::bytes(std::string_view s) {
  if (buf_.size() + s.size() > kFlushAt) {
    flush();
    if (s.size() > kFlushAt) {
      // A long value goes straight through (CRC first, then the sink).
      if (checksum_) crc_ = crc64(crc_, s.data(), s.size());
      if (ok_ && !sink_.write(s)) ok_ = false;
      flushed_ += s.size();
      return;
    }
  }
  buf_.append(s);
}

void RdbOutput::len(uint64_t n) {
  if (n < 64) {
    byte(static_cast<uint8_t>(n));
  } else if (n < 16384) {
    byte(static_cast<uint8_t>(0x40 | (n >> 8)));
    byte(static_cast<uint8_t>(n & 0xff));
  } else if (n <= 0xffffffffULL) {
    byte(0x80);
    for (int shift = 24; shift >= 0; shift -= 8) byte(static_cast<uint8_t>(n >> shift));
  } else {
    byte(0x81);
    for (int shift = 56; shift >= 0; shift -= 8) byte(static_cast<uint8_t>(n >> shift));
  }
}

void RdbOutput::integer(int64_t v) {
  if (v >= -128 && v <= 127) {
    byte(0xC0);
    byte(static_cast<uint8_t>(v));
  } else if (v >= -32768 && v <= 32767) {
    byte(0xC1);
    byte(static_cast<uint8_t>(v));
    byte(static_cast<uint8_t>(v >> 8));
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    byte(0xC2);
    for (int shift = 0; shift < 32; shift += 8) byte(static_cast<uint8_t>(v >> shift));
  } else {
    char buf[kLongStrSize];
    const size_t n = ll_to_chars(buf, v);
    len(n);
    bytes(std::string_view(buf, n));
  }
}

void RdbOutput::string(std::string_view s) {
  long long v;
  if (s.size() <= 11 && string_to_ll(s, &v) && v >= INT32_MIN && v <= INT32_MAX) return integer(v);
  if (compress_ && s.size() > 20 && lzf_compress(s, s.size() - 4, scratch_)) {
    byte(0xC3);
    len(scratch_.size());
    len(s.size());
    bytes(scratch_);
    return;
  }
  len(s.size());
  bytes(s);
}

void RdbOutput::ms(int64_t t) {
  const auto u = static_cast<uint64_t>(t);
  for (int shift = 0; shift < 64; shift += 8) byte(static_cast<uint8_t>(u >> shift));
}

void RdbOutput::header(int version) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "REDIS%04d", version);
  bytes(buf);
}

void RdbOutput::aux(std::string_view name, std::string_view value) {
  byte(rdb::kOpAux);
  string(name);
  string(value);
}

bool RdbOutput::finish() {
  byte(rdb::kOpEof);
  flush();
  const uint64_t crc = checksum_ ? crc_ : 0;
  for (int shift = 0; shift < 64; shift += 8) buf_.push_back(static_cast<char>(crc >> shift));
  const bool keep = checksum_;
  checksum_ = false;  // the checksum is not part of itself
  flush();
  checksum_ = keep;
  return ok_;
}

}  // namespace lawnkv::persistence
