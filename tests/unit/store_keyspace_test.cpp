// store::Keyspace::stale_fraction: the share of keys with a TTL that are due
// but not yet deleted (INFO's expired_stale_perc). Cases with exact answers:
// nothing due, everything due, keys without a TTL and dbs without any.

#include <doctest/doctest.h>

#include <string>

#include "store/keyspace.hpp"

namespace lawnkv::store {
namespace {

TEST_CASE("Keyspace::stale_fraction: 0 when nothing is due, 1 when every key with a TTL is") {
  Keyspace ks(4);
  CHECK(ks.stale_fraction(1'000) == 0);  // no keys at all
  // db 0: keys without a TTL only; db 2: ten with deadline 1000, five without.
  for (int i = 0; i < 50; ++i) ks.db(0).add_string("plain" + std::to_string(i), "v");
  for (int i = 0; i < 10; ++i) {
    Entry& e = ks.db(2).add_string("t" + std::to_string(i), "v", true);
    ks.db(2).set_deadline(e, 1'000, 0);
  }
  for (int i = 0; i < 5; ++i) ks.db(2).add_string("p" + std::to_string(i), "v");

  CHECK(ks.stale_fraction(999) == 0);
  CHECK(ks.stale_fraction(1'000) == 0);  // a key still exists at its deadline
  CHECK(ks.stale_fraction(1'001) == 1);
  CHECK(ks.stale_fraction(5'000) == 1);
  // Reaped: none left to be stale.
  CHECK(ks.reap(1'001, 100) == 10);
  CHECK(ks.stale_fraction(5'000) == 0);
}

}  // namespace
}  // namespace lawnkv::store
