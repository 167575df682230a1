// The stream pipeline of issue 23 against the running server, over real
// sockets: 4 producers XADD the entries in pipelined batches; a consumer
// group of 8 reads them with XREADGROUP (COUNT, BLOCK) and XACKs; 2 of the
// consumers die with entries pending (one closes its socket, one is CLIENT
// KILLed) and the 6 survivors take those entries with XAUTOCLAIM. At the end
// every entry is acknowledged and none is lost or altered.
//
// Nothing is timed: threads wait on replies. BLOCK 100 only bounds how long
// a consumer sleeps before it looks at the shared state again. So that each
// victim surely holds entries when it dies, however the threads are
// scheduled, the survivors stop reading new entries once they have taken half
// of them while a victim still lives (the other half is then the victims'
// to take).
//
// 1,000,000 entries (a few seconds); LAWNKV_STREAM_ENTRIES sets the count
// (the sanitizer suite runs 100,000 against its several times slower server).
// LAWNKV_SERVER=/usr/bin/redis-server runs it against Redis 7.0 (it passes).

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <compare>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../support/server_process.hpp"
#include "itest.hpp"

namespace lawnkv::itest {
namespace {

using namespace std::chrono_literals;
using test::ServerProcess;

constexpr long long kDefaultEntries = 1'000'000;
constexpr int kProducers = 4;
constexpr int kConsumers = 8;
constexpr int kVictims = 2;  // consumers 0 and 1
constexpr int kPipelineBatch = 1000;  // XADDs a producer sends before it reads
constexpr const char* kCount = "100";  // XREADGROUP and XAUTOCLAIM COUNT
// Rounds in a row that a survivor finds nothing to read or claim while
// entries are still pending, after production ended and the victims died:
// ~30 s of BLOCK 100 with no progress anywhere means the server lost track
// of some entries (the pending list holds what no one can claim).
constexpr int kMaxIdleRounds = 300;

// LAWNKV_STREAM_ENTRIES overrides the count (a multiple of 4).
long long entry_count() {
  const char* env = std::getenv("LAWNKV_STREAM_ENTRIES");
  return env ? std::strtoll(env, nullptr, 10) : kDefaultEntries;
}

struct StreamId {
  uint64_t ms = 0, seq = 0;
  auto operator<=>(const StreamId&) const = default;
};

StreamId parse_id(std::string_view text) {
  StreamId id;
  const size_t dash = text.find('-');
  const char* end = text.data() + text.size();
  if (dash == std::string_view::npos ||
      std::from_chars(text.data(), text.data() + dash, id.ms).ptr != text.data() + dash ||
      std::from_chars(text.data() + dash + 1, end, id.seq).ptr != end)
    throw std::runtime_error("not a stream ID: " + std::string(text));
  return id;
}

std::string id_text(StreamId id) { return std::to_string(id.ms) + "-" + std::to_string(id.seq); }

// An entry as a consumer got it: its ID and the fields its producer wrote
// (p <producer> i <index>).
struct Entry {
  StreamId id;
  int producer = 0;
  long long index = 0;
};

// The entries of an XREADGROUP or XAUTOCLAIM entry array: [id, [p, P, i, I]].
std::vector<Entry> entries_of(const Reply& array) {
  std::vector<Entry> out;
  out.reserve(array.elements.size());
  for (const Reply& e : array.elements) {
    if (e.elements.size() != 2 || e.elements[1].elements.size() != 4 || e.elements[1].elements[0].text != "p" ||
        e.elements[1].elements[2].text != "i")
      throw std::runtime_error("unexpected entry " + wire(e));
    out.push_back({parse_id(e.elements[0].text), std::stoi(e.elements[1].elements[1].text),
                   std::stoll(e.elements[1].elements[3].text)});
  }
  return out;
}

// What the threads share. Each thread also owns its slot in the vectors of
// Run (written by it alone, read after it is joined).
struct Run {
  long long entries = 0;
  uint16_t port = 0;
  std::atomic<long long> acked{0};           // the sum of XACK replies
  std::atomic<long long> survivors_took{0};  // entries survivors read with ">"
  std::atomic<int> producers_left{kProducers};
  std::atomic<bool> stop{false};             // a thread failed: everyone ends
  std::mutex mutex;
  std::condition_variable changed;           // a victim died, or stop
  int victims_alive = kVictims;              // under mutex

  std::vector<std::vector<StreamId>> added = std::vector<std::vector<StreamId>>(kProducers);
  std::vector<std::vector<Entry>> processed = std::vector<std::vector<Entry>>(kConsumers);  // XACKed
  std::vector<std::vector<StreamId>> claimed = std::vector<std::vector<StreamId>>(kConsumers);
  std::vector<std::vector<StreamId>> left_pending = std::vector<std::vector<StreamId>>(kVictims);
  std::vector<std::string> failures = std::vector<std::string>(kProducers + kConsumers);

  void fail(size_t slot, const std::string& why) {
    failures[slot] = why;
    stop = true;
    std::lock_guard lock(mutex);
    changed.notify_all();
  }
  bool victims_dead() {
    std::lock_guard lock(mutex);
    return victims_alive == 0;
  }
  void victim_died() {
    std::lock_guard lock(mutex);
    --victims_alive;
    changed.notify_all();
  }
};

std::string consumer_name(int c) { return "consumer-" + std::to_string(c); }

// Producer p: its share of the entries, `kPipelineBatch` XADDs per write,
// recording the ID each got.
void produce(Run& run, int p) {
  Client client(run.port, 30s);
  const long long mine = run.entries / kProducers;
  std::vector<StreamId>& ids = run.added[p];
  ids.reserve(mine);
  const std::string producer = std::to_string(p);
  for (long long sent = 0; sent < mine && !run.stop;) {
    const long long batch = std::min<long long>(kPipelineBatch, mine - sent);
    for (long long j = 0; j < batch; ++j)
      client.append({"XADD", "pipeline", "*", "p", producer, "i", std::to_string(sent + j)});
    for (long long j = 0; j < batch; ++j) {
      Reply id = client.read();
      if (id.type != '$' || id.null) throw std::runtime_error("XADD replied " + wire(id));
      ids.push_back(parse_id(id.text));
    }
    sent += batch;
  }
  --run.producers_left;
}

// XACKs `entries` for consumer c and records them as processed.
void acknowledge(Run& run, Client& client, int c, const std::vector<Entry>& entries) {
  if (entries.empty()) return;
  std::vector<std::string> argv{"XACK", "pipeline", "group"};
  for (const Entry& e : entries) argv.push_back(id_text(e.id));
  Reply removed = client.call(argv);
  if (removed.type != ':') throw std::runtime_error("XACK replied " + wire(removed));
  run.acked += std::stoll(removed.text);
  run.processed[c].insert(run.processed[c].end(), entries.begin(), entries.end());
}

// One XREADGROUP of new entries; empty when BLOCK 100 ran out.
std::vector<Entry> read_new(Client& client, const std::string& name) {
  Reply r = client.call({"XREADGROUP", "GROUP", "group", name, "COUNT", kCount, "BLOCK", "100", "STREAMS",
                         "pipeline", ">"});
  if (r.null) return {};  // hiredis gives RESP2's *-1 as a nil, type '$'
  if (r.elements.size() != 1 || r.elements[0].elements.size() != 2 || r.elements[0].elements[0].text != "pipeline")
    throw std::runtime_error("XREADGROUP replied " + wire(r));
  return entries_of(r.elements[0].elements[1]);
}

// Victim v (consumer v): acknowledges its first batch, reads a second and
// dies without acknowledging it: victim 0 closes its socket, victim 1 is
// killed by CLIENT KILL ID from another connection.
void victim(Run& run, int v) {
  const std::string name = consumer_name(v);
  auto client = std::make_unique<Client>(run.port, 30s);
  const long long id = client->integer({"CLIENT", "ID"});
  bool acked_one = false;
  while (!run.stop) {
    std::vector<Entry> got = read_new(*client, name);
    if (got.empty()) continue;
    if (!acked_one) {
      acknowledge(run, *client, v, got);
      acked_one = true;
      continue;
    }
    for (const Entry& e : got) run.left_pending[v].push_back(e.id);
    if (v == 0) {
      client.reset();
    } else {
      Client killer(run.port, 30s);
      const long long killed = killer.integer({"CLIENT", "KILL", "ID", std::to_string(id)});
      if (killed != 1) throw std::runtime_error("CLIENT KILL ID killed " + std::to_string(killed) + " clients");
    }
    break;
  }
  run.victim_died();
}

// The pending-entries count of XPENDING's summary.
long long pending_count(Client& client) {
  Reply summary = client.call({"XPENDING", "pipeline", "group"});
  if (summary.elements.size() != 4 || summary.elements[0].type != ':')
    throw std::runtime_error("XPENDING replied " + wire(summary));
  return std::stoll(summary.elements[0].text);
}

// Checks, right after an XAUTOCLAIM returned `taken` (in ID order), that
// each of those entries still pending belongs to a survivor now (another
// survivor may have claimed it since, or acknowledged it: then it is gone)
// and counts at least two deliveries: the read and the claim.
void check_claimed(Client& client, const std::vector<Entry>& taken) {
  Reply listed = client.call(
      {"XPENDING", "pipeline", "group", id_text(taken.front().id), id_text(taken.back().id), "1000"});
  for (const Reply& p : listed.elements) {
    if (p.elements.size() != 4) throw std::runtime_error("XPENDING replied " + wire(listed));
    const StreamId id = parse_id(p.elements[0].text);
    const bool mine = std::binary_search(taken.begin(), taken.end(), Entry{id},
                                         [](const Entry& a, const Entry& b) { return a.id < b.id; });
    if (!mine) continue;
    for (int v = 0; v < kVictims; ++v)
      if (p.elements[1].text == consumer_name(v))
        throw std::runtime_error("an entry XAUTOCLAIM returned still belongs to its victim: " + wire(p));
    if (std::stoll(p.elements[3].text) < 2)
      throw std::runtime_error("a claimed entry counts one delivery: " + wire(p));
  }
}

// Survivor c: reads new entries and acknowledges them; once production has
// ended, the victims are dead and nothing new comes, takes what is still
// pending with XAUTOCLAIM (min-idle-time 0: entries another survivor has in
// hand may come too, and are acknowledged twice; XACK counts them once).
// Ends when every entry is acknowledged, or when the group has nothing
// pending and nothing left to deliver (the final checks then tell what was
// lost).
void survivor(Run& run, int c) {
  const std::string name = consumer_name(c);
  Client client(run.port, 30s);
  std::string cursor = "0-0";
  int idle_rounds = 0;
  while (!run.stop && run.acked < run.entries) {
    if (run.survivors_took * 2 >= run.entries && !run.victims_dead()) {
      std::unique_lock lock(run.mutex);
      run.changed.wait(lock, [&] { return run.victims_alive == 0 || run.stop; });
      continue;
    }
    std::vector<Entry> got = read_new(client, name);
    if (!got.empty()) {
      run.survivors_took += static_cast<long long>(got.size());
      acknowledge(run, client, c, got);
      idle_rounds = 0;
      continue;
    }
    if (run.producers_left > 0 || !run.victims_dead()) continue;
    Reply claim = client.call({"XAUTOCLAIM", "pipeline", "group", name, "0", cursor, "COUNT", kCount});
    if (claim.elements.size() != 3 || claim.elements[2].type != '*')
      throw std::runtime_error("XAUTOCLAIM replied " + wire(claim));
    if (!claim.elements[2].elements.empty())
      throw std::runtime_error("XAUTOCLAIM listed deleted entries: " + wire(claim.elements[2]));
    cursor = claim.elements[0].text;
    std::vector<Entry> taken = entries_of(claim.elements[1]);
    for (const Entry& e : taken) run.claimed[c].push_back(e.id);
    if (!taken.empty()) check_claimed(client, taken);
    acknowledge(run, client, c, taken);
    if (!taken.empty()) {
      idle_rounds = 0;
      continue;
    }
    if (cursor == "0-0" && pending_count(client) == 0) break;
    if (++idle_rounds > kMaxIdleRounds)
      throw std::runtime_error("entries stay pending that no XAUTOCLAIM returns (" +
                               std::to_string(pending_count(client)) + " pending)");
  }
}

// The value of `field` in a flattened RESP2 map (k1 v1 k2 v2 ...).
const Reply& field(const Reply& map, std::string_view name) {
  for (size_t i = 0; i + 1 < map.elements.size(); i += 2)
    if (map.elements[i].text == name) return map.elements[i + 1];
  throw std::runtime_error("no field " + std::string(name) + " in " + wire(map));
}

}  // namespace

TEST_CASE("a stream pipeline: 4 producers, a group of 8 consumers, 2 die with entries pending, none is lost") {
  ServerProcess server = ServerProcess::lawnkv();
  Run run;
  run.entries = entry_count();
  REQUIRE(run.entries % kProducers == 0);
  run.port = server.port();
  Client control(run.port, 30s);
  REQUIRE(control.wire({"XGROUP", "CREATE", "pipeline", "group", "$", "MKSTREAM"}) == "+OK\r\n");

  std::vector<std::thread> threads;
  auto start = [&](size_t slot, auto body) {
    threads.emplace_back([&run, slot, body] {
      try {
        body();
      } catch (const std::exception& e) {
        run.fail(slot, e.what());
      }
    });
  };
  for (int c = 0; c < kConsumers; ++c) {
    if (c < kVictims)
      start(kProducers + c, [&run, c] { victim(run, c); });
    else
      start(kProducers + c, [&run, c] { survivor(run, c); });
  }
  for (int p = 0; p < kProducers; ++p) start(p, [&run, p] { produce(run, p); });
  for (std::thread& t : threads) t.join();
  for (size_t slot = 0; slot < run.failures.size(); ++slot) {
    CAPTURE(slot);
    CHECK(run.failures[slot] == "");
  }
  REQUIRE_FALSE(run.stop);

  // The server's view: every entry added, delivered and acknowledged.
  CHECK(control.integer({"XLEN", "pipeline"}) == run.entries);
  // The summary of an empty pending list: 0, nil, nil, nil (hiredis
  // reads RESP2's *-1 as a nil too).
  CHECK(control.call({"XPENDING", "pipeline", "group"}) == Reply{'*', false, "", {integer(0), nil(), nil(), nil()}});
  const Reply groups = control.call({"XINFO", "GROUPS", "pipeline"});
  REQUIRE(groups.elements.size() == 1);
  CHECK(field(groups.elements[0], "pending") == integer(0));
  CHECK(field(groups.elements[0], "entries-read") == integer(run.entries));
  CHECK(field(groups.elements[0], "lag") == integer(0));
  const Reply consumers = control.call({"XINFO", "CONSUMERS", "pipeline", "group"});
  CHECK(consumers.elements.size() == kConsumers);
  for (const Reply& consumer : consumers.elements) {
    CAPTURE(wire(consumer));
    CHECK(field(consumer, "pending") == integer(0));
  }

  // Each entry left the pending list exactly once.
  CHECK(run.acked == run.entries);

  // The IDs acknowledged are the IDs added, and each entry carried the fields
  // its producer wrote under that ID.
  std::vector<StreamId> added;
  for (const auto& ids : run.added) added.insert(added.end(), ids.begin(), ids.end());
  REQUIRE(static_cast<long long>(added.size()) == run.entries);
  std::sort(added.begin(), added.end());
  CHECK(std::adjacent_find(added.begin(), added.end()) == added.end());
  std::vector<StreamId> acked;
  long long altered = 0;
  for (const auto& entries : run.processed) {
    for (const Entry& e : entries) {
      acked.push_back(e.id);
      const bool known = e.producer >= 0 && e.producer < kProducers && e.index >= 0 &&
                         e.index < static_cast<long long>(run.added[e.producer].size());
      if (!known || run.added[e.producer][e.index] != e.id) ++altered;
    }
  }
  CHECK(altered == 0);
  std::sort(acked.begin(), acked.end());
  acked.erase(std::unique(acked.begin(), acked.end()), acked.end());
  CHECK(acked.size() == added.size());
  CHECK(acked == added);

  // The victims died holding entries, and survivors claimed every one.
  std::vector<StreamId> claimed;
  for (const auto& ids : run.claimed) claimed.insert(claimed.end(), ids.begin(), ids.end());
  std::sort(claimed.begin(), claimed.end());
  for (int v = 0; v < kVictims; ++v) {
    CAPTURE(v);
    CHECK_FALSE(run.left_pending[v].empty());
    long long unclaimed = 0;
    for (StreamId id : run.left_pending[v]) unclaimed += !std::binary_search(claimed.begin(), claimed.end(), id);
    CHECK(unclaimed == 0);
  }
  MESSAGE(run.entries << " entries; the victims left " << run.left_pending[0].size() << " and "
                      << run.left_pending[1].size() << " pending; survivors claimed " << claimed.size());
}

}  // namespace lawnkv::itest
