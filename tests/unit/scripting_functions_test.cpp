// FUNCTION libraries without a server: the metadata line, names, the DUMP
// payload both ways (footer, record types, Redis 7.0 release-candidate
// records), and loading, replacing and restoring libraries in Functions.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "persistence/crc64.hpp"
#include "persistence/rdb_output.hpp"
#include "scripting/function_dump.hpp"
#include "scripting/function_library.hpp"
#include "scripting/functions.hpp"

namespace lawnkv::scripting {
namespace {

// A payload of raw record bytes with a correct footer.
std::string with_footer(std::string body, int version = 10) {
  body.push_back(static_cast<char>(version & 0xff));
  body.push_back(static_cast<char>(version >> 8));
  const uint64_t crc = persistence::crc64(0, body.data(), body.size());
  for (int i = 0; i < 8; ++i) body.push_back(static_cast<char>(crc >> (8 * i)));
  return body;
}

// An RDB string of s (short, uncompressed).
std::string rdb_string(const std::string& s) {
  std::string out;
  persistence::StringSink sink(out);
  persistence::RdbOutput rdb(sink, false, false);
  rdb.string(s);
  rdb.finish();
  out.resize(out.size() - 9);
  return out;
}

TEST_CASE("functions: library metadata and names") {
  LibraryMeta m;
  std::string e;
  REQUIRE(parse_library_meta("#!lua name=mylib\ncode", &m, &e));
  CHECK(m.engine == "lua");
  CHECK(m.name == "mylib");
  CHECK(m.code_start == 16);
  REQUIRE(parse_library_meta("#!LUA NAME=x\n", &m, &e));
  CHECK(m.name == "x");
  CHECK_FALSE(parse_library_meta("return 1", &m, &e));
  CHECK(e == "Missing library metadata");
  CHECK_FALSE(parse_library_meta("#!lua name=x", &m, &e));
  CHECK(e == "Invalid library metadata");
  CHECK_FALSE(parse_library_meta("#!lua\n", &m, &e));
  CHECK(e == "Library name was not given");
  CHECK_FALSE(parse_library_meta("#!lua name=a name=b\n", &m, &e));
  CHECK(e == "Invalid metadata value, name argument was given multiple times");
  CHECK_FALSE(parse_library_meta("#!lua x=1\n", &m, &e));
  CHECK(e == "Invalid metadata value given: x=1");
  CHECK(valid_function_name("a_B9"));
  CHECK_FALSE(valid_function_name(""));
  CHECK_FALSE(valid_function_name("a-b"));
  CHECK_FALSE(valid_function_name("a b"));
}

TEST_CASE("functions: DUMP payloads round trip and are checked") {
  const std::string long_code = "#!lua name=l\n" + std::string(200, 'x');
  const std::string payload = dump_libraries({"#!lua name=a\nx", long_code});
  std::vector<std::string> codes;
  std::string e;
  REQUIRE(undump_libraries(payload, &codes, &e));
  CHECK(codes == std::vector<std::string>{"#!lua name=a\nx", long_code});
  CHECK(payload.size() < long_code.size());  // the long one went LZF-compressed
  // A flipped byte, a version past 10, a short payload.
  std::string bad = payload;
  bad[3] ^= 1;
  CHECK_FALSE(undump_libraries(bad, &codes, &e));
  CHECK(e == "DUMP payload version or checksum are wrong");
  CHECK_FALSE(undump_libraries(with_footer("", 11), &codes, &e));
  CHECK(e == "DUMP payload version or checksum are wrong");
  CHECK_FALSE(undump_libraries("short", &codes, &e));
  // An empty payload restores nothing; a record of another type fails.
  REQUIRE(undump_libraries(with_footer(""), &codes, &e));
  CHECK(codes.empty());
  CHECK_FALSE(undump_libraries(with_footer("\x00" + rdb_string("k")), &codes, &e));
  CHECK(e == "given type is not a function");
  CHECK_FALSE(undump_libraries(with_footer("\xf5"), &codes, &e));
  CHECK(e == "Failed loading library payload");
  // Redis 7.0 release candidates: name, engine, description flag, code.
  REQUIRE(undump_libraries(with_footer("\xf6" + rdb_string("old") + rdb_string("LUA") + "\x01" +
                                       rdb_string("desc") + rdb_string("body")),
                           &codes, &e));
  CHECK(codes == std::vector<std::string>{"#!LUA name=old\nbody"});
}

TEST_CASE("functions: load, replace, restore policies") {
  Functions fs;
  std::string name, e;
  const std::string a = "#!lua name=a\nredis.register_function('fa', function() return 1 end)";
  REQUIRE(fs.load(a, false, &name, &e));
  CHECK(name == "a");
  CHECK_FALSE(fs.load(a, false, &name, &e));
  CHECK(e == "ERR Library 'a' already exists");
  // A failed REPLACE leaves the old library in place.
  CHECK_FALSE(fs.load("#!lua name=a\nerror('no')", true, &name, &e));
  CHECK(fs.find("fa") != nullptr);
  REQUIRE(fs.load("#!lua name=a\nredis.register_function('fa2', function() end)", true, &name, &e));
  CHECK(fs.find("fa") == nullptr);
  CHECK(fs.find("fa2") != nullptr);
  const std::string payload = fs.dump();
  CHECK_FALSE(fs.restore(payload, Functions::RestorePolicy::kAppend, &e));
  CHECK(e == "ERR Library a already exists");
  REQUIRE(fs.restore(payload, Functions::RestorePolicy::kReplace, &e));
  REQUIRE(fs.load("#!lua name=b\nredis.register_function('fb', function() end)", false, &name, &e));
  REQUIRE(fs.restore(payload, Functions::RestorePolicy::kFlush, &e));
  CHECK(fs.libraries().size() == 1);
  CHECK(fs.find("fb") == nullptr);
  // A function name another library has fails REPLACE, and changes nothing.
  REQUIRE(fs.load("#!lua name=c\nredis.register_function('fc', function() end)", false, &name, &e));
  const std::string c_payload = fs.dump();
  REQUIRE(fs.remove("c"));
  REQUIRE(fs.load("#!lua name=d\nredis.register_function('fc', function() end)", false, &name, &e));
  CHECK_FALSE(fs.restore(c_payload, Functions::RestorePolicy::kReplace, &e));
  CHECK(e == "ERR Function fc already exists");
  CHECK(fs.libraries().size() == 2);
  CHECK(fs.function_count() == 2);
}

}  // namespace
}  // namespace lawnkv::scripting
