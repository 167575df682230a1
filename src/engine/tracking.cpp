#include "engine/tracking.hpp"

#include <algorithm>

#include "core/error_format.hpp"
#include "engine/keys.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kInvalidatePush = ">2\r\n$10\r\ninvalidate\r\n";
constexpr std::string_view kInvalidateMessage = "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n";

// Redis's stringCheckPrefix: one is a prefix of the other.
bool overlap(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

void append_bulk(std::string& out, std::string_view s) {
  out += '$';
  out += std::to_string(s.size());
  out += "\r\n";
  out.append(s);
  out += "\r\n";
}

std::string_view null_body(const Session& s) { return s.protocol > 2 ? "_\r\n" : "$-1\r\n"; }

// A CLIENT subcommand keeps CLIENT CACHING's flag for the next command (as
// Redis's resetClient, which compares the command's proc: every CLIENT
// subcommand shares clientCommand).
bool is_client_command(const CommandSpec* spec) {
  if (!spec) return false;
  std::string_view name = spec->name;
  return name == "client" || name.starts_with("client|");
}

// The keys of a read, in argument order, for fn: straight from the row's
// (first, last, step) when that is all it has (GET, MGET), else from
// find_keys.
template <class Fn>
void for_each_key(const CommandSpec& spec, std::span<const std::string_view> argv, Fn&& fn) {
  const bool simple = spec.keys.first > 0 && spec.keynum.index == 0 && spec.keyword.word.empty() &&
                      spec.get_keys == nullptr && spec.unknown_key_specs == 0;
  if (simple) {
    const int argc = static_cast<int>(argv.size());
    const int last = spec.keys.last < 0 ? argc + spec.keys.last : spec.keys.last;
    const int step = spec.keys.step > 0 ? spec.keys.step : 1;
    for (int i = spec.keys.first; i <= last && i < argc; i += step) fn(argv[i]);
    return;
  }
  for (const KeyRef& k : find_keys(spec, argv)) fn(argv[k.pos]);
}

}  // namespace

// ---- CLIENT TRACKING

Tracking::PrefixCheck Tracking::check_prefixes(const Session& s, std::span<const std::string_view> prefixes) const {
  constexpr std::string_view kTail = ". Prefixes for a single client must not overlap.";
  for (size_t i = 0; i < prefixes.size(); ++i) {
    for (const std::string& have : s.tracking.prefixes)
      if (overlap(have, prefixes[i]))
        return {format_error(std::string("ERR Prefix '%s' overlaps with an existing prefix '%s'") + std::string(kTail),
                             {prefixes[i], have}),
                false};
    for (size_t j = i + 1; j < prefixes.size(); ++j)
      if (overlap(prefixes[i], prefixes[j]))
        return {format_error(std::string("ERR Prefix '%s' overlaps with another provided prefix '%s'") +
                                 std::string(kTail),
                             {prefixes[i], prefixes[j]}),
                i > 0};
  }
  return {};
}

void Tracking::enable(Session& s, uint64_t redirect, const Options& o, std::span<const std::string_view> prefixes) {
  TrackingState& t = s.tracking;
  if (!t.on) ++clients_on_;
  t.on = true;
  t.broken_redirect = t.bcast = t.optin = t.optout = t.noloop = false;
  t.redirect = redirect;
  if (o.bcast) {
    t.bcast = true;
    if (prefixes.empty()) add_prefix(s, "");
    for (std::string_view p : prefixes) add_prefix(s, p);
  }
  t.optin = o.optin;
  t.optout = o.optout;
  t.noloop = o.noloop;
}

void Tracking::add_prefix(Session& s, std::string_view prefix) {
  auto it = prefixes_.find(prefix);
  if (it == prefixes_.end()) it = prefixes_.emplace(std::string(prefix), Bcast{}).first;
  std::vector<uint64_t>& ids = it->second.clients;
  auto pos = std::lower_bound(ids.begin(), ids.end(), s.id);
  if (pos != ids.end() && *pos == s.id) return;
  ids.insert(pos, s.id);
  std::vector<std::string>& mine = s.tracking.prefixes;
  mine.insert(std::lower_bound(mine.begin(), mine.end(), prefix), std::string(prefix));
}

void Tracking::disable(Session& s) {
  TrackingState& t = s.tracking;
  if (t.bcast) {
    for (const std::string& p : t.prefixes) {
      auto it = prefixes_.find(p);
      if (it == prefixes_.end()) continue;
      std::erase(it->second.clients, s.id);
      if (it->second.clients.empty()) prefixes_.erase(it);
    }
    t.prefixes.clear();
  }
  if (t.on) {
    --clients_on_;
    t.on = t.broken_redirect = t.bcast = t.optin = t.optout = t.caching = t.noloop = false;
  }
}

// ---- reads

void Tracking::remember_keys(const Session& s, const CommandSpec& spec, std::span<const std::string_view> argv) {
  // A script's reads count for the client that runs the script; the
  // read-only script commands themselves (EVAL_RO, EVALSHA_RO, FCALL_RO:
  // read-only and never run by a script) add nothing but what they read.
  const Session* caller = s.in_script ? current_ : &s;
  if (caller == nullptr || spec.has(kNoscript) || spec.has(kPubsub)) return;
  const TrackingState& t = caller->tracking;
  if (!t.on || t.bcast) return;
  if ((t.optin && !t.caching) || (t.optout && t.caching)) return;
  const uint64_t id = caller->id;
  for_each_key(spec, argv, [&](std::string_view key) { remember_key(key, id); });
}

void Tracking::remember_key(std::string_view key, uint64_t id) {
  auto it = keys_.find(key);
  if (it == keys_.end()) it = keys_.emplace(std::string(key), std::vector<uint64_t>{}).first;
  std::vector<uint64_t>& ids = it->second;
  auto pos = std::lower_bound(ids.begin(), ids.end(), id);
  if (pos != ids.end() && *pos == id) return;
  ids.insert(pos, id);
  ++items_;
}

// ---- invalidation

void Tracking::invalidate_key(std::string_view key, const Session* writer, bool bcast) {
  if (bcast && !prefixes_.empty()) {
    for (auto& [prefix, state] : prefixes_)
      if (key.starts_with(prefix)) state.keys[std::string(key)] = writer ? writer->id : 0;
  }
  auto it = keys_.find(key);
  if (it == keys_.end()) return;
  // Taken out first: a message may close its client (output limits),
  // which must find the table whole.
  const std::vector<uint64_t> ids = std::move(it->second);
  items_ -= ids.size();
  keys_.erase(it);
  std::string body;
  for (uint64_t id : ids) {
    Session* target = clients_ ? clients_->find(id) : nullptr;
    if (!target || !target->tracking.on || target->tracking.bcast) continue;
    if (target->tracking.noloop && target == current_) continue;
    if (body.empty()) {
      body = "*1\r\n";
      append_bulk(body, key);
    }
    send(*target, body);
  }
}

void Tracking::invalidate_all() {
  if (clients_on_ != 0 && clients_ != nullptr) {
    // A copy: a message may close a client, which leaves the registry.
    std::vector<uint64_t> ids;
    for (const auto& [id, s] : clients_->all())
      if (s->tracking.on) ids.push_back(id);
    for (uint64_t id : ids)
      if (Session* s = clients_->find(id)) send(*s, null_body(*s));
  }
  keys_.clear();
  items_ = 0;
}

namespace {

// The keys as one array, sorted (a map), without those the client except
// changed last (NOLOOP; 0: all of them); empty when none is left.
std::string keys_array(const std::map<std::string, uint64_t>& keys, uint64_t except) {
  size_t n = 0;
  for (const auto& [key, writer] : keys) n += except == 0 || writer != except;
  std::string out;
  if (n == 0) return out;
  out = "*" + std::to_string(n) + "\r\n";
  for (const auto& [key, writer] : keys)
    if (except == 0 || writer != except) append_bulk(out, key);
  return out;
}

}  // namespace

void Tracking::broadcast() {
  if (clients_on_ == 0 || prefixes_.empty()) return;
  // Taken out of the table first: a message may close its client, whose
  // prefixes then leave the table.
  struct Batch {
    std::vector<uint64_t> ids;
    std::map<std::string, uint64_t> keys;
  };
  std::vector<Batch> batches;
  for (auto& [prefix, state] : prefixes_) {
    if (state.keys.empty()) continue;
    batches.push_back({state.clients, std::move(state.keys)});
    state.keys.clear();
  }
  for (const Batch& b : batches) {
    const std::string all = keys_array(b.keys, 0);
    for (uint64_t id : b.ids) {
      Session* c = clients_ ? clients_->find(id) : nullptr;
      if (!c || !c->tracking.on) continue;
      if (c->tracking.noloop) {
        const std::string own = keys_array(b.keys, id);
        if (!own.empty()) send(*c, own);
      } else {
        send(*c, all);
      }
    }
  }
}

void Tracking::limit(size_t max_keys) {
  if (max_keys == 0 || keys_.size() <= max_keys) {
    limit_failures_ = 0;
    return;
  }
  int effort = 100 * static_cast<int>(limit_failures_ + 1);
  while (effort-- > 0 && !keys_.empty()) {
    // A random bucket, then its first key (an empty bucket costs a try).
    const size_t bucket = rng_() % keys_.bucket_count();
    auto it = keys_.begin(bucket);
    if (it == keys_.end(bucket)) continue;
    const std::string key = it->first;
    invalidate_key(key, nullptr, false);
    if (keys_.size() <= max_keys) {
      limit_failures_ = 0;
      return;
    }
  }
  ++limit_failures_;
}

void Tracking::key_expired(int db, std::string_view key) {
  if (next_) next_->key_expired(db, key);
  invalidate(key, nullptr);
}

void Tracking::parts_expired(int db, std::string_view key, std::span<const std::string> parts, bool key_deleted) {
  if (next_) next_->parts_expired(db, key, parts, key_deleted);
  invalidate(key, nullptr);
}

// ---- messages

void Tracking::send(Session& c, std::string_view body) {
  Session* to = &c;
  bool redirected = false;
  if (c.tracking.redirect != 0) {
    to = clients_ ? clients_->find(c.tracking.redirect) : nullptr;
    if (to == nullptr) {
      c.tracking.broken_redirect = true;
      if (c.protocol > 2) {
        std::string frame = ">2\r\n$21\r\ntracking-redir-broken\r\n:";
        frame += std::to_string(c.tracking.redirect);
        frame += "\r\n";
        deliver(c, frame);
      }
      return;
    }
    redirected = true;
  }
  std::string frame;
  if (to->protocol > 2) {
    frame = kInvalidatePush;
  } else if (redirected && to->subscribed()) {
    frame = kInvalidateMessage;
  } else {
    return;  // RESP2 has no push frame for the client's own connection
  }
  frame.append(body);
  deliver(*to, frame);
}

void Tracking::deliver(Session& to, std::string_view frame) {
  if (&to == current_) {
    pending_.append(frame);
    return;
  }
  to.deliver(frame);
}

void Tracking::deliver_pending() {
  if (pending_.empty() || current_ == nullptr) return;
  const std::string frames = std::move(pending_);
  pending_.clear();
  current_->deliver(frames);
}

void Tracking::end_command(Session& s) {
  if (!pending_.empty()) {
    const std::string frames = std::move(pending_);
    pending_.clear();
    s.deliver(frames);
  }
  if (s.tracking.caching && !s.in_multi && !is_client_command(s.last_command)) s.tracking.caching = false;
}

}  // namespace lawnkv
