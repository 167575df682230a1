#pragma once
// The command table: one row per command (and per subcommand, as Redis 7.0
// has them: CONFIG GET is "config|get"), registered by each family file.
// Dispatch checks existence and arity here, once, before any handler, with
// Redis's exact error texts.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/ascii.hpp"
#include "core/latency_histogram.hpp"

namespace lawnkv {

struct Call;
using Handler = void (*)(Call&);
// The flags of a key spec marked variable_flags for one call (argv whole),
// as Redis's getkeys procs give them: SET's key is "OW update" unless GET.
using KeyFlagsFn = std::string_view (*)(std::span<const std::string_view> argv);
struct KeyRef;  // engine/keys.hpp
struct KeyPlan;  // engine/keys.hpp
struct ServerState;
// The command flags of one call where the row's alone do not say (Redis's
// getCommandFlags): an EVAL or FCALL takes its script's flags. Read by
// dispatch where the flags decide (CLIENT PAUSE).
using CallFlagsFn = uint32_t (*)(ServerState& server, std::span<const std::string_view> argv, uint32_t row_flags);
// The keys of one call (argv whole) for a command whose key specs cannot
// find them all, as Redis's getkeys procs (SORT ... STORE dst): out gets
// each key's position and key spec.
using GetKeysFn = void (*)(std::span<const std::string_view> argv, std::vector<KeyRef>& out);

// CommandSpec::channel_args.
enum ChannelArgs : uint8_t {
  kNoChannels = 0,
  kPublishChannel = 1,     // argv[1] is a channel published to
  kSubscribeChannels = 2,  // every argument is a channel subscribed to
  kSubscribePatterns = 3,  // every argument is a channel pattern subscribed to
};

// Redis 7.0 command flags, as COMMAND INFO reports them, then lawnkv's own
// (not reported): what dispatch does with a command is read from its flags.
enum CommandFlag : uint32_t {
  kWrite = 1u << 0,
  kReadonly = 1u << 1,
  kDenyOom = 1u << 2,
  kAdmin = 1u << 3,
  kPubsub = 1u << 4,
  kNoscript = 1u << 5,
  kBlocking = 1u << 6,
  kLoading = 1u << 7,
  kStale = 1u << 8,
  kSkipMonitor = 1u << 9,
  kSkipSlowlog = 1u << 10,
  kFast = 1u << 11,
  kNoAuth = 1u << 12,
  kMayReplicate = 1u << 13,
  kSentinel = 1u << 14,
  kOnlySentinel = 1u << 15,
  kNoMandatoryKeys = 1u << 16,
  kProtected = 1u << 17,
  kNoAsyncLoading = 1u << 18,
  kNoMulti = 1u << 19,
  kAllowBusy = 1u << 20,
  kMovableKeys = 1u << 21,  // reported, not a Redis 7 flag name: "movablekeys"

  // lawnkv's: a RESP2 client in subscribed mode may send it (Redis 7.0:
  // (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT, RESET).
  kSubscribedContext = 1u << 28,
  // lawnkv's: inside MULTI it runs instead of being queued (Redis 7.0: EXEC,
  // DISCARD, MULTI, WATCH, QUIT, RESET).
  kTransactionControl = 1u << 29,
  // lawnkv's: EXEC itself; a refused EXEC discards the transaction
  // (Redis's execCommandAbort) instead of dooming it.
  kRunsQueue = 1u << 30,
};
// The flags COMMAND INFO reports.
inline constexpr uint32_t kRedisFlags = (1u << 22) - 1;

struct CommandStats {
  uint64_t calls = 0;
  uint64_t nsec = 0;            // summed per call, so sub-microsecond calls count
  uint64_t rejected_calls = 0;  // refused before running (arity, WRONGTYPE is not)
  uint64_t failed_calls = 0;    // ran and replied an error
};

// Where a command's keys are, as Redis's legacy (first, last, step) triple:
// first 0 means no keys; a negative last counts from the end (-1: the last
// argument); MSET's keys are {1, -1, 2}.
struct KeyRange {
  int first = 0;
  int last = 0;
  int step = 0;
};

// Movable keys counted by an argument (engine/keys.hpp): the count is at
// argv[index], the keys start firstkey after it, keystep apart; index 0:
// none. ZUNION's are {1, 1, 1}, EVAL's {2, 1, 1}.
struct KeyNum {
  int index = 0;
  int firstkey = 1;
  int keystep = 1;
};

// Keys after a keyword, as Redis's keyword begin_search: the keyword is
// searched from argv[startfrom] on (not as the last argument). With the
// range lastkey -1, limit 2 (XREAD's STREAMS) half the arguments after it
// are keys; with lastkey -1, limit 0 (MIGRATE's KEYS) every argument after
// it (such a row finds its keys with get_keys); with lastkey 0 (GEORADIUS's
// STORE), the one argument after it. word may name several keywords
// separated by '|' ("STORE|STOREDIST"): one key spec each, with the same
// search and range.
struct KeyKeyword {
  std::string_view word;  // empty: none
  int startfrom = 1;
  int lastkey = -1;
  int limit = 2;
};

// One command (or subcommand, as Redis 7.0 has them: CONFIG GET is
// "config|get"): everything dispatch, COMMAND INFO/DOCS/LIST and INFO
// commandstats know of it. Family files write their rows with designated
// initialisers; a unit test walks the table and fails on an incomplete row.
struct CommandSpec {
  std::string name;          // lower case; subcommands "parent|sub"
  int arity = 0;             // Redis's: N exact, -N at least N (name included)
  uint32_t flags = 0;        // CommandFlag bits
  KeyRange keys = {};
  KeyNum keynum = {};        // keys counted by an argument, after those of keys
  KeyKeyword keyword = {};   // keys after a keyword (engine/keys.hpp)
  // The five fields below have no default, so a row that leaves one out
  // draws -Wmissing-field-initializers.
  std::string_view acl;      // ACL categories, as COMMAND INFO lists them: "@read @string @fast"
  // COMMAND DOCS, in our own words.
  std::string_view group;    // Redis's command group: "string", "generic", "server", ...
  std::string_view since;    // the Redis version that introduced it (lawnkv's own: 0.1.0)
  std::string_view complexity;
  std::string_view summary;
  // As Redis 7.0 reports them in COMMAND INFO.
  std::string_view tips = {};       // space separated: "nondeterministic_output ..."
  std::string_view key_flags = {};  // per key spec, ';' separated: "RW access delete;OW update"
  std::string_view key_notes = {};  // per key spec, ';' separated
  KeyFlagsFn variable_key_flags = nullptr;  // for a key spec marked variable_flags
  // Key specs after those of keys and keynum whose keys a keyword places
  // anywhere (begin_search and find_keys "unknown"); get_keys finds them.
  int unknown_key_specs = 0;
  GetKeysFn get_keys = nullptr;
  CallFlagsFn call_flags = nullptr;
  Handler handler = nullptr;        // nullptr for a container of subcommands
  std::vector<CommandSpec> subcommands = {};
  // Counted on the row itself: no lookup by name per command.
  mutable CommandStats stats{};
  // Its latencies (latency-tracking), made at its first sample (Redis's
  // cmd->latency_histogram): 24 KiB for each command used, none for others.
  mutable std::shared_ptr<LatencyHistogram> latency_histogram = {};
  // acl as AclCategory bits with those the flags imply (acl_categories.hpp);
  // set by CommandTable::add.
  uint32_t acl_bits = 0;
  // Which arguments are Pub/Sub channels an ACL user must be allowed
  // (engine/acl_selector.hpp): Redis 7.0 checks PUBLISH's, SUBSCRIBE's and
  // PSUBSCRIBE's (as patterns, compared literally).
  uint8_t channel_args = 0;  // ChannelArgs
  // This row's bit in an ACL selector's command bitmap; set by
  // CommandTable::add, one per row and subcommand, from 0 up.
  uint32_t acl_id = 0;
  // Its key specs with their flags resolved (engine/keys.hpp key_plan):
  // made at the first look at the row's keys, on the main thread.
  mutable std::shared_ptr<const KeyPlan> key_plan = {};

  bool has(uint32_t f) const { return (flags & f) != 0; }
  void record_latency(int64_t ns) const {
    if (!latency_histogram) latency_histogram = std::make_shared<LatencyHistogram>();
    latency_histogram->record(ns);
  }
  const CommandSpec* subcommand(std::string_view lower_name) const;
};

// Rows live in a map ordered by name (COMMAND, COMMAND LIST and INFO
// commandstats list them in that order); find() goes through a hash index
// beside it, since a command is looked up on every request.
class CommandTable {
 public:
  CommandTable() = default;
  // The index points into the map's nodes: a copy would point into the
  // original's.
  CommandTable(const CommandTable&) = delete;
  CommandTable& operator=(const CommandTable&) = delete;

  // Adds a row and its subcommands, with their ACL category bits. A row
  // whose name is taken, or that names an unknown ACL category, is a bug in
  // its family file: std::logic_error names it.
  void add(CommandSpec spec);
  void add(std::initializer_list<CommandSpec> rows) {
    for (const CommandSpec& row : rows) add(row);
  }
  // Case-insensitive (ASCII) lookup of a top-level command; nullptr if none.
  const CommandSpec* find(std::string_view name) const;
  // The same for "parent|sub" too (Redis's lookupCommandBySds).
  const CommandSpec* find_fullname(std::string_view name) const;
  const std::map<std::string, CommandSpec>& all() const { return commands_; }
  // How many acl_id values rows and subcommands hold (0 .. count-1).
  uint32_t acl_id_count() const { return next_acl_id_; }

  // Every row, subcommands after their container, in name order.
  template <class F>
  void for_each_spec(F&& fn) const {
    for (const auto& [name, spec] : commands_) {
      fn(spec);
      for (const CommandSpec& sub : spec.subcommands) fn(sub);
    }
  }
  void reset_stats() const {
    for_each_spec([](const CommandSpec& spec) {
      spec.stats = {};
      spec.latency_histogram.reset();
    });
  }

 private:
  // Open addressing with linear probing, at most half full, so a probe
  // sequence always reaches an empty slot. hash is name_hash() of the row's
  // name, compared before the name itself.
  struct Slot {
    uint64_t hash = 0;
    const CommandSpec* spec = nullptr;
  };
  static uint64_t name_hash(std::string_view name);
  void index(const CommandSpec& spec);

  std::map<std::string, CommandSpec> commands_;
  std::vector<Slot> slots_;  // a power of two in size
  uint32_t next_acl_id_ = 0;
};

}  // namespace lawnkv
