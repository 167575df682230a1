#include "itest.hpp"

#include <sys/time.h>

#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "../support/escape.hpp"

namespace lawnkv::itest {

namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

template <class Range>
void argv_arrays(const Range& argv, std::vector<const char*>* ptrs, std::vector<size_t>* lens) {
  for (std::string_view a : argv) {
    ptrs->push_back(a.data());
    lens->push_back(a.size());
  }
}

std::string context_error(redisContext* ctx, const char* what) {
  return std::string("hiredis ") + what + ": " + (ctx && ctx->err ? ctx->errstr : "no reply");
}

}  // namespace

Client::Client(uint16_t port, std::chrono::milliseconds timeout) {
  ctx_ = redisConnectWithTimeout("127.0.0.1", port, to_timeval(timeout));
  if (ctx_ == nullptr || ctx_->err) {
    std::string why = ctx_ ? ctx_->errstr : "cannot allocate a context";
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
    throw std::runtime_error("hiredis: cannot connect to 127.0.0.1:" + std::to_string(port) + ": " + why);
  }
  redisSetTimeout(ctx_, to_timeval(timeout));
}

Client::~Client() {
  if (ctx_) redisFree(ctx_);
}

Client::Client(Client&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}

Client& Client::operator=(Client&& other) noexcept {
  if (this != &other) {
    if (ctx_) redisFree(ctx_);
    ctx_ = std::exchange(other.ctx_, nullptr);
  }
  return *this;
}

Reply Client::call(std::span<const std::string> argv) {
  append(argv);
  return read();
}

Reply Client::call(std::initializer_list<std::string_view> argv) {
  append(argv);
  return read();
}

std::string Client::wire(std::initializer_list<std::string_view> argv) { return itest::wire(call(argv)); }

long long Client::integer(std::initializer_list<std::string_view> argv) {
  Reply r = call(argv);
  if (r.type != ':') throw std::runtime_error("expected an integer reply, got " + itest::wire(r));
  return std::stoll(r.text);
}

void Client::append(std::span<const std::string> argv) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  argv_arrays(argv, &ptrs, &lens);
  if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), ptrs.data(), lens.data()) != REDIS_OK)
    throw std::runtime_error(context_error(ctx_, "append"));
}

void Client::append(std::initializer_list<std::string_view> argv) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  argv_arrays(argv, &ptrs, &lens);
  if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), ptrs.data(), lens.data()) != REDIS_OK)
    throw std::runtime_error(context_error(ctx_, "append"));
}

Reply Client::read() {
  void* raw = nullptr;
  if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr)
    throw std::runtime_error(context_error(ctx_, "read"));
  auto* r = static_cast<redisReply*>(raw);
  Reply out = from_hiredis(r);
  freeReplyObject(r);
  return out;
}

Reply from_hiredis(const redisReply* r) {
  Reply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = '$';
      out.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = '+';
      out.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = '-';
      out.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = ':';
      out.text = std::to_string(r->integer);
      break;
    case REDIS_REPLY_NIL:
      out.type = '$';
      out.null = true;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = '*';
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(from_hiredis(r->element[i]));
      break;
    default:
      throw std::runtime_error("hiredis: unexpected reply type " + std::to_string(r->type));
  }
  return out;
}

std::string wire(const Reply& reply) { return test::write_reply(reply); }

Reply bulk(std::string_view text) { return Reply{'$', false, std::string(text), {}}; }
Reply status(std::string_view text) { return Reply{'+', false, std::string(text), {}}; }
Reply error(std::string_view text) { return Reply{'-', false, std::string(text), {}}; }
Reply integer(long long value) { return Reply{':', false, std::to_string(value), {}}; }
Reply nil() { return Reply{'$', true, {}, {}}; }

std::optional<std::string> info_field(std::string_view info, std::string_view field) {
  size_t pos = 0;
  while (pos < info.size()) {
    size_t end = info.find("\r\n", pos);
    if (end == std::string_view::npos) end = info.size();
    std::string_view line = info.substr(pos, end - pos);
    if (line.size() > field.size() && line.substr(0, field.size()) == field && line[field.size()] == ':')
      return std::string(line.substr(field.size() + 1));
    pos = end + 2;
  }
  return std::nullopt;
}

long long info_int(std::string_view info, std::string_view field) {
  std::optional<std::string> value = info_field(info, field);
  if (!value) throw std::runtime_error("INFO has no field " + std::string(field));
  char* end = nullptr;
  long long n = std::strtoll(value->c_str(), &end, 10);
  if (value->empty() || *end != '\0')
    throw std::runtime_error("INFO field " + std::string(field) + " is not an integer: " + *value);
  return n;
}

std::optional<long long> info_sub(std::string_view info, std::string_view line, std::string_view sub) {
  std::optional<std::string> value = info_field(info, line);
  if (!value) return std::nullopt;
  std::string_view rest = *value;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (item.size() > sub.size() && item.substr(0, sub.size()) == sub && item[sub.size()] == '=')
      return std::stoll(std::string(item.substr(sub.size() + 1)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return std::nullopt;
}

std::string describe(const Outcome& outcome) {
  return test::escape_bytes(outcome.replies, 200) + (outcome.closed ? " then closed" : " and open");
}

Outcome probe(uint16_t port, std::string_view bytes, size_t reply_count, bool wait_close,
              std::chrono::milliseconds timeout) {
  Outcome out;
  test::RawClient client(port, timeout);
  try {
    client.send(bytes);
  } catch (const test::ConnectionClosed&) {
    // The server closed while the input was still arriving; what it said
    // before closing is still readable.
  }
  try {
    for (size_t i = 0; i < reply_count; ++i) out.replies += client.read_reply();
  } catch (const test::ConnectionClosed&) {
    out.closed = true;
    return out;
  } catch (const test::Timeout&) {
    return out;
  }
  if (wait_close) out.closed = client.wait_closed();
  return out;
}

bool serves(uint16_t port, const std::string& password) {
  try {
    Client c(port);
    if (!password.empty() && c.wire({"AUTH", password}) != "+OK\r\n") return false;
    return c.wire({"PING"}) == "+PONG\r\n";
  } catch (const std::exception&) {
    return false;
  }
}

size_t client_count(Client& client) {
  Reply r = client.call({"CLIENT", "LIST"});
  if (r.type != '$') throw std::runtime_error("CLIENT LIST replied " + wire(r));
  size_t lines = 0;
  for (char ch : r.text) lines += ch == '\n';
  return lines;
}

}  // namespace lawnkv::itest
