#pragma once
// The `#!lua flags=...` first line of an EVAL script (Redis 7.0's
// evalExtractShebangFlags). Without a shebang a script runs in
// compatibility mode: Redis 6's rules (writes allowed, OOM checked per
// command). With one, its flags decide before the script starts.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace lawnkv::scripting {

enum ScriptFlag : uint32_t {
  kCompatMode = 1u << 0,       // no shebang
  kNoWrites = 1u << 1,         // no-writes
  kAllowOom = 1u << 2,         // allow-oom
  kAllowStale = 1u << 3,       // allow-stale
  kNoCluster = 1u << 4,        // no-cluster
  kAllowCrossSlot = 1u << 5,   // allow-cross-slot-keys
};

struct Shebang {
  uint32_t flags = kCompatMode;
  // Bytes of the shebang line without its newline: the script compiles
  // from there, so its line numbers stay the user's.
  size_t length = 0;
};

// The flag of a name as shebangs and redis.register_function spell it
// ("no-writes", ...; nocase for register_function), or 0.
uint32_t script_flag_named(std::string_view name, bool nocase = false);
// The names of the flags set in flags, in Redis's order.
template <class F>
void for_each_flag_name(uint32_t flags, F&& fn);

// The flags of body, or an error text without its code (Redis's:
// "Unexpected flag in script shebang: x", ...).
bool parse_shebang(std::string_view body, Shebang* out, std::string* error);

struct FlagName {
  std::string_view name;
  ScriptFlag flag;
};
inline constexpr FlagName kFlagNames[] = {
    {"no-writes", kNoWrites},     {"allow-oom", kAllowOom},
    {"allow-stale", kAllowStale}, {"no-cluster", kNoCluster},
    {"allow-cross-slot-keys", kAllowCrossSlot},
};

template <class F>
void for_each_flag_name(uint32_t flags, F&& fn) {
  for (const FlagName& f : kFlagNames) {
    if (flags & f.flag) fn(f.name);
  }
}

}  // namespace lawnkv::scripting
