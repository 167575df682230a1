#pragma once
// math.random and math.randomseed as Redis 7.0 replaces them: the same
// sequence on every platform, from a 48-bit linear congruential generator
// (POSIX lrand48's constants, Redis's rand.c), seeded 0x1234ABCD330E when
// the server starts and by math.randomseed(n) to (n << 16) | 0x330E. The
// state lives in the Interpreter (Interpreter::random_state).

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

// Replaces math.random and math.randomseed in the (not yet sealed) math table.
void replace_math_random(lua_State* L);

}  // namespace lawnkv::scripting
