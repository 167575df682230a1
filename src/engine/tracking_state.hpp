#pragma once
// One client's part in client-side caching (CLIENT TRACKING), as Redis 7.0's
// CLIENT_TRACKING* flags and client_tracking_* fields: kept in its Session,
// read and changed by the tracking service (engine/tracking.hpp).

#include <cstdint>
#include <string>
#include <vector>

namespace lawnkv {

struct TrackingState {
  bool on = false;
  bool bcast = false;    // BCAST: told of every change under its prefixes
  bool optin = false;    // OPTIN: only reads after CLIENT CACHING YES are tracked
  bool optout = false;   // OPTOUT: reads after CLIENT CACHING NO are not tracked
  bool caching = false;  // CLIENT CACHING YES/NO given for the next command (or transaction)
  bool noloop = false;   // NOLOOP: not told of its own changes
  // The redirect client was gone when an invalidation was due (flag R).
  bool broken_redirect = false;
  // REDIRECT's client id, 0 for none. Kept after tracking goes off, as
  // Redis keeps it (but GETREDIR then answers -1).
  uint64_t redirect = 0;
  // BCAST's prefixes, sorted, no two equal ("" stands for every key).
  std::vector<std::string> prefixes;
};

}  // namespace lawnkv
