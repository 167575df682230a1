// The text forms of parameter values: parsing a directive's words into
// Values and printing them back, by kind, with Redis 7.0's error reasons.

#include <cctype>
#include <cstdio>
#include <string>

#include "config/params.hpp"
#include "core/ascii.hpp"
#include "core/numbers.hpp"
#include "pubsub/event_class.hpp"

namespace lawnkv::config {

namespace {

std::string u128_to_string(__int128 n) {
  if (n < 0) return std::to_string(static_cast<long long>(n));
  return std::to_string(static_cast<unsigned long long>(n));
}

// Redis's numericBoundaryCheck text.
std::string bounds_error(const Param& p) {
  return "argument must be between " + std::to_string(p.min) + " and " + std::to_string(p.max) + " inclusive";
}

// An integer or memory word within p's bounds.
std::string parse_number(const Param& p, const std::string& word, __int128* out) {
  if (p.kind == Kind::kMemory) {
    uint64_t bytes;
    if (!parse_memory(word, &bytes)) return "argument must be a memory value";
    *out = bytes;
  } else {
    long long n;
    if (!string_to_ll(word, &n)) return "argument couldn't be parsed into an integer";
    *out = n;
  }
  if (*out < p.min || *out > static_cast<__int128>(p.max)) return bounds_error(p);
  return {};
}

// The choice of p.choices ("a, b, c") equal to word in any case, or "".
std::string_view find_choice(const Param& p, std::string_view word) {
  std::string_view rest = p.choices;
  while (!rest.empty()) {
    const size_t comma = rest.find(", ");
    const std::string_view choice = rest.substr(0, comma);
    if (iequals(choice, word)) return choice;
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 2);
  }
  return {};
}

// Stores a checked value: text is its printed form, number its value for
// the integer kinds.
void store(const Param& p, Values& v, const std::string& text, __int128 number) {
  if (std::holds_alternative<std::monostate>(p.field)) {
    v.ignored[std::string(p.name)] = text;
  } else if (auto* b = std::get_if<bool Values::*>(&p.field)) {
    v.*(*b) = text == "yes";
  } else if (auto* i = std::get_if<int64_t Values::*>(&p.field)) {
    // Only maxmemory accepts more than INT64_MAX bytes (Redis keeps it
    // unsigned); nothing can be that large, so it is kept as INT64_MAX.
    constexpr __int128 kMax = INT64_MAX;
    v.*(*i) = static_cast<int64_t>(number > kMax ? kMax : number);
  } else if (auto* s = std::get_if<std::string Values::*>(&p.field)) {
    v.*(*s) = text;
  }
}

}  // namespace

bool parse_memory(std::string_view s, uint64_t* out) {
  if (!s.empty() && s[0] == '-') return false;
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  const std::string_view unit = s.substr(digits);
  uint64_t mul;
  if (unit.empty() || iequals(unit, "b")) mul = 1;
  else if (iequals(unit, "k")) mul = 1000;
  else if (iequals(unit, "kb")) mul = 1024;
  else if (iequals(unit, "m")) mul = 1000 * 1000;
  else if (iequals(unit, "mb")) mul = 1024 * 1024;
  else if (iequals(unit, "g")) mul = 1000ULL * 1000 * 1000;
  else if (iequals(unit, "gb")) mul = 1024ULL * 1024 * 1024;
  else return false;
  if (digits >= 128) return false;  // Redis copies the digits into a 128-byte buffer
  // strtoull on the digits: no digits is 0, overflow saturates.
  uint64_t val = 0;
  for (size_t i = 0; i < digits; ++i) {
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (val > (UINT64_MAX - d) / 10) {
      val = UINT64_MAX;
      break;
    }
    val = val * 10 + d;
  }
  *out = val * mul;  // wraps on overflow, as Redis's unsigned multiply
  return true;
}

std::string format_percentile(double p) {
  char buf[128];
  std::string out(buf, static_cast<size_t>(std::snprintf(buf, sizeof(buf), "%f", p)));
  // trimDoubleString: trailing zeros after the point go, then the point.
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

std::string format_memory(uint64_t bytes) {
  constexpr uint64_t kGb = 1024ULL * 1024 * 1024, kMb = 1024 * 1024, kKb = 1024;
  if (bytes && bytes % kGb == 0) return std::to_string(bytes / kGb) + "gb";
  if (bytes && bytes % kMb == 0) return std::to_string(bytes / kMb) + "mb";
  if (bytes && bytes % kKb == 0) return std::to_string(bytes / kKb) + "kb";
  return std::to_string(bytes);
}

namespace {

struct NotifyChar {
  char c;
  uint32_t bit;
};
// In the order Redis 7.0 prints the classes A stands for (n among them).
constexpr NotifyChar kNotifyClasses[] = {
    {'g', pubsub::kGeneric}, {'$', pubsub::kString},  {'l', pubsub::kList},    {'s', pubsub::kSet},
    {'h', pubsub::kHash},    {'z', pubsub::kZset},    {'x', pubsub::kExpired}, {'e', pubsub::kEvicted},
    {'t', pubsub::kStream},  {'d', pubsub::kModule},  {'n', pubsub::kNew},
};
// Printed after them, A or not.
constexpr NotifyChar kNotifyTail[] = {
    {'K', pubsub::kKeyspaceChannel}, {'E', pubsub::kKeyeventChannel}, {'m', pubsub::kKeyMiss}};

}  // namespace

bool parse_notify_flags(std::string_view s, uint32_t* out) {
  uint32_t flags = 0;
  for (char c : s) {
    uint32_t bit = 0;
    if (c == 'A') bit = pubsub::kAll;
    for (const auto& nc : kNotifyClasses)
      if (nc.c == c) bit = nc.bit;
    for (const auto& nc : kNotifyTail)
      if (nc.c == c) bit = nc.bit;
    if (bit == 0) return false;
    flags |= bit;
  }
  *out = flags;
  return true;
}

std::string format_notify_flags(uint32_t flags) {
  std::string out;
  if ((flags & pubsub::kAll) == pubsub::kAll) {
    out += 'A';
  } else {
    for (const auto& nc : kNotifyClasses)
      if (flags & nc.bit) out += nc.c;
  }
  for (const auto& nc : kNotifyTail)
    if (flags & nc.bit) out += nc.c;
  return out;
}

std::string set_param(const Param& p, Values& v, std::span<const std::string> words, bool from_file) {
  if (p.kind == Kind::kSpecial) {
    std::string err = p.special_set(v, words, from_file);
    if (err.empty() && p.apply) p.apply(v);
    return err;
  }
  if (words.size() != 1) return "wrong number of arguments";
  const std::string& word = words[0];
  std::string text;
  __int128 number = 0;
  switch (p.kind) {
    case Kind::kBool:
      if (iequals(word, "yes")) text = "yes";
      else if (iequals(word, "no")) text = "no";
      else return "argument must be 'yes' or 'no'";
      break;
    case Kind::kInteger:
    case Kind::kMemory: {
      std::string err = parse_number(p, word, &number);
      if (!err.empty()) return err;
      text = u128_to_string(number);
      break;
    }
    case Kind::kEnum: {
      const std::string_view choice = find_choice(p, word);
      if (choice.empty()) return "argument(s) must be one of the following: " + std::string(p.choices);
      text = choice;
      break;
    }
    case Kind::kString:
    case Kind::kSpecial:
      text = word;
      break;
  }
  if (p.validate) {
    const std::string_view err = p.validate(text);
    if (!err.empty()) return std::string(err);
  }
  store(p, v, text, number);
  if (p.apply) p.apply(v);
  return {};
}

std::string get_param(const Param& p, const Values& v) {
  if (p.kind == Kind::kSpecial) return p.special_get(v);
  if (std::holds_alternative<std::monostate>(p.field)) {
    auto it = v.ignored.find(std::string(p.name));
    return it == v.ignored.end() ? std::string(p.def) : it->second;
  }
  if (auto* b = std::get_if<bool Values::*>(&p.field)) return v.*(*b) ? "yes" : "no";
  if (auto* i = std::get_if<int64_t Values::*>(&p.field)) return std::to_string(v.*(*i));
  return v.*std::get<std::string Values::*>(p.field);
}

}  // namespace lawnkv::config
