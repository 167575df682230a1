#include "replication/sync_payload.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/numbers.hpp"

namespace lawnkv::replication {

SyncPayload::~SyncPayload() {
  if (file_) std::fclose(file_);
}

SyncPayload::Status SyncPayload::fail(std::string text) {
  error_ = std::move(text);
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
  return Status::kFailed;
}

SyncPayload::Status SyncPayload::feed(std::string_view bytes, size_t* consumed) {
  *consumed = 0;
  while (!in_body_) {
    const size_t nl = bytes.find('\n', *consumed);
    if (nl == std::string_view::npos) {
      line_.append(bytes.substr(*consumed));
      *consumed = bytes.size();
      return Status::kMore;
    }
    line_.append(bytes.substr(*consumed, nl - *consumed));
    *consumed = nl + 1;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    std::string line = std::move(line_);
    line_.clear();
    if (line.empty()) continue;  // a keepalive
    if (const Status st = header(line); st != Status::kMore) return st;
  }
  const std::string_view body = bytes.substr(*consumed);
  if (size_ >= 0) {
    const size_t take = std::min<uint64_t>(body.size(), static_cast<uint64_t>(size_) - received_);
    *consumed += take;
    if (const Status st = write(body.substr(0, take)); st != Status::kMore) return st;
    return received_ == static_cast<uint64_t>(size_) ? finish() : Status::kMore;
  }
  *consumed = bytes.size();
  if (const Status st = write(body); st != Status::kMore) return st;
  tail_.append(body);
  if (tail_.size() > kMarkLen) tail_.erase(0, tail_.size() - kMarkLen);
  return tail_ == mark_ ? finish() : Status::kMore;
}

SyncPayload::Status SyncPayload::header(std::string_view line) {
  if (line[0] == '-') return fail("MASTER aborted replication with an error: " + std::string(line.substr(1)));
  if (line[0] != '$')
    return fail("Bad protocol from MASTER, the first byte is not '$' (we received '" + std::string(line) +
                "'), are you sure the host and port are right?");
  if (line.substr(1, 4) == "EOF:" && line.size() >= 5 + kMarkLen) {
    mark_ = std::string(line.substr(5, kMarkLen));
  } else {
    long long n = 0;
    if (!string_to_ll(line.substr(1), &n) || n < 0) return fail("Bad payload size from MASTER: " + std::string(line));
    size_ = n;
  }
  in_body_ = true;
  if (in_memory()) return Status::kMore;
  file_ = std::fopen(path_.c_str(), "wb");
  if (file_ == nullptr)
    return fail("Opening the temp file needed for MASTER <-> REPLICA synchronization: " +
                std::string(std::strerror(errno)));
  return Status::kMore;
}

SyncPayload::Status SyncPayload::write(std::string_view bytes) {
  if (bytes.empty()) return Status::kMore;
  if (sink_) {
    received_ += bytes.size();
    if (mark_.empty()) {
      sink_(bytes);
      return Status::kMore;
    }
    // The last kMarkLen bytes may be the mark: they wait for what follows.
    if (bytes.size() >= kMarkLen) {
      if (!held_.empty()) sink_(held_);
      sink_(bytes.substr(0, bytes.size() - kMarkLen));
      held_.assign(bytes.substr(bytes.size() - kMarkLen));
    } else {
      held_.append(bytes);
      if (held_.size() > kMarkLen) {
        sink_(std::string_view(held_).substr(0, held_.size() - kMarkLen));
        held_.erase(0, held_.size() - kMarkLen);
      }
    }
    return Status::kMore;
  }
  if (in_memory()) {
    data_.append(bytes);
    received_ += bytes.size();
    return Status::kMore;
  }
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    return fail("Write error or short write writing to the DB dump file needed for MASTER <-> REPLICA "
                "synchronization: " + std::string(std::strerror(errno)));
  received_ += bytes.size();
  return Status::kMore;
}

SyncPayload::Status SyncPayload::finish() {
  if (sink_) return Status::kDone;  // what is held is the mark
  if (in_memory()) {
    // The mark is no part of the snapshot.
    if (!mark_.empty()) data_.resize(data_.size() - kMarkLen);
    return Status::kDone;
  }
  if (std::fflush(file_) != 0) return fail("Failed trying to flush the temp DB: " + std::string(std::strerror(errno)));
  // The mark is no part of the snapshot.
  if (!mark_.empty() && ::ftruncate(fileno(file_), static_cast<off_t>(received_ - kMarkLen)) != 0)
    return fail("Error trying to remove the EOF mark from the temp DB: " + std::string(std::strerror(errno)));
  std::fclose(file_);
  file_ = nullptr;
  return Status::kDone;
}

}  // namespace lawnkv::replication
