#pragma once
// What the integration tests share: a hiredis client with deadlines whose
// replies come back as wire bytes or as lawnkv::test::Reply trees, INFO field
// lookup, and the side-by-side probe that sends raw bytes to a server and
// records what it answered and whether it closed the connection.
//
// hiredis (Debian's 0.14) speaks RESP2 only: RESP3 tests use RawClient.

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../support/raw_client.hpp"
#include "../support/resp_reply.hpp"

namespace lawnkv::itest {

using test::Reply;
using Argv = std::vector<std::string>;

// A blocking hiredis connection to 127.0.0.1:port. Every call has a deadline
// (the socket timeout): a server that does not answer fails the test with an
// exception instead of hanging it.
class Client {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout{10'000};

  // Connects; throws std::runtime_error if it cannot.
  explicit Client(uint16_t port, std::chrono::milliseconds timeout = kDefaultTimeout);
  ~Client();
  Client(Client&& other) noexcept;
  Client& operator=(Client&& other) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends argv and returns the reply. Throws std::runtime_error on an I/O
  // error or timeout (the connection is unusable afterwards).
  Reply call(std::span<const std::string> argv);
  Reply call(std::initializer_list<std::string_view> argv);

  // The reply's wire bytes (RESP2): "+OK\r\n", "$-1\r\n", ":3\r\n".
  std::string wire(std::initializer_list<std::string_view> argv);

  // The integer of an integer reply; throws for any other reply.
  long long integer(std::initializer_list<std::string_view> argv);

  // Pipelining: queue commands in hiredis's output buffer, then read their
  // replies in order (the first read writes the whole buffer at once).
  void append(std::span<const std::string> argv);
  void append(std::initializer_list<std::string_view> argv);
  Reply read();

  redisContext* context() { return ctx_; }

 private:
  redisContext* ctx_ = nullptr;
};

// hiredis's reply as a Reply tree ('+', '-', ':', '$', '*'; RESP2 nulls have
// null set and type '$').
Reply from_hiredis(const redisReply* r);

// write_reply, for messages and byte-exact comparisons.
std::string wire(const Reply& reply);

// A Reply for a bulk string, a status, an error, an integer.
Reply bulk(std::string_view text);
Reply status(std::string_view text);
Reply error(std::string_view text);
Reply integer(long long value);
Reply nil();

// The value of `field` in INFO's text ("expired_keys:12" -> "12"), or
// nullopt when the field is absent.
std::optional<std::string> info_field(std::string_view info, std::string_view field);

// A number from INFO's text; throws when the field is absent or not a number.
long long info_int(std::string_view info, std::string_view field);

// A sub-field of a keyspace line: info_sub(info, "db0", "expires") for
// "db0:keys=3,expires=1,avg_ttl=0"; nullopt when db0 or the sub-field is
// absent (Redis omits empty databases).
std::optional<long long> info_sub(std::string_view info, std::string_view line, std::string_view sub);

// What a server did with some input: every reply it sent, concatenated as
// wire bytes, and whether it closed the connection.
struct Outcome {
  std::string replies;
  bool closed = false;
  bool operator==(const Outcome&) const = default;
};

// "<replies as escaped bytes> + closed|open", for failure messages.
std::string describe(const Outcome& outcome);

// Sends `bytes` on a fresh connection to port, reads up to `reply_count`
// replies (fewer if the server closes first; a send the server cut short
// counts as a close), and then, when `wait_close` is set, waits up to
// `timeout` for the server to close the connection. Without `wait_close` the
// connection counts as closed only if a read saw the close.
Outcome probe(uint16_t port, std::string_view bytes, size_t reply_count, bool wait_close,
              std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));

// Whether a fresh client gets +PONG for PING (after AUTH with `password`
// when one is given): the server still serves.
bool serves(uint16_t port, const std::string& password = "");

// The number of lines of CLIENT LIST (one per connected client).
size_t client_count(Client& client);

}  // namespace lawnkv::itest
