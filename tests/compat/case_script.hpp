#pragma once
// A compat case file parsed into steps. The language is described at the
// top of case_runner.hpp.

#include <filesystem>
#include <string>
#include <vector>

namespace lawnkv::test {

// How the two replies to a step are compared.
enum class Compare {
  kExact,   // byte for byte
  kSorted,  // @sorted: with the elements of every array, set and map sorted
  kScan,    // @scan: the distinct elements of a whole SCAN iteration, sorted
  kHello,   // @hello: without HELLO's server, version and id fields
  kType,    // @type: only the reply's type byte and null-ness
};

struct Step {
  int line = 0;                    // 1-based line in the file
  std::string source;              // the line as written
  int switch_to_client = 0;        // @client N: nonzero, and argv is empty
  std::vector<std::string> argv;   // the command; with raw, one element: the bytes
  Compare compare = Compare::kExact;
  bool raw = false;                // @raw: send argv[0] as is, not as a multibulk
  bool closes = false;             // @closes: the server must close after replying
  bool slow = false;               // @slow: seconds of work; the long reply timeout
};

struct CaseScript {
  std::filesystem::path path;
  bool also_resp3 = false;  // @also-resp3: run a second time over RESP3
  std::vector<Step> steps;
};

// Where a scanning command's cursor is: SCAN cursor ..., SSCAN key cursor ...
inline size_t scan_cursor_at(const std::vector<std::string>& argv) {
  return argv.empty() || argv[0].size() == 4 ? 1 : 2;
}

// Parses the case file at `path`; throws std::runtime_error naming
// file:line for a line it cannot parse.
CaseScript load_case_script(const std::filesystem::path& path);

}  // namespace lawnkv::test
