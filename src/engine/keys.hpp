#pragma once
// Where a command's keys are in its arguments: COMMAND INFO's key specs,
// COMMAND GETKEYS and GETKEYSANDFLAGS today; the keys a script declares,
// ACL key permissions and cluster slots next. One extractor for every row,
// read from the row.
//
// A row gives its keys in up to four parts, and its key_flags has one entry
// per key spec they make (as Redis 7.0's key specs):
//   keys   (first, last, step): fixed positions, Redis's legacy triple.
//          With one key spec it is one range (MSET k1 v1 k2 v2: {1, -1, 2};
//          LCS k1 k2: {1, 2, 1}); with two and an open end, the first key is
//          a spec of its own and the rest the second (SINTERSTORE dest k...);
//          otherwise each position is a spec (RENAME src dst).
//   keynum (index, firstkey, keystep): the number of keys is the argument
//          at index, the keys start firstkey after it (the movable keys of
//          ZUNION, LMPOP, EVAL...); one more key spec, the last.
//   keyword (word, startfrom, lastkey, limit): the keys are the first
//          half of the arguments after the word (XREAD ... STREAMS k1 k2
//          id1 id2), or with lastkey 0 the one argument after it, a spec
//          for each word of "STORE|STOREDIST" (GEORADIUS ... STORE k).
//   unknown_key_specs: specs whose keys are found by the row's get_keys
//          (begin_search and find_keys "unknown", as SORT's STORE and
//          BY/GET); with get_keys every key of a call comes from it.
//
// Worked example: ZUNIONSTORE d 2 a b WEIGHTS 1 2, keys {1, 1, 1}, keynum
// {2, 1, 1}, key_flags "OW update;RO access": d (spec 0), then the count 2
// at argv[2] and a, b from argv[3] (spec 1). As Redis's genericGetKeys, a
// count below 1 or beyond the arguments gives no keys at all (the command
// will refuse it), and the count is read as atoi reads it ("2x" is 2, "x"
// is 0). XREAD COUNT 1 STREAMS a b 0 0, keyword {"STREAMS", 1}: a and b; an
// odd number of arguments after STREAMS gives no keys (as xreadGetKeys).

#include <span>
#include <string_view>
#include <vector>

#include "engine/table.hpp"

namespace lawnkv {

// One key spec as COMMAND INFO lists it: begin_search at index, then a
// range (lastkey: >= 0 relative to index, < 0 from the end) or a keynum.
struct KeySpec {
  int index = 0;
  bool keynum = false;
  int lastkey = 0;   // range
  int keystep = 1;
  int firstkey = 0;  // keynum (its keynumidx is always 0)
  bool unknown = false;  // begin_search and find_keys "unknown" (the row's get_keys finds its keys)
  // A keyword begin_search (index is then its startfrom): the keys are
  // the arguments after the keyword: half of them (range lastkey -1,
  // limit 2), all of them (lastkey -1, limit 0) or the one after it
  // (lastkey 0).
  std::string_view keyword = {};
  int limit = 0;
};
std::vector<KeySpec> key_specs(const CommandSpec& spec);

// What a key spec's flags entry says of its keys, as bits.
enum KeySpecBits : uint8_t {
  kKeySpecReads = 1,     // access
  kKeySpecWrites = 2,    // insert, delete or update
  kKeySpecNotKey = 4,    // not_key: no key (a shard channel); find_keys skips it
  kKeySpecVariable = 8,  // variable_flags: the row's variable_key_flags says, per call
};
// kKeySpecReads | kKeySpecWrites of a flags entry ("RW access delete").
uint8_t key_spec_access(std::string_view flags);

// A row's key specs resolved once: key_specs() and, per spec, its flags
// entry as KeySpecBits. ranges_only: every spec is a range (no keynum,
// keyword or unknown spec, no get_keys), so the keys of a call are the
// ranges' positions (range_positions), none dropped by a bad count: a
// caller may walk them without find_keys's vector.
struct KeyPlan {
  std::vector<KeySpec> specs;
  std::vector<uint8_t> bits;  // per spec (and flags entry): KeySpecBits
  bool ranges_only = false;
};
// spec's plan, made at the first call and kept on the row (main thread).
const KeyPlan& key_plan(const CommandSpec& spec);

// The last position of a range key spec's keys for argc arguments (its
// keys: index, index + keystep, ... up to it, below argc).
inline int range_last(const KeySpec& ks, int argc) { return ks.lastkey >= 0 ? ks.index + ks.lastkey : argc + ks.lastkey; }

// For a ranges_only plan: fn(pos, spec) for each key of a call of argc
// arguments, in find_keys's order, until fn returns false (then false).
template <class Fn>
bool for_each_range_key(const KeyPlan& plan, int argc, Fn&& fn) {
  for (size_t s = 0; s < plan.specs.size(); ++s) {
    if (plan.bits[s] & kKeySpecNotKey) continue;
    const KeySpec& ks = plan.specs[s];
    const int step = ks.keystep > 0 ? ks.keystep : 1;
    const int last = range_last(ks, argc);
    for (int pos = ks.index; pos <= last && pos < argc; pos += step)
      if (!fn(pos, static_cast<int>(s))) return false;
  }
  return true;
}

struct KeyRef {
  int pos;   // index in argv (0 is the command's name)
  int spec;  // which of key_specs() (and of key_flags) it matches
};

// Whether the row has key arguments at all (COMMAND GETKEYS refuses those
// without: "The command has no key arguments"); a key spec marked not_key
// (SPUBLISH's shard channel) is none, and find_keys skips it.
bool has_key_arguments(const CommandSpec& spec);

// The keys of argv (a whole command, arity already checked) run as spec.
std::vector<KeyRef> find_keys(const CommandSpec& spec, std::span<const std::string_view> argv);

}  // namespace lawnkv
