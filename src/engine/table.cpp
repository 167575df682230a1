#include "engine/table.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine/acl_categories.hpp"

namespace lawnkv {

const CommandSpec* CommandSpec::subcommand(std::string_view lower_name) const {
  for (const auto& s : subcommands)
    if (std::string_view(s.name).substr(name.size() + 1) == lower_name) return &s;
  return nullptr;
}

// The command name of every request is looked up here: the name is hashed
// folded to lower case a word at a time, the words iequals_lower compares
// (core/ascii.hpp), and compared with one row, with no allocation and no
// copy of the name.
uint64_t CommandTable::name_hash(std::string_view name) {
  const size_t n = name.size();
  const char* p = name.data();
  uint64_t h = n * 0x9E3779B97F4A7C15ULL;
  auto mix = [&h](uint64_t w) {
    h = (h ^ ascii_lower8(w)) * 0x100000001B3ULL;
    h ^= h >> 29;
  };
  if (n < 8) {
    mix(short_word(p, n));
  } else {
    for (size_t i = 0; i + 8 < n; i += 8) mix(load8(p + i));
    mix(load8(p + n - 8));
  }
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ h >> 31;
}

namespace {

// bits plus what the command flags imply (acl_categories.hpp).
uint32_t implicit_acl_categories(uint32_t flags, uint32_t bits) {
  if (flags & kWrite) bits |= kAclWrite;
  if ((flags & kReadonly) && !(bits & kAclScripting)) bits |= kAclRead;
  if (flags & kAdmin) bits |= kAclAdmin | kAclDangerous;
  if (flags & kPubsub) bits |= kAclPubsub;
  if (flags & kFast) bits |= kAclFast;
  if (flags & kBlocking) bits |= kAclBlocking;
  if (!(bits & kAclFast)) bits |= kAclSlow;
  return bits;
}

void set_acl_bits(CommandSpec& spec) {
  const std::optional<uint32_t> bits = parse_acl_categories(spec.acl);
  if (!bits) throw std::logic_error("command row " + spec.name + ": unknown ACL category in \"" + std::string(spec.acl) + "\"");
  spec.acl_bits = implicit_acl_categories(spec.flags, *bits);
  for (CommandSpec& sub : spec.subcommands) set_acl_bits(sub);
}

}  // namespace

void CommandTable::add(CommandSpec spec) {
  set_acl_bits(spec);
  spec.acl_id = next_acl_id_++;
  for (CommandSpec& sub : spec.subcommands) sub.acl_id = next_acl_id_++;
  std::string key = spec.name;
  auto [it, added] = commands_.emplace(std::move(key), std::move(spec));
  if (!added) throw std::logic_error("command row " + it->first + " added twice");
  if (commands_.size() * 2 > slots_.size()) {
    // Grow and re-index every row (only while the table is being built).
    slots_.assign(std::max<size_t>(64, slots_.size() * 2), Slot{});
    for (const auto& [name, row] : commands_) index(row);
  } else {
    index(it->second);
  }
}

void CommandTable::index(const CommandSpec& spec) {
  const uint64_t h = name_hash(spec.name);
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (slots_[i].spec != nullptr) i = (i + 1) & mask;
  slots_[i] = Slot{h, &spec};
}

const CommandSpec* CommandTable::find_fullname(std::string_view name) const {
  const size_t bar = name.find('|');
  const CommandSpec* c = find(name.substr(0, bar));
  if (!c || bar == std::string_view::npos) return c;
  const std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  return c->subcommand(to_lower(sub));
}

const CommandSpec* CommandTable::find(std::string_view name) const {
  if (slots_.empty()) return nullptr;
  const uint64_t h = name_hash(name);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask; slots_[i].spec != nullptr; i = (i + 1) & mask) {
    // Row names are lower case (a unit test checks), as the map's keys
    // the name was lower-cased for.
    if (slots_[i].hash == h && iequals_lower(name, slots_[i].spec->name)) return slots_[i].spec;
  }
  return nullptr;
}

}  // namespace lawnkv
