#pragma once
// The parameter table: one row per directive lawnkv reads, from redis.conf,
// from `--name value` on the command line and from CONFIG SET, and shows in
// CONFIG GET. The row says how the text becomes a value and back, whether
// CONFIG SET may change it, its default and what it does here.
//
// Text forms follow Redis 7.0 (config.c), because existing configs and
// clients send them:
//
//   kind      accepts                                  CONFIG GET prints
//   kBool     yes | no, any case                       yes | no
//   kInteger  string2ll ("010", "+1" rejected), min..max   decimal
//   kMemory   digits + b | k | kb | m | mb | g | gb,   bytes, "536870912"
//             any case; k = 1000, kb = 1024; "" = 0
//   kString   any bytes                                as set
//   kEnum     one of choices, any case                 lower case
//   kSpecial  its own parse / print (bind, save, ...)
//
// Rows marked unused are parameters Redis configs commonly carry (tuning of
// encodings, persistence, replication, lazy freeing...) that mean nothing to
// lawnkv: they are validated as Redis validates them and kept in
// Values::ignored so CONFIG GET reads back what was set, and have no effect.
// Directives whose silent acceptance would mislead (replicaof, unixsocket,
// rename-command, loadmodule) are not in the table, so they stop
// start-up with Redis's "Bad directive" error.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "config/values.hpp"

namespace lawnkv::config {

enum class Kind : uint8_t { kBool, kInteger, kMemory, kString, kEnum, kSpecial };

// What CONFIG SET may do with a parameter. The two refusals are Redis's:
// "can't set immutable config", "can't set protected config" (lawnkv has no
// enable-protected-configs, so protected means never settable at run time).
enum class Access : uint8_t { kMutable, kImmutable, kProtected };

// Where a used parameter keeps its value; monostate: in Values::ignored.
using Field = std::variant<std::monostate, bool Values::*, int64_t Values::*, std::string Values::*>;

// Parses the words of a kSpecial parameter into v; returns the error reason
// ("" on success). from_file: redis.conf or the command line, where some
// directives accumulate over several lines (save, client-output-buffer-limit).
using SpecialSet = std::string (*)(Values& v, std::span<const std::string> words, bool from_file);
using SpecialGet = std::string (*)(const Values& v);
// Extra rule on an accepted value (already in its printed form); returns the
// error reason, "" if fine.
using Validate = std::string_view (*)(std::string_view value);

// Rows are written with designated initializers; a field left out keeps the
// default below.
struct Param {
  std::string_view name;        // Redis's name, lower case
  std::string_view alias = {};  // the older name Redis also accepts ("slave-read-only")
  Kind kind = Kind::kString;
  Access access = Access::kMutable;
  bool multi_arg = false;       // several words: bind, save, client-output-buffer-limit
  bool used = true;             // false: accepted for compatibility, no effect
  bool hidden = false;
  // CONFIG SET runs its live apply even when the value is unchanged (Redis's
  // VOLATILE_CONFIG: setting tls-cert-file to the same path reloads the file).
  bool always_apply = false;          // CONFIG GET answers its exact name only, no pattern (Redis's HIDDEN_CONFIG)
  std::string_view def = {};    // the default, as CONFIG GET prints it
  Field field = {};
  int64_t min = 0;              // kInteger, kMemory bounds (inclusive)
  uint64_t max = 0;
  std::string_view choices = {};  // kEnum: "debug, verbose, notice, warning", as Redis's error lists them
  SpecialSet special_set = nullptr;
  SpecialGet special_get = nullptr;
  Validate validate = nullptr;
  void (*apply)(Values& v) = nullptr;  // after a successful set, as Redis's apply functions
  std::string_view doc = {};
};

// Every parameter, in the order CONFIG GET lists them.
std::span<const Param> params();
// The parameter named name or alias, any case; nullptr if none.
const Param* find_param(std::string_view name);

// Parameters of features lawnkv does not have (replication, cluster,
// unix sockets, ACL files, client eviction...), which CONFIG GET answers
// with Redis's value when the feature is off, as Redis does: monitoring
// and client libraries read them (a replicaof of "" says "a primary").
// They are not directives: redis.conf and CONFIG SET still refuse them
// (find_param does not know them; CONFIG SET with Redis's immutable error
// where Redis marks them immutable), so a config that asks for the feature
// fails instead of running without it. reported_params.cpp.
std::span<const Param> reported_params();
const Param* find_reported_param(std::string_view name);

// Sets p from its words (exactly one unless p.multi_arg). Returns Redis's
// error reason, e.g. "argument must be a memory value"; "" on success.
std::string set_param(const Param& p, Values& v, std::span<const std::string> words, bool from_file);
// p's current value as CONFIG GET prints it.
std::string get_param(const Param& p, const Values& v);

// memtoull: "1gb" -> 1073741824, "1k" -> 1000, "" -> 0; false for a sign,
// a fraction or an unknown unit. Overflow saturates the digits, then wraps
// on the unit, as Redis does.
bool parse_memory(std::string_view s, uint64_t* out);
// The shortest redis.conf form: 536870912 -> "512mb", 1000 -> "1000".
std::string format_memory(uint64_t bytes);

// A percentile as Redis prints it: "%f" without trailing zeros or point
// (50 -> "50", 99.9 -> "99.9").
std::string format_percentile(double p);

// notify-keyspace-events: "KEA" -> kKeyspaceChannel|kKeyeventChannel|kAll;
// false for a character outside "Ag$lshzxeKEtmdn".
bool parse_notify_flags(std::string_view s, uint32_t* out);
// Back in Redis 7.0's order: "A" (or g$lshzxetdn), K, E, m. As in 7.0, n is
// not printed when A is (the flag stays set).
std::string format_notify_flags(uint32_t flags);

}  // namespace lawnkv::config
