// The request parser (src/resp/parser.hpp). Every expectation here was first
// checked on redis-server 7.0.15 by sending the same bytes over a socket:
// the reply, and whether it closed the connection.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "resp/parser.hpp"

using namespace lawnkv::resp;

namespace {

using Argv = std::vector<std::string>;

// What a connection would see after feeding the input in the given pieces.
struct Outcome {
  std::vector<Argv> requests;  // including empty ones
  std::string error;           // the error text, if the parser failed
  size_t leftover = 0;         // bytes left unconsumed (a pending request);
                               // 0 after an error

  bool operator==(const Outcome& o) const {
    return requests == o.requests && error == o.error && leftover == o.leftover;
  }
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  os << "{";
  for (const Argv& a : o.requests) {
    os << "[";
    for (const std::string& s : a) os << "'" << s << "' ";
    os << "] ";
  }
  return os << "error='" << o.error << "' leftover=" << o.leftover << "}";
}

// Plays a connection: appends each piece to its buffer (moved to a new
// allocation each time, so the parser cannot rely on addresses), parses
// every request it can, drops what they consumed.
Outcome feed(const std::vector<std::string>& pieces, const Limits& limits = Limits(),
             bool authenticated = true) {
  Parser parser;
  Outcome out;
  std::string buf;
  for (const std::string& piece : pieces) {
    std::string moved = buf + piece;
    buf.swap(moved);
    while (true) {
      Status st = parser.parse(buf, limits, authenticated);
      if (st == Status::kPending) break;
      if (st == Status::kError) {
        out.error = std::string(parser.error());
        // The error is sticky.
        CHECK(parser.parse(buf, limits, authenticated) == Status::kError);
        return out;  // leftover stays 0: what follows an error is never read
      }
      REQUIRE(parser.consumed() > 0);
      REQUIRE(parser.consumed() <= buf.size());
      Argv argv;
      for (std::string_view a : parser.argv()) argv.emplace_back(a);
      out.requests.push_back(std::move(argv));
      buf.erase(0, parser.consumed());
    }
  }
  out.leftover = buf.size();
  return out;
}

Outcome feed_whole(const std::string& input, const Limits& limits = Limits(), bool auth = true) {
  return feed({input}, limits, auth);
}

Outcome feed_bytes(const std::string& input, const Limits& limits = Limits(), bool auth = true) {
  std::vector<std::string> pieces;
  for (char c : input) pieces.emplace_back(1, c);
  return feed(pieces, limits, auth);
}

// The input cut in two at every position gives the same outcome as whole.
void check_every_cut(const std::string& input, const Outcome& expected,
                     const Limits& limits = Limits(), bool auth = true) {
  for (size_t cut = 0; cut <= input.size(); cut++) {
    CAPTURE(cut);
    REQUIRE(feed({input.substr(0, cut), input.substr(cut)}, limits, auth) == expected);
  }
  REQUIRE(feed_bytes(input, limits, auth) == expected);
}

std::string multibulk(const Argv& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

Outcome requests(std::vector<Argv> reqs) { return Outcome{std::move(reqs), "", 0}; }

Outcome error(std::string_view text, std::vector<Argv> before = {}) {
  return Outcome{std::move(before), std::string(text), 0};
}

Outcome pending(size_t leftover, std::vector<Argv> before = {}) {
  return Outcome{std::move(before), "", leftover};
}

}  // namespace

TEST_CASE("parser: valid requests, whole and cut at every byte") {
  struct Case {
    std::string input;
    std::vector<Argv> expect;
  };
  const std::string binary("a\r\n\0b\xff", 6);
  const Case cases[] = {
      {multibulk({"SET", "k", "value"}), {{"SET", "k", "value"}}},
      {multibulk({"PING"}), {{"PING"}}},
      {multibulk({"ECHO", ""}), {{"ECHO", ""}}},
      {multibulk({"ECHO", binary}), {{"ECHO", binary}}},
      {multibulk({"ECHO", "$3\r\nfoo\r\n*1\r\n"}), {{"ECHO", "$3\r\nfoo\r\n*1\r\n"}}},
      {"*0\r\n", {{}}},
      {"*-1\r\n", {{}}},
      {"*-10\r\n", {{}}},
      {"PING\r\n", {{"PING"}}},
      {"PING\n", {{"PING"}}},
      {"\r\n", {{}}},
      {"\n", {{}}},
      {"  \t \r\n", {{}}},
      {"SET k \"a b\"\r\n", {{"SET", "k", "a b"}}},
      {"ECHO 'x\\'y'\n", {{"ECHO", "x'y"}}},
      {"ECHO \"\\x41\\r\\n\"\r\n", {{"ECHO", "A\r\n"}}},
      {"ECHO a\rb\r\n", {{"ECHO", "a", "b"}}},     // a lone \r is a blank
      {"ECHO a\r\r\n", {{"ECHO", "a"}}},
      {"ECHO\ta\vb\r\n", {{"ECHO", "a\vb"}}},
      {" *1\r\n", {{"*1"}}},                       // inline: first byte not '*'
      // Redis skips the byte after a count line's \r and the two after a
      // bulk unchecked.
      {"*1\r\n$4\r\nPINGxx", {{"PING"}}},
      {"*1\rX$4\rYPINGxx", {{"PING"}}},
      {"*2\r\n$4\r\nECHO\r\n$3\r\nabcXY", {{"ECHO", "abc"}}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    check_every_cut(c.input, requests(c.expect));
  }
}

// A whole request in the buffer takes the one-pass path (parse_whole_multibulk),
// a cut one the resumable path: check_every_cut compares the two. These sit
// on the edges of what the one-pass path accepts.
TEST_CASE("parser: the one-pass path agrees with the resumable one") {
  struct Case {
    std::string input;
    Outcome expected;
  };
  const Case cases[] = {
      {"*1\r\n$0\r\n\r\n", requests({{""}})},
      {"*2\r\n$1\r\na\r\n$0\r\nXY", requests({{"a", ""}})},
      {multibulk({"SET", "k", std::string(1234, 'v')}), requests({{"SET", "k", std::string(1234, 'v')}})},
      // Numbers of up to nine digits are the one-pass path's, longer ones the
      // other's; leading zeros are refused on both.
      {"*1\r\n$000000001\r\nx\r\n", error(kErrInvalidBulkLength)},
      {"*1\r\n$0000000001\r\nx\r\n", error(kErrInvalidBulkLength)},
      {"*000000001\r\n$1\r\nx\r\n", error(kErrInvalidMultibulkLength)},
      {"*0000000001\r\n$1\r\nx\r\n", error(kErrInvalidMultibulkLength)},
      {"*0000000000\r\n", error(kErrInvalidMultibulkLength)},
      {"*1\r\n$0000000000\r\n\r\n", error(kErrInvalidBulkLength)},
      {"*1\r\n$00\r\n\r\n", error(kErrInvalidBulkLength)},
      {"*00\r\n", error(kErrInvalidMultibulkLength)},
      {"*1\r\n$1000000000\r\n", error(kErrInvalidBulkLength)},
      {"*999999999\r\n$4\r\nPING\r\n", pending(22)},
      {"*1000000000\r\n$4\r\nPING\r\n", pending(23)},
      // Malformed headers after well-formed ones.
      {"*2\r\n$4\r\nECHO\r\n$1x\r\nab\r\n", error(kErrInvalidBulkLength)},
      {"*2\r\n$4\r\nECHO\r\n$1\nab\r\n", error(kErrInvalidBulkLength)},
      {"*2\r\n$4\r\nECHO\r\n:1\r\na\r\n", error("ERR Protocol error: expected '$', got ':'")},
      {"*2\r\n$4\r\nECHO\r\n$-1\r\n", error(kErrInvalidBulkLength)},
      {std::string("*1\r\n$1\0\r\nx\r\n", 12), pending(12)},
      {"*2\r\n$4\r\nECHO\r\n", pending(14)},
      {"*2\r\n$4\r\nECHO\r\n$1\r\nx", pending(19)},
      {"*2\r\n$4\r\nECHO\r\n$1\r\nx\r", pending(20)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    check_every_cut(c.input, c.expected);
  }
  // The limits are checked on both paths, at their edges.
  Limits small;
  small.max_bulk_len = 5;
  small.max_multibulk_len = 3;
  check_every_cut(multibulk({"a", "b", "12345"}), requests({{"a", "b", "12345"}}), small);
  check_every_cut(multibulk({"a", "b", "123456"}), error(kErrInvalidBulkLength), small);
  check_every_cut(multibulk({"a", "b", "c", "d"}), error(kErrInvalidMultibulkLength), small);
  const Argv ten(10, "a"), eleven(11, "a");
  check_every_cut(multibulk(ten), requests({ten}), Limits(), false);
  check_every_cut(multibulk(eleven), error(kErrUnauthMultibulkLength), Limits(), false);
  const std::string most(16384, 'v'), over(16385, 'v');
  check_every_cut(multibulk({"ECHO", most}), requests({{"ECHO", most}}), Limits(), false);
  CHECK(feed_whole(multibulk({"ECHO", over}), Limits(), false) == error(kErrUnauthBulkLength));
  CHECK(feed_bytes(multibulk({"ECHO", over}), Limits(), false) == error(kErrUnauthBulkLength));
  // Requests that end where the buffer ends, then one that does not.
  std::string pipeline;
  std::vector<Argv> expect;
  for (int i = 0; i < 50; i++) {
    Argv a = {"SET", "key:" + std::to_string(i), std::string(static_cast<size_t>(i), 'v'), "EX", "100"};
    pipeline += multibulk(a);
    expect.push_back(a);
  }
  check_every_cut(pipeline, requests(expect));
  check_every_cut(pipeline + "*3\r\n$3\r\nSET\r\n", pending(13, expect));
}

TEST_CASE("parser: a pipeline of mixed multibulk and inline requests") {
  std::string input;
  std::vector<Argv> expect;
  auto add = [&](const std::string& bytes, const Argv& argv) {
    input += bytes;
    expect.push_back(argv);
  };
  add(multibulk({"SET", "key", std::string("v\r\n\0", 4)}), {"SET", "key", std::string("v\r\n\0", 4)});
  add("PING\r\n", {"PING"});
  add("*0\r\n", {});
  add("\n", {});
  add(multibulk({"MGET", "a", "b", "c"}), {"MGET", "a", "b", "c"});
  add("ECHO \"x y\"\n", {"ECHO", "x y"});
  add("*-1\r\n", {});
  add(multibulk({"GET", std::string(300, 'k')}), {"GET", std::string(300, 'k')});
  add("GET k\r\n", {"GET", "k"});
  check_every_cut(input, requests(expect));
  // A partial request at the end stays pending, every cut alike.
  check_every_cut(input + "*2\r\n$3\r\nGET\r\n$1\r\nk", pending(18, expect));
  check_every_cut(input + "GET k", pending(5, expect));
}

TEST_CASE("parser: argv are views into the buffer, quoted inline args are owned") {
  Parser p;
  std::string buf = multibulk({"SET", "k", "v"}) + "GET k\r\nECHO \"a\"\r\n";
  REQUIRE(p.parse(buf, Limits(), true) == Status::kRequest);
  REQUIRE(p.argv().size() == 3);
  CHECK(p.argv()[2].data() >= buf.data());
  CHECK(p.argv()[2].data() < buf.data() + buf.size());
  std::string_view rest(buf);
  rest.remove_prefix(p.consumed());
  REQUIRE(p.parse(rest, Limits(), true) == Status::kRequest);
  CHECK(p.argv()[1].data() == rest.data() + 4);
  CHECK(p.consumed() == 7);
  rest.remove_prefix(p.consumed());
  REQUIRE(p.parse(rest, Limits(), true) == Status::kRequest);
  CHECK(p.argv()[1] == "a");
  CHECK((p.argv()[1].data() < rest.data() || p.argv()[1].data() >= rest.data() + rest.size()));
}

TEST_CASE("parser: protocol errors carry Redis's exact text") {
  struct Case {
    std::string input;
    std::string_view error;
  };
  const Case cases[] = {
      {"*x\r\n", kErrInvalidMultibulkLength},
      {"*\r\n", kErrInvalidMultibulkLength},
      {"*-0\r\n", kErrInvalidMultibulkLength},
      {"*01\r\n", kErrInvalidMultibulkLength},
      {"*+1\r\n", kErrInvalidMultibulkLength},
      {"* 1\r\n", kErrInvalidMultibulkLength},
      {"*1 \r\n", kErrInvalidMultibulkLength},
      {"*2147483648\r\n", kErrInvalidMultibulkLength},
      {"*3000000000\r\n", kErrInvalidMultibulkLength},
      {"*99999999999999999999999\r\n", kErrInvalidMultibulkLength},
      {"*1\r\nx4\r\nPING\r\n", "ERR Protocol error: expected '$', got 'x'"},
      {"*1\r\n\r\n", "ERR Protocol error: expected '$', got ' '"},
      {"*1\r\n\n\r\n", "ERR Protocol error: expected '$', got ' '"},
      {"*1\r\n\xff\r\n", "ERR Protocol error: expected '$', got '\xff'"},
      {"*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n", "ERR Protocol error: expected '$', got 'f'"},
      {"*1\r$4\rPINGxxPING\n", "ERR Protocol error: expected '$', got '4'"},
      {"*1\r\n$-1\r\n", kErrInvalidBulkLength},
      {"*1\r\n$x\r\n", kErrInvalidBulkLength},
      {"*1\r\n$\r\n", kErrInvalidBulkLength},
      {"*1\r\n$01\r\n", kErrInvalidBulkLength},
      {"*1\r\n$-0\r\n", kErrInvalidBulkLength},
      {"*1\r\n$536870913\r\n", kErrInvalidBulkLength},
      {"\"PING\"x\r\n", kErrUnbalancedQuotes},
      {"ECHO \"a\r\n", kErrUnbalancedQuotes},
      {"ECHO 'a\\'\n", kErrUnbalancedQuotes},
  };
  for (const Case& c : cases) {
    CAPTURE(c.input);
    check_every_cut(c.input, error(c.error));
  }
  // Requests before the error are served; the error closes the connection.
  std::string input = "PING\r\n" + multibulk({"GET", "k"}) + "*1\r\n$x\r\nPING\r\n";
  check_every_cut(input, error(kErrInvalidBulkLength, {{"PING"}, {"GET", "k"}}));
}

TEST_CASE("parser: incomplete lines wait, and the byte after \\r must arrive") {
  check_every_cut("*1\r", pending(3));
  check_every_cut("*1\r\n$3\r", pending(7));
  check_every_cut("*1\r\nx", pending(5));          // '$' is checked only at the line end
  check_every_cut("*1\n", pending(3));             // a count line needs \r
  check_every_cut("*2147483647\r\n", pending(13));  // Redis 7.0 allows up to INT_MAX
  check_every_cut("*1\r\n$536870912\r\n", pending(16));
}

TEST_CASE("parser: unauthenticated limits") {
  check_every_cut("*10\r\n", pending(5), Limits(), false);
  check_every_cut("*11\r\n", error(kErrUnauthMultibulkLength), Limits(), false);
  check_every_cut("*1\r\n$16384\r\n", pending(12), Limits(), false);
  check_every_cut("*1\r\n$16385\r\n", error(kErrUnauthBulkLength), Limits(), false);
  // The invalid-length checks come first.
  check_every_cut("*2147483648\r\n", error(kErrInvalidMultibulkLength), Limits(), false);
  check_every_cut("*1\r\n$-1\r\n", error(kErrInvalidBulkLength), Limits(), false);
  check_every_cut("*1\r\n$16385x\r\n", error(kErrInvalidBulkLength), Limits(), false);
  // Inline requests have no unauthenticated limit.
  std::string many = "PING";
  for (int i = 0; i < 20; i++) many += " " + std::to_string(i);
  CHECK(feed_whole(many + "\r\n", Limits(), false).requests.at(0).size() == 21);
  CHECK(feed_whole("ECHO " + std::string(20000, 'a') + "\r\n", Limits(), false).error.empty());
  // The flag is read on each call: the same parser accepts after AUTH.
  Parser p;
  std::string big = multibulk({"SET", "k", std::string(20000, 'v')});
  CHECK(p.parse(big, Limits(), true) == Status::kRequest);
  CHECK(p.parse(big, Limits(), false) == Status::kError);
}

TEST_CASE("parser: the 64 KB line limits") {
  const size_t k = 64 * 1024;
  // Inline: all unconsumed input without a \n.
  CHECK(feed_whole(std::string(k, 'a')) == pending(k));
  CHECK(feed_whole(std::string(k + 1, 'a')) == error(kErrTooBigInline));
  CHECK(feed({std::string(k, 'a'), "a"}) == error(kErrTooBigInline));
  // A longer line is fine if its end arrives together with it...
  std::string long_line = "ECHO " + std::string(70000, 'a') + "\r\n";
  CHECK(feed_whole(long_line).requests.at(0).at(1).size() == 70000);
  // ...but not when the first 64 KB + 1 come without it (as with Redis's reads).
  CHECK(feed({long_line.substr(0, k + 1), long_line.substr(k + 1)}).error == kErrTooBigInline);
  // Multibulk count line: the whole request so far.
  CHECK(feed_whole("*" + std::string(k - 1, '1')) == pending(k));
  CHECK(feed_whole("*" + std::string(k, '1')) == error(kErrTooBigMultibulkCount));
  // Bulk count line: what follows the bulks already read.
  std::string head = "*2\r\n$3\r\nGET\r\n$";
  CHECK(feed_whole(head + std::string(k - 1, '1')) == pending(head.size() + k - 1));
  CHECK(feed_whole(head + std::string(k, '1')) ==
        error(kErrTooBigBulkCount));
  // Smaller limits from the caller.
  Limits small;
  small.max_inline_len = 10;
  small.max_bulk_len = 5;
  small.max_multibulk_len = 3;
  check_every_cut("0123456789", pending(10), small);
  check_every_cut("0123456789a", error(kErrTooBigInline), small);
  check_every_cut("*3\r\n", pending(4), small);
  check_every_cut("*4\r\n", error(kErrInvalidMultibulkLength), small);
  check_every_cut("*1\r\n$5\r\n", pending(8), small);
  check_every_cut("*1\r\n$6\r\n", error(kErrInvalidBulkLength), small);
}

TEST_CASE("parser: a NUL hides the line end, as Redis's strchr does") {
  const size_t k = 64 * 1024;
  check_every_cut(std::string("PING\0\r\n", 7), pending(7));
  check_every_cut(std::string("\0PING\r\n", 7), pending(7));
  CHECK(feed_whole(std::string("PING\0\r\n", 7) + std::string(k, 'a')).error == kErrTooBigInline);
  check_every_cut(std::string("*1\0\r\n$4\r\nPING\r\n", 15), pending(15));
  check_every_cut(std::string("*1\r\n$4\0\r\nPING\r\n", 15), pending(15));
  // A NUL after the request does not matter.
  check_every_cut(std::string("*1\r\n$4\r\nPING\r\n\0", 15), pending(1, {{"PING"}}));
  // Nor inside a bulk's data.
  check_every_cut(multibulk({"ECHO", std::string("a\0b", 3)}),
                  requests({{"ECHO", std::string("a\0b", 3)}}));
}

TEST_CASE("parser: bytes_wanted tells the size a pending bulk needs") {
  Parser p;
  std::string buf = "*2\r\n$3\r\nSET\r\n$10485760\r\n";
  CHECK(p.parse(buf, Limits(), true) == Status::kPending);
  CHECK(p.bytes_wanted() == buf.size() + 10485760 + 2);
  buf += "abc";
  CHECK(p.parse(buf, Limits(), true) == Status::kPending);
  CHECK(p.bytes_wanted() == buf.size() - 3 + 10485760 + 2);
  Parser q;
  CHECK(q.parse("*2\r\n$3\r\nSE", Limits(), true) == Status::kPending);
  CHECK(q.bytes_wanted() == 4 + 4 + 3 + 2);
  CHECK(q.parse("*2\r\n$3\r\nSET\r\n$1", Limits(), true) == Status::kPending);
  CHECK(q.bytes_wanted() == 0);  // waiting for a line end
}

TEST_CASE("parser: reset forgets a partial request and an error") {
  Parser p;
  CHECK(p.parse("*2\r\n$3\r\nGET\r\n", Limits(), true) == Status::kPending);
  p.reset();
  CHECK(p.parse("PING\r\n", Limits(), true) == Status::kRequest);
  CHECK(p.argv().size() == 1);
  CHECK(p.parse("*x\r\n", Limits(), true) == Status::kError);
  CHECK(p.parse("PING\r\n", Limits(), true) == Status::kError);
  p.reset();
  CHECK(p.parse("PING\r\n", Limits(), true) == Status::kRequest);
  CHECK(p.parse("", Limits(), true) == Status::kPending);
}

TEST_CASE("parser: input in small pieces is parsed in linear time") {
  using Clock = std::chrono::steady_clock;
  // A 10 MB value in 64 KB reads.
  const std::string value(10 * 1024 * 1024, 'v');
  const std::string input = multibulk({"SET", "k", value}) + "PING\r\n";
  auto start = Clock::now();
  Parser p;
  std::string buf;
  buf.reserve(input.size());
  size_t calls = 0;
  std::vector<Argv> got;
  for (size_t off = 0; off < input.size(); off += 64 * 1024) {
    buf.append(input, off, 64 * 1024);
    while (true) {
      calls++;
      Status st = p.parse(buf, Limits(), true);
      if (st != Status::kRequest) {
        REQUIRE(st == Status::kPending);
        break;
      }
      got.push_back({});
      for (std::string_view a : p.argv()) got.back().emplace_back(a);
      buf.erase(0, p.consumed());
    }
  }
  CHECK(got == std::vector<Argv>{{"SET", "k", value}, {"PING"}});
  CHECK(calls > 160);
  // Byte at a time, with the line limit raised to 4 MB: a 1 MB inline line,
  // a 1 MB count line, a 1 MB bulk. Rescanning from the start on each call
  // would read half a terabyte.
  Limits roomy;
  roomy.max_inline_len = 4 << 20;
  std::string inline_line = "ECHO " + std::string(1 << 20, 'x') + "\r\n";
  std::string count_line = "*1" + std::string(1 << 20, ' ');
  std::string bulk = multibulk({std::string(1 << 20, 'b')});
  for (const std::string* in : {&inline_line, &count_line, &bulk}) {
    Parser q;
    std::string b;
    Status st = Status::kPending;
    for (char c : *in) {
      b.push_back(c);
      st = q.parse(b, roomy, true);
      if (st != Status::kPending) break;
    }
    CHECK(st == (in == &count_line ? Status::kPending : Status::kRequest));
  }
  CHECK(Clock::now() - start < std::chrono::seconds(2));
}
