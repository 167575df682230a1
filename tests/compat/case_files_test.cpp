// Every tests/compat/cases/*.txt against lawnkv and redis-server side by
// side. COMPAT_FILES=strings,expiry runs only the files whose names contain
// one of those words.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "../support/paths.hpp"
#include "case_runner.hpp"

namespace lawnkv::test {

namespace {

bool selected(const std::filesystem::path& file) {
  const char* filter = std::getenv("COMPAT_FILES");
  if (!filter || !*filter) return true;
  std::stringstream words(filter);
  for (std::string word; std::getline(words, word, ',');) {
    if (!word.empty() && file.filename().string().find(word) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::filesystem::path> case_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(repo_root() / "tests/compat/cases")) {
    if (entry.path().extension() == ".txt" && selected(entry.path())) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("compat: case files, lawnkv against redis-server") {
  auto files = case_files();
  REQUIRE_MESSAGE(!files.empty(), "no case files under tests/compat/cases (or none match COMPAT_FILES)");
  std::vector<CaseScript> scripts;
  for (const auto& file : files) scripts.push_back(load_case_script(file));

  ServerProcess lawnkv = ServerProcess::lawnkv();
  ServerProcess redis = ServerProcess::redis();
  RunCounts total;
  std::ostringstream summary;
  for (const auto& script : scripts) {
    for (bool resp3 : {false, true}) {
      if (resp3 && !script.also_resp3) continue;
      RunCounts counts = run_case_script(lawnkv, redis, script, resp3);
      total.commands += counts.commands;
      total.mismatches += counts.mismatches;
      summary << "  " << script.path.filename().string() << (resp3 ? " (RESP3)" : "") << ": "
              << counts.commands << " commands, " << counts.mismatches << " mismatches\n";
      REQUIRE_MESSAGE(lawnkv.running(), "lawnkv exited during " << script.path.filename().string());
      REQUIRE_MESSAGE(!counts.unresponsive, "lawnkv stopped replying during "
                                                << script.path.filename().string()
                                                << "; the remaining files are not run");
    }
  }
  MESSAGE("compat case files: " << total.commands << " commands, " << total.mismatches
                                << " mismatches\n" << summary.str());
}

}  // namespace lawnkv::test
