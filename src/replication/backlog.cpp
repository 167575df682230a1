#include "replication/backlog.hpp"

#include <algorithm>
#include <cassert>

namespace lawnkv::replication {

Backlog::Backlog(uint64_t size, int64_t next_offset) : buf_(std::max<uint64_t>(size, 1), '\0'), first_byte_offset_(next_offset) {}

void Backlog::append(std::string_view bytes) {
  const size_t cap = buf_.size();
  // Only the last cap bytes can stay; the ones before still count as passed.
  if (bytes.size() > cap) {
    const size_t skip = bytes.size() - cap;
    first_byte_offset_ += static_cast<int64_t>(histlen_ + skip);
    histlen_ = 0;
    bytes.remove_prefix(skip);
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const size_t n = std::min(bytes.size() - done, cap - next_);
    buf_.replace(next_, n, bytes.data() + done, n);
    next_ = (next_ + n) % cap;
    done += n;
  }
  histlen_ += bytes.size();
  if (histlen_ > cap) {
    first_byte_offset_ += static_cast<int64_t>(histlen_ - cap);
    histlen_ = cap;
  }
}

void Backlog::copy_from(int64_t offset, std::string& out) const {
  assert(covers(offset));
  const size_t cap = buf_.size();
  const size_t skip = static_cast<size_t>(offset - first_byte_offset_);
  size_t len = histlen_ - skip;
  // The oldest byte held sits histlen bytes before next_.
  size_t pos = (next_ + cap - histlen_ + skip) % cap;
  out.reserve(out.size() + len);
  while (len > 0) {
    const size_t n = std::min(len, cap - pos);
    out.append(buf_, pos, n);
    pos = (pos + n) % cap;
    len -= n;
  }
}

void Backlog::resize(uint64_t size) {
  size = std::max<uint64_t>(size, 1);
  if (size == buf_.size()) return;
  std::string kept;
  const uint64_t keep = std::min<uint64_t>(histlen_, size);
  const int64_t from = first_byte_offset_ + static_cast<int64_t>(histlen_ - keep);
  copy_from(from, kept);
  buf_.assign(size, '\0');
  buf_.replace(0, kept.size(), kept);
  next_ = kept.size() % size;
  histlen_ = kept.size();
  first_byte_offset_ = from;
}

}  // namespace lawnkv::replication
