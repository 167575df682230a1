#include "commands/memory_figures.hpp"

#include <algorithm>

#include "commands/server_family.hpp"
#include "engine/server_state.hpp"
#include "scripting/runtime.hpp"

namespace lawnkv {

ScriptingMemory scripting_memory(const ServerState& server) {
  // No runtime yet (no script, function or INFO has needed one): nothing held.
  if (!server.scripting()) return {};
  const auto& rt = static_cast<const scripting::Runtime&>(*server.scripting());
  const scripting::Functions& fs = rt.functions();
  return {.vm_eval = rt.lua_bytes(),
          .scripts_eval = rt.scripts_bytes(),
          .cached_scripts = rt.cached_scripts(),
          .functions = fs.function_count(),
          .libraries = fs.libraries().size(),
          .vm_functions = fs.heap_bytes(),
          .functions_bytes = fs.libraries_bytes()};
}

MemoryFigures memory_figures(const ServerState& server) {
  MemoryFigures m;
  m.used = allocator::used_bytes();
  m.peak = std::max(server.facts.used_memory_peak, m.used);
  m.startup = server.facts.used_memory_startup;
  m.clients_normal = client_buffer_bytes(server);
  m.scripting = scripting_memory(server);
  m.overhead = m.startup + m.clients_normal + m.scripting.scripts();
  const store::Keyspace& ks = server.data.keyspace;
  for (int i = 0; i < ks.databases(); ++i) {
    const store::Db& db = ks.db(i);
    if (db.size() == 0) continue;
    // A key's share beside its bytes: its bucket and its entry's header
    // (Redis: a dictEntry and a robj); with a TTL, its timer (Redis: a
    // dictEntry of the expires table). The expiry index's wheel is built
    // with the db, so it is in startup already.
    const MemoryFigures::Db d{i, db.dict().memory_bytes() + db.size() * sizeof(store::Entry),
                              db.expires() * sizeof(expiry::Timer)};
    m.dbs.push_back(d);
    m.overhead += d.main + d.expires;
    m.keys += db.size();
  }
  m.dataset = m.used > m.overhead ? m.used - m.overhead : 0;
  const uint64_t net = m.used > m.startup ? m.used - m.startup : 0;
  m.bytes_per_key = m.keys ? net / m.keys : 0;
  // Floats, as Redis computes them (MEMORY STATS prints their digits).
  m.dataset_perc = static_cast<float>(m.dataset) * 100 / static_cast<float>(net ? net : 1);
  m.peak_perc = m.peak ? static_cast<float>(m.used) * 100 / static_cast<float>(m.peak) : 0;
  m.alloc = allocator::breakdown();
  m.rss = allocator::resident_bytes();
  return m;
}

}  // namespace lawnkv
