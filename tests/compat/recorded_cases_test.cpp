// Case files for commands newer than the redis-server that `make test` runs
// beside lawnkv (tests/compat/cases74/: Redis 7.4's hash-field TTLs): their
// replies were recorded once from a newer Redis, built on a developer's
// machine, and lawnkv's replies must equal the recording byte for byte. CI
// needs only the recording.
//
// To record (after adding or changing a case file):
//   COMPAT_RECORD_SERVER=/path/to/redis-7.4/src/redis-server \
//     build/compat-tests -tc='*recorded*'
// writes <case>.replies beside each <case>.txt: one line a command,
// "<RESP2|RESP3> <line> <reply escaped>", and the server's version first.
// The case-file language is case_runner.hpp's (@sorted, @scan, @type, @client,
// @also-resp3...).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../support/escape.hpp"
#include "../support/paths.hpp"
#include "../support/raw_client.hpp"
#include "../support/server_process.hpp"
#include "case_script.hpp"
#include "side_session.hpp"

namespace lawnkv::test {

namespace {

std::vector<std::filesystem::path> recorded_case_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(repo_root() / "tests/compat/cases74")) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The script's replies from server, one line a command, in the .replies form.
std::vector<std::string> replies_of(ServerProcess& server, const CaseScript& script) {
  std::vector<std::string> lines;
  for (bool resp3 : {false, true}) {
    if (resp3 && !script.also_resp3) continue;
    {
      RawClient admin(server.port(), SideSession::kReplyTimeout);
      REQUIRE(admin.call({"FLUSHALL"}) == "+OK\r\n");
    }
    SideSession session(server.port(), resp3);
    for (const Step& step : script.steps) {
      if (step.switch_to_client != 0) {
        session.use_client(step.switch_to_client);
        continue;
      }
      lines.push_back(std::string(resp3 ? "RESP3 " : "RESP2 ") + std::to_string(step.line) + " " +
                      escape_bytes(session.execute(step), 1 << 20));
    }
  }
  return lines;
}

std::string version_of(ServerProcess& server) {
  RawClient c(server.port(), SideSession::kReplyTimeout);
  const std::string info = c.call({"INFO", "server"});
  const size_t at = info.find("redis_version:");
  return at == std::string::npos ? "?" : info.substr(at + 14, info.find('\r', at) - at - 14);
}

}  // namespace

TEST_CASE("compat: recorded case files (commands newer than the reference redis-server)") {
  const auto files = recorded_case_files();
  REQUIRE(!files.empty());
  const char* record_with = std::getenv("COMPAT_RECORD_SERVER");
  if (record_with && *record_with) {
    setenv("REDIS_SERVER", record_with, 1);
    ServerProcess reference = ServerProcess::redis();
    const std::string version = version_of(reference);
    for (const auto& file : files) {
      std::filesystem::path out = file;
      out.replace_extension(".replies");
      std::ofstream f(out);
      f << "# recorded from redis-server " << version << " by tests/compat/recorded_cases_test.cpp\n";
      for (const auto& line : replies_of(reference, load_case_script(file))) f << line << "\n";
      MESSAGE("recorded " << out.string() << " from redis-server " << version);
    }
    return;
  }
  ServerProcess lawnkv = ServerProcess::lawnkv();
  for (const auto& file : files) {
    std::filesystem::path recorded_path = file;
    recorded_path.replace_extension(".replies");
    std::ifstream in(recorded_path);
    REQUIRE_MESSAGE(in.good(), "no recording " << recorded_path.string() << " (see this file's header)");
    std::vector<std::string> recorded;
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with("#")) recorded.push_back(line);
    }
    const std::vector<std::string> ours = replies_of(lawnkv, load_case_script(file));
    CHECK_MESSAGE(ours.size() == recorded.size(), file.string() << ": " << ours.size() << " replies, "
                                                                 << recorded.size() << " recorded");
    int mismatches = 0;
    for (size_t i = 0; i < std::min(ours.size(), recorded.size()); ++i) {
      if (ours[i] == recorded[i] || ++mismatches > 25) continue;
      const std::string where = recorded[i].substr(0, recorded[i].find(' ', 6));
      ADD_FAIL_CHECK_AT(file.c_str(), std::atoi(where.c_str() + 6),
                        where << "\n  lawnkv:   " << ours[i].substr(where.size() + 1)
                              << "\n  recorded: " << recorded[i].substr(where.size() + 1));
    }
  }
}

}  // namespace lawnkv::test
