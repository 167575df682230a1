// The bit commands (the Cmd of the Op/Cmd split): SETBIT, GETBIT, BITCOUNT,
// BITPOS, BITOP, BITFIELD and BITFIELD_RO, with argument checks, lookups,
// replies and keyspace events in the order of Redis 7.0's bitops.c. The
// changes to the store are bits_ops.cpp, the bit arithmetic core/bits.cpp.
//
// Orders that replies depend on, as in Redis:
// - SETBIT, GETBIT and BITFIELD check every argument before the lookup;
//   BITCOUNT and BITPOS look the key up first, so a missing key answers 0
//   (BITPOS: -1 for bit 1) whatever the range arguments say.
// - A write creates the key (`new`) before its reply; `setbit` (and BITOP's
//   `set` or `del`) follow the change, and BITFIELD publishes after its reply.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/bits_ops.hpp"
#include "commands/families.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/lookup.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kBadOffset = "ERR bit offset is not an integer or out of range";
constexpr std::string_view kBadBit = "ERR bit is not an integer or out of range";
constexpr std::string_view kBitNotBinary = "ERR The bit argument must be 1 or 0.";
constexpr std::string_view kNotOneSource = "ERR BITOP NOT must be called with a single source key.";
constexpr std::string_view kBadFieldType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
constexpr std::string_view kBadOverflow = "ERR Invalid OVERFLOW type specified";
constexpr std::string_view kReadonlyGetOnly = "ERR BITFIELD_RO only supports the GET subcommand";

// Redis's getBitOffsetFromArgument: a bit offset below proto-max-bulk-len
// bytes; with hash (BITFIELD) "#N" counts in fields of field_bits.
bool bit_offset_or_reply(Call& call, std::string_view arg, bool hash, unsigned field_bits, uint64_t* out) {
  const auto offset = bits::parse_bit_offset(arg, hash, field_bits, call.cfg().proto_max_bulk_len);
  if (!offset) {
    call.error(kBadOffset);
    return false;
  }
  *out = *offset;
  return true;
}

// The BYTE | BIT word of BITCOUNT and BITPOS; false: syntax error replied.
bool unit_or_reply(Call& call, std::string_view arg, bits::Unit* unit) {
  if (is_option(arg, "bit")) {
    *unit = bits::Unit::kBit;
  } else if (is_option(arg, "byte")) {
    *unit = bits::Unit::kByte;
  } else {
    call.error(err::kSyntax);
    return false;
  }
  return true;
}

/* SETBIT key offset value */
void setbit_command(Call& call) {
  const std::string_view key = call.argv[1];
  uint64_t offset;
  long long on;
  if (!bit_offset_or_reply(call, call.argv[2], false, 0, &offset)) return;
  if (!integer_or_reply(call, call.argv[3], &on, kBadBit)) return;
  if (on & ~1LL) return call.error(kBadBit);
  const auto r = bitops::op_setbit(call.db(), lookup_write(call, key), key, offset, static_cast<int>(on));
  if (!r.ok()) return call.error(err::kWrongType);
  if (r.created) call.notify(pubsub::kNew, "new", key);
  if (r.value.changed) {
    call.modified(key, pubsub::kString, "setbit");
  }
  call.reply.integer(r.value.old_bit);
}

/* GETBIT key offset */
void getbit_command(Call& call) {
  uint64_t offset;
  if (!bit_offset_or_reply(call, call.argv[2], false, 0, &offset)) return;
  bool wrong_type;
  const store::Entry* e = lookup_or_reply<store::Entry>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (!wrong_type) call.reply.integer(e ? bits::get_bit(e->str(), offset) : 0);
}

/* BITCOUNT key [start end [BYTE | BIT]] */
void bitcount_command(Call& call) {
  bool wrong_type;
  const store::Entry* e = lookup_or_reply<store::Entry>(call, call.argv[1], Intent::kRead, &wrong_type);
  if (wrong_type) return;
  if (e == nullptr) return call.reply.integer(0);
  const size_t argc = call.argv.size();
  if (argc == 2) return call.reply.integer(static_cast<int64_t>(bits::popcount(e->str())));
  if (argc != 4 && argc != 5) return call.error(err::kSyntax);
  long long start, end;
  if (!integer_or_reply(call, call.argv[2], &start)) return;
  if (!integer_or_reply(call, call.argv[3], &end)) return;
  // Redis answers this empty range before it reads the unit.
  if (start < 0 && end < 0 && start > end) return call.reply.integer(0);
  bits::Unit unit = bits::Unit::kByte;
  if (argc == 5 && !unit_or_reply(call, call.argv[4], &unit)) return;
  call.reply.integer(bits::count_range(e->str(), start, end, unit));
}

/* BITPOS key bit [start [end [BYTE | BIT]]] */
void bitpos_command(Call& call) {
  long long bit;
  if (!integer_or_reply(call, call.argv[2], &bit)) return;
  if (bit != 0 && bit != 1) return call.error(kBitNotBinary);
  // A missing key is an endless run of zeros.
  const store::Entry* e = lookup_read(call, call.argv[1]);
  if (e == nullptr) return call.reply.integer(bit ? -1 : 0);
  if (e->type() != store::Type::kString) return call.error(err::kWrongType);
  const size_t argc = call.argv.size();
  if (argc > 6) return call.error(err::kSyntax);
  long long start = 0;
  std::optional<long long> end;
  bits::Unit unit = bits::Unit::kByte;
  // Redis reads start, then the unit, then end.
  if (argc >= 4 && !integer_or_reply(call, call.argv[3], &start)) return;
  if (argc == 6 && !unit_or_reply(call, call.argv[5], &unit)) return;
  if (argc >= 5) {
    long long given;
    if (!integer_or_reply(call, call.argv[4], &given)) return;
    end = given;
  }
  call.reply.integer(bits::position(e->str(), static_cast<int>(bit), start, end, unit));
}

/* BITOP AND | OR | XOR | NOT destkey key [key ...] */
void bitop_command(Call& call) {
  const std::string_view op_name = call.argv[1];
  bits::Op op;
  if (is_option(op_name, "and")) {
    op = bits::Op::kAnd;
  } else if (is_option(op_name, "or")) {
    op = bits::Op::kOr;
  } else if (is_option(op_name, "xor")) {
    op = bits::Op::kXor;
  } else if (is_option(op_name, "not")) {
    op = bits::Op::kNot;
  } else {
    return call.error(err::kSyntax);
  }
  if (op == bits::Op::kNot && call.argv.size() != 4) return call.error(kNotOneSource);

  // Missing sources read as empty strings.
  std::vector<std::string_view> sources;
  sources.reserve(call.argv.size() - 3);
  for (std::string_view key : call.argv.subspan(3)) {
    const store::Entry* e = lookup_read(call, key);
    if (e && e->type() != store::Type::kString) return call.error(err::kWrongType);
    sources.push_back(e ? e->str() : std::string_view());
  }
  const std::string result = bits::bitop(op, sources);

  const std::string_view dest = call.argv[2];
  // An empty result deletes the destination, without looking it up first.
  store::Entry* found = result.empty() ? nullptr : lookup_write(call, dest);
  const auto r = bitops::op_store_result(call.db(), found, dest, result);
  if (r.created) call.notify(pubsub::kNew, "new", dest);
  if (r.value == bitops::StoreResult::kStored) {
    call.modified(dest, pubsub::kString, "set");
  } else if (r.value == bitops::StoreResult::kDeleted) {
    call.modified(dest, pubsub::kGeneric, "del");
  }
  call.reply.integer(static_cast<int64_t>(result.size()));
}

// Parses BITFIELD's subcommands into ops, or replies the first error (in
// Redis's order: the word, then type, offset and value of each subcommand).
// *writes: some op is a SET or INCRBY.
bool bitfield_ops_or_reply(Call& call, std::vector<bits::FieldOp>* ops, bool* writes) {
  const auto& argv = call.argv;
  bits::Overflow overflow = bits::Overflow::kWrap;
  *writes = false;
  for (size_t j = 2; j < argv.size(); ++j) {
    const size_t more = argv.size() - j - 1;
    const std::string_view word = argv[j];
    bits::FieldOp op;
    if (is_option(word, "get") && more >= 2) {
      op.kind = bits::FieldOpKind::kGet;
    } else if (is_option(word, "set") && more >= 3) {
      op.kind = bits::FieldOpKind::kSet;
    } else if (is_option(word, "incrby") && more >= 3) {
      op.kind = bits::FieldOpKind::kIncrBy;
    } else if (is_option(word, "overflow") && more >= 1) {
      const std::string_view mode = argv[++j];
      if (is_option(mode, "wrap")) {
        overflow = bits::Overflow::kWrap;
      } else if (is_option(mode, "sat")) {
        overflow = bits::Overflow::kSat;
      } else if (is_option(mode, "fail")) {
        overflow = bits::Overflow::kFail;
      } else {
        call.error(kBadOverflow);
        return false;
      }
      continue;
    } else {
      call.error(err::kSyntax);
      return false;
    }
    const auto type = bits::parse_field_type(argv[j + 1]);
    if (!type) {
      call.error(kBadFieldType);
      return false;
    }
    op.type = *type;
    op.overflow = overflow;
    if (!bit_offset_or_reply(call, argv[j + 2], true, type->bits, &op.offset)) return false;
    if (op.kind != bits::FieldOpKind::kGet) {
      *writes = true;
      long long arg;
      if (!integer_or_reply(call, argv[j + 3], &arg)) return false;
      op.arg = arg;
      j += 3;
    } else {
      j += 2;
    }
    ops->push_back(op);
  }
  return true;
}

// BITFIELD and BITFIELD_RO (readonly_command: only GET is allowed).
void bitfield_generic(Call& call, bool readonly_command) {
  const std::string_view key = call.argv[1];
  std::vector<bits::FieldOp> ops;
  bool writes;
  if (!bitfield_ops_or_reply(call, &ops, &writes)) return;

  if (!writes) {
    const store::Entry* e = lookup_read(call, key);
    if (e && e->type() != store::Type::kString) return call.error(err::kWrongType);
    const std::string_view value = e ? e->str() : std::string_view();
    call.reply.array(ops.size());
    for (const bits::FieldOp& op : ops) call.reply.integer(bits::get_field(value, op.offset, op.type));
    return;
  }
  if (readonly_command) return call.error(kReadonlyGetOnly);

  const auto r = bitops::op_bitfield(call.db(), lookup_write(call, key), key, ops);
  if (!r.ok()) return call.error(err::kWrongType);
  if (r.created) call.notify(pubsub::kNew, "new", key);
  call.reply.array(r.value.results.size());
  for (const bits::FieldResult& result : r.value.results) {
    if (result.failed) {
      call.reply.null();
    } else {
      call.reply.integer(result.reply);
    }
  }
  if (r.value.changes > 0) {
    call.modified(key, pubsub::kString, "setbit");
  }
}

// BITFIELD's key for COMMAND GETKEYSANDFLAGS: read only while every
// operation is a GET (or OVERFLOW) with its arguments, as Redis's
// bitfieldGetKeys; a SET, an INCRBY or anything it cannot read makes it a write.
std::string_view bitfield_key_flags(std::span<const std::string_view> argv) {
  for (size_t i = 2; i < argv.size(); ++i) {
    const size_t rest = argv.size() - i - 1;
    if (iequals(argv[i], "get") && rest >= 2) {
      i += 2;
    } else if (iequals(argv[i], "overflow") && rest >= 1) {
      i += 1;
    } else {
      return "RW access update";
    }
  }
  return "RO access";
}

/* BITFIELD key [GET type offset | [OVERFLOW WRAP | SAT | FAIL]
 *   SET type offset value | INCRBY type offset increment ...] */
void bitfield_command(Call& call) { bitfield_generic(call, false); }

/* BITFIELD_RO key [GET type offset ...] */
void bitfield_ro_command(Call& call) { bitfield_generic(call, true); }

}  // namespace

void register_bit_commands(CommandTable& t) {
  t.add({
    {.name = "bitcount", .arity = -2, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @bitmap @slow",
     .group = "bitmap", .since = "2.6.0", .complexity = "O(N)",
     .summary = "Counts the bits set in a string, or in a range of its bytes or bits",
     .key_flags = "RO access",
     .handler = bitcount_command},
    {.name = "bitfield", .arity = -2, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @bitmap @slow",
     .group = "bitmap", .since = "3.2.0", .complexity = "O(1) for each subcommand specified",
     .summary = "Reads, sets and increments integers of any width at any bit offset of a string",
     .key_flags = "RW access update variable_flags",
     .key_notes = "This command allows both access and modification of the key",
     .variable_key_flags = bitfield_key_flags,
     .handler = bitfield_command},
    {.name = "bitfield_ro", .arity = -2, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @bitmap @fast",
     .group = "bitmap", .since = "6.0.0", .complexity = "O(1) for each subcommand specified",
     .summary = "Reads integers of any width at any bit offset of a string (BITFIELD's GET only)",
     .key_flags = "RO access",
     .handler = bitfield_ro_command},
    // Redis gives BITOP two key specs (the destination OW update, the
    // sources RO access); a row's key range makes one.
    {.name = "bitop", .arity = -4, .flags = kWrite | kDenyOom, .keys = {2, -1, 1},
     .acl = "@write @bitmap @slow",
     .group = "bitmap", .since = "2.6.0", .complexity = "O(N)",
     .summary = "Stores the AND, OR, XOR or NOT of strings in a key",
     .key_flags = "OW update;RO access",
     .handler = bitop_command},
    {.name = "bitpos", .arity = -3, .flags = kReadonly, .keys = {1, 1, 1},
     .acl = "@read @bitmap @slow",
     .group = "bitmap", .since = "2.8.7", .complexity = "O(N)",
     .summary = "Finds the first bit set or clear in a string, or in a range of its bytes or bits",
     .key_flags = "RO access",
     .handler = bitpos_command},
    {.name = "getbit", .arity = 3, .flags = kReadonly | kFast, .keys = {1, 1, 1},
     .acl = "@read @bitmap @fast",
     .group = "bitmap", .since = "2.2.0", .complexity = "O(1)",
     .summary = "Returns the bit at an offset of a string",
     .key_flags = "RO access",
     .handler = getbit_command},
    {.name = "setbit", .arity = 4, .flags = kWrite | kDenyOom, .keys = {1, 1, 1},
     .acl = "@write @bitmap @slow",
     .group = "bitmap", .since = "2.2.0", .complexity = "O(1)",
     .summary = "Sets or clears the bit at an offset of a string, padding it with zero bytes",
     .key_flags = "RW access update",
     .handler = setbit_command},
  });
}

}  // namespace lawnkv
