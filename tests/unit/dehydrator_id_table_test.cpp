// dehydrator::IdTable and the Element block it links: lookups, removal of a
// held element anywhere in its chain, growth and shrinking (every element
// findable at every step of an incremental rehash), and ids sharing a bucket.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dehydrator/id_table.hpp"

namespace lawnkv::dehydrator {
namespace {

std::string id_of(int i) { return "id:" + std::to_string(i); }

// Owns the elements a test links, and frees them at the end.
struct Elements {
  std::vector<Element*> all;
  ~Elements() {
    for (Element* e : all) Element::destroy(e);
  }
  Element* make(const std::string& id) {
    all.push_back(Element::make(id, "v" + id, all.size()));
    return all.back();
  }
};

}  // namespace

TEST_CASE("id table: insert, find, remove") {
  Elements els;
  IdTable t;
  Element* a = els.make("a");
  Element* b = els.make("b");
  t.insert(a);
  t.insert(b);
  CHECK(t.size() == 2);
  CHECK(t.find("a") == a);
  CHECK(t.find("b") == b);
  CHECK(t.find("c") == nullptr);
  t.remove(a);
  CHECK(t.find("a") == nullptr);
  CHECK(t.find("b") == b);
  Element* b2 = els.make("b");
  t.replace(b, b2);
  CHECK(t.find("b") == b2);
  CHECK(t.size() == 1);
  t.remove(b2);
  CHECK(t.size() == 0);
}

TEST_CASE("id table: grows and shrinks incrementally, back to 4 buckets when empty") {
  Elements els;
  IdTable t;
  const size_t empty_bytes = t.memory_bytes();
  CHECK(t.bucket_count() == 4);
  const int n = 20000;
  bool saw_rehash = false;
  for (int i = 0; i < n; ++i) {
    t.insert(els.make(id_of(i)));
    saw_rehash |= t.rehashing();
    if (i % 997 == 0)
      for (int j = 0; j <= i; ++j) REQUIRE(t.find(id_of(j)) == els.all[j]);
  }
  CHECK(saw_rehash);
  CHECK(t.bucket_count() >= size_t{n});
  CHECK(t.bucket_count() <= size_t{4} * n);
  size_t peak = t.bucket_count();
  // Remove all but 100: the table shrinks to O(100) buckets.
  for (int i = 0; i < n - 100; ++i) {
    t.remove(els.all[i]);
    if (i % 991 == 0) {
      REQUIRE(t.find(id_of(i)) == nullptr);
      for (int j = i + 1; j < n; ++j) REQUIRE(t.find(id_of(j)) == els.all[j]);
    }
  }
  CHECK(t.size() == 100);
  CHECK(t.bucket_count() <= 1024);
  CHECK(t.bucket_count() < peak);
  for (int j = n - 100; j < n; ++j) REQUIRE(t.find(id_of(j)) == els.all[j]);
  for (int j = n - 100; j < n; ++j) t.remove(els.all[j]);
  CHECK(t.size() == 0);
  CHECK_FALSE(t.rehashing());
  CHECK(t.bucket_count() == 4);
  CHECK(t.memory_bytes() == empty_bytes);
}

TEST_CASE("id table: many ids in one bucket") {
  // 64 ids whose hashes agree in their low 12 bits: one chain in any table
  // of up to 4096 buckets.
  std::vector<std::string> ids;
  const uint32_t low = hash_id(id_of(0)) & 0xFFF;
  for (int i = 0; ids.size() < 64; ++i)
    if ((hash_id(id_of(i)) & 0xFFF) == low) ids.push_back(id_of(i));
  Elements els;
  IdTable t;
  for (const auto& id : ids) t.insert(els.make(id));
  CHECK(t.bucket_count() <= 4096);
  for (size_t i = 0; i < ids.size(); ++i) REQUIRE(t.find(ids[i]) == els.all[i]);
  CHECK(t.find(id_of(-1)) == nullptr);
  // Remove from the chain's middle, then its ends (the newest is its head).
  for (size_t i : {size_t{31}, size_t{63}, size_t{0}}) {
    t.remove(els.all[i]);
    CHECK(t.find(ids[i]) == nullptr);
  }
  for (size_t i = 0; i < ids.size(); ++i)
    if (i != 31 && i != 63 && i != 0) REQUIRE(t.find(ids[i]) == els.all[i]);
  CHECK(t.size() == 61);
  t.clear([](Element*) {});
  CHECK(t.size() == 0);
  CHECK(t.find(ids[1]) == nullptr);
}

TEST_CASE("element: short parts inline, long ones on the heap; in-place assignment") {
  const std::string long_id(300, 'i');
  const std::string long_value(1000, 'v');
  Element* e = Element::make("id", "value", 7);
  CHECK(e->id() == "id");
  CHECK(e->value() == "value");
  CHECK(e->seq == 7);
  CHECK(e->hash == hash_id("id"));
  CHECK_FALSE(e->due());
  CHECK(e->block_bytes() == 56);  // 43 fixed bytes + 7, rounded to 8
  CHECK(e->outside_bytes() == 0);
  CHECK(e->assign_in_place("VALUE"));
  CHECK(e->value() == "VALUE");
  CHECK_FALSE(e->assign_in_place("longer"));
  CHECK(e->value() == "VALUE");
  Element::destroy(e);

  e = Element::make(long_id, long_value, 0);
  CHECK(e->id() == long_id);
  CHECK(e->value() == long_value);
  CHECK(e->block_bytes() == 64);  // two string pointers
  CHECK(e->outside_bytes() > 1300);
  CHECK(e->assign_in_place(std::string(2000, 'w')));
  CHECK(e->value() == std::string(2000, 'w'));
  // A shorter long value gets a buffer of its size (Redis's trimming rule).
  CHECK(e->assign_in_place(std::string(400, 'x')));
  CHECK(e->value() == std::string(400, 'x'));
  CHECK(e->outside_bytes() < 300 + 400 + 2 * (sizeof(std::string) + 1) + 40);
  CHECK_FALSE(e->assign_in_place("short"));
  Element::destroy(e);
}

}  // namespace lawnkv::dehydrator
