// LOLWUT (src/commands/lolwut_command.cpp, lolwut_art.cpp): the art is
// random, so what is checked is what Redis 7.0.15's fixes: which art a
// version draws, the size of the drawing (its lines and their characters),
// its last line, argument errors and clamping, and the verbatim reply.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "resp/writer.hpp"

using lawnkv::test::CommandServer;

namespace {

// The text of a RESP2 bulk reply.
std::string text_of(const std::string& reply) {
  REQUIRE(reply.size() > 0);
  REQUIRE(reply[0] == '$');
  const size_t crlf = reply.find("\r\n");
  const size_t len = std::stoul(reply.substr(1, crlf - 1));
  REQUIRE(reply.size() == crlf + 2 + len + 2);
  return reply.substr(crlf + 2, len);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(text.substr(start, nl - start));
  CHECK(start == text.size());  // the text ends with a newline
  return out;
}

// Characters of a UTF-8 line of Braille (3 bytes each).
size_t braille_chars(const std::string& line) {
  CHECK(line.size() % 3 == 0);
  for (size_t i = 0; i < line.size(); i += 3) CHECK(static_cast<unsigned char>(line[i]) == 0xE2);
  return line.size() / 3;
}

// Pixels of a skyline line: each "\033[<colour>m \033[0m".
size_t skyline_pixels(const std::string& line) {
  size_t n = 0;
  for (size_t at = 0; (at = line.find(" \033[0m", at)) != std::string::npos; ++at) ++n;
  return n;
}

}  // namespace

TEST_CASE("LOLWUT: the default and unknown versions print the version line only, as Redis 7.0.15") {
  CommandServer s;
  CHECK(s.run({"LOLWUT"}) == "$18\r\nRedis ver. 7.0.15\n\r\n");
  CHECK(s.run({"LOLWUT", "VERSION", "7"}) == "$18\r\nRedis ver. 7.0.15\n\r\n");
  CHECK(s.run({"LOLWUT", "VERSION", "-1"}) == "$18\r\nRedis ver. 7.0.15\n\r\n");
  CHECK(s.run({"LOLWUT", "VERSION"}) == "$18\r\nRedis ver. 7.0.15\n\r\n");
  CHECK(s.run({"LOLWUT", "5"}) == "$18\r\nRedis ver. 7.0.15\n\r\n");
  CHECK(s.run({"LOLWUT", "VERSION", "x"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(s.run({"LOLWUT", "VERSION", "5", "x"}) == "-ERR value is not an integer or out of range\r\n");
  CHECK(s.run({"LOLWUT", "VERSION", "6", "10", "1.5"}) == "-ERR value is not an integer or out of range\r\n");
  s.session.protocol = 3;
  CHECK(s.run({"LOLWUT"}) == "=22\r\ntxt:Redis ver. 7.0.15\n\r\n");
}

TEST_CASE("LOLWUT VERSION 5: Schotter, its size from cols and squares, and Georg Nees's line") {
  CommandServer s;
  // Default: 66 columns, 8 squares a row, 12 a column: a canvas of 132
  // pixels, squares of (132 - 4) / 8 = 16, 16 * 12 + 4 = 196 rows of
  // pixels, 4 a line: 49 lines of 66 characters, then (196 - 1 not a
  // multiple of 4) an empty line before the last, as Redis prints it.
  std::vector<std::string> lines = lines_of(text_of(s.run({"LOLWUT", "VERSION", "5"})));
  REQUIRE(lines.size() == 51);
  for (size_t i = 0; i < 49; ++i) CHECK(braille_chars(lines[i]) == 66);
  CHECK(lines[49].empty());
  CHECK(lines.back() == "Georg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15");
  // 10 columns of 2 squares by 3: 20 pixels, squares of 8, 28 rows: 7
  // lines of 10.
  lines = lines_of(text_of(s.run({"LOLWUT", "VERSION", "5", "10", "2", "3"})));
  REQUIRE(lines.size() == 9);
  for (size_t i = 0; i < 7; ++i) CHECK(braille_chars(lines[i]) == 10);
  CHECK(lines[7].empty());
  // Clamped: at least 1 column and square.
  lines = lines_of(text_of(s.run({"LOLWUT", "VERSION", "5", "0", "-5", "0"})));
  CHECK(braille_chars(lines[0]) == 1);
}

TEST_CASE("LOLWUT VERSION 6: the skyline, cols x rows, and its dedication") {
  CommandServer s;
  std::vector<std::string> lines = lines_of(text_of(s.run({"LOLWUT", "VERSION", "6"})));
  REQUIRE(lines.size() == 22);
  for (size_t i = 0; i < 20; ++i) CHECK(skyline_pixels(lines[i]) == 80);
  CHECK(lines[20] == "Dedicated to the 8 bit game developers of past and present.");
  CHECK(lines[21] == "Original 8 bit image from Plaguemon by hikikomori. Redis ver. 7.0.15");
  lines = lines_of(text_of(s.run({"LOLWUT", "VERSION", "6", "7", "3"})));
  REQUIRE(lines.size() == 5);
  for (size_t i = 0; i < 3; ++i) CHECK(skyline_pixels(lines[i]) == 7);
  // Limits: columns and rows within 1..1000.
  lines = lines_of(text_of(s.run({"LOLWUT", "VERSION", "6", "5000", "0"})));
  REQUIRE(lines.size() == 3);
  CHECK(skyline_pixels(lines[0]) == 1000);
}
