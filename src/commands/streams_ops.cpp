#include "commands/streams_ops.hpp"

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/numbers.hpp"
#include "engine/lookup.hpp"
#include "engine/server_state.hpp"
#include "pubsub/event_class.hpp"

namespace lawnkv {

namespace {

// Redis's string2ull: a strict long long >= 0, else what strtoull takes
// whole (leading spaces and a sign included), failing on ERANGE.
bool string_to_ull(const std::string& s, uint64_t* out) {
  long long ll;
  if (string_to_ll(s, &ll)) {
    if (ll < 0) return false;
    *out = static_cast<uint64_t>(ll);
    return true;
  }
  errno = 0;
  char* end = nullptr;
  *out = std::strtoull(s.c_str(), &end, 10);
  return !(errno == EINVAL || errno == ERANGE || s.empty() || *end != '\0');
}

}  // namespace

types::Stream* stream_or_create(Call& call, std::string_view key) {
  bool wrong_type;
  if (types::Stream* s = lookup_or_reply<types::Stream>(call, key, Intent::kWrite, &wrong_type)) return s;
  if (wrong_type) return nullptr;
  auto* s = static_cast<types::Stream*>(call.db().add_object(key, std::make_unique<types::Stream>()).obj());
  call.notify(pubsub::kNew, "new", key);
  return s;
}

size_t stream_ready_index(const Call& call, std::span<const std::string_view> keys) {
  if (!call.retry || call.retry->ready_key.empty()) return keys.size();
  for (size_t k = 0; k < keys.size(); k++)
    if (keys[k] == call.retry->ready_key) return k;
  return keys.size();
}

int64_t stream_command_now(const Call& call) {
  return call.server.facts.loading ? call.server.clock.now_ms() : call.now_ms;
}

types::StreamLimits stream_limits(const Call& call) {
  return {.node_max_bytes = static_cast<size_t>(call.cfg().stream_node_max_bytes),
          .node_max_entries = call.cfg().stream_node_max_entries};
}

bool parse_stream_id(std::string_view arg, uint64_t missing_seq, bool strict, bool* seq_given, types::StreamId* out) {
  // Redis copies the argument into a 128-byte buffer and reads it as a C
  // string: a NUL ends it.
  if (arg.size() > 127) return false;
  std::string buf(arg.substr(0, arg.find('\0')));
  if (strict && (buf == "-" || buf == "+")) return false;
  if (seq_given) *seq_given = true;
  if (buf == "-") {
    *out = {};
    return true;
  }
  if (buf == "+") {
    *out = types::StreamId::max();
    return true;
  }
  const size_t dash = buf.find('-');
  uint64_t ms, seq = missing_seq;
  if (!string_to_ull(buf.substr(0, dash), &ms)) return false;
  if (dash != std::string::npos) {
    const std::string rest = buf.substr(dash + 1);
    if (seq_given && rest == "*") {
      seq = 0;
      *seq_given = false;
    } else if (!string_to_ull(rest, &seq)) {
      return false;
    }
  }
  *out = {ms, seq};
  return true;
}

bool stream_id_or_reply(Call& call, std::string_view arg, uint64_t missing_seq, bool strict, bool* seq_given,
                        types::StreamId* out) {
  if (parse_stream_id(arg, missing_seq, strict, seq_given, out)) return true;
  call.error(kInvalidStreamId);
  return false;
}

void reply_stream_id(resp::Writer& r, types::StreamId id) { r.bulk(id.str()); }

void reply_stream_entries(resp::Writer& r, const std::vector<types::StreamEntry>& entries) {
  r.array(entries.size());
  for (const auto& e : entries) {
    r.array(2);
    reply_stream_id(r, e.id);
    r.array_of_bulks(e.fields);
  }
}

std::vector<types::StreamEntry> stream_range(const types::Stream& s, types::StreamId start, types::StreamId end,
                                             bool reverse, size_t count) {
  std::vector<types::StreamEntry> out;
  s.range(start, end, reverse, [&](const types::StreamEntry& e) {
    out.push_back(e);
    return count == 0 || out.size() < count;
  });
  return out;
}

types::StreamConsumer* stream_consumer_or_create(Call& call, types::StreamGroup* g, std::string_view key,
                                                 std::string_view name, bool* created) {
  bool made;
  const int64_t now = stream_command_now(call);
  types::StreamConsumer* c = g->consumer_or_create(name, now, &made);
  if (made) {
    call.notify(pubsub::kStream, "xgroup-createconsumer", key);
  } else {
    c->seen_time = now;
  }
  if (created) *created = made;
  return c;
}

void record_stream_claim(Call& call, std::string_view key, std::string_view group, const types::StreamGroup& g,
                         types::StreamId id, const types::StreamNack& nack) {
  if (!call.data.effects.active()) return;
  call.data.effects.add(call.db_index, std::vector<std::string>{
      "XCLAIM", std::string(key), std::string(group), nack.consumer->name, "0", id.str(), "TIME",
      std::to_string(nack.delivery_time), "RETRYCOUNT", std::to_string(nack.delivery_count), "FORCE", "JUSTID",
      "LASTID", g.last_id.str()});
}

void record_stream_group_id(Call& call, std::string_view key, std::string_view group, const types::StreamGroup& g) {
  if (!call.data.effects.active()) return;
  call.data.effects.add(call.db_index, std::vector<std::string>{"XGROUP", "SETID", std::string(key),
                                                                std::string(group), g.last_id.str(),
                                                                "ENTRIESREAD", std::to_string(g.entries_read)});
}

}  // namespace lawnkv
