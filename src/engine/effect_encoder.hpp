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

#include <span>
#include <string>
#include <string_view>

#include "engine/effects.hpp"

namespace lawnkv {

class EffectEncoder {
 public:
  // Appends the RESP form of records (one command's, in order) to out.
  void encode(std::span<const EffectRecord> records, std::string& out);
  // A new stream (a new file, a new replica): its first record selects its db.
  void reset() { selected_db_ = -1; }

  // One command as a RESP array of bulk strings.
  static void put_command(std::string& out, std::span<const std::string> argv);

 private:
  int selected_db_ = -1;  // the stream's db; -1: none selected yet
};

}  // namespace lawnkv
