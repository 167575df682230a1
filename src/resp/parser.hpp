#pragma once
// The request parser: turns a connection's input bytes into argv, exactly as
// Redis 7.0.15's networking.c does (processMultibulkBuffer and
// processInlineBuffer), one request per call.
//
// A request whose first byte is '*' is multibulk:
//   *<count>\r\n  then count times  $<len>\r\n<len bytes>\r\n
// anything else is an inline line ending in "\n" or "\r\n", split by
// split_args (src/core/split_args.hpp).
//
// Redis's leniencies, kept because clients and tests rely on the same bytes
// working: the byte after each '\r' of a count line is skipped unchecked (it
// is assumed to be '\n'), as are the two bytes after a bulk's data; counts and
// lengths are Redis's string2ll (no '+', no leading zeros, no "-0"); a count
// <= 0 is an empty request; a NUL byte before the end of a count line or an
// inline line hides that end (Redis searches with strchr), so such a request
// waits for more input until the size limit below turns it into an error.
//
// Errors (error() without '-' and CRLF), each closing the connection in Redis
// (setProtocolError sets CLIENT_CLOSE_AFTER_REPLY): the caller replies with
// the text, stops reading, and closes once the reply is written.
//   kErrInvalidMultibulkLength   count not a number, or > max_multibulk_len
//   kErrUnauthMultibulkLength    count > 10 before AUTH
//   kErrTooBigMultibulkCount     no '\r' in the first max_inline_len+1 bytes
//   kErrExpectedDollar           a bulk header not starting with '$'
//                                ("...got 'x'", CR/LF shown as a space)
//   kErrInvalidBulkLength        length not a number, < 0, > max_bulk_len
//   kErrUnauthBulkLength         length > 16384 before AUTH
//   kErrTooBigBulkCount          no '\r' in the max_inline_len+1 bytes that
//                                follow the bulks already read
//   kErrTooBigInline             no '\n' in the first max_inline_len+1 bytes
//   kErrUnbalancedQuotes         split_args refused the inline line
// The "too big" checks look at all unconsumed input, as Redis's querybuf does:
// they fire only when that much has arrived without the line end (or with a
// NUL hiding it), so a longer line whose end comes in the same read passes,
// as it does in Redis.
//
// Cost: a multibulk request that has fully arrived with ordinary headers is
// read in one pass (parse_whole_multibulk); anything else takes the
// resumable path. After kPending that path keeps where it stopped (the bulks
// read so far, how far it searched for a line end), so input arriving in
// small pieces is parsed in time linear in its size.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lawnkv::resp {

inline constexpr std::string_view kErrInvalidMultibulkLength =
    "ERR Protocol error: invalid multibulk length";
inline constexpr std::string_view kErrUnauthMultibulkLength =
    "ERR Protocol error: unauthenticated multibulk length";
inline constexpr std::string_view kErrTooBigMultibulkCount =
    "ERR Protocol error: too big mbulk count string";
inline constexpr std::string_view kErrInvalidBulkLength =
    "ERR Protocol error: invalid bulk length";
inline constexpr std::string_view kErrUnauthBulkLength =
    "ERR Protocol error: unauthenticated bulk length";
inline constexpr std::string_view kErrTooBigBulkCount =
    "ERR Protocol error: too big bulk count string";
inline constexpr std::string_view kErrTooBigInline =
    "ERR Protocol error: too big inline request";
inline constexpr std::string_view kErrUnbalancedQuotes =
    "ERR Protocol error: unbalanced quotes in request";
// A format for format_error (src/core/error_format.hpp), given the offending byte.
inline constexpr std::string_view kErrExpectedDollar = "ERR Protocol error: expected '$', got '%c'";

// Before AUTH, Redis allows at most this many arguments and bytes per bulk.
inline constexpr int64_t kUnauthMaxMultibulkLen = 10;
inline constexpr int64_t kUnauthMaxBulkLen = 16384;

struct Limits {
  int64_t max_bulk_len = 512LL * 1024 * 1024;  // proto-max-bulk-len
  // Redis 7.0 accepts any count up to INT_MAX (argv grows as bulks arrive);
  // 1024*1024 was the limit before 7.0.
  int64_t max_multibulk_len = 2147483647;
  size_t max_inline_len = 64 * 1024;  // PROTO_INLINE_MAX_SIZE
};

enum class Status {
  kRequest,  // a request is complete: argv(), consumed()
  kPending,  // more input is needed: call again with the same bytes and more
  kError,    // protocol error: error(); the connection must be closed
};

class Parser {
 public:
  // Parses the next request from buf, which is all unconsumed input of the
  // connection: after kPending, the next call gets the same bytes, possibly
  // grown (and possibly moved: the parser keeps offsets, not pointers). After
  // kRequest the caller drops consumed() bytes from the front before calling
  // again. An empty request (a blank inline line, "*0\r\n", "*-1\r\n") is
  // kRequest with an empty argv, which the caller skips. authenticated=false
  // applies the unauthenticated limits above. After kError every call
  // returns kError until reset().
  Status parse(std::string_view buf, const Limits& limits, bool authenticated);

  // The arguments of the request, after kRequest. Views into buf (which must
  // stay unchanged meanwhile), except inline arguments with quotes, which
  // point into the parser's own storage. Valid until the next parse() or
  // reset().
  const std::vector<std::string_view>& argv() const { return argv_; }

  // Bytes of buf the request took, after kRequest.
  size_t consumed() const { return consumed_; }

  // The exact Redis error text, without the leading '-' and the CRLF, after
  // kError.
  std::string_view error() const { return error_; }

  // After kPending: the buffer size known to be needed to complete the
  // request (to hold a pending bulk and its CRLF), so the caller can reserve
  // and read up to it; 0 if unknown (waiting for a line end).
  size_t bytes_wanted() const { return bytes_wanted_; }

  // After kPending: how many bytes at the front of buf the pending request
  // has already parsed into complete arguments. Redis moves such arguments
  // out of its query buffer, so client-query-buffer-limit counts only what
  // lies after them.
  size_t parsed_bytes() const { return state_ == State::kStart ? 0 : pos_; }

  // Forgets any partial request and error: the next parse() starts afresh.
  void reset();

 private:
  enum class State { kStart, kMultibulkCount, kBulkHeader, kBulkData, kInline, kError };

  // Searches buf for the end-of-line byte `eol` from the position where the
  // last search stopped (scan_), as strchr from line_start would: a NUL
  // before it hides it for good. Returns its offset or npos.
  size_t find_line_end(std::string_view buf, char eol);
  // A whole multibulk request in one pass, or false to take the path below.
  bool parse_whole_multibulk(std::string_view buf, const Limits& limits, bool authenticated);
  Status parse_multibulk_count(std::string_view buf, const Limits& limits, bool authenticated);
  Status parse_bulks(std::string_view buf, const Limits& limits, bool authenticated);
  Status parse_inline(std::string_view buf, const Limits& limits);
  Status fail(std::string_view text);
  Status complete(std::string_view buf, size_t consumed);

  State state_ = State::kStart;
  size_t pos_ = 0;          // parsed up to here (the start of the next line or bulk)
  size_t scan_ = 0;         // a line end was searched for up to here
  bool nul_hidden_ = false; // a NUL hides the end of the current line
  int64_t bulks_left_ = 0;  // multibulk: bulks still to read
  int64_t bulk_len_ = 0;    // kBulkData: length of the current bulk
  size_t consumed_ = 0;
  size_t bytes_wanted_ = 0;
  std::vector<std::pair<size_t, size_t>> spans_;  // offset, length of each bulk
  std::vector<std::string_view> argv_;
  std::vector<std::string> owned_;  // inline arguments that needed unquoting
  std::string error_buf_;           // for errors that quote input
  std::string_view error_;
};

}  // namespace lawnkv::resp
