#include "resp/parser.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "core/error_format.hpp"
#include "core/numbers.hpp"
#include "core/split_args.hpp"
#include "resp/number_line.hpp"

namespace lawnkv::resp {

namespace {

constexpr size_t kNpos = std::string_view::npos;

// Above this many slots a finished request's vectors are released rather than
// kept for the next one, so one huge request does not pin memory.
constexpr size_t kKeepCapacity = 1024;

// split_args for a line without quotes: the same arguments, as views into
// line. (Outside quotes sdssplitargs only skips blanks and cuts at ends.)
void split_plain(std::string_view line, std::vector<std::string_view>* argv) {
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && is_split_blank(line[i])) i++;
    if (i >= n) return;
    size_t start = i;
    while (i < n && !is_split_end(line[i])) i++;
    argv->push_back(line.substr(start, i - start));
  }
}

template <typename T>
void clear_releasing_big(std::vector<T>* v) {
  if (v->capacity() > kKeepCapacity) {
    std::vector<T>().swap(*v);
  } else {
    v->clear();
  }
}

}  // namespace

void Parser::reset() {
  state_ = State::kStart;
  pos_ = 0;
  scan_ = 0;
  nul_hidden_ = false;
  bulks_left_ = 0;
  bulk_len_ = 0;
  consumed_ = 0;
  bytes_wanted_ = 0;
  clear_releasing_big(&spans_);
  clear_releasing_big(&argv_);
  owned_.clear();
  error_buf_.clear();
  error_ = std::string_view();
}

Status Parser::parse(std::string_view buf, const Limits& limits, bool authenticated) {
  bytes_wanted_ = 0;
  switch (state_) {
    case State::kError:
      return Status::kError;
    case State::kStart:
      // A new request: what the last one returned is no longer valid.
      clear_releasing_big(&spans_);
      clear_releasing_big(&argv_);
      owned_.clear();
      consumed_ = 0;
      if (buf.empty()) return Status::kPending;
      if (buf[0] == '*') {
        if (parse_whole_multibulk(buf, limits, authenticated)) return Status::kRequest;
        argv_.clear();
      }
      pos_ = 0;
      scan_ = 0;
      nul_hidden_ = false;
      state_ = buf[0] == '*' ? State::kMultibulkCount : State::kInline;
      break;
    default:
      break;
  }
  switch (state_) {
    case State::kMultibulkCount:
      return parse_multibulk_count(buf, limits, authenticated);
    case State::kBulkHeader:
    case State::kBulkData:
      return parse_bulks(buf, limits, authenticated);
    case State::kInline:
      return parse_inline(buf, limits);
    default:
      return Status::kError;  // unreachable
  }
}

// The common case, a whole request already in buf with short count and length
// lines, read in one pass straight into argv_: no state machine, no memchr,
// no offsets to convert. Anything else (an incomplete request, a count of 0,
// a number of more than kFastDigits digits, any line the resumable path would
// refuse or treat specially) returns false having consumed nothing, and the
// resumable path parses buf from the start with its exact errors. Within
// what it accepts, both paths agree: the first '\r' after a header's '$' or
// '*' is the one right after its digits, so neither Redis's strchr-NUL rule
// nor the 64 KB line limits can apply.
bool Parser::parse_whole_multibulk(std::string_view buf, const Limits& limits, bool authenticated) {
  const char* const begin = buf.data();
  const char* const end = begin + buf.size();
  int64_t count = 0;
  const char* p = fast_number_line(begin + 1, end, &count);
  // A bulk takes at least 6 bytes ("$0\r\n\r\n"), so a larger count cannot
  // be complete here; this also bounds the reserve below by the input size.
  if (p == nullptr || count == 0 || count * 6 > end - p || count > limits.max_multibulk_len ||
      (count > kUnauthMaxMultibulkLen && !authenticated)) {
    return false;
  }
  // Either length limit refuses (with its own error, on the other path).
  const int64_t max_len =
      authenticated ? limits.max_bulk_len : std::min(limits.max_bulk_len, kUnauthMaxBulkLen);
  argv_.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t len = 0;
    if (p == end || *p != '$') return false;
    p = fast_number_line(p + 1, end, &len);
    if (p == nullptr || len > max_len || end - p < len + 2) return false;
    argv_.emplace_back(p, static_cast<size_t>(len));
    p += len + 2;
  }
  consumed_ = static_cast<size_t>(p - begin);
  return true;
}

size_t Parser::find_line_end(std::string_view buf, char eol) {
  if (nul_hidden_ || scan_ >= buf.size()) return kNpos;
  const char* base = buf.data();
  const size_t n = buf.size();
  const void* hit = std::memchr(base + scan_, eol, n - scan_);
  size_t end = hit != nullptr ? static_cast<size_t>(static_cast<const char*>(hit) - base) : n;
  // strchr would stop at a NUL first: then this line never ends.
  if (const void* nul = std::memchr(base + scan_, '\0', end - scan_)) {
    scan_ = static_cast<size_t>(static_cast<const char*>(nul) - base);
    nul_hidden_ = true;
    return kNpos;
  }
  scan_ = end;
  return hit != nullptr ? end : kNpos;
}

// *<count>\r\n
Status Parser::parse_multibulk_count(std::string_view buf, const Limits& limits,
                                     bool authenticated) {
  size_t cr = find_line_end(buf, '\r');
  if (cr == kNpos) {
    if (buf.size() - pos_ > limits.max_inline_len) return fail(kErrTooBigMultibulkCount);
    return Status::kPending;
  }
  // The byte after '\r' must have arrived; it is not checked.
  if (cr + 2 > buf.size()) return Status::kPending;

  long long count = 0;
  if (!string_to_ll(buf.substr(pos_ + 1, cr - pos_ - 1), &count) ||
      count > limits.max_multibulk_len) {
    return fail(kErrInvalidMultibulkLength);
  }
  if (count > kUnauthMaxMultibulkLen && !authenticated) return fail(kErrUnauthMultibulkLength);

  pos_ = cr + 2;
  if (count <= 0) return complete(buf, pos_);
  bulks_left_ = count;
  spans_.reserve(static_cast<size_t>(std::min<long long>(count, kKeepCapacity)));
  state_ = State::kBulkHeader;
  scan_ = pos_;
  nul_hidden_ = false;
  return parse_bulks(buf, limits, authenticated);
}

// ($<len>\r\n<data>\r\n) until bulks_left_ is 0.
Status Parser::parse_bulks(std::string_view buf, const Limits& limits, bool authenticated) {
  while (bulks_left_ > 0) {
    if (state_ == State::kBulkHeader) {
      size_t cr = find_line_end(buf, '\r');
      if (cr == kNpos) {
        if (buf.size() - pos_ > limits.max_inline_len) return fail(kErrTooBigBulkCount);
        return Status::kPending;
      }
      if (cr + 2 > buf.size()) return Status::kPending;
      if (buf[pos_] != '$') {
        error_buf_ = format_error(kErrExpectedDollar, {buf.substr(pos_, 1)});
        return fail(error_buf_);
      }
      long long len = 0;
      if (!string_to_ll(buf.substr(pos_ + 1, cr - pos_ - 1), &len) || len < 0 ||
          len > limits.max_bulk_len) {
        return fail(kErrInvalidBulkLength);
      }
      if (len > kUnauthMaxBulkLen && !authenticated) return fail(kErrUnauthBulkLength);
      pos_ = cr + 2;
      bulk_len_ = len;
      state_ = State::kBulkData;
    }
    // The data and two more bytes, assumed to be "\r\n" and not checked.
    size_t need = static_cast<size_t>(bulk_len_) + 2;
    if (buf.size() - pos_ < need) {
      bytes_wanted_ = pos_ + need;
      return Status::kPending;
    }
    spans_.emplace_back(pos_, static_cast<size_t>(bulk_len_));
    pos_ += need;
    bulks_left_--;
    state_ = State::kBulkHeader;
    scan_ = pos_;
    nul_hidden_ = false;
  }
  return complete(buf, pos_);
}

// <args>\n or <args>\r\n
Status Parser::parse_inline(std::string_view buf, const Limits& limits) {
  size_t nl = find_line_end(buf, '\n');
  if (nl == kNpos) {
    if (buf.size() > limits.max_inline_len) return fail(kErrTooBigInline);
    return Status::kPending;
  }
  size_t line_end = nl > 0 && buf[nl - 1] == '\r' ? nl - 1 : nl;
  std::string_view line = buf.substr(0, line_end);
  argv_.clear();
  if (line.find_first_of("\"'") == kNpos) {
    split_plain(line, &argv_);
  } else {
    std::optional<std::vector<std::string>> args = split_args(line);
    if (!args) return fail(kErrUnbalancedQuotes);
    owned_ = std::move(*args);
    for (const std::string& arg : owned_) argv_.emplace_back(arg);
  }
  consumed_ = nl + 1;
  state_ = State::kStart;
  return Status::kRequest;
}

Status Parser::fail(std::string_view text) {
  error_ = text;
  state_ = State::kError;
  return Status::kError;
}

Status Parser::complete(std::string_view buf, size_t consumed) {
  argv_.clear();
  argv_.reserve(spans_.size());
  for (const auto& [offset, len] : spans_) argv_.push_back(buf.substr(offset, len));
  consumed_ = consumed;
  state_ = State::kStart;
  return Status::kRequest;
}

}  // namespace lawnkv::resp
