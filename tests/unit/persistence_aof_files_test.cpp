// The append-only file's parts that know nothing of commands: the manifest
// (Redis 7's format), the strict command reader (truncation and corruption),
// and the writer's buffering.

#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "persistence/aof_manifest.hpp"
#include "persistence/aof_reader.hpp"
#include "persistence/aof_writer.hpp"

namespace lawnkv::persistence {
namespace {

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("lawnkv-aof-test-" + std::to_string(getpid()) + "-" + name);
}

// Reads every command of bytes; the status that ended the reading.
AofReader::Status read_all(const std::string& bytes, std::vector<std::vector<std::string>>* out,
                           uint64_t* good = nullptr, std::string* error = nullptr) {
  std::FILE* f = fmemopen(const_cast<char*>(bytes.data()), bytes.size(), "r");
  AofReader r(f);
  std::vector<std::string> argv;
  AofReader::Status st;
  while ((st = r.next(&argv)) == AofReader::Status::kCommand) out->push_back(argv);
  if (good) *good = r.good_bytes();
  if (error) *error = r.error();
  std::fclose(f);
  return st;
}

}  // namespace

TEST_CASE("aof manifest: written and read as Redis 7 writes it") {
  AofManifest m;
  m.files.push_back({AofManifest::base_name("appendonly.aof", 1, true), 1, 'b'});
  m.files.push_back({AofManifest::incr_name("appendonly.aof", 1), 1, 'i'});
  m.files.push_back({AofManifest::incr_name("appendonly.aof", 2), 2, 'i'});
  const std::string text = m.to_text();
  CHECK(text ==
        "file appendonly.aof.1.base.rdb seq 1 type b\n"
        "file appendonly.aof.1.incr.aof seq 1 type i\n"
        "file appendonly.aof.2.incr.aof seq 2 type i\n");
  AofManifest back;
  std::string error;
  REQUIRE(AofManifest::parse(text, &back, &error));
  REQUIRE(back.files.size() == 3);
  CHECK(back.base()->name == "appendonly.aof.1.base.rdb");
  CHECK(back.last_incr_seq() == 2);
  // Order is the base, then increments by seq, whatever the lines' order;
  // history files and comments are skipped; a quoted name keeps its bytes.
  REQUIRE(AofManifest::parse("# comment\nfile \"a b.2.incr.aof\" seq 2 type i\nfile old seq 1 type h\n"
                             "file x.1.incr.aof seq 1 type i\nfile x.1.base.aof seq 1 type b\n",
                             &back, &error));
  REQUIRE(back.files.size() == 3);
  CHECK(back.files[0].name == "x.1.base.aof");
  CHECK(back.files[1].name == "x.1.incr.aof");
  CHECK(back.files[2].name == "a b.2.incr.aof");
  AofManifest quoted;
  quoted.files.push_back({"a b.2.incr.aof", 2, 'i'});
  CHECK(quoted.to_text() == "file \"a b.2.incr.aof\" seq 2 type i\n");
  // Refused: two bases, a path, a bad seq or type, a missing key.
  CHECK_FALSE(AofManifest::parse("file a seq 1 type b\nfile b seq 2 type b\n", &back, &error));
  CHECK(error.find("line 2") != std::string::npos);
  CHECK_FALSE(AofManifest::parse("file ../a seq 1 type i\n", &back, &error));
  CHECK_FALSE(AofManifest::parse("file a seq 0 type i\n", &back, &error));
  CHECK_FALSE(AofManifest::parse("file a seq 1 type x\n", &back, &error));
  CHECK_FALSE(AofManifest::parse("file a seq 1\n", &back, &error));
  CHECK_FALSE(AofManifest::parse("file \"a seq 1 type i\n", &back, &error));
}

TEST_CASE("aof reader: commands, a cut last command, and what is not a command") {
  const std::string two = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n";
  std::vector<std::vector<std::string>> cmds;
  uint64_t good = 0;
  CHECK(read_all(two, &cmds, &good) == AofReader::Status::kEnd);
  REQUIRE(cmds.size() == 2);
  CHECK(cmds[1] == std::vector<std::string>{"SET", "k", "a\r\nb"});
  CHECK(good == two.size());
  // Cut anywhere inside the last command: kTruncated, good where it began.
  const size_t first = two.find("*3");
  for (size_t cut = first + 1; cut < two.size(); ++cut) {
    cmds.clear();
    CAPTURE(cut);
    CHECK(read_all(two.substr(0, cut), &cmds, &good) == AofReader::Status::kTruncated);
    CHECK(cmds.size() == 1);
    CHECK(good == first);
  }
  std::string error;
  for (const std::string bad : {std::string("SET k v\r\n"), std::string("*x\r\n"), std::string("*1\r\n+OK\r\n"),
                                std::string("*1\r\n$1\r\nab\r\n"), std::string("*0\r\n"),
                                std::string("*1\r\n$99999999999999999999\r\n")}) {
    cmds.clear();
    CAPTURE(bad);
    CHECK(read_all(bad, &cmds, nullptr, &error) == AofReader::Status::kCorrupt);
    CHECK(error.find("offset") != std::string::npos);
  }
  // A huge length in a short file costs no huge allocation: it is cut.
  cmds.clear();
  CHECK(read_all("*1\r\n$1099511627775\r\nab", &cmds) == AofReader::Status::kTruncated);
}

TEST_CASE("aof writer: appends, flushes, reopens at the end") {
  const auto path = temp_file("writer.aof");
  std::filesystem::remove(path);
  {
    AofWriter w;
    w.set_policy(FsyncPolicy::kAlways);
    REQUIRE(w.open(path.string()).empty());
    w.append("*1\r\n$4\r\nPING\r\n");
    CHECK(w.buffered() == 14);
    CHECK(std::filesystem::file_size(path) == 0);
    REQUIRE(w.flush());
    CHECK(w.buffered() == 0);
    CHECK(std::filesystem::file_size(path) == 14);
    w.append("x");
  }  // closing flushes
  CHECK(std::filesystem::file_size(path) == 15);
  AofWriter again;
  REQUIRE(again.open(path.string()).empty());
  CHECK(again.file_size() == 15);
  again.close();
  CHECK_FALSE(AofWriter().open("/nonexistent-dir/x.aof").empty());
  std::filesystem::remove(path);
}

}  // namespace lawnkv::persistence
