#include "engine/acl_user.hpp"

#include <algorithm>

#include "core/ascii.hpp"
#include "core/sha256.hpp"
#include "core/split_args.hpp"

namespace lawnkv::acl {

namespace {

constexpr UserFlagName kFlagNames[] = {
    {kEnabled, "on"},
    {kDisabled, "off"},
    {kNoPass, "nopass"},
    {kSkipSanitizePayload, "skip-sanitize-payload"},
    {kSanitizePayload, "sanitize-payload"},
};

bool valid_hash(std::string_view h) {
  if (h.size() != 64) return false;
  for (char c : h)
    if (!((c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'))) return false;
  return true;
}

// Equal digests, in time that does not depend on where they differ.
bool same_digest(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::span<const UserFlagName> user_flag_names() { return kFlagNames; }

User::User(std::string name, bool pubsub_all) : name_(std::move(name)) {
  selectors_.emplace_back(true, pubsub_all);
  refresh();
}

void User::assign_rules(const User& other) {
  flags_ = other.flags_;
  passwords_ = other.passwords_;
  selectors_ = other.selectors_;
  unrestricted_ = other.unrestricted_;
}

void User::refresh() {
  const Selector& root = selectors_.front();
  unrestricted_ = root.all_commands() && root.all_keys() && root.all_channels();
}

RuleError User::apply(std::string_view op, const CommandTable& table, bool pubsub_all) {
  const RuleError e = [&] {
    if (op.empty()) return RuleError::kNone;
    if (iequals(op, "on")) {
      flags_ = (flags_ | kEnabled) & ~kDisabled;
    } else if (iequals(op, "off")) {
      flags_ = (flags_ | kDisabled) & ~kEnabled;
    } else if (iequals(op, "skip-sanitize-payload")) {
      flags_ = (flags_ | kSkipSanitizePayload) & ~kSanitizePayload;
    } else if (iequals(op, "sanitize-payload")) {
      flags_ = (flags_ | kSanitizePayload) & ~kSkipSanitizePayload;
    } else if (iequals(op, "nopass")) {
      flags_ |= kNoPass;
      passwords_.clear();
    } else if (iequals(op, "resetpass")) {
      flags_ &= ~kNoPass;
      passwords_.clear();
    } else if (op[0] == '>' || op[0] == '#') {
      std::string digest;
      if (op[0] == '>') {
        digest = sha256_hex(op.substr(1));
      } else {
        if (!valid_hash(op.substr(1))) return RuleError::kBadHash;
        digest = op.substr(1);
      }
      if (std::find(passwords_.begin(), passwords_.end(), digest) == passwords_.end())
        passwords_.push_back(std::move(digest));
      flags_ &= ~kNoPass;
    } else if (op[0] == '<' || op[0] == '!') {
      std::string digest;
      if (op[0] == '<') {
        digest = sha256_hex(op.substr(1));
      } else {
        if (!valid_hash(op.substr(1))) return RuleError::kBadHash;
        digest = op.substr(1);
      }
      const auto it = std::find(passwords_.begin(), passwords_.end(), digest);
      if (it == passwords_.end()) return RuleError::kNoSuchPassword;
      passwords_.erase(it);
    } else if (op[0] == '(' && op.back() == ')') {
      // Its rules split as redis-cli splits a line (quotes allowed).
      Selector s(false, pubsub_all);
      const auto words = split_args(op.substr(1, op.size() - 2));
      if (words) {
        for (const std::string& w : *words)
          if (RuleError inner = s.apply(w, table); inner != RuleError::kNone) return inner;
      }
      selectors_.push_back(std::move(s));
    } else if (iequals(op, "clearselectors")) {
      selectors_.resize(1, Selector(true, pubsub_all));
    } else if (iequals(op, "reset")) {
      flags_ &= ~kNoPass;
      passwords_.clear();
      Selector& root = selectors_.front();
      root.apply("resetkeys", table);
      root.apply("resetchannels", table);
      if (pubsub_all) root.apply("allchannels", table);
      flags_ = (flags_ | kDisabled | kSanitizePayload) & ~(kEnabled | kSkipSanitizePayload);
      selectors_.resize(1, Selector(true, pubsub_all));
      root.apply("-@all", table);
    } else {
      return selectors_.front().apply(op, table);
    }
    return RuleError::kNone;
  }();
  refresh();
  return e;
}

bool User::password_matches(std::string_view pass) const {
  if (nopass()) return true;
  const std::string digest = sha256_hex(pass);
  bool found = false;
  for (const std::string& p : passwords_) found |= same_digest(digest, p);
  return found;
}

Verdict User::check(const CommandSpec& spec, std::span<const std::string_view> argv, int* pos) const {
  // The root selector alone (no "(...)"): its verdict and position are the
  // answer (a denied command leaves *pos at 0, as below).
  if (selectors_.size() == 1) {
    *pos = 0;
    return selectors_.front().check(spec, argv, pos);
  }
  Verdict relevant = kDeniedCommand;
  int last = 0;
  for (const Selector& s : selectors_) {
    int at = 0;
    const Verdict v = s.check(spec, argv, &at);
    if (v == kAllowed) return kAllowed;
    if (v > relevant || (v == relevant && at > last)) {
      relevant = v;
      last = at;
    }
  }
  *pos = last;
  return relevant;
}

bool User::unrestricted_keys_for(const CommandSpec& spec, std::span<const std::string_view> argv,
                                 uint8_t perms) const {
  for (const Selector& s : selectors_) {
    int at = 0;
    if (s.check(spec, argv, &at) == kAllowed && s.unrestricted_keys(perms)) return true;
  }
  return false;
}

bool User::channel_allowed(std::string_view channel, bool is_pattern) const {
  for (const Selector& s : selectors_)
    if (s.channel_allowed(channel, is_pattern)) return true;
  return false;
}

std::string User::describe(const CommandTable& table) const {
  std::string out;
  for (const UserFlagName& f : kFlagNames)
    if (flags_ & f.flag) out += std::string(f.name) + " ";
  for (const std::string& p : passwords_) out += "#" + p + " ";
  for (const Selector& s : selectors_) {
    if (s.root())
      out += s.describe(table);
    else
      out += " (" + s.describe(table) + ")";
  }
  return out;
}

bool merge_selector_args(std::span<const std::string_view> args, std::vector<std::string>* out, size_t* open_at) {
  std::string selector;
  bool open = false;
  for (size_t j = 0; j < args.size(); ++j) {
    const std::string_view op = args[j];
    if (!op.empty() && op.front() == '(' && op.back() != ')') {
      selector = op;
      open = true;
      *open_at = j;
      continue;
    }
    if (open) {
      selector += ' ';
      selector += op;
      if (!op.empty() && op.back() == ')') {
        open = false;
        out->push_back(std::move(selector));
      }
      continue;
    }
    out->emplace_back(op);
  }
  return !open;
}

}  // namespace lawnkv::acl
