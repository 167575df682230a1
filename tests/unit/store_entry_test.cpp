// store::Entry and the Db calls that move it between blocks: sizes of the
// one-block layout, long names and values outside it, a TTL that survives a
// move (its place in the expiry index goes with it), and no arena bytes lost.

#include <doctest/doctest.h>

#include <string>

#include "core/arena.hpp"
#include "store/keyspace.hpp"

namespace lawnkv::store {
namespace {

struct Blob : Object {
  std::string text;
  explicit Blob(std::string t) : text(std::move(t)) {}
  Type type() const override { return Type::kDehydrator; }
  size_t memory_bytes() const override { return text.size(); }
  std::unique_ptr<Object> clone() const override { return std::make_unique<Blob>(text); }
  std::string_view encoding() const override { return "raw"; }
};

const std::string k16 = "key:000000000001";
const std::string v16 = "value:0000000001";

}  // namespace

TEST_CASE("Entry: a 16-byte name and value take 40 bytes, 56 with the 16-byte timer slot") {
  EntryPtr plain = Entry::make_string(k16, v16, false);
  EntryPtr timed = Entry::make_string(k16, v16, true);
  CHECK(plain->block_bytes() == 40);
  CHECK(timed->block_bytes() == 40 + sizeof(expiry::Timer));
  CHECK(plain->outside_bytes() == 0);
  CHECK(timed->key() == k16);
  CHECK(timed->str() == v16);
  CHECK_FALSE(timed->has_ttl());
  CHECK(Entry::from_timer(timed->timer()) == timed.get());
  CHECK(plain->timer() == nullptr);
}

TEST_CASE("Entry: names and values over kInlineMax bytes live outside the block") {
  const std::string long_key(Entry::kInlineMax + 1, 'k');
  const std::string long_value(10'000, 'v');
  EntryPtr e = Entry::make_string(long_key, long_value, false);
  CHECK(e->key() == long_key);
  CHECK(e->str() == long_value);
  CHECK(e->block_bytes() == 8 + 8 + 8);
  CHECK(e->outside_bytes() > long_key.size() + long_value.size());
  CHECK(e->heap_str() != nullptr);

  const std::string edge(Entry::kInlineMax, 'e');
  EntryPtr inline_edge = Entry::make_string(edge, edge, false);
  CHECK(inline_edge->heap_str() == nullptr);
  CHECK(inline_edge->str() == edge);
}

TEST_CASE("Entry: take_value moves strings and objects to a block with another name") {
  EntryPtr s = Entry::make_string("a", std::string(300, 'x'), false);
  EntryPtr moved = Entry::take_value(*s, "b", true);
  CHECK(moved->key() == "b");
  CHECK(moved->str() == std::string(300, 'x'));

  EntryPtr o = Entry::make_object("o", std::make_unique<Blob>("hello"), false);
  EntryPtr copy = Entry::make_copy(*o, "c", false);
  EntryPtr taken = Entry::take_value(*o, "p", false);
  CHECK(taken->type() == Type::kDehydrator);
  CHECK(static_cast<Blob*>(taken->obj())->text == "hello");
  CHECK(static_cast<Blob*>(copy->obj())->text == "hello");
  CHECK(copy->obj() != taken->obj());
}

TEST_CASE("Db: a first deadline moves an entry made without a timer; the TTL survives value changes") {
  Keyspace ks(1);
  Db& db = ks.db(0);
  Entry& e = db.add_string("k", "1", false);
  Entry& timed = db.set_deadline(e, 1000, 0);
  CHECK(db.peek("k") == &timed);
  CHECK(timed.has_ttl());
  CHECK(timed.deadline() == 1000);

  // Another length: a new block, the same place in the index.
  Entry& longer = db.set_string(timed, "123456789");
  CHECK(longer.has_ttl());
  CHECK(longer.deadline() == 1000);
  CHECK(db.peek("k")->str() == "123456789");
  // Same length: in place.
  CHECK(&db.set_string(longer, "abcdefghi") == &longer);
  // Out to the heap and back to an inline value.
  Entry& big = db.set_string(longer, std::string(1000, 'z'));
  Entry& small = db.set_string(big, "s");
  CHECK(small.deadline() == 1000);
  CHECK(db.expires() == 1);

  CHECK(ks.reap(1000, 10) == 0);  // never at the deadline
  CHECK(ks.reap(1001, 10) == 1);
  CHECK(db.peek("k") == nullptr);
}

TEST_CASE("Db: attach gives a detached entry a timer slot when it keeps a TTL (RENAME)") {
  Keyspace ks(1);
  Db& db = ks.db(0);
  db.add_string("from", "v", false);
  EntryPtr moving = db.detach("from");
  Entry& renamed = db.attach(Entry::take_value(*moving, "to", false), 500);
  CHECK(renamed.key() == "to");
  CHECK(renamed.deadline() == 500);
  CHECK(ks.reap(501, 10) == 1);
  CHECK(db.size() == 0);
}

TEST_CASE("Db: every arena byte comes back when the keys go") {
  const uint64_t before = arena::bytes_in_use();
  {
    Keyspace ks(2);
    Db& db = ks.db(1);
    for (int i = 0; i < 5000; ++i) {
      const std::string key = "key:" + std::to_string(i);
      Entry& e = db.add_string(key, std::string(static_cast<size_t>(i % 400), 'v'), i % 3 == 0);
      if (i % 2 == 0) db.set_deadline(e, 10'000 + i, 100);
    }
    for (int i = 0; i < 5000; i += 7) db.remove("key:" + std::to_string(i));
    CHECK(ks.reap(12'000, 1'000'000) > 0);
    CHECK(db.clear() > 0);
  }
  CHECK(arena::bytes_in_use() == before);
}

}  // namespace lawnkv::store
