// Runtime::call_flags: the command flags of one script call (runtime.hpp).
#include "core/ascii.hpp"
#include "engine/table.hpp"
#include "scripting/runtime.hpp"
#include "scripting/shebang.hpp"

namespace lawnkv::scripting {

namespace {

// Redis's scriptFlagsToCmdFlags.
uint32_t with_script_flags(uint32_t row_flags, uint32_t script_flags) {
  uint32_t flags = row_flags & ~(kStale | kDenyOom | kWrite | kMayReplicate);
  if (!(script_flags & (kAllowOom | kNoWrites))) flags |= kDenyOom;
  if (!(script_flags & kNoWrites)) flags |= kWrite;
  if (script_flags & kAllowStale) flags |= kStale;
  return flags;
}

}  // namespace

uint32_t Runtime::call_flags(std::span<const std::string_view> argv, uint32_t row_flags, bool function) const {
  if (argv.size() < 2) return row_flags;
  if (function) {
    const FunctionInfo* f = functions_.find(argv[1]);
    return f ? with_script_flags(row_flags, f->flags) : row_flags;
  }
  const bool by_sha = argv[0].size() >= 7 && iequals(argv[0].substr(0, 7), "evalsha");
  uint32_t script_flags;
  if (by_sha) {
    if (argv[1].size() != 40) return row_flags;
    auto it = scripts_.find(to_lower(argv[1]));
    if (it == scripts_.end()) return row_flags;
    script_flags = it->second.flags;
  } else {
    // A cached body has the flags its shebang gives.
    Shebang shebang;
    std::string error;
    if (!parse_shebang(argv[1], &shebang, &error)) return row_flags;
    script_flags = shebang.flags;
  }
  return (script_flags & kCompatMode) ? row_flags : with_script_flags(row_flags, script_flags);
}

}  // namespace lawnkv::scripting
