// Dehydration queues: the ReDe module's REDE.* commands, same names,
// arguments and replies, on a lawnkv key type ("dehy-type"). Where ReDe is
// wrong lawnkv is right: a bad TTL is an error reply and creates nothing, TTLs
// are 64-bit, nothing is due before its whole TTL has passed, and POLL/TTN
// cost O(elements returned). REDE.BPOLL is lawnkv's own: a blocking POLL.

#include <sys/random.h>

#include <algorithm>
#include <string>

#include "commands/families.hpp"
#include "commands/time_args.hpp"
#include "core/numbers.hpp"
#include "dehydrator/dehydrator.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kCountNotPositive = "ERR COUNT must be positive";

using dehydrator::Dehydrator;

constexpr std::string_view kAlreadyDehydrating = "ERROR: Element already dehydrating.";
constexpr std::string_view kNoSuchDehydrator = "ERROR: No Such dehydrator.";
constexpr std::string_view kNoSuchElement = "ERROR: No Such Element.";
constexpr std::string_view kNegativeTtl = "ERR TTL must not be negative";
constexpr size_t kGeneratedIdLength = 31;

// The dehydrator at key, created if the key is missing; nullptr after
// replying WRONGTYPE.
Dehydrator* find_or_create_or_reply(Call& call, std::string_view key) {
  bool wrong_type;
  if (Dehydrator* d = lookup_or_reply<Dehydrator>(call, key, Intent::kWrite, &wrong_type)) return d;
  if (wrong_type) return nullptr;
  return static_cast<Dehydrator*>(call.db().add_object(key, std::make_unique<Dehydrator>()).obj());
}

// A TTL in ms: an integer, not negative, and whose deadline (now + ttl) the
// dehydrator can hold; else "ERR invalid expire time in 'rede.push' command",
// as SET PX answers a TTL past the end of time.
bool ttl_or_reply(Call& call, std::string_view arg, int64_t* ttl) {
  long long v;
  if (!integer_or_reply(call, arg, &v)) return false;
  if (v < 0) {
    call.error(kNegativeTtl);
    return false;
  }
  if (!Dehydrator::deadline_for(v, call.now_ms)) {
    reply_invalid_expire_time(call);
    return false;
  }
  *ttl = v;
  return true;
}

// 31 characters of [0-9A-Z] (about 160 bits) from the kernel's CSPRNG.
std::string generated_id() {
  static constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string id;
  unsigned char buf[64];
  while (id.size() < kGeneratedIdLength) {
    if (getrandom(buf, sizeof(buf), 0) != static_cast<ssize_t>(sizeof(buf))) continue;
    // 252 = 7 * 36: bytes above it would bias the alphabet.
    for (unsigned char b : buf)
      if (b < 252 && id.size() < kGeneratedIdLength) id.push_back(kAlphabet[b % 36]);
  }
  return id;
}

// What a command that takes elements out records: REDE.PULL of each id
// (whatever their state at the replay), in place of its own arguments.
void record_pulls(Call& call, const std::vector<std::string>& ids) {
  call.data.effects.drop_own();
  for (const std::string& id : ids) call.data.effects.add(call.db_index, {"REDE.PULL", call.argv[1], id});
}

// Takes up to max due elements of d (may be null) and replies with them.
void reply_elements(Call& call, Dehydrator* d, size_t max) {
  const size_t n = d ? std::min(max, d->due_count(call.now_ms)) : 0;
  call.reply.array(n);
  if (n == 0) return;
  std::vector<std::string> ids;
  const bool record = call.data.effects.active();
  d->poll(call.now_ms, n, [&](std::string_view v, std::string_view id) {
    call.reply.bulk(v);
    if (record) ids.emplace_back(id);
  });
  call.modified(call.argv[1]);
  record_pulls(call, ids);
}

// A push's record: its deadline in place of its TTL. Records replay with
// the clock at 0 (effects.hpp), where a TTL equal to the deadline lands on
// the same deadline.
void record_push(Call& call, int64_t ttl, std::string_view element, std::string_view id) {
  if (!call.data.effects.active()) return;
  const std::optional<int64_t> at = Dehydrator::deadline_for(ttl, call.now_ms);
  call.data.effects.replace_own({"REDE.PUSH", call.argv[1], ll_to_string(at.value_or(0)), element, id});
}

/* REDE.PUSH key ttl_ms element id */
void push_command(Call& call) {
  int64_t ttl;
  if (!ttl_or_reply(call, call.argv[2], &ttl)) return;
  Dehydrator* d = find_or_create_or_reply(call, call.argv[1]);
  if (!d) return;
  if (!d->push(call.argv[4], call.argv[3], ttl, call.now_ms)) return call.error(kAlreadyDehydrating);
  call.modified(call.argv[1]);
  record_push(call, ttl, call.argv[3], call.argv[4]);
  call.reply.simple("OK");
}

/* REDE.GIDPUSH key ttl_ms element */
void gidpush_command(Call& call) {
  int64_t ttl;
  if (!ttl_or_reply(call, call.argv[2], &ttl)) return;
  Dehydrator* d = find_or_create_or_reply(call, call.argv[1]);
  if (!d) return;
  std::string id = generated_id();
  while (!d->push(id, call.argv[3], ttl, call.now_ms)) id = generated_id();
  call.modified(call.argv[1]);
  record_push(call, ttl, call.argv[3], id);
  call.reply.bulk(id);
}

/* REDE.PULL key id */
void pull_command(Call& call) {
  bool wrong_type;
  Dehydrator* d = lookup_or_reply<Dehydrator>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  std::optional<std::string> v = d ? d->pull(call.argv[2]) : std::nullopt;
  if (!v) return call.reply.null();
  call.modified(call.argv[1]);
  call.reply.bulk(*v);
}

/* REDE.POLL key */
void poll_command(Call& call) {
  bool wrong_type;
  Dehydrator* d = lookup_or_reply<Dehydrator>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  reply_elements(call, d, SIZE_MAX);
}

/* REDE.XPOLL key */
void xpoll_command(Call& call) {
  bool wrong_type;
  Dehydrator* d = lookup_or_reply<Dehydrator>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  if (!d) return call.reply.array(0);
  const std::vector<std::string_view> ids = d->due_ids(call.now_ms);
  call.reply.array(ids.size());
  for (auto id : ids) call.reply.bulk(id);
}

/* REDE.XACK key id [id ...] */
void xack_command(Call& call) {
  bool wrong_type;
  Dehydrator* d = lookup_or_reply<Dehydrator>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  if (!d) return call.reply.array(0);
  call.reply.array(call.argv.size() - 2);
  std::vector<std::string> acked;
  for (size_t i = 2; i < call.argv.size(); ++i) {
    std::optional<std::string> v = d->ack(call.argv[i], call.now_ms);
    if (!v) {
      call.reply.null();
      continue;
    }
    acked.emplace_back(call.argv[i]);
    call.reply.bulk(*v);
  }
  if (acked.empty()) return;
  call.modified(call.argv[1]);
  record_pulls(call, acked);
}

/* REDE.LOOK key id */
void look_command(Call& call) {
  bool wrong_type;
  Dehydrator* d = lookup_or_reply<Dehydrator>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  const std::optional<std::string_view> v = d ? d->look(call.argv[2]) : std::nullopt;
  if (!v) return call.reply.null();
  call.reply.bulk(*v);
}

/* REDE.TTN key */
void ttn_command(Call& call) {
  bool wrong_type;
  Dehydrator* d = lookup_or_reply<Dehydrator>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  if (!d) return call.reply.null();
  call.reply.integer(d->ttn(call.now_ms));
}

/* REDE.UPDATE key id element */
void update_command(Call& call) {
  bool wrong_type;
  Dehydrator* d = lookup_or_reply<Dehydrator>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  if (!d) return call.error(kNoSuchDehydrator);
  std::optional<std::string> old = d->update(call.argv[2], call.argv[3]);
  if (!old) return call.error(kNoSuchElement);
  call.modified(call.argv[1]);
  call.reply.bulk(*old);
}

/* REDE.BPOLL key timeout [COUNT count] */
void bpoll_command(Call& call) {
  int64_t timeout_at;
  if (!timeout_or_reply(call, call.argv[2], &timeout_at)) return;
  size_t count = SIZE_MAX;
  if (call.argv.size() == 5 && iequals(call.argv[3], "count")) {
    long long n;
    if (!integer_or_reply(call, call.argv[4], &n)) return;
    if (n <= 0) return call.error(kCountNotPositive);
    count = static_cast<size_t>(n);
  } else if (call.argv.size() != 3) {
    return call.error(err::kSyntax);
  }
  bool wrong_type;
  Dehydrator* d = lookup_or_reply<Dehydrator>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  if (d && d->has_due(call.now_ms)) return reply_elements(call, d, count);
  // Nothing due: wait for the key's next element, or for a write to it.
  call.block({.keys = call.argv.subspan(1, 1),
              .timeout_at_ms = timeout_at,
              .ready_bound_ms = d ? d->next_due_bound(call.now_ms) : expiry::kNever});
}

}  // namespace

void register_dehydrate_commands(CommandTable& t) {
  t.add({
    {.name = "rede.bpoll", .arity = -3, .flags = kWrite | kBlocking, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(N) where N is the number of elements returned",
     .summary = "Waits for elements whose time to live has passed, and takes them out",
     .key_flags = "RW access delete",
     .handler = bpoll_command},
    {.name = "rede.gidpush", .arity = 4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(1)",
     .summary = "Adds an element with a generated id and a time to live",
     .key_flags = "RW insert",
     .handler = gidpush_command},
    {.name = "rede.look", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(1)",
     .summary = "Returns an element without taking it out",
     .key_flags = "RO access",
     .handler = look_command},
    {.name = "rede.poll", .arity = 2, .flags = kWrite, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(N) where N is the number of elements returned",
     .summary = "Takes out every element whose time to live has passed",
     .key_flags = "RW access delete",
     .handler = poll_command},
    {.name = "rede.pull", .arity = 3, .flags = kWrite | kFast, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(1)",
     .summary = "Takes an element out before its time",
     .key_flags = "RW access delete",
     .handler = pull_command},
    {.name = "rede.push", .arity = 5, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(1)",
     .summary = "Adds an element with a time to live",
     .key_flags = "RW insert",
     .handler = push_command},
    {.name = "rede.ttn", .arity = 2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(1)",
     .summary = "Returns the time until the next element is due",
     .key_flags = "RO",
     .handler = ttn_command},
    {.name = "rede.update", .arity = 4, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(1)",
     .summary = "Replaces an element's content, keeping its deadline",
     .key_flags = "RW update",
     .handler = update_command},
    {.name = "rede.xack", .arity = -3, .flags = kWrite, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(N) where N is the number of ids",
     .summary = "Acknowledges elements taken by XPOLL",
     .key_flags = "RW access delete",
     .handler = xack_command},
    {.name = "rede.xpoll", .arity = 2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@dehydrator",
     .group = "module", .since = "0.1.0", .complexity = "O(N) where N is the number of elements returned",
     .summary = "Returns the due elements without taking them out",
     .key_flags = "RO access",
     .handler = xpoll_command},
  });
}

}  // namespace lawnkv
