#include "resp/writer.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

#include "core/numbers.hpp"

namespace lawnkv::resp {

void Writer::header(char prefix, int64_t n) {
  char buf[kLongStrSize + 3];
  buf[0] = prefix;
  size_t len = 1 + ll_to_chars(buf + 1, n);
  buf[len++] = '\r';
  buf[len++] = '\n';
  out_->append(buf, len);
}

// Replies like "+OK" are written on most requests: the line is composed on
// the stack (in chunks, if long), CR and LF replaced on the way, and
// appended at once.
void Writer::line(char prefix, std::string_view s) {
  char buf[128];
  size_t n = 0;
  buf[n++] = prefix;
  for (char c : s) {
    if (n == sizeof(buf)) {
      out_->append(buf, n);
      n = 0;
    }
    buf[n++] = c == '\r' || c == '\n' ? ' ' : c;
  }
  if (n + 2 > sizeof(buf)) {
    out_->append(buf, n);
    n = 0;
  }
  buf[n++] = '\r';
  buf[n++] = '\n';
  out_->append(buf, n);
}

void Writer::simple(std::string_view s) {
  // "+OK": a constant, no scan for CR and LF (every SET's reply).
  if (s == "OK") {
    out_->append("+OK\r\n", 5);
    return;
  }
  line('+', s);
}

void Writer::error(std::string_view s) {
  line('-', s);
  if (errors_) errors_->on_error_reply(s);
}

void Writer::integer(int64_t v) { header(':', v); }

void Writer::bulk(std::string_view s) {
  // A short string (a member, most values) goes out in one append, its
  // header and CRLF composed around it on the stack: each append is a call
  // and a capacity check.
  constexpr size_t kShort = 128;
  if (s.size() <= kShort) {
    char buf[kShort + 8];  // '$', at most 3 digits, two CRLFs
    buf[0] = '$';
    size_t len = 1 + ll_to_chars(buf + 1, static_cast<long long>(s.size()));
    buf[len++] = '\r';
    buf[len++] = '\n';
    if (!s.empty()) std::memcpy(buf + len, s.data(), s.size());  // an empty view's data may be null
    len += s.size();
    buf[len++] = '\r';
    buf[len++] = '\n';
    out_->append(buf, len);
    return;
  }
  header('$', static_cast<int64_t>(s.size()));
  out_->append(s);
  out_->append("\r\n", 2);
}

void Writer::null() {
  if (protocol_ == 2) {
    out_->append("$-1\r\n", 5);
  } else {
    out_->append("_\r\n", 3);
  }
}

void Writer::null_array() {
  if (protocol_ == 2) {
    out_->append("*-1\r\n", 5);
  } else {
    out_->append("_\r\n", 3);
  }
}

void Writer::array(size_t n) { header('*', static_cast<int64_t>(n)); }

void Writer::map(size_t pairs) {
  if (protocol_ == 2) {
    header('*', static_cast<int64_t>(pairs * 2));
  } else {
    header('%', static_cast<int64_t>(pairs));
  }
}

void Writer::set(size_t n) { header(protocol_ == 2 ? '*' : '~', static_cast<int64_t>(n)); }

void Writer::push(size_t n) { header(protocol_ == 2 ? '*' : '>', static_cast<int64_t>(n)); }

void Writer::dbl_text(std::string_view text) {
  if (protocol_ == 2) return bulk(text);
  out_->push_back(',');
  out_->append(text);
  out_->append("\r\n", 2);
}

void Writer::dbl(double d) {
  char buf[64];
  size_t len;
  if (std::isinf(d)) {
    len = d > 0 ? 3 : 4;
    std::memcpy(buf, d > 0 ? "inf" : "-inf", len);
  } else if (d >= -0x1p53 && d <= 0x1p53 && static_cast<double>(static_cast<int64_t>(d)) == d &&
             !(d == 0 && std::signbit(d))) {
    // An integer of at most 16 digits: "%.17g" writes its digits, as
    // ll_to_chars does at a fraction of the cost (-0.0, "-0", goes below).
    len = ll_to_chars(buf, static_cast<int64_t>(d));
  } else {
    // std::to_chars with general format and a precision is specified to
    // produce printf's "%.17g", without snprintf's locale and parsing cost.
    auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::general, 17);
    len = static_cast<size_t>(res.ptr - buf);
  }
  if (protocol_ == 2) {
    bulk(std::string_view(buf, len));
  } else {
    out_->push_back(',');
    out_->append(buf, len);
    out_->append("\r\n", 2);
  }
}

void Writer::boolean(bool b) {
  if (protocol_ == 2) {
    out_->append(b ? ":1\r\n" : ":0\r\n", 4);
  } else {
    out_->append(b ? "#t\r\n" : "#f\r\n", 4);
  }
}

void Writer::verbatim(std::string_view s, std::string_view fmt) {
  if (protocol_ == 2) {
    bulk(s);
    return;
  }
  header('=', static_cast<int64_t>(s.size() + 4));
  out_->append(fmt.substr(0, 3));
  out_->push_back(':');
  out_->append(s);
  out_->append("\r\n", 2);
}

void Writer::big_number(std::string_view digits) {
  if (protocol_ == 2) {
    bulk(digits);
    return;
  }
  out_->push_back('(');
  out_->append(digits);
  out_->append("\r\n", 2);
}

}  // namespace lawnkv::resp
