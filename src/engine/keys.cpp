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

// Whether key spec `index` is marked not_key (its "key" is no key, as a
// shard channel: COMMAND INFO reports it, COMMAND GETKEYS skips it).
bool not_key(std::string_view flags, int index) {
  int n = 0;
  size_t start = 0;
  while (start <= flags.size()) {
    size_t end = flags.find(';', start);
    if (end == std::string_view::npos) end = flags.size();
    const std::string_view entry = flags.substr(start, end - start);
    if (!entry.empty()) {
      if (n == index) return (" " + std::string(entry) + " ").find(" not_key ") != std::string::npos;
      ++n;
    }
    start = end + 1;
  }
  return false;
}

// The flags entry of key spec `index`, ';' separated with empty entries
// counted ("" when there is none).
std::string_view flags_entry(std::string_view all, int index) {
  for (int i = 0; i < index; ++i) {
    const size_t semi = all.find(';');
    if (semi == std::string_view::npos) return {};
    all.remove_prefix(semi + 1);
  }
  return all.substr(0, all.find(';'));
}

}  // namespace

uint8_t key_spec_access(std::string_view flags) {
  // One pass over the words (a variable_flags row's are read per call);
  // the four that count are six letters long.
  uint8_t bits = 0;
  size_t start = 0;
  while (start < flags.size()) {
    size_t end = start;
    while (end < flags.size() && flags[end] != ' ') ++end;
    if (end - start == 6) {
      const std::string_view word = flags.substr(start, 6);
      if (word == "access") bits |= kKeySpecReads;
      else if (word == "insert" || word == "delete" || word == "update") bits |= kKeySpecWrites;
    }
    start = end + 1;
  }
  return bits;
}

const KeyPlan& key_plan(const CommandSpec& spec) {
  if (spec.key_plan) return *spec.key_plan;
  auto plan = std::make_shared<KeyPlan>();
  plan->specs = key_specs(spec);
  plan->ranges_only = !spec.get_keys;
  for (const KeySpec& ks : plan->specs)
    if (ks.keynum || ks.unknown || !ks.keyword.empty()) plan->ranges_only = false;
  // Bits for every spec and every flags entry (a row's get_keys may name
  // a spec by its entry).
  const size_t entries = spec.key_flags.empty() ? 0 : std::count(spec.key_flags.begin(), spec.key_flags.end(), ';') + 1;
  for (int s = 0; s < static_cast<int>(std::max(plan->specs.size(), entries)); ++s) {
    // As ACL checks read it (entries counted as they come) and find_keys
    // (empty entries skipped) for not_key.
    const std::string_view entry = flags_entry(spec.key_flags, s);
    uint8_t bits = key_spec_access(entry);
    if (not_key(spec.key_flags, s)) bits |= kKeySpecNotKey;
    if (spec.variable_key_flags && entry.find("variable_flags") != std::string_view::npos) bits |= kKeySpecVariable;
    plan->bits.push_back(bits);
  }
  spec.key_plan = std::move(plan);
  return *spec.key_plan;
}

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
  for (std::string_view words = c.keyword.word; !words.empty();) {
    const size_t bar = words.find('|');
    const std::string_view word = words.substr(0, bar);
    out.push_back({.index = c.keyword.startfrom, .lastkey = c.keyword.lastkey, .keystep = 1, .keyword = word,
                   .limit = c.keyword.limit});
    words = bar == std::string_view::npos ? std::string_view{} : words.substr(bar + 1);
  }
  if (c.keynum.index > 0)
    out.push_back({.index = c.keynum.index, .keynum = true, .keystep = c.keynum.keystep, .firstkey = c.keynum.firstkey});
  for (int i = 0; i < c.unknown_key_specs; ++i) out.push_back({.unknown = true});
  return out;
}

bool has_key_arguments(const CommandSpec& spec) {
  if (spec.get_keys) return true;
  for (uint8_t bits : key_plan(spec).bits)
    if (!(bits & kKeySpecNotKey)) return true;
  return false;
}

std::vector<KeyRef> find_keys(const CommandSpec& spec, std::span<const std::string_view> argv) {
  std::vector<KeyRef> out;
  if (spec.get_keys) {
    spec.get_keys(argv, out);
    return out;
  }
  const int argc = static_cast<int>(argv.size());
  const KeyPlan& plan = key_plan(spec);
  const std::vector<KeySpec>& specs = plan.specs;
  for (int s = 0; s < static_cast<int>(specs.size()); ++s) {
    const KeySpec& ks = specs[static_cast<size_t>(s)];
    if (plan.bits[static_cast<size_t>(s)] & kKeySpecNotKey) continue;
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
      if (ks.lastkey >= 0) {
        // One key right after the keyword; no keyword, no key.
        if (first && first + ks.lastkey < argc) out.push_back({first + ks.lastkey, s});
        continue;
      }
      // As Redis's range with lastkey -1: with a limit, the first
      // 1/limit of the arguments after the keyword (rounded down: XREAD
      // STREAMS a b c names "a"), else all of them.
      if (!first) continue;
      const int last = ks.limit > 0 ? first + (argc - first) / ks.limit - 1 : argc - 1;
      for (int pos = first; pos <= last; ++pos) out.push_back({pos, s});
      continue;
    }
    const int last = range_last(ks, argc);
    for (int pos = ks.index; pos <= last && pos < argc; pos += step) out.push_back({pos, s});
  }
  return out;
}

}  // namespace lawnkv
