#include "engine/acl_selector.hpp"

#include <algorithm>
#include <climits>

#include "core/ascii.hpp"
#include "core/glob.hpp"
#include "engine/acl_categories.hpp"
#include "engine/keys.hpp"

namespace lawnkv::acl {

std::string_view rule_error_text(RuleError e) {
  switch (e) {
    case RuleError::kUnknownName:
      return "Unknown command or category name in ACL";
    case RuleError::kSyntax:
      return "Syntax error";
    case RuleError::kKeyAfterAllKeys:
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any "
             "effect. Try 'resetkeys' to start with an empty list of patterns";
    case RuleError::kChannelAfterAll:
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any "
             "effect. Try 'resetchannels' to start with an empty list of channels";
    case RuleError::kNoSuchPassword:
      return "The password you are trying to remove from the user does not exist";
    case RuleError::kBadHash:
      return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters";
    case RuleError::kDuplicateUser:
      return "Duplicate user found. A user can only be defined once in config files";
    case RuleError::kSubcommandFirstArg:
      return "Allowing first-arg of a subcommand is not supported";
    case RuleError::kNone:
      break;
  }
  return "Wrong format";
}

bool has_spaces(std::string_view s) {
  for (char c : s)
    if (c == ' ' || (c >= '\t' && c <= '\r') || c == '\0') return true;
  return false;
}

const CommandSpec* find_acl_command(const CommandTable& table, std::string_view name) {
  const size_t bar = name.find('|');
  if (bar == std::string_view::npos) return table.find(name);
  const std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  const CommandSpec* parent = table.find(name.substr(0, bar));
  if (!parent || parent->subcommands.empty()) return nullptr;
  return parent->subcommand(to_lower(sub));
}

Selector::Selector(bool root, bool all_channels) : root_(root), all_channels_(all_channels) {}

// Bits past bits_ read as future_: what +@all or -@all last set them to.
bool Selector::bit(uint32_t id) const {
  const size_t word = id / 64;
  if (word >= bits_.size()) return future_;
  return (bits_[word] >> (id % 64) & 1) != 0;
}

void Selector::set_bit(uint32_t id, bool on) {
  const size_t word = id / 64;
  if (word >= bits_.size()) bits_.resize(word + 1, future_ ? ~uint64_t{0} : 0);
  if (on) {
    bits_[word] |= uint64_t{1} << (id % 64);
  } else {
    bits_[word] &= ~(uint64_t{1} << (id % 64));
    all_commands_ = false;
  }
}

void Selector::change(const CommandSpec& spec, bool allow) {
  set_bit(spec.acl_id, allow);
  first_args_.erase(spec.acl_id);
  for (const CommandSpec& sub : spec.subcommands) set_bit(sub.acl_id, allow);
}

void Selector::change_category(uint32_t category, bool allow, const CommandTable& table) {
  table.for_each_spec([&](const CommandSpec& spec) {
    if (spec.acl_bits & category) change(spec, allow);
  });
}

void Selector::set_all(bool allow) {
  bits_.clear();
  future_ = allow;
  all_commands_ = allow;
  first_args_.clear();
}

RuleError Selector::apply_key_pattern(std::string_view op) {
  if (all_keys_) return RuleError::kKeyAfterAllKeys;
  uint8_t perms = 0;
  size_t offset = 1;
  if (op[0] == '%') {
    for (; offset < op.size(); ++offset) {
      const char c = op[offset];
      if ((c == 'R' || c == 'r') && !(perms & kKeyRead)) {
        perms |= kKeyRead;
      } else if ((c == 'W' || c == 'w') && !(perms & kKeyWrite)) {
        perms |= kKeyWrite;
      } else if (c == '~') {
        ++offset;
        break;
      } else {
        return RuleError::kSyntax;
      }
    }
    // "%" alone names no permission: Redis would store a pattern it cannot
    // describe; refused here.
    if (perms == 0) return RuleError::kSyntax;
  } else {
    perms = kKeyReadWrite;
  }
  const std::string_view pattern = op.substr(offset);
  if (has_spaces(pattern)) return RuleError::kSyntax;
  auto it = std::find_if(keys_.begin(), keys_.end(), [&](const KeyPattern& k) { return k.pattern == pattern; });
  if (it == keys_.end()) {
    keys_.emplace_back(std::string(pattern), perms);
  } else {
    it->perms |= perms;
  }
  return RuleError::kNone;
}

RuleError Selector::apply_channel_pattern(std::string_view op) {
  if (all_channels_) return RuleError::kChannelAfterAll;
  const std::string_view pattern = op.substr(1);
  if (has_spaces(pattern)) return RuleError::kSyntax;
  if (std::find(channels_.begin(), channels_.end(), pattern) == channels_.end()) channels_.emplace_back(pattern);
  return RuleError::kNone;
}

RuleError Selector::allow_command(std::string_view name, const CommandTable& table) {
  const size_t bar = name.rfind('|');
  if (bar == std::string_view::npos) {
    const CommandSpec* spec = find_acl_command(table, name);
    if (!spec) return RuleError::kUnknownName;
    change(*spec, true);
    return RuleError::kNone;
  }
  const CommandSpec* spec = find_acl_command(table, name.substr(0, bar));
  if (!spec) return RuleError::kUnknownName;
  // A subcommand's row has a '|' in its name.
  if (spec->name.find('|') != std::string::npos) return RuleError::kSubcommandFirstArg;
  const std::string_view arg = name.substr(bar + 1);
  if (arg.empty()) return RuleError::kSyntax;
  if (!spec->subcommands.empty()) {
    const CommandSpec* sub = find_acl_command(table, name);
    if (!sub) return RuleError::kUnknownName;
    change(*sub, true);
    return RuleError::kNone;
  }
  // First-args (Redis keeps them as given, and compares without case).
  std::vector<std::string>& args = first_args_[spec->acl_id];
  for (const std::string& a : args)
    if (iequals(a, arg)) return RuleError::kNone;
  args.emplace_back(arg);
  return RuleError::kNone;
}

RuleError Selector::deny_command(std::string_view name, const CommandTable& table) {
  const CommandSpec* spec = find_acl_command(table, name);
  if (!spec) return RuleError::kUnknownName;
  change(*spec, false);
  return RuleError::kNone;
}

RuleError Selector::apply(std::string_view op, const CommandTable& table) {
  if (iequals(op, "allkeys") || op == "~*") {
    all_keys_ = true;
    keys_.clear();
  } else if (iequals(op, "resetkeys")) {
    all_keys_ = false;
    keys_.clear();
  } else if (iequals(op, "allchannels") || op == "&*") {
    all_channels_ = true;
    channels_.clear();
  } else if (iequals(op, "resetchannels")) {
    all_channels_ = false;
    channels_.clear();
  } else if (iequals(op, "allcommands") || iequals(op, "+@all")) {
    set_all(true);
  } else if (iequals(op, "nocommands") || iequals(op, "-@all")) {
    set_all(false);
  } else if (!op.empty() && (op[0] == '~' || op[0] == '%')) {
    return apply_key_pattern(op);
  } else if (!op.empty() && op[0] == '&') {
    return apply_channel_pattern(op);
  } else if (op.size() >= 2 && (op[0] == '+' || op[0] == '-') && op[1] == '@') {
    const std::optional<AclCategory> cat = find_acl_category(op.substr(2));
    if (!cat) return RuleError::kUnknownName;
    change_category(*cat, op[0] == '+', table);
  } else if (!op.empty() && op[0] == '+') {
    return allow_command(op.substr(1), table);
  } else if (!op.empty() && op[0] == '-') {
    return deny_command(op.substr(1), table);
  } else {
    return RuleError::kSyntax;
  }
  return RuleError::kNone;
}

// --- Checks ----------------------------------------------------------------

bool Selector::command_allowed(const CommandSpec& spec, std::span<const std::string_view> argv) const {
  if (all_commands_ || spec.has(kNoAuth) || bit(spec.acl_id)) return true;
  if (argv.size() < 2) return false;
  const auto it = first_args_.find(spec.acl_id);
  if (it == first_args_.end()) return false;
  const size_t idx = spec.name.find('|') != std::string::npos ? 2 : 1;
  if (idx >= argv.size()) return false;
  for (const std::string& a : it->second)
    if (iequals(a, argv[idx])) return true;
  return false;
}

KeyPattern::KeyPattern(std::string p, uint8_t perm) : pattern(std::move(p)), perms(perm), kind(kLiteral) {
  const size_t special = pattern.find_first_of("*?[\\");
  if (special == std::string::npos) return;
  kind = special == pattern.size() - 1 && pattern[special] == '*' ? kPrefix : kGlob;
}

bool KeyPattern::matches(std::string_view key) const {
  switch (kind) {
    case kLiteral:
      return key == pattern;
    case kPrefix:
      return !key.empty() && key.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1));
    default:
      return glob_match(pattern, key);
  }
}

bool Selector::key_allowed(std::string_view key, uint8_t perms) const {
  if (all_keys_) return true;
  for (const KeyPattern& k : keys_) {
    if ((k.perms & perms) != perms) continue;
    if (k.matches(key)) return true;
  }
  return false;
}

bool Selector::unrestricted_keys(uint8_t perms) const {
  if (all_keys_) return true;
  for (const KeyPattern& k : keys_)
    if ((k.perms & perms) == perms && k.pattern == "*") return true;
  return false;
}

bool Selector::channel_allowed(std::string_view channel, bool is_pattern) const {
  if (all_channels_) return true;
  for (const std::string& p : channels_) {
    if (is_pattern ? p == channel : glob_match(p, channel)) return true;
  }
  return false;
}

static_assert(int{kKeyRead} == int{kKeySpecReads} && int{kKeyWrite} == int{kKeySpecWrites});

Verdict Selector::check(const CommandSpec& spec, std::span<const std::string_view> argv, int* pos) const {
  // The row's bit first, in line: command_allowed's first-args are rare.
  if (!all_commands_ && !bit(spec.acl_id) && !command_allowed(spec, argv)) return kDeniedCommand;
  if (!all_keys_ && check_keys(spec, argv, pos) != kAllowed) return kDeniedKey;
  if (!all_channels_ && spec.channel_args != kNoChannels) {
    const size_t end = spec.channel_args == kPublishChannel ? std::min<size_t>(2, argv.size()) : argv.size();
    for (size_t i = 1; i < end; ++i) {
      if (!channel_allowed(argv[i], spec.channel_args == kSubscribePatterns)) {
        *pos = static_cast<int>(i);
        return kDeniedChannel;
      }
    }
  }
  return kAllowed;
}

Verdict Selector::check_keys(const CommandSpec& spec, std::span<const std::string_view> argv, int* pos) const {
  // What key spec s asks of the user (Redis's ACLSelectorCheckKey: access
  // reads, insert, delete and update write); 0xff: a shard channel (not_key
  // in its flags), checked as a channel.
  const KeyPlan& plan = key_plan(spec);
  auto perms_of = [&](int s) -> uint8_t {
    if (static_cast<size_t>(s) >= plan.bits.size()) return 0;  // no flags entry: no permission asked
    const uint8_t bits = plan.bits[static_cast<size_t>(s)];
    if (!(bits & kKeySpecVariable)) return bits & kKeySpecNotKey ? 0xff : bits & kKeyReadWrite;
    const std::string_view flags = spec.variable_key_flags(argv);
    return flags.find("not_key") != std::string_view::npos ? 0xff : key_spec_access(flags);
  };
  auto allowed = [&](int p, int s) {
    const uint8_t perms = perms_of(s);
    if (perms == 0xff || key_allowed(argv[static_cast<size_t>(p)], perms)) return true;
    *pos = p;
    return false;
  };
  // The keys found without find_keys's vector when they are ranges.
  if (plan.ranges_only) return for_each_range_key(plan, static_cast<int>(argv.size()), allowed) ? kAllowed : kDeniedKey;
  for (const KeyRef& k : find_keys(spec, argv))
    if (!allowed(k.pos, k.spec)) return kDeniedKey;
  return kAllowed;
}

// --- Descriptions ----------------------------------------------------------

std::string Selector::describe_commands(const CommandTable& table) const {
  // As Redis: rules applied to a fake selector as they are written, so
  // each step knows what still differs; a temporary copy of the bits has
  // each chosen category inverted, so it is not chosen again.
  const bool additive = !future_;
  std::string rules = additive ? "-@all " : "+@all ";
  Selector fake(false, false);
  fake.apply(additive ? "-@all" : "+@all", table);
  Selector temp(false, false);
  temp.bits_ = bits_;
  temp.future_ = future_;
  const auto names = acl_category_names();
  std::vector<bool> applied(names.size(), false);
  while (true) {
    int best = -1;
    unsigned long mindiff = INT_MAX, maxsame = 0;
    for (size_t j = 0; j < names.size(); ++j) {
      if (applied[j]) continue;
      // How many rows of the category temp allows (on) and not (off).
      unsigned long on = 0, off = 0;
      table.for_each_spec([&](const CommandSpec& spec) {
        if (spec.acl_bits & names[j].bit) ++(temp.bit(spec.acl_id) ? on : off);
      });
      const unsigned long diff = additive ? off : on;
      const unsigned long same = additive ? on : off;
      if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
        best = static_cast<int>(j);
        mindiff = diff;
        maxsame = same;
      }
    }
    if (best < 0) break;
    const std::string name(names[static_cast<size_t>(best)].name);
    fake.change_category(names[static_cast<size_t>(best)].bit, additive, table);
    temp.change_category(names[static_cast<size_t>(best)].bit, !additive, table);
    rules += (additive ? "+@" : "-@") + name + " ";
    applied[static_cast<size_t>(best)] = true;
  }
  // Then the single commands that still differ, and the first-args.
  table.for_each_spec([&](const CommandSpec& spec) {
    const bool mine = bit(spec.acl_id);
    if (mine != fake.bit(spec.acl_id)) {
      rules += (mine ? "+" : "-") + spec.name + " ";
      fake.change(spec, mine);
    }
    if (!mine) {
      const auto it = first_args_.find(spec.acl_id);
      if (it != first_args_.end())
        for (const std::string& a : it->second) rules += "+" + spec.name + "|" + a + " ";
    }
  });
  rules.pop_back();
  return rules;
}

std::string Selector::describe_keys() const {
  if (all_keys_) return "~*";
  std::string out;
  for (const KeyPattern& k : keys_) {
    if (!out.empty()) out += ' ';
    out += k.perms == kKeyReadWrite ? "~" : k.perms == kKeyRead ? "%R~" : "%W~";
    out += k.pattern;
  }
  return out;
}

std::string Selector::describe_channels() const {
  if (all_channels_) return "&*";
  std::string out;
  for (const std::string& c : channels_) {
    if (!out.empty()) out += ' ';
    out += '&';
    out += c;
  }
  return out;
}

std::string Selector::describe(const CommandTable& table) const {
  std::string out;
  const std::string keys = describe_keys();
  if (!keys.empty()) out += keys + " ";
  if (all_channels_) {
    out += "&* ";
  } else {
    out += "resetchannels ";
    for (const std::string& c : channels_) out += "&" + c + " ";
  }
  return out + describe_commands(table);
}

}  // namespace lawnkv::acl
