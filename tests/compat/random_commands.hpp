#pragma once
// A seeded generator of random commands for the differential test: strings
// (the bit commands, LCS and HyperLogLog too), hashes, sets, streams (explicit IDs only;
// tests/compat/streams_random_test.cpp covers them in depth), keyspace,
// expiry and transactions
// over ~20 keys (binary names included) in databases 0-2, with the
// comparison each reply needs; some commands carry CR, LF, NUL or long
// arguments into error texts that quote them.
// The same seed gives the same commands on every machine (mt19937_64, no
// std distributions).
//
// Scripts (EVAL, EVAL_RO, EVALSHA, SCRIPT LOAD and FLUSH) are small Lua
// bodies put together from fixed pieces (script_command), with the keys
// and values as KEYS and ARGV, so a body never quotes client bytes.
//
// Generated commands avoid what two servers cannot agree on by design:
// relative TTLs are at least 100 s (nothing expires during a run), and GT/LT
// are only used with absolute times from a fixed grid 50,000 s ahead, because
// comparing two relative deadlines set a millisecond apart depends on timing.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "case_script.hpp"

namespace lawnkv::test {

struct RandomStep {
  Step step;              // argv and comparison; step.line is unused
  int client = 1;         // which connection sends it
  bool time_near = false;  // TTL-like reply: values may differ by a second
};

class RandomCommands {
 public:
  // base_unix_s: "now" when the run starts, for the absolute-time grid.
  RandomCommands(uint64_t seed, int64_t base_unix_s);

  // The next operation: one command, or a MULTI ... EXEC/DISCARD block.
  std::vector<RandomStep> next_op();

  // Commands that read back every database's keys, values and TTLs.
  std::vector<RandomStep> final_state_checks() const;

 private:
  uint64_t below(uint64_t n) { return rng_() % n; }
  bool chance(int percent) { return below(100) < static_cast<uint64_t>(percent); }
  template <class T>
  const T& pick(const std::vector<T>& items) { return items[below(items.size())]; }

  std::string key();
  // Mostly keys only set commands write (set_keys_), sometimes any key.
  std::string set_key();
  // The same for hashes (hash_keys_).
  std::string hash_key();
  std::string value();
  std::string relative_seconds();
  std::string relative_millis();
  std::string absolute_seconds();
  std::string absolute_millis();

  // One command that can also appear inside MULTI.
  RandomStep command();
  RandomStep set_command();
  RandomStep getex_command();
  RandomStep expire_command();
  RandomStep keyspace_command();
  RandomStep bits_command();
  RandomStep hyperloglog_command();  // PFADD, PFCOUNT, PFMERGE, PFDEBUG; corrupt HLL bytes
  RandomStep sets_command();
  RandomStep hashes_command();
  RandomStep streams_command();
  std::vector<RandomStep> multi_block();
  // A script: redis.call / redis.pcall over served commands, errors, and
  // the values Lua returns (random_commands.cpp says what it avoids).
  RandomStep script_command();
  std::string script_body();

  std::mt19937_64 rng_;
  int64_t grid_base_s_;
  std::vector<std::string> keys_;
  std::vector<std::string> set_keys_;   // only ever sets: OBJECT ENCODING is compared
  std::vector<std::string> hash_keys_;  // only ever hashes, likewise
  int64_t stream_top_ = 1;              // the ms part of the IDs XADD gives, creeping up
};

}  // namespace lawnkv::test
