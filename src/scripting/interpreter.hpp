#pragma once
// One Lua 5.1 state (Debian's PUC Lua, as Redis embeds), filled by a
// setup function (environment.hpp builds Redis 7.0's). Its heap goes
// through a counting allocator
// (INFO's used_memory_lua) with a ceiling that only a running script can
// hit: past kHeapLimit an allocation fails and Lua raises "not enough
// memory", which ends that script, never the server.
//
// Blocks of up to 128 bytes that Lua frees (most are the strings, tables
// and closures a script makes and drops, freed in bursts by the
// collector's sweeps) are kept, up to 128 KiB of them, for Lua's next
// blocks of their 16-byte size class: taking one off a list costs a few
// instructions where malloc and free cost a hundred. Lua passes a block's
// size when it frees one, so no header is needed; every small block is
// allocated with its class's full size, so any block of a class fits any
// request of that class.
//
// Garbage is left to Lua's own collector, incremental in 5.1 and paced by
// what is allocated. Redis also forces a step every 50 scripts
// (LUA_GC_CYCLE_PERIOD): a fixed amount of marking and sweeping whatever
// the scripts left, which costs short scripts more than the garbage they
// make (bench/results/scripting.md).
//
// Lua errors unwind with longjmp. The rule every C function registered here
// follows: no C++ object with a destructor is alive in a frame that
// lua_error (or a Lua API call that may raise) can jump over. C++ work is
// done in an inner function that returns before the error is raised, and
// inside such work allocations cannot fail (HeapGuard), so no API call in
// it raises.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace lawnkv {
struct CommandSpec;
}

namespace lawnkv::scripting {

struct Library;
struct RunContext;

class Interpreter {
 public:
  // The Lua heap a script may grow to before its allocations fail.
  static constexpr size_t kHeapLimit = size_t{1} << 30;

  // Fills a new state (inside a protected call); functions: for the
  // FUNCTION engine, which also has the library API for FUNCTION LOAD.
  using Setup = void (*)(lua_State* L, bool functions);
  explicit Interpreter(Setup setup, bool functions = false);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  lua_State* state() const { return L_; }
  // Bytes the Lua heap holds now (INFO used_memory_lua).
  size_t used_bytes() const { return used_; }

  // The script running now (nullptr between scripts): redis.call runs its
  // commands through it.
  RunContext* run = nullptr;
  // The library FUNCTION LOAD is running (nullptr otherwise):
  // redis.register_function adds to it.
  Library* loading = nullptr;
  // Set while script code runs: the heap ceiling applies.
  bool limit_active = false;
  size_t heap_limit = kHeapLimit;
  // The rows redis.call found for the command names it was last given
  // (redis_api.cpp), by name as the script spelled it: a script calling
  // the same commands again skips the command table's lookup. Rows of
  // commands with subcommands are not kept.
  struct CachedCommand {
    std::string name;
    const CommandSpec* spec = nullptr;
  };
  std::array<CachedCommand, 16> command_cache;
  // redis.call's arguments and the bytes of its reply, kept from call to
  // call and from script to script, so their storage is reused; the
  // runtime gives back a large reply's storage after the script.
  std::vector<std::string_view> call_argv;
  std::string call_reply;
  // The error handler scripts run under (environment.cpp), as a registry
  // reference: cheaper to fetch before each run than by its string key.
  int error_handler = LUA_NOREF;
  // The tables of the globals KEYS and ARGV (script_globals.hpp), as
  // registry references, LUA_NOREF before the first script.
  int keys_table = LUA_NOREF;
  int argv_table = LUA_NOREF;
  // math.random's generator (lua_random.hpp), as Redis seeds it at start.
  uint64_t random_state = 0x1234ABCD330Eull;

  // The Interpreter that owns L (kept in L's allocator data).
  static Interpreter& of(lua_State* L);

 private:
  static void* allocate(void* ud, void* ptr, size_t osize, size_t nsize);

  // The small blocks kept (see above): singly linked through their first
  // bytes, a list per size class.
  static constexpr size_t kSmallBytes = 128;
  static constexpr size_t kClassBytes = 16;
  static constexpr size_t kClasses = kSmallBytes / kClassBytes;
  static constexpr size_t kKeptBytes = 128 * 1024;
  static constexpr size_t size_class(size_t size) { return (size - 1) / kClassBytes; }
  static constexpr size_t class_bytes(size_t c) { return (c + 1) * kClassBytes; }
  struct FreeBlock {
    FreeBlock* next;
  };
  // A block of at least size bytes (a kept one, or its class's size from
  // malloc); release keeps or frees a block Lua had as size bytes.
  void* obtain(size_t size);
  void release(void* p, size_t size);
  std::array<FreeBlock*, kClasses> free_blocks_{};
  size_t kept_bytes_ = 0;

  lua_State* L_ = nullptr;
  size_t used_ = 0;
};

// While alive, allocations of the Lua heap cannot fail, so C++ code that
// pushes values (redis.call's reply) never sees a longjmp.
class HeapGuard {
 public:
  explicit HeapGuard(Interpreter& in) : in_(in), saved_(in.limit_active) { in.limit_active = false; }
  ~HeapGuard() { in_.limit_active = saved_; }
  HeapGuard(const HeapGuard&) = delete;
  HeapGuard& operator=(const HeapGuard&) = delete;

 private:
  Interpreter& in_;
  bool saved_;
};

}  // namespace lawnkv::scripting
