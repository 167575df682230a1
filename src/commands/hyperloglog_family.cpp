// The HyperLogLog commands (the Cmd of the Op/Cmd split): PFADD, PFCOUNT,
// PFMERGE, PFDEBUG and PFSELFTEST, with lookups, errors, replies, events and
// propagation in the order of Redis 7.0's hyperloglog.c. The changes to the
// store are hyperloglog_ops.cpp, the encoding types/hyperloglog.cpp.
//
// What Redis does and lawnkv repeats:
// - A string that is not a HyperLogLog answers kNotHll (a WRONGTYPE of its
//   own text); one whose sparse opcodes do not add up, kCorrupt, when they
//   are read (PFADD only reads as far as the register it sets).
// - PFADD and PFMERGE publish `pfadd` (PFMERGE too: "a mass-add"), after
//   `new` when they create the key.
// - PFCOUNT of one key writes the count it computed into the value's header
//   (a read command that changes the value): WATCH and client caches hear
//   of it, and its own record is propagated so replicas hold the same bytes.
// - PFDEBUG GETREG and TODENSE turn a sparse value dense: recorded (one
//   more change) but, as in Redis, no WATCH nor tracking signal.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "commands/families.hpp"
#include "commands/hyperloglog_ops.hpp"
#include "core/error_format.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"
#include "types/hyperloglog.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kNotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr std::string_view kCorrupt = "INVALIDOBJ Corrupted HLL object detected";
constexpr std::string_view kNoSuchKey = "ERR The specified key does not exist";
constexpr std::string_view kNotSparse = "ERR HLL encoding is not sparse";
constexpr std::string_view kUnknownDebug = "ERR Unknown PFDEBUG subcommand '%s'";

void reply_op_error(Call& call, OpStatus status) {
  switch (status) {
    case OpStatus::kWrongType: return call.error(err::kWrongType);
    case OpStatus::kNotHll: return call.error(kNotHll);
    default: return call.error(kCorrupt);
  }
}

// The live HyperLogLog at key, nullptr when missing; *failed (and an error
// replied) when the key holds something else.
store::Entry* hll_or_reply(Call& call, std::string_view key, Intent intent, bool* failed) {
  store::Entry* e = intent == Intent::kRead ? lookup_read(call, key) : lookup_write(call, key);
  *failed = false;
  if (e == nullptr) return nullptr;
  if (const OpStatus s = hyperloglog::check(*e); s != OpStatus::kOk) {
    reply_op_error(call, s);
    *failed = true;
    return nullptr;
  }
  return e;
}

size_t sparse_max(const Call& call) { return static_cast<size_t>(call.cfg().hll_sparse_max_bytes); }

/* PFADD key [element [element ...]] */
void pfadd_command(Call& call) {
  const std::string_view key = call.argv[1];
  const auto r = hyperloglog::op_pfadd(call.db(), lookup_write(call, key), key, call.argv.subspan(2), sparse_max(call));
  if (!r.ok()) return reply_op_error(call, r.status);
  if (r.created) call.notify(pubsub::kNew, "new", key);
  if (r.value > 0) {
    call.modified(key, pubsub::kString, "pfadd");
    call.data.dirty += static_cast<uint64_t>(r.value - 1);  // Redis counts each change
  }
  call.reply.integer(r.value > 0 ? 1 : 0);
}

// PFCOUNT of several keys: the count of their union, the keys untouched.
void pfcount_union(Call& call) {
  uint8_t max[hll::kRegisters] = {};
  for (std::string_view key : call.argv.subspan(1)) {
    bool failed;
    const store::Entry* e = hll_or_reply(call, key, Intent::kRead, &failed);
    if (failed) return;
    if (e && !hll::merge_into(max, e->str())) return call.error(kCorrupt);
  }
  call.reply.integer(static_cast<int64_t>(hll::estimate(hll::histogram_raw(max))));
}

/* PFCOUNT key [key ...] */
void pfcount_command(Call& call) {
  if (call.argv.size() > 2) return pfcount_union(call);
  const std::string_view key = call.argv[1];
  bool failed;
  store::Entry* e = hll_or_reply(call, key, Intent::kRead, &failed);
  if (failed) return;
  if (e == nullptr) return call.reply.integer(0);
  const auto r = hyperloglog::op_pfcount(*e);
  if (!r.ok()) return reply_op_error(call, r.status);
  if (r.value.recounted) {
    call.modified(key);
    // A read command records nothing of its own: the recount goes as one.
    call.data.effects.add(call.db_index, {call.argv[0], key});
  }
  call.reply.integer(static_cast<int64_t>(r.value.card));
}

/* PFMERGE destkey [sourcekey [sourcekey ...]]
 * The destination is a source too. */
void pfmerge_command(Call& call) {
  uint8_t max[hll::kRegisters] = {};
  bool dense = false;
  for (std::string_view key : call.argv.subspan(1)) {
    bool failed;
    const store::Entry* e = hll_or_reply(call, key, Intent::kRead, &failed);
    if (failed) return;
    if (e == nullptr) continue;
    if (hll::encoding_of(e->str()) == hll::kDense) dense = true;
    if (!hll::merge_into(max, e->str())) return call.error(kCorrupt);
  }
  const std::string_view dest = call.argv[1];
  const auto r = hyperloglog::op_pfmerge(call.db(), lookup_write(call, dest), dest, max, dense, sparse_max(call));
  if (r.created) call.notify(pubsub::kNew, "new", dest);
  if (!r.ok()) return reply_op_error(call, r.status);
  call.modified(dest, pubsub::kString, "pfadd");
  call.reply.simple("OK");
}

/* PFSELFTEST */
void pfselftest_command(Call& call) {
  std::random_device seed;
  const auto failure = hll::self_test(sparse_max(call), (uint64_t{seed()} << 32) | seed());
  if (failure) return call.error("ERR " + *failure);
  call.reply.simple("OK");
}

void reply_registers(Call& call, std::string_view value) {
  const auto* regs = reinterpret_cast<const uint8_t*>(value.data()) + hll::kHeaderSize;
  call.reply.array(hll::kRegisters);
  for (size_t j = 0; j < hll::kRegisters; ++j) call.reply.integer(hll::dense_get(regs, j));
}

/* PFDEBUG GETREG | DECODE | ENCODING | TODENSE key
 * The key is looked up before the subcommand is read. */
void pfdebug_command(Call& call) {
  const std::string_view sub = call.argv[1];
  const std::string_view key = call.argv[2];
  bool failed;
  store::Entry* e = hll_or_reply(call, key, Intent::kWrite, &failed);
  if (failed) return;
  if (e == nullptr) return call.error(kNoSuchKey);
  hyperloglog::mark_raw(*e);

  if (iequals(sub, "getreg") || iequals(sub, "todense")) {
    const auto r = hyperloglog::op_to_dense(call.db(), e);
    if (!r.ok()) return reply_op_error(call, r.status);
    if (r.value) call.data.changed();  // recorded, as Redis forces it
    if (iequals(sub, "todense")) return call.reply.integer(r.value ? 1 : 0);
    return reply_registers(call, e->str());
  }
  if (iequals(sub, "decode")) {
    if (hll::encoding_of(e->str()) != hll::kSparse) return call.error(kNotSparse);
    return call.reply.bulk(hll::decode_sparse(e->str()));
  }
  if (iequals(sub, "encoding")) return call.reply.simple(hll::encoding_of(e->str()) == hll::kDense ? "dense" : "sparse");
  call.error(format_error(kUnknownDebug, {sub}));
}

}  // namespace

void register_hyperloglog_commands(CommandTable& t) {
  t.add({
    {.name = "pfadd", .arity = -2, .flags = kWrite | kDenyOom | kFast, .keys = {1, 1, 1},
     .acl = "@write @hyperloglog @fast",
     .group = "hyperloglog", .since = "2.8.9", .complexity = "O(1) to add every element.",
     .summary = "Adds elements to a HyperLogLog, creating it if needed",
     .key_flags = "RW insert",
     .handler = pfadd_command},
    {.name = "pfcount", .arity = -2, .flags = kReadonly | kMayReplicate, .keys = {1, -1, 1},
     .acl = "@read @hyperloglog @slow",
     .group = "hyperloglog", .since = "2.8.9",
     .complexity = "O(1) with a very small average constant time when called with a single key. O(N) with N "
                   "being the number of keys, and much bigger constant times, when called with multiple keys.",
     .summary = "Estimates the number of distinct elements a HyperLogLog (or the union of several) saw",
     .key_flags = "RW access",
     .key_notes = "RW because it may change the internal representation of the key, and propagate to replicas",
     .handler = pfcount_command},
    {.name = "pfdebug", .arity = 3, .flags = kWrite | kDenyOom | kAdmin, .keys = {2, 2, 1},
     .acl = "@write @hyperloglog @admin @slow @dangerous",
     .group = "hyperloglog", .since = "2.8.9", .complexity = "N/A",
     .summary = "Shows or converts a HyperLogLog's internal encoding (a debugging aid)",
     .key_flags = "RW access",
     .handler = pfdebug_command},
    {.name = "pfmerge", .arity = -2, .flags = kWrite | kDenyOom, .keys = {1, -1, 1},
     .acl = "@write @hyperloglog @slow",
     .group = "hyperloglog", .since = "2.8.9", .complexity = "O(N) to merge N HyperLogLogs, but with high constant times.",
     .summary = "Merges HyperLogLogs into one (the destination counts as a source)",
     .key_flags = "RW access insert;RO access",
     .handler = pfmerge_command},
    {.name = "pfselftest", .arity = 1, .flags = kAdmin,
     .acl = "@hyperloglog @admin @slow @dangerous",
     .group = "hyperloglog", .since = "2.8.9", .complexity = "N/A",
     .summary = "Tests the HyperLogLog implementation (registers, sparse against dense, error bounds)",
     .handler = pfselftest_command},
  });
}

}  // namespace lawnkv
