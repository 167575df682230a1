#include "scripting/interpreter.hpp"

#include <cstdlib>
#include <new>
#include <utility>

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

Interpreter::~Interpreter() {
  lua_close(L_);
  for (FreeBlock*& head : free_blocks_) {
    while (head != nullptr) std::free(std::exchange(head, head->next));
  }
}

Interpreter& Interpreter::of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<Interpreter*>(ud);
}

void* Interpreter::obtain(size_t size) {
  if (size > kSmallBytes) return std::malloc(size);
  const size_t c = size_class(size);
  if (FreeBlock* b = free_blocks_[c]) {
    free_blocks_[c] = b->next;
    kept_bytes_ -= class_bytes(c);
    return b;
  }
  return std::malloc(class_bytes(c));
}

void Interpreter::release(void* p, size_t size) {
  if (size <= kSmallBytes) {
    const size_t c = size_class(size);
    if (kept_bytes_ + class_bytes(c) <= kKeptBytes) {
      free_blocks_[c] = new (p) FreeBlock{free_blocks_[c]};
      kept_bytes_ += class_bytes(c);
      return;
    }
  }
  std::free(p);
}

void* Interpreter::allocate(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* self = static_cast<Interpreter*>(ud);
  if (nsize == 0) {
    // Lua also "frees" the empty arrays of new tables: nothing to do.
    if (ptr == nullptr) return nullptr;
    self->release(ptr, osize);
    self->used_ -= osize;
    return nullptr;
  }
  if (self->limit_active && nsize > osize && self->used_ - osize + nsize > self->heap_limit) return nullptr;
  void* p = ptr == nullptr ? self->obtain(nsize)
                           : std::realloc(ptr, nsize <= kSmallBytes ? class_bytes(size_class(nsize)) : nsize);
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
