#pragma once
// The classes of keyspace notification (notify-keyspace-events flags), as
// Redis 7.0 numbers them. A command tags each event it emits with its class.

#include <cstdint>

namespace lawnkv::pubsub {

enum EventClass : uint32_t {
  kKeyspaceChannel = 1u << 0,  // K: publish on __keyspace@<db>__:<key>
  kKeyeventChannel = 1u << 1,  // E: publish on __keyevent@<db>__:<event>
  kGeneric = 1u << 2,          // g: del, expire, rename_*, ...
  kString = 1u << 3,           // $
  kList = 1u << 4,             // l
  kSet = 1u << 5,              // s
  kHash = 1u << 6,             // h
  kZset = 1u << 7,             // z
  kExpired = 1u << 8,          // x
  kEvicted = 1u << 9,          // e
  kStream = 1u << 10,          // t
  kKeyMiss = 1u << 11,         // m (not in A)
  kModule = 1u << 12,          // d
  kNew = 1u << 13,             // n (not in A)
  kAll = kGeneric | kString | kList | kSet | kHash | kZset | kExpired | kEvicted | kStream | kModule,
};

}  // namespace lawnkv::pubsub
