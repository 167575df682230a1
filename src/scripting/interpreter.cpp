#include "scripting/interpreter.hpp"

#include <cstdlib>

namespace lawnkv::scripting {

namespace {

struct SetupCall {
  Interpreter::Setup setup;
  bool functions;
};

// Runs the setup inside a protected call: a Lua error while the state is
// built is a bug, reported as the construction failing.
int run_setup(lua_State* L) {
  const auto* call = static_cast<const SetupCall*>(lua_touserdata(L, 1));
  call->setup(L, call->functions);
  return 0;
}

}  // namespace

Interpreter::Interpreter(Setup setup, bool functions) {
  L_ = lua_newstate(&Interpreter::allocate, this);
  if (L_ == nullptr) std::abort();
  SetupCall call{setup, functions};
  if (lua_cpcall(L_, run_setup, &call) != 0) std::abort();
}

Interpreter::~Interpreter() { lua_close(L_); }

Interpreter& Interpreter::of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<Interpreter*>(ud);
}

void* Interpreter::allocate(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* self = static_cast<Interpreter*>(ud);
  if (nsize == 0) {
    std::free(ptr);
    self->used_ -= osize;
    return nullptr;
  }
  if (self->limit_active && nsize > osize && self->used_ - osize + nsize > self->heap_limit) return nullptr;
  // A new block through malloc: jemalloc's realloc of nothing takes a
  // slower path than its malloc (most Lua allocations are new objects).
  void* p = ptr == nullptr ? std::malloc(nsize) : std::realloc(ptr, nsize);
  // Outside a script's own code a failed allocation would longjmp over
  // C++ frames: the server is out of memory anyway, as Redis it stops.
  if (p == nullptr) {
    if (!self->limit_active) std::abort();
    return nullptr;
  }
  self->used_ = self->used_ - osize + nsize;
  return p;
}

}  // namespace lawnkv::scripting
