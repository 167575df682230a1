#pragma once
// Saving a keyspace as an RDB file (rdb_format.hpp draws the layout).
//
// Every key of every non-empty db goes out with its deadline, strings as
// RDB_TYPE_STRING and other values through their type's codec
// (value_codecs.hpp). The file is version 10 (Redis 7.0), or 12 when a hash
// has a field with a TTL (hash_codec.cpp). Keys whose deadline has passed
// but that are not reaped yet are saved too: a loader drops them.
//
// save_rdb_file writes a temporary file beside the target, fsyncs it and
// renames it over the target, so a crash mid-save leaves the old file. It
// only reads the keyspace, so a forked child (BGSAVE) can run it on its copy.

#include <cstdint>
#include <string>
#include <vector>

#include "persistence/rdb_output.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::persistence {

struct SaveOptions {
  bool compress = true;   // rdbcompression
  bool checksum = true;   // rdbchecksum
  int64_t now_ms = 0;     // for the ctime AUX field
  uint64_t used_memory = 0;  // for the used-mem AUX field
  // FUNCTION libraries' code, written after the AUX fields as
  // RDB_OPCODE_FUNCTION2 records (Redis 7.0's rdbSaveFunctions).
  std::vector<std::string> functions = {};
};

// The version a file holding ks needs (10, or 12 for hash field TTLs).
int rdb_version_for(const store::Keyspace& ks);

// Writes ks as a whole RDB file (header to checksum) to out. False, with
// the reason in *why, if the sink failed or a value has a type without a
// codec (value_codecs.hpp): the file is then incomplete.
bool write_rdb(const store::Keyspace& ks, RdbOutput& out, const SaveOptions& opts, std::string* why = nullptr);

// The length of e's value as an RDB file holds it, after its type byte and
// key (Redis's rdbSavedObjectLen, DEBUG OBJECT's serializedlength); 0 for a
// type without a codec.
uint64_t saved_value_length(const store::Entry& e, bool compress);

// Saves ks to path through path's directory's "temp-<pid>.rdb". Returns ""
// on success, else why it failed (the temporary file is removed).
std::string save_rdb_file(const store::Keyspace& ks, const std::string& path, const SaveOptions& opts);

// dir + "/" + file (file alone when dir is empty).
std::string join_path(const std::string& dir, const std::string& file);

}  // namespace lawnkv::persistence
