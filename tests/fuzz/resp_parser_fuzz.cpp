// libFuzzer harness: the request parser (src/resp/parser.hpp).
//
// Input: two header bytes, then the bytes a client sends.
//   byte 0   bit 0: authenticated; bit 1: tiny limits (below); bits 2-7: seed
//            of where the stream is cut
//   byte 1   how many cuts (0..15)
// The stream is parsed twice, as a connection would: whole, and delivered in
// pieces cut at positions drawn from the seed. Each parse gets a fresh buffer
// of exactly the unconsumed bytes (ASan sees any read past it or any view
// kept into an old buffer).
//
// Checked: no crash or sanitizer report; every kRequest consumed at least one
// byte and no more than it was given; an error is sticky. With the default
// limits, the pieces parse exactly as the whole (the same requests, the same
// error, the same bytes left pending). With tiny limits the "too big" errors
// depend on how much has arrived (as in Redis: parser.hpp), so the pieces
// must then give a prefix of the whole's requests and, if they differ, fail
// with a "too big" error.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "resp/parser.hpp"

using namespace lawnkv::resp;

namespace {

struct Outcome {
  std::vector<std::vector<std::string>> requests;
  std::string error;
  size_t leftover = 0;
};

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "resp_parser_fuzz: %s\n", what);
  std::abort();
}

// Parses everything it can from `pending` (extended by the caller piece by
// piece), in a buffer of exactly its size.
bool drain(Parser& parser, std::string& pending, const Limits& limits, bool auth, Outcome& out) {
  while (true) {
    std::unique_ptr<char[]> exact(new char[pending.size() ? pending.size() : 1]);
    std::memcpy(exact.get(), pending.data(), pending.size());
    const std::string_view buf(exact.get(), pending.size());
    const Status st = parser.parse(buf, limits, auth);
    if (st == Status::kPending) return true;
    if (st == Status::kError) {
      out.error = std::string(parser.error());
      if (out.error.empty()) fail("an error without text");
      if (parser.parse(buf, limits, auth) != Status::kError) fail("an error that is not sticky");
      return false;
    }
    if (parser.consumed() == 0 || parser.consumed() > buf.size()) fail("a request consumed 0 bytes or too many");
    std::vector<std::string> argv;
    for (std::string_view a : parser.argv()) argv.emplace_back(a);
    out.requests.push_back(std::move(argv));
    pending.erase(0, parser.consumed());
  }
}

Outcome feed(std::string_view stream, const std::vector<size_t>& cuts, const Limits& limits, bool auth) {
  Parser parser;
  Outcome out;
  std::string pending;
  size_t from = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const size_t to = i < cuts.size() ? cuts[i] : stream.size();
    pending.append(stream.substr(from, to - from));
    from = to;
    if (!drain(parser, pending, limits, auth, out)) return out;  // leftover 0 after an error
  }
  out.leftover = pending.size();
  return out;
}

bool is_too_big(std::string_view error) {
  return error == kErrTooBigInline || error == kErrTooBigMultibulkCount || error == kErrTooBigBulkCount;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const bool auth = data[0] & 1;
  const bool tiny = data[0] & 2;
  uint32_t seed = data[0] >> 2;
  const size_t ncuts = data[1] % 16;
  const std::string_view stream(reinterpret_cast<const char*>(data + 2), size - 2);

  Limits limits;
  if (tiny) {
    limits.max_inline_len = 16;
    limits.max_bulk_len = 32;
    limits.max_multibulk_len = 8;
  }

  std::vector<size_t> cuts;
  for (size_t i = 0; i < ncuts && !stream.empty(); ++i) {
    seed = seed * 1103515245u + 12345u;
    cuts.push_back((seed >> 8) % (stream.size() + 1));
  }
  std::sort(cuts.begin(), cuts.end());

  const Outcome whole = feed(stream, {}, limits, auth);
  const Outcome pieces = feed(stream, cuts, limits, auth);
  // One byte at a time: the most resumptions.
  std::vector<size_t> every;
  if (stream.size() <= 512)
    for (size_t i = 1; i < stream.size(); ++i) every.push_back(i);
  const Outcome bytes = every.empty() ? whole : feed(stream, every, limits, auth);

  for (const Outcome* o : {&pieces, &bytes}) {
    const bool same = o->requests == whole.requests && o->error == whole.error && o->leftover == whole.leftover;
    if (same) continue;
    if (!tiny) fail("input in pieces parsed differently from the whole input");
    if (!is_too_big(o->error)) fail("pieces differ from the whole without a too-big error");
    if (o->requests.size() > whole.requests.size() ||
        !std::equal(o->requests.begin(), o->requests.end(), whole.requests.begin()))
      fail("pieces gave requests the whole input did not");
  }
  return 0;
}
