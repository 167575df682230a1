// libFuzzer harness: loading an append-only file (src/durability/append_only.hpp)
// from hostile bytes.
//
// Input: one flag byte (bit 0: aof-load-truncated yes), then the bytes of
// the only increment a manifest lists (appendonly.aof.1.incr.aof, no base).
// The server state is built as main builds it, with the clock moved near its
// end (every deadline a file gives is in the past or far ahead, so nothing
// falls due between two loads).
//
// Checked, besides no crash, sanitizer report or runaway allocation:
//   - a refused file says why;
//   - a loaded file (cut where the loader cut it) loads again to the same
//     DEBUG DIGEST, and the second load cuts nothing more.

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "commands/server_factory.hpp"
#include "durability/append_only.hpp"
#include "engine/server_state.hpp"
#include "persistence/keyspace_digest.hpp"

using namespace lawnkv;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "aof_load_fuzz: %s\n", what.c_str());
  std::abort();
}

const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    char tmpl[] = "/tmp/lawnkv-aof-fuzz-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) fail("mkdtemp");
    std::filesystem::create_directory(std::filesystem::path(tmpl) / "appendonlydir");
    std::atexit([] { std::filesystem::remove_all(work_dir()); });
    return std::filesystem::path(tmpl);
  }();
  return dir;
}

// Loads what is in the work dir; the digest, or "" with *error set.
std::string load(bool truncated_ok, std::string* error) {
  config::Config cfg;
  config::Values& v = cfg.mutable_values();
  v.dir = work_dir().string();
  v.appendonly = true;
  v.aof_load_truncated = truncated_ok;
  v.save = "";
  auto state = make_server_state(std::move(cfg));
  state->clock.advance_ms(Clock::kMaxUs / 1000 - state->clock.now_ms() - 86'400'000);
  *error = state->aof().start(*state);
  const std::string digest = error->empty() ? persistence::keyspace_digest(state->data.keyspace).hex() : "";
  state->aof().turn_off(*state);
  return digest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool truncated_ok = data[0] & 1;
  const std::filesystem::path dir = work_dir() / "appendonlydir";
  const std::filesystem::path incr = dir / "appendonly.aof.1.incr.aof";
  std::ofstream(dir / "appendonly.aof.manifest", std::ios::trunc) << "file appendonly.aof.1.incr.aof seq 1 type i\n";
  std::ofstream(incr, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data) + 1, static_cast<std::streamsize>(size - 1));
  std::string error;
  const std::string first = load(truncated_ok, &error);
  if (!error.empty()) return 0;
  const auto size_after = std::filesystem::file_size(incr);
  const std::string second = load(false, &error);
  if (!error.empty()) fail("a loaded file does not load again: " + error);
  if (second != first) fail("the second load differs: " + first + " then " + second);
  if (std::filesystem::file_size(incr) != size_after) fail("the second load cut the file again");
  return 0;
}
