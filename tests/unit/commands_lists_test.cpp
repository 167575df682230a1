// The list commands (src/commands/lists_family.cpp) through the dispatcher:
// keyspace events in Redis 7.0's order, WATCH, and the blocking pops on the
// blocking table (order of service, MULTI/EXEC, RENAME, timeouts in RESP2
// and RESP3, CLIENT UNBLOCK, BLMOVE waking another client, a client that
// goes away while blocked). The byte-for-byte comparison of replies with
// redis-server is tests/compat/cases/lists.txt.

#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "types/list.hpp"

namespace lawnkv::test {
namespace {

using Events = std::vector<std::string>;
using Frames = std::vector<std::string>;

struct Lists : BlockingServer {
  Lists() : BlockingServer(pubsub::kAll | pubsub::kNew) {}
  bool dirty_after(std::vector<std::string> command) {
    run({"watch", "l"});
    run(std::move(command));
    const bool dirty = session.watcher.dirty;
    run({"unwatch"});
    return dirty;
  }
};

}  // namespace

TEST_CASE_FIXTURE(Lists, "list events: pushes, pops, del once emptied") {
  CHECK(run({"rpush", "l", "a", "b"}) == ":2\r\n");
  CHECK(log.take() == Events{"new l", "rpush l"});
  CHECK(run({"lpush", "l", "z"}) == ":3\r\n");
  CHECK(run({"lpushx", "nokey", "z"}) == ":0\r\n");
  CHECK(log.take() == Events{"lpush l"});
  CHECK(run({"lpop", "l"}) == "$1\r\nz\r\n");
  CHECK(run({"rpop", "l", "5"}) == "*2\r\n$1\r\nb\r\n$1\r\na\r\n");
  CHECK(log.take() == Events{"lpop l", "rpop l", "del l"});
  CHECK(run({"lpop", "l"}) == "$-1\r\n");
  CHECK(run({"lpop", "l", "1"}) == "*-1\r\n");
  CHECK(log.take().empty());
}

TEST_CASE_FIXTURE(Lists, "list events: LSET LINSERT LREM LTRIM, and del") {
  run({"rpush", "l", "a", "b", "a"});
  log.take();
  CHECK(run({"lset", "l", "1", "c"}) == "+OK\r\n");
  CHECK(run({"linsert", "l", "before", "c", "x"}) == ":4\r\n");
  CHECK(run({"linsert", "l", "before", "nope", "x"}) == ":-1\r\n");
  CHECK(run({"lrem", "l", "0", "nope"}) == ":0\r\n");
  CHECK(run({"lrem", "l", "-1", "a"}) == ":1\r\n");
  CHECK(log.take() == Events{"lset l", "linsert l", "lrem l"});
  CHECK(run({"ltrim", "l", "0", "-1"}) == "+OK\r\n");
  CHECK(run({"ltrim", "l", "5", "1"}) == "+OK\r\n");
  CHECK(log.take() == Events{"ltrim l", "ltrim l", "del l"});
  run({"rpush", "l", "a", "a"});
  log.take();
  CHECK(run({"lrem", "l", "0", "a"}) == ":2\r\n");
  CHECK(log.take() == Events{"lrem l", "del l"});
}

TEST_CASE_FIXTURE(Lists, "list events: LMOVE publishes the push, then the pop, then del") {
  run({"rpush", "src", "a"});
  log.take();
  CHECK(run({"lmove", "src", "dst", "right", "left"}) == "$1\r\na\r\n");
  CHECK(log.take() == Events{"new dst", "lpush dst", "rpop src", "del src"});
  CHECK(run({"rpoplpush", "dst", "dst"}) == "$1\r\na\r\n");
  CHECK(log.take() == Events{"lpush dst", "rpop dst"});
  CHECK(run({"lrange", "dst", "0", "-1"}) == "*1\r\n$1\r\na\r\n");
  CHECK(run({"lmpop", "1", "dst", "left", "count", "3"}) == "*2\r\n$3\r\ndst\r\n*1\r\n$1\r\na\r\n");
  CHECK(log.take() == Events{"lpop dst", "del dst"});
}

TEST_CASE_FIXTURE(Lists, "list writes touch WATCH, failed ones do not") {
  run({"rpush", "l", "a"});
  CHECK(dirty_after({"rpush", "l", "b"}));
  CHECK(dirty_after({"lset", "l", "0", "x"}));
  CHECK_FALSE(dirty_after({"linsert", "l", "before", "nope", "y"}));
  CHECK_FALSE(dirty_after({"lrem", "l", "0", "nope"}));
  CHECK(dirty_after({"lrem", "l", "0", "x"}));
  CHECK(dirty_after({"ltrim", "l", "1", "0"}));
  CHECK_FALSE(dirty_after({"lpushx", "l", "a"}));  // gone: nothing to push on
  CHECK(dirty_after({"rpush", "l", "a"}));
  CHECK(dirty_after({"rpop", "l"}));
}

TEST_CASE_FIXTURE(Lists, "OBJECT ENCODING is quicklist; list-max-listpack-size shapes the nodes") {
  run({"rpush", "l", "a"});
  CHECK(run({"object", "encoding", "l"}) == "$9\r\nquicklist\r\n");
  CHECK(run({"config", "set", "list-max-ziplist-size", "2"}) == "+OK\r\n");
  for (int i = 0; i < 9; ++i) run({"rpush", "m", std::to_string(i)});
  store::Entry* e = state.data.keyspace.db(0).peek("m");
  REQUIRE(e != nullptr);
  CHECK(static_cast<types::List*>(e->obj())->node_count() == 5);
  CHECK(run({"type", "m"}) == "+list\r\n");
}

TEST_CASE_FIXTURE(Lists, "blocked pops are served in the order clients blocked, one element each") {
  FakeSession& first = client();
  FakeSession& second = client();
  FakeSession& third = client();
  CHECK(run_as(first, {"blpop", "q", "0"}).empty());
  CHECK(run_as(second, {"brpop", "other", "q", "0"}).empty());
  CHECK(run_as(third, {"blmpop", "0", "1", "q", "right", "count", "5"}).empty());
  CHECK(table().size() == 3);
  CHECK(run({"rpush", "q", "a", "b"}) == ":2\r\n");
  log.take();
  serve();
  CHECK(first.delivered == Frames{"*2\r\n$1\r\nq\r\n$1\r\na\r\n"});
  CHECK(second.delivered == Frames{"*2\r\n$1\r\nq\r\n$1\r\nb\r\n"});
  CHECK(third.delivered.empty());  // the list was gone: it waits on
  CHECK(log.take() == Events{"lpop q", "rpop q", "del q"});
  CHECK(third.blocked);
  CHECK(run({"lpush", "q", "x", "y", "z"}) == ":3\r\n");
  serve();
  CHECK(third.delivered == Frames{"*2\r\n$1\r\nq\r\n*3\r\n$1\r\nx\r\n$1\r\ny\r\n$1\r\nz\r\n"});
  CHECK(table().empty());
  CHECK(run({"exists", "q"}) == ":0\r\n");
}

TEST_CASE_FIXTURE(Lists, "a push inside MULTI/EXEC serves blocked clients after EXEC; nothing blocks inside it") {
  FakeSession& waiter = client();
  CHECK(run_as(waiter, {"blpop", "q", "0"}).empty());
  CHECK(run({"multi"}) == "+OK\r\n");
  CHECK(run({"rpush", "q", "a"}) == "+QUEUED\r\n");
  CHECK(run({"blpop", "nokey", "0"}) == "+QUEUED\r\n");
  CHECK(run({"blmove", "nokey", "d", "left", "left", "0"}) == "+QUEUED\r\n");
  CHECK(run({"exec"}) == "*3\r\n:1\r\n*-1\r\n$-1\r\n");
  CHECK(waiter.delivered.empty());  // served once the transaction is done
  serve();
  CHECK(waiter.delivered == Frames{"*2\r\n$1\r\nq\r\n$1\r\na\r\n"});
  // A push and a pop in one transaction leave nothing to serve.
  CHECK(run_as(waiter, {"blpop", "q", "0"}).empty());
  run({"multi"});
  run({"rpush", "q", "b"});
  run({"lpop", "q"});
  CHECK(run({"exec"}) == "*2\r\n:1\r\n$1\r\nb\r\n");
  serve();
  CHECK(waiter.delivered.size() == 1);
  CHECK(waiter.blocked);
}

TEST_CASE_FIXTURE(Lists, "a client blocked on several keys is served from the key that became ready first") {
  FakeSession& waiter = client();
  CHECK(run_as(waiter, {"blpop", "a", "b", "0"}).empty());
  run({"multi"});
  run({"rpush", "b", "from-b"});
  run({"rpush", "a", "from-a"});
  CHECK(run({"exec"}) == "*2\r\n:1\r\n:1\r\n");
  serve();
  CHECK(waiter.delivered == Frames{"*2\r\n$1\r\nb\r\n$6\r\nfrom-b\r\n"});
  CHECK(run({"llen", "a"}) == ":1\r\n");
}

TEST_CASE_FIXTURE(Lists, "a list that arrives by RENAME, MOVE or SWAPDB serves its waiters") {
  FakeSession& waiter = client();
  CHECK(run_as(waiter, {"brpop", "q", "0"}).empty());
  run({"rpush", "src", "a", "b"});
  CHECK(run({"rename", "src", "q"}) == "+OK\r\n");
  serve();
  CHECK(waiter.delivered == Frames{"*2\r\n$1\r\nq\r\n$1\r\nb\r\n"});
  CHECK(run_as(waiter, {"brpop", "p", "0"}).empty());
  run({"select", "1"});
  run({"rpush", "p", "x"});
  CHECK(run({"move", "p", "0"}) == ":1\r\n");
  serve();
  CHECK(waiter.delivered.back() == "*2\r\n$1\r\np\r\n$1\r\nx\r\n");
  CHECK(run_as(waiter, {"blpop", "r", "0"}).empty());
  run({"rpush", "r", "y"});  // db 1
  CHECK(run({"swapdb", "0", "1"}) == "+OK\r\n");
  serve();
  CHECK(waiter.delivered.back() == "*2\r\n$1\r\nr\r\n$1\r\ny\r\n");
}

TEST_CASE_FIXTURE(Lists, "a key that becomes another type leaves its waiters blocked (Redis 7.0)") {
  FakeSession& waiter = client();
  CHECK(run_as(waiter, {"blpop", "k", "0"}).empty());
  run({"set", "k", "str"});
  serve();
  CHECK(waiter.delivered.empty());
  CHECK(waiter.blocked);
  run({"del", "k"});
  run({"rpush", "k", "a"});
  serve();
  CHECK(waiter.delivered == Frames{"*2\r\n$1\r\nk\r\n$1\r\na\r\n"});
}

TEST_CASE_FIXTURE(Lists, "a blocking pop that times out gets a null array in RESP2, a null in RESP3") {
  FakeSession& v2 = client();
  FakeSession& v3 = client();
  v3.protocol = 3;
  CHECK(run_as(v2, {"blpop", "q", "1.5"}).empty());
  CHECK(run_as(v3, {"blmove", "q", "d", "left", "right", "1.5"}).empty());
  now += 1499;
  serve();
  CHECK(v2.delivered.empty());
  now += 1;
  serve();
  CHECK(v2.delivered == Frames{"*-1\r\n"});
  CHECK(v3.delivered == Frames{"_\r\n"});
  CHECK(table().empty());
}

TEST_CASE_FIXTURE(Lists, "CLIENT UNBLOCK: as a timeout, or with the UNBLOCKED error; REDE.BPOLL too") {
  FakeSession& a = client();
  FakeSession& b = client();
  FakeSession& c = client();
  c.protocol = 3;
  CHECK(run_as(a, {"blpop", "q", "0"}).empty());
  CHECK(run_as(b, {"brpoplpush", "q", "d", "0"}).empty());
  CHECK(run_as(c, {"rede.bpoll", "dq", "0"}).empty());
  CHECK(run({"client", "unblock", std::to_string(a.id)}) == ":1\r\n");
  CHECK(a.delivered == Frames{"*-1\r\n"});
  CHECK_FALSE(a.blocked);
  CHECK(run({"client", "unblock", std::to_string(a.id)}) == ":0\r\n");  // no longer blocked
  CHECK(run({"client", "unblock", std::to_string(b.id), "ERROR"}) == ":1\r\n");
  CHECK(b.delivered == Frames{"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"});
  CHECK(run({"client", "unblock", std::to_string(c.id), "timeout"}) == ":1\r\n");
  CHECK(c.delivered == Frames{"_\r\n"});
  CHECK(run({"client", "unblock", std::to_string(session.id)}) == ":0\r\n");
  CHECK(run({"client", "unblock", "0"}) == ":0\r\n");
  CHECK(run({"client", "unblock", "1", "later"}) == "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n");
  CHECK(run({"client", "unblock", "x"}) == "-ERR value is not an integer or out of range\r\n");
  // The unblocked clients resume at the next serve(), which the loop is told
  // to run at once.
  CHECK(a.resumed == 0);
  CHECK_FALSE(table().empty());
  CHECK(table().next_wakeup() == std::numeric_limits<int64_t>::min());
  serve();
  CHECK(a.resumed == 1);
  CHECK(b.resumed == 1);
  CHECK(c.resumed == 1);
  CHECK(table().empty());
  // A push now serves nobody.
  run({"rpush", "q", "x"});
  serve();
  CHECK(a.delivered.size() == 1);
  CHECK(run({"llen", "q"}) == ":1\r\n");
}

TEST_CASE_FIXTURE(Lists, "BLMOVE served by a push wakes a client blocked on its destination") {
  FakeSession& mover = client();
  FakeSession& consumer = client();
  CHECK(run_as(mover, {"blmove", "jobs", "work", "right", "left", "0"}).empty());
  CHECK(run_as(consumer, {"blpop", "work", "0"}).empty());
  CHECK(run({"lpush", "jobs", "j1"}) == ":1\r\n");
  log.take();
  serve();
  CHECK(mover.delivered == Frames{"$2\r\nj1\r\n"});
  CHECK(consumer.delivered == Frames{"*2\r\n$4\r\nwork\r\n$2\r\nj1\r\n"});
  CHECK(log.take() == Events{"new work", "lpush work", "rpop jobs", "del jobs", "lpop work", "del work"});
  CHECK(run({"exists", "jobs", "work"}) == ":0\r\n");
}

TEST_CASE_FIXTURE(Lists, "a blocked BLMOVE whose destination became another type gets WRONGTYPE when served") {
  FakeSession& mover = client();
  CHECK(run_as(mover, {"blmove", "src", "dst", "left", "left", "0"}).empty());
  run({"set", "dst", "x"});
  run({"rpush", "src", "a"});
  serve();
  CHECK(mover.delivered == Frames{"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"});
  CHECK(run({"llen", "src"}) == ":1\r\n");
}

TEST_CASE_FIXTURE(Lists, "a client that goes away while blocked is not served, and takes nothing") {
  FakeSession& gone = client();
  FakeSession& stays = client();
  CHECK(run_as(gone, {"blpop", "q", "0"}).empty());
  CHECK(run_as(stays, {"blpop", "q", "0"}).empty());
  // What a closing connection does (server/connection.cpp).
  table().forget(gone);
  state.clients.remove(gone);
  run({"rpush", "q", "a", "b"});
  serve();
  CHECK(gone.delivered.empty());
  CHECK(stays.delivered == Frames{"*2\r\n$1\r\nq\r\n$1\r\na\r\n"});
  CHECK(run({"lrange", "q", "0", "-1"}) == "*1\r\n$1\r\nb\r\n");
}

}  // namespace lawnkv::test
