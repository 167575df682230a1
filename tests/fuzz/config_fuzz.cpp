// libFuzzer harness: the configuration (src/config/config.hpp).
//
// Input: one mode byte, then the text.
//   mode even  redis.conf text for Config::load_text. Lines naming `include`
//              or `logfile` are blanked first (as comments, so line numbers
//              stay): the first reads any file, the second creates one.
//   mode odd   CONFIG SET pairs: the text split at NUL bytes into name,
//              value, name, value...; a name of one byte 0x01..0x7f picks a
//              row of the parameter table, so the fuzzer reaches every
//              parameter without guessing names.
//
// Checked, besides no crash or sanitizer report:
//   - a failed load or set has Redis's error text (non-empty);
//   - a failed CONFIG SET changed nothing (all or nothing): CONFIG GET * is
//     the same before and after;
//   - after a successful load or set, CONFIG GET of every mutable parameter
//     is a value CONFIG SET accepts, and setting it back changes nothing.

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "config/params.hpp"
#include "core/split_args.hpp"

using namespace lawnkv;
using namespace lawnkv::config;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "config_fuzz: %s\n", what.c_str());
  std::abort();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The text with `include` and `logfile` lines made comments, split into
// lines exactly as Config::load_lines splits them.
std::string defang(std::string_view text) {
  std::string out;
  while (true) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    const auto words = split_args(line);
    const std::string first = words && !words->empty() ? lower((*words)[0]) : "";
    if (first == "include" || first == "logfile") {
      out += "#";
    } else {
      out += line;
    }
    if (nl == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(nl + 1);
  }
  return out;
}

Pairs get_all(const Config& c) { return c.get({"*"}); }

// Every mutable parameter's CONFIG GET value goes back through CONFIG SET
// unchanged.
void check_round_trip(Config& c) {
  const Pairs before = get_all(c);
  for (const Param& p : params()) {
    if (p.access != Access::kMutable) continue;
    const auto got = c.get({p.name});
    if (got.size() != 1) fail("CONFIG GET " + std::string(p.name) + " did not list it once");
    const Status st = c.set({{std::string(p.name), got[0].second}});
    if (!st.ok()) fail("CONFIG SET " + std::string(p.name) + " '" + got[0].second + "' refused its own GET value: " + st.error);
  }
  if (get_all(c) != before) fail("setting every parameter to its own value changed CONFIG GET *");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool set_mode = data[0] & 1;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  Config cfg;

  if (!set_mode) {
    const Status st = cfg.load_text(defang(text));
    if (!st.ok()) return 0;  // the fatal-config text; the server would exit
    check_round_trip(cfg);
    return 0;
  }

  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t nul = text.find('\0', start);
    parts.emplace_back(text.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  const auto table = params();
  Pairs pairs;
  for (size_t i = 0; i + 1 < parts.size(); i += 2) {
    std::string name = parts[i];
    if (name.size() == 1 && name[0] > 0) name = std::string(table[static_cast<size_t>(name[0]) % table.size()].name);
    pairs.emplace_back(std::move(name), parts[i + 1]);
  }
  if (pairs.empty()) return 0;

  const Pairs before = get_all(cfg);
  const Status st = cfg.set(pairs);
  if (!st.ok()) {
    if (get_all(cfg) != before) fail("a refused CONFIG SET changed the configuration: " + st.error);
    return 0;
  }
  check_round_trip(cfg);
  return 0;
}
