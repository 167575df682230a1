#include "core/error_format.hpp"

#include <cassert>

#include "core/ascii.hpp"

namespace lawnkv {

namespace {

bool is_crlf(char c) { return c == '\r' || c == '\n'; }

// The directive at fmt[i] ('%'): its length, and the precision of "%.Ns"
// (npos for "%s" and "%c"); 0 if fmt[i] starts no directive.
size_t directive_at(std::string_view fmt, size_t i, size_t* precision, char* conversion) {
  size_t j = i + 1;
  *precision = std::string_view::npos;
  if (j < fmt.size() && fmt[j] == '.') {
    size_t n = 0;
    const size_t digits = ++j;
    for (; j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9'; ++j) n = n * 10 + static_cast<size_t>(fmt[j] - '0');
    if (j == digits || j >= fmt.size() || fmt[j] != 's') return 0;
    *precision = n;
  }
  if (j >= fmt.size() || (fmt[j] != 's' && fmt[j] != 'c')) return 0;
  *conversion = fmt[j];
  return j + 1 - i;
}

}  // namespace

std::string format_error(std::string_view fmt, std::initializer_list<std::string_view> args) {
  // 1. printf
  std::string out;
  out.reserve(fmt.size() + 32);
  auto arg = args.begin();
  for (size_t i = 0; i < fmt.size();) {
    size_t precision;
    char conversion;
    const size_t len = fmt[i] == '%' ? directive_at(fmt, i, &precision, &conversion) : 0;
    if (len == 0) {
      out += fmt[i++];
      continue;
    }
    assert(arg != args.end() && "format_error: fewer arguments than directives");
    if (conversion == 'c') {
      assert(arg->size() == 1 && "format_error: %c takes one byte");
      out += arg->front();
    } else {
      out += c_string(*arg).substr(0, precision);
    }
    ++arg;
    i += len;
  }
  assert(arg == args.end() && "format_error: more arguments than directives");
  // 2. strlen
  out.resize(c_string(out).size());
  // 3. sdstrim
  size_t first = 0, last = out.size();
  while (first < last && is_crlf(out[first])) ++first;
  while (last > first && is_crlf(out[last - 1])) --last;
  out = out.substr(first, last - first);
  // 4. sdsmapchars
  for (char& c : out)
    if (is_crlf(c)) c = ' ';
  return out;
}

}  // namespace lawnkv
