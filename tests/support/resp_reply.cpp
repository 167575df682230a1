#include "resp_reply.hpp"

#include <charconv>

namespace lawnkv::test {

namespace {

constexpr size_t kIncomplete = std::string_view::npos;
constexpr int kMaxDepth = 128;

bool is_line_type(char type) {
  switch (type) {
    case '+': case '-': case ':': case '_': case ',': case '#': case '(':
      return true;
    default:
      return false;
  }
}

bool is_bulk_type(char type) { return type == '$' || type == '=' || type == '!'; }

bool is_aggregate_type(char type) {
  return type == '*' || type == '~' || type == '>' || type == '%' || type == '|';
}

long long parse_length(std::string_view line, std::string_view whole) {
  long long n = 0;
  auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), n);
  if (ec != std::errc() || end != line.data() + line.size() || n < -1) {
    throw RespError("bad length in reply header: " + std::string(whole.substr(0, 40)));
  }
  return n;
}

// Parses the reply starting at `pos` into *out (when out is not null).
// Returns the position after it, or kIncomplete.
size_t parse_at(std::string_view bytes, size_t pos, Reply* out, int depth) {
  if (depth > kMaxDepth) throw RespError("reply nested deeper than 128 levels");
  if (pos >= bytes.size()) return kIncomplete;
  size_t eol = bytes.find("\r\n", pos);
  if (eol == std::string_view::npos) return kIncomplete;
  char type = bytes[pos];
  std::string_view line = bytes.substr(pos + 1, eol - pos - 1);
  size_t next = eol + 2;
  if (out) out->type = type;

  if (is_line_type(type)) {
    if (out) out->text = std::string(line);
    return next;
  }
  if (is_bulk_type(type)) {
    long long len = parse_length(line, bytes.substr(pos));
    if (len < 0) {
      if (type != '$') throw RespError("negative length for a non-$ bulk reply");
      if (out) out->null = true;
      return next;
    }
    size_t ulen = static_cast<size_t>(len);
    if (bytes.size() - next < ulen + 2) return kIncomplete;
    if (bytes.substr(next + ulen, 2) != "\r\n") throw RespError("bulk reply not ended by CRLF");
    if (out) out->text = std::string(bytes.substr(next, ulen));
    return next + ulen + 2;
  }
  if (is_aggregate_type(type)) {
    long long count = parse_length(line, bytes.substr(pos));
    if (count < 0) {
      if (type != '*') throw RespError("negative count for a non-* aggregate reply");
      if (out) out->null = true;
      return next;
    }
    if (type == '%' || type == '|') count *= 2;
    if (type == '|') ++count;  // the annotated reply follows the attribute pairs
    for (long long i = 0; i < count; ++i) {
      Reply* element = nullptr;
      if (out) element = &out->elements.emplace_back();
      next = parse_at(bytes, next, element, depth + 1);
      if (next == kIncomplete) return kIncomplete;
    }
    return next;
  }
  throw RespError("unknown reply type byte " + std::to_string(static_cast<unsigned char>(type)));
}

void write_to(const Reply& reply, std::string& out) {
  out += reply.type;
  if (is_line_type(reply.type)) {
    out += reply.text;
    out += "\r\n";
  } else if (is_bulk_type(reply.type)) {
    if (reply.null) {
      out += "-1\r\n";
      return;
    }
    out += std::to_string(reply.text.size());
    out += "\r\n";
    out += reply.text;
    out += "\r\n";
  } else {
    if (reply.null) {
      out += "-1\r\n";
      return;
    }
    size_t count = reply.elements.size();
    if (reply.type == '|') --count;
    if (reply.type == '%' || reply.type == '|') count /= 2;
    out += std::to_string(count);
    out += "\r\n";
    for (const auto& element : reply.elements) write_to(element, out);
  }
}

}  // namespace

bool Reply::is_aggregate() const { return is_aggregate_type(type); }

size_t reply_length(std::string_view bytes) {
  size_t end = parse_at(bytes, 0, nullptr, 0);
  return end == kIncomplete ? 0 : end;
}

Reply parse_reply(std::string_view bytes) {
  Reply reply;
  size_t end = parse_at(bytes, 0, &reply, 0);
  if (end == kIncomplete) throw RespError("incomplete reply");
  if (end != bytes.size()) throw RespError("bytes after the end of the reply");
  return reply;
}

std::string write_reply(const Reply& reply) {
  std::string out;
  write_to(reply, out);
  return out;
}

}  // namespace lawnkv::test
