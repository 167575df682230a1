// group-read: a consumer that reads a stream through a consumer group and
// acknowledges what it read, pipelined, as a stream pipeline's worker does;
// for the streams part of scripts/bench.sh (server CPU per request).
//
//   group-read --port N [--entries 1000000] [--count 10] [--pipeline 16]
//
// The stream "s" must hold the entries 1-1, 2-1, ... <entries>-1 and the
// group "g" start at 0 (scripts/bench.sh loads them). Each pipeline sends
// pipeline/2 pairs of
//   XREADGROUP GROUP g c COUNT <count> STREAMS s >
//   XACK s g <the <count> IDs that read delivers>
// and then reads their replies: the IDs are known beforehand (one consumer
// reads the entries in order), so the pipeline never waits on a read to
// write its acknowledgement. Each XREADGROUP reply is checked (its first
// ID, its number of entries) and each XACK must acknowledge <count>.
//
// Output on stdout, "name=value" a line: requests (XREADGROUPs and XACKs
// sent), entries (read and acknowledged), wall_s.

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "group-read: %s\n", what.c_str());
  std::exit(1);
}

void append(redisContext* c, const std::vector<std::string>& argv) {
  std::vector<const char*> p;
  std::vector<size_t> n;
  for (const auto& a : argv) {
    p.push_back(a.data());
    n.push_back(a.size());
  }
  if (redisAppendCommandArgv(c, static_cast<int>(argv.size()), p.data(), n.data()) != REDIS_OK) die("append");
}

redisReply* next_reply(redisContext* c) {
  void* r = nullptr;
  if (redisGetReply(c, &r) != REDIS_OK || r == nullptr) die(std::string("read: ") + c->errstr);
  return static_cast<redisReply*>(r);
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  long entries = 1000000, count = 10, pipeline = 16;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string o = argv[i];
    const long v = std::atol(argv[i + 1]);
    if (o == "--port") port = static_cast<int>(v);
    else if (o == "--entries") entries = v;
    else if (o == "--count") count = v;
    else if (o == "--pipeline") pipeline = v;
    else die("unknown option " + o);
  }
  if (port == 0 || count < 1 || pipeline < 2 || entries < count) die("usage: group-read --port N [--entries E] [--count C] [--pipeline P]");
  redisContext* c = redisConnect("127.0.0.1", port);
  if (c == nullptr || c->err) die("cannot connect");

  const std::vector<std::string> read_cmd{"XREADGROUP", "GROUP", "g", "c", "COUNT", std::to_string(count), "STREAMS", "s", ">"};
  const long reads = entries / count;
  long next = 1;  // the first entry (ms part) the next read delivers
  long requests = 0, acked = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (long done = 0; done < reads;) {
    const long pairs = std::min(pipeline / 2, reads - done);
    for (long k = 0; k < pairs; ++k) {
      append(c, read_cmd);
      std::vector<std::string> ack{"XACK", "s", "g"};
      for (long j = 0; j < count; ++j) ack.push_back(std::to_string(next + k * count + j) + "-1");
      append(c, ack);
    }
    for (long k = 0; k < pairs; ++k) {
      redisReply* r = next_reply(c);
      const std::string first = std::to_string(next) + "-1";
      if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 || r->element[0]->elements != 2 ||
          r->element[0]->element[1]->elements != static_cast<size_t>(count) ||
          first != r->element[0]->element[1]->element[0]->element[0]->str)
        die("XREADGROUP did not deliver " + std::to_string(count) + " entries from " + first);
      freeReplyObject(r);
      r = next_reply(c);
      if (r->type != REDIS_REPLY_INTEGER || r->integer != count) die("XACK did not acknowledge " + std::to_string(count));
      acked += r->integer;
      freeReplyObject(r);
      next += count;
      requests += 2;
    }
    done += pairs;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("requests=%ld\nentries=%ld\nwall_s=%.3f\n", requests, acked, wall);
  redisFree(c);
  return 0;
}
