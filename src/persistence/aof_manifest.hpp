#pragma once
// The manifest of a multi-part append-only file, in Redis 7's format, so a
// Redis user finds the layout they know:
//
//   <dir>/<appenddirname>/
//     <appendfilename>.1.base.rdb     the dataset at the last rewrite (an RDB
//                                     file; .base.aof when written as commands)
//     <appendfilename>.1.incr.aof     the writes since, as commands
//     <appendfilename>.2.incr.aof     (a rewrite in progress writes here)
//     <appendfilename>.manifest       one line a file, in load order:
//       file appendonly.aof.1.base.rdb seq 1 type b
//       file appendonly.aof.1.incr.aof seq 1 type i
//
// A file name with spaces or other bytes is written in quotes, as Redis's
// sdscatrepr; lines starting with '#' are comments. Type b is the base (at
// most one, first), i an increment; Redis's h (history, to delete) is read
// and skipped.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lawnkv::persistence {

struct AofManifest {
  struct File {
    std::string name;
    int64_t seq = 0;
    char type = 'i';  // 'b' base, 'i' increment
  };
  std::vector<File> files;  // load order: the base (if any), then increments by seq

  const File* base() const;
  // The highest seq of an increment (0 if none) and of a base.
  int64_t last_incr_seq() const;
  int64_t base_seq() const;

  std::string to_text() const;
  // Parses a manifest; on failure returns false and sets *error (naming the line).
  static bool parse(std::string_view text, AofManifest* out, std::string* error);

  // "<prefix>.<seq>.base.rdb" (or .base.aof), "<prefix>.<seq>.incr.aof",
  // "<prefix>.manifest".
  static std::string base_name(std::string_view prefix, int64_t seq, bool rdb);
  static std::string incr_name(std::string_view prefix, int64_t seq);
  static std::string manifest_name(std::string_view prefix);
};

}  // namespace lawnkv::persistence
