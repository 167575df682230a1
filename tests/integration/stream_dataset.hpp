#pragma once
// A stream dataset for the persistence tests (the AOF across crashes and
// rewrites, dump.rdb across restarts), and the state they compare.

#include <string>

#include "itest.hpp"

namespace lawnkv::itest {

// Writes, in db 0, streams with all a replay or a load must rebuild:
// entries (generated IDs, deleted and trimmed ones), groups with their read
// counters, pending entries with delivery counts (reads, history reads,
// claims, NOACK), consumers, XSETID's figures. Keys st, st2 and meta.
void write_stream_dataset(Client& c);

// XINFO STREAM FULL of each of those keys, as wire bytes. With
// without_seen, each consumer's seen-time is 0: an AOF replay makes the
// consumers it touches seen at the load, as Redis 7.0 does; everything else
// comes back exactly.
std::string stream_dataset_state(Client& c, bool without_seen);

}  // namespace lawnkv::itest
