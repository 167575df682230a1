#pragma once
// Turns effect records (effects.hpp) into the RESP commands that replay
// them, for one stream with a selected db of its own (an AOF increment; a
// replica's link next): SELECT when a record's db is not the stream's, and
// MULTI ... EXEC around the records of one command (a transaction, a
// script) when there are several, as Redis propagates them.
//
// Worked example: a stream that last selected db 0 is given the records of
// one EXEC, {1: SET a 1}, {1: INCR b}:
//   *1 MULTI, *2 SELECT 1, *3 SET a 1, *2 INCR b, *1 EXEC
// and the stream's db is 1 afterwards, so the next record in db 1 goes
// without a SELECT.
//
// encode_each writes records that are not one command's (an expiry
// cycle's deletions: Effects::Batch) as commands of their own, without
// MULTI/EXEC, and joins a run of single-key DELs in one db into one DEL of
// up to kMaxJoinedKeys keys: {0: DEL a}, {0: DEL b}, {0: HDEL h f},
// {0: DEL c} -> *3 DEL a b, *3 HDEL h f, *2 DEL c. A replica (lawnkv or
// redis-server) deletes each key of it and fires each key's `del` event as
// for a DEL of its own, and parses and dispatches one command per run
// instead of one per key.

#include <span>
#include <string>
#include <string_view>

#include "engine/effects.hpp"

namespace lawnkv {

class EffectEncoder {
 public:
  // Appends the RESP form of records (one command's, in order) to out.
  void encode(std::span<const EffectRecord> records, std::string& out);
  // Appends records (not one command's: each is a command of its own) to
  // out, single-key DELs of one db joined.
  void encode_each(std::span<const EffectRecord> records, std::string& out);
  static constexpr size_t kMaxJoinedKeys = 1024;
  // A new stream (a new file, a new replica): its first record selects its db.
  void reset() { selected_db_ = -1; }

  // One command as a RESP array of bulk strings.
  static void put_command(std::string& out, std::span<const std::string> argv);

 private:
  // SELECT db when the stream is in another one.
  void select(int db, std::string& out);

  int selected_db_ = -1;  // the stream's db; -1: none selected yet
};

}  // namespace lawnkv
