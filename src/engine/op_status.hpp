#pragma once
// What a store operation did: the status every Op of the Op/Cmd split
// returns (the *_ops.hpp files of src/commands), one list for every family.
// The command half turns it into the reply; each op says in its comment
// which statuses it may return.

namespace lawnkv {

enum class OpStatus {
  kOk,
  kNoKey,          // no live key at the op's source (RENAME, COPY, MOVE, EXPIRE, PERSIST)
  kKeyExists,      // the target key exists and may not be replaced (RENAMENX, COPY, MOVE)
  kSkipped,        // nothing to do: a condition did not hold, no TTL to remove, a key onto itself
  kWrongType,      // the key holds another type
  kNotInteger,     // the stored value is not a 64-bit integer (INCR...)
  kNotFloat,       // the stored value is not a long double (INCRBYFLOAT)
  kOverflow,       // the integer result leaves [LLONG_MIN, LLONG_MAX]
  kNanOrInfinity,  // the float result is NaN or infinite
  kTooLong,        // the string would exceed proto-max-bulk-len
  kInvalidExpire,  // an expire time <= 0, or one whose ms or deadline overflows
  kNotHll,         // a string that is not a HyperLogLog (PFADD, PFCOUNT, PFMERGE, PFDEBUG)
  kCorruptHll,     // a HyperLogLog whose sparse opcodes do not add up
};

// A status with the op's result. `created` tells the command that the op
// added the key, the moment Redis's dbAdd publishes the `new` event.
template <class T>
struct OpResult {
  OpStatus status = OpStatus::kOk;
  T value{};
  bool created = false;
  bool ok() const { return status == OpStatus::kOk; }
};

}  // namespace lawnkv
