#include "engine/keys.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/ascii.hpp"

namespace lawnkv {

namespace {

// C's atoi, as Redis reads a key count here.
long atoi_of(std::string_view s) { return std::atol(std::string(s).c_str()); }

// Entries of key_flags (';' separated, empty ones skipped).
int flag_entries(std::string_view flags) {
  int n = 0;
  bool in_entry = false;
  for (char c : flags) {
    if (c == ';') {
      in_entry = false;
    } else if (!in_entry) {
      in_entry = true;
      ++n;
    }
  }
  return n;
}

}  // namespace

std::vector<KeySpec> key_specs(const CommandSpec& c) {
  std::vector<KeySpec> out;
  const KeyRange& k = c.keys;
  const int step = k.step > 0 ? k.step : 1;
  if (k.first > 0) {
    const int wanted = flag_entries(c.key_flags) - (c.keynum.index > 0 ? 1 : 0) - c.unknown_key_specs;
    if (k.last < 0 && wanted == 2) {
      out.push_back({.index = k.first, .lastkey = 0, .keystep = step});
      out.push_back({.index = k.first + step, .lastkey = k.last, .keystep = step});
    } else if (k.last < 0 || k.last == k.first || wanted == 1) {
      out.push_back({.index = k.first, .lastkey = k.last < 0 ? k.last : k.last - k.first, .keystep = step});
    } else {
      for (int pos = k.first; pos <= k.last; pos += step) out.push_back({.index = pos, .lastkey = 0, .keystep = 1});
    }
  }
  if (!c.keyword.word.empty())
    out.push_back({.index = c.keyword.startfrom, .lastkey = -1, .keystep = 1, .keyword = c.keyword.word, .limit = c.keyword.limit});
  if (c.keynum.index > 0)
    out.push_back({.index = c.keynum.index, .keynum = true, .keystep = c.keynum.keystep, .firstkey = c.keynum.firstkey});
  for (int i = 0; i < c.unknown_key_specs; ++i) out.push_back({.unknown = true});
  return out;
}

bool has_key_arguments(const CommandSpec& spec) {
  return spec.keys.first > 0 || spec.keynum.index > 0 || spec.get_keys != nullptr || !spec.keyword.word.empty();
}

std::vector<KeyRef> find_keys(const CommandSpec& spec, std::span<const std::string_view> argv) {
  std::vector<KeyRef> out;
  if (spec.get_keys) {
    spec.get_keys(argv, out);
    return out;
  }
  const int argc = static_cast<int>(argv.size());
  const std::vector<KeySpec> specs = key_specs(spec);
  for (int s = 0; s < static_cast<int>(specs.size()); ++s) {
    const KeySpec& ks = specs[static_cast<size_t>(s)];
    const int step = ks.keystep > 0 ? ks.keystep : 1;
    if (ks.keynum) {
      if (ks.index >= argc) return {};
      const int first = ks.index + ks.firstkey;
      const long count = atoi_of(argv[static_cast<size_t>(ks.index)]);
      if (count < 1 || count > (argc - first) / step) return {};
      for (long i = 0; i < count; ++i) out.push_back({first + static_cast<int>(i) * step, s});
      continue;
    }
    if (!ks.keyword.empty()) {
      int first = 0;
      for (int i = ks.index; i < argc - 1; ++i) {
        if (iequals(argv[static_cast<size_t>(i)], ks.keyword)) {
          first = i + 1;
          break;
        }
      }
      const int rest = argc - first;
      if (!first || rest % 2 != 0) return {};
      for (int pos = first; pos < first + rest / 2; ++pos) out.push_back({pos, s});
      continue;
    }
    const int last = ks.lastkey >= 0 ? ks.index + ks.lastkey : argc + ks.lastkey;
    for (int pos = ks.index; pos <= last && pos < argc; pos += step) out.push_back({pos, s});
  }
  return out;
}

}  // namespace lawnkv
