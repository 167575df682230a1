// The string commands' store operations (src/commands/strings_ops.hpp), on a
// keyspace of their own: no server, no sockets, no clock. The expected values
// are redis-server 7.0.15's replies to the same commands.

#include <doctest/doctest.h>

#include <climits>
#include <string>

#include "commands/strings_ops.hpp"

namespace lawnkv::strings {
namespace {

struct Fixture {
  store::Keyspace keyspace{1};
  store::Db& db = keyspace.db(0);
  store::Entry* find(std::string_view key) { return db.lookup(key, 0); }
};

struct Dummy : store::Object {
  store::Type type() const override { return store::Type::kDehydrator; }
  size_t memory_bytes() const override { return 0; }
  std::unique_ptr<store::Object> clone() const override { return std::make_unique<Dummy>(); }
  std::string_view encoding() const override { return "raw"; }
};

}  // namespace

TEST_CASE_FIXTURE(Fixture, "op_set adds, overwrites, clears or keeps the TTL") {
  auto r = op_set(db, nullptr, "k", "v1", false, nullptr);
  CHECK(r.created);
  CHECK(r.value->str() == "v1");
  db.set_deadline(*r.value, 5000, 0);

  r = op_set(db, find("k"), "k", "v2", true, nullptr);
  CHECK_FALSE(r.created);
  CHECK(r.value->str() == "v2");
  CHECK(r.value->has_ttl());
  CHECK(r.value->deadline() == 5000);

  r = op_set(db, find("k"), "k", "v3", false, nullptr);
  CHECK(r.value->str() == "v3");
  CHECK_FALSE(r.value->has_ttl());
  CHECK(db.size() == 1);
}

TEST_CASE_FIXTURE(Fixture, "op_set replaces a value of another type") {
  db.add_object("d", std::make_unique<Dummy>());
  auto r = op_set(db, find("d"), "d", "s", false, nullptr);
  CHECK_FALSE(r.created);
  CHECK(r.value->type() == store::Type::kString);
  CHECK(r.value->obj() == nullptr);
  CHECK(r.value->str() == "s");
}

TEST_CASE_FIXTURE(Fixture, "op_incr_by: absent is 0, strict integers, overflow, TTL kept") {
  auto r = op_incr_by(db, nullptr, "n", 5);
  CHECK(r.ok());
  CHECK(r.created);
  CHECK(r.value == 5);
  db.set_deadline(*find("n"), 9000, 0);
  r = op_incr_by(db, find("n"), "n", -7);
  CHECK(r.value == -2);
  CHECK_FALSE(r.created);
  CHECK(find("n")->str() == "-2");
  CHECK(find("n")->has_ttl());

  for (const char* bad : {"01", "+1", " 1", "1 ", "1.5", "", "-0", "9223372036854775808"}) {
    op_set(db, find("n"), "n", bad, false, nullptr);
    CHECK(op_incr_by(db, find("n"), "n", 1).status == OpStatus::kNotInteger);
    CHECK(find("n")->str() == bad);
  }
  op_set(db, find("n"), "n", "9223372036854775807", false, nullptr);
  CHECK(op_incr_by(db, find("n"), "n", 1).status == OpStatus::kOverflow);
  CHECK(op_incr_by(db, find("n"), "n", LLONG_MIN).value == -1);
  op_set(db, find("n"), "n", "-9223372036854775808", false, nullptr);
  CHECK(op_incr_by(db, find("n"), "n", -1).status == OpStatus::kOverflow);

  db.add_object("d", std::make_unique<Dummy>());
  CHECK(op_incr_by(db, find("d"), "d", 1).status == OpStatus::kWrongType);
}

TEST_CASE_FIXTURE(Fixture, "op_incr_by_float formats as Redis and refuses NaN and infinity") {
  auto r = op_incr_by_float(db, nullptr, "f", 10.5L);
  CHECK(r.created);
  CHECK(r.value == "10.5");
  r = op_incr_by_float(db, find("f"), "f", 0.1L);
  CHECK(r.value == "10.6");
  op_set(db, find("f"), "f", "3.0e3", false, nullptr);
  CHECK(op_incr_by_float(db, find("f"), "f", 0).value == "3000");
  op_set(db, find("f"), "f", "abc", false, nullptr);
  CHECK(op_incr_by_float(db, find("f"), "f", 1).status == OpStatus::kNotFloat);
  op_set(db, find("f"), "f", "1", false, nullptr);
  CHECK(op_incr_by_float(db, find("f"), "f", HUGE_VALL).status == OpStatus::kNanOrInfinity);
  CHECK(find("f")->str() == "1");
  CHECK(op_incr_by_float(db, nullptr, "z", -0.0L).value == "0");
}

TEST_CASE_FIXTURE(Fixture, "op_append creates, appends and enforces the size limit") {
  auto r = op_append(db, nullptr, "a", "Hello", 8);
  CHECK(r.created);
  CHECK(r.value == 5);
  r = op_append(db, find("a"), "a", " W", 8);
  CHECK(r.value == 7);
  CHECK(op_append(db, find("a"), "a", "or", 8).status == OpStatus::kTooLong);
  CHECK(op_append(db, find("a"), "a", "o", 8).value == 8);
  CHECK(find("a")->str() == "Hello Wo");
  // An absent key takes the value whatever its size, as Redis.
  CHECK(op_append(db, nullptr, "b", "0123456789", 8).value == 10);
}

TEST_CASE_FIXTURE(Fixture, "op_set_range pads with zero bytes and checks the size") {
  const int64_t max = 512LL * 1024 * 1024;
  auto r = op_set_range(db, nullptr, "s", 5, "", max);
  CHECK(r.value == 0);
  CHECK_FALSE(r.created);
  CHECK(find("s") == nullptr);

  r = op_set_range(db, nullptr, "s", 3, "ab", max);
  CHECK(r.created);
  CHECK(r.value == 5);
  CHECK(find("s")->str() == std::string("\0\0\0ab", 5));
  CHECK(op_set_range(db, find("s"), "s", 1, "XY", max).value == 5);
  CHECK(find("s")->str() == std::string("\0XYab", 5));
  CHECK(op_set_range(db, find("s"), "s", 0, "", max).value == 5);

  CHECK(op_set_range(db, find("s"), "s", max, "x", max).status == OpStatus::kTooLong);
  CHECK(op_set_range(db, find("s"), "s", LLONG_MAX, "x", max).status == OpStatus::kTooLong);
  CHECK(op_set_range(db, nullptr, "t", max - 1, "xy", max).status == OpStatus::kTooLong);
  CHECK(op_set_range(db, find("s"), "s", max - 1, "", max).value == 5);
  CHECK(find("t") == nullptr);
}

TEST_CASE("string_range matches GETRANGE") {
  const std::string_view s = "Hello World";
  struct Row {
    long long start, end;
    std::string_view want;
  };
  const Row rows[] = {
      {0, -1, "Hello World"}, {-3, -1, "rld"}, {-1, -3, ""},  {5, 2, ""},
      {-100, -50, "H"},       {0, 100, "Hello World"},        {100, 200, ""},
      {-1, -1, "d"},          {0, -100, "H"},                 {0, 0, "H"},
      {LLONG_MAX, LLONG_MIN, ""},                             {LLONG_MIN, LLONG_MAX, "Hello World"},
  };
  for (const Row& r : rows) {
    CAPTURE(r.start);
    CAPTURE(r.end);
    CHECK(string_range(s, r.start, r.end) == r.want);
  }
  CHECK(string_range("", 0, -1).empty());
  CHECK(string_range("", -1, 0).empty());
}

TEST_CASE("resolve_deadline: relative, absolute and Redis's invalid expire times") {
  const int64_t now = 1'700'000'000'000;
  auto r = resolve_deadline(10, TimeUnit::kSeconds, false, now);
  CHECK(r.ok());
  CHECK(r.value.at_ms == now + 10'000);
  CHECK(r.value.ttl_ms == 10'000);
  r = resolve_deadline(250, TimeUnit::kMilliseconds, false, now);
  CHECK(r.value.at_ms == now + 250);
  CHECK(r.value.ttl_ms == 250);
  r = resolve_deadline(1, TimeUnit::kSeconds, true, now);
  CHECK(r.value.at_ms == 1000);
  CHECK(r.value.ttl_ms == 0);
  CHECK(resolve_deadline(LLONG_MAX, TimeUnit::kMilliseconds, true, now).value.at_ms == LLONG_MAX);
  CHECK(resolve_deadline(LLONG_MAX / 1000, TimeUnit::kSeconds, true, now).ok());

  CHECK(resolve_deadline(0, TimeUnit::kSeconds, false, now).status == OpStatus::kInvalidExpire);
  CHECK(resolve_deadline(-1, TimeUnit::kMilliseconds, true, now).status == OpStatus::kInvalidExpire);
  CHECK(resolve_deadline(LLONG_MAX / 1000 + 1, TimeUnit::kSeconds, true, now).status ==
        OpStatus::kInvalidExpire);
  CHECK(resolve_deadline(LLONG_MAX, TimeUnit::kMilliseconds, false, now).status ==
        OpStatus::kInvalidExpire);
  CHECK(resolve_deadline(LLONG_MAX - now, TimeUnit::kMilliseconds, false, now).ok());
}

}  // namespace lawnkv::strings
