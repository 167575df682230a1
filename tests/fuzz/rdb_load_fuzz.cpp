// libFuzzer harness: the RDB loader (src/persistence/rdb_loader.hpp) on
// hostile files.
//
// Input: an RDB file as it would be on disk. The checksum is not verified
// (most mutations would stop there), so the fuzzer reaches every decoder:
// lengths, integer and LZF strings, intsets, listpacks, ziplists, hash field
// TTLs, module values.
//
// Checked, besides no crash, sanitizer report or runaway allocation:
//   - a refused file has a reason naming an offset;
//   - a loaded file round-trips: saved again and loaded again, it gives the
//     same keys and the same DEBUG DIGEST.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "persistence/keyspace_digest.hpp"
#include "persistence/rdb_loader.hpp"
#include "persistence/rdb_output.hpp"
#include "persistence/rdb_writer.hpp"

using namespace lawnkv;
using namespace lawnkv::persistence;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "rdb_load_fuzz: %s\n", what.c_str());
  std::abort();
}

// A "now" before every deadline a seed carries, so keys are loaded rather
// than dropped as expired (both are exercised: mutated deadlines fall on
// either side).
constexpr int64_t kNow = 1'700'000'000'000;

LoadOptions options() {
  LoadOptions o;
  o.verify_checksum = false;
  o.values.now_ms = kNow;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  store::Keyspace ks(16);
  const LoadResult r = load_rdb(file, ks, options());
  if (!r.ok()) {
    if (r.error.find("offset") == std::string::npos) fail("error without an offset: " + r.error);
    return 0;
  }
  std::string again;
  StringSink sink(again);
  RdbOutput out(sink, true, true);
  if (!write_rdb(ks, out, SaveOptions{.now_ms = kNow})) fail("save failed");
  store::Keyspace back(16);
  const LoadResult r2 = load_rdb(again, back, options());
  if (!r2.ok()) fail("a saved file does not load: " + r2.error);
  if (back.total_keys() != ks.total_keys()) fail("key count changed through a save");
  if (keyspace_digest(back).hex() != keyspace_digest(ks).hex()) fail("digest changed through a save");
  return 0;
}
