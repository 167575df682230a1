#pragma once
// The memory figures INFO memory and MEMORY STATS share, computed as Redis
// 7.0's getMemoryOverheadData computes them, from lawnkv's parts:
//
//   overhead  = startup + client buffers + every db's tables ("main": its
//               dictionary's buckets and an entry header a key; "expires":
//               a timer a key with a TTL; the expiry index's wheel is
//               allocated with the db, in startup) + the scripting caches
//   dataset   = used - overhead
//   bytes per key = (used - startup) / keys
//
// Replication backlog, replica buffers, cluster links and the AOF buffer
// are 0: lawnkv has none of them (its append-only records are written at
// once). The scripting figures come from scripting_memory().

#include <cstdint>
#include <vector>

#include "core/allocator.hpp"

namespace lawnkv {

struct ServerState;

// What scripts hold: Redis's used_memory_lua, used_memory_scripts...
struct ScriptingMemory {
  uint64_t vm_eval = 0;          // used_memory_lua, used_memory_vm_eval
  uint64_t scripts_eval = 0;     // used_memory_scripts_eval (cached EVAL bodies)
  uint64_t cached_scripts = 0;   // number_of_cached_scripts
  uint64_t functions = 0;        // number_of_functions
  uint64_t libraries = 0;        // number_of_libraries
  uint64_t vm_functions = 0;     // used_memory_vm_functions
  uint64_t functions_bytes = 0;  // used_memory_functions (functions.caches)
  uint64_t vm_total() const { return vm_eval + vm_functions; }
  uint64_t scripts() const { return scripts_eval + functions_bytes; }  // used_memory_scripts
};
// The figures of the Lua runtime (scripting/runtime.hpp); 0 before it is built.
ScriptingMemory scripting_memory(const ServerState& server);

struct MemoryFigures {
  struct Db {
    int index;
    uint64_t main;     // overhead.hashtable.main
    uint64_t expires;  // overhead.hashtable.expires
  };
  uint64_t used = 0;     // used_memory, total.allocated
  uint64_t peak = 0;     // used_memory_peak, peak.allocated
  uint64_t startup = 0;  // used_memory_startup, startup.allocated
  uint64_t clients_normal = 0;
  ScriptingMemory scripting;
  std::vector<Db> dbs;  // the dbs holding keys
  uint64_t overhead = 0;
  uint64_t keys = 0;
  uint64_t dataset = 0;
  uint64_t bytes_per_key = 0;
  double dataset_perc = 0;  // of used - startup, as Redis
  double peak_perc = 0;     // used of peak
  allocator::Breakdown alloc;
  uint64_t rss = 0;
};
MemoryFigures memory_figures(const ServerState& server);

}  // namespace lawnkv
