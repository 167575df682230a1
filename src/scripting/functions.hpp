#pragma once
// The FUNCTION libraries of one server and their interpreter (Redis 7.0's
// functions.c with function_lua.c's engine): FUNCTION LOAD compiles a
// library and runs its top level with the library API, keeping the
// functions it registers; names are unique across libraries; DELETE and
// FLUSH drop libraries. FCALL runs a function through Runtime.
//
// Libraries are data: FUNCTION LOAD, DELETE, FLUSH and RESTORE are write
// commands (the AOF records and replays them), and dump.rdb keeps their
// code (Runtime's FunctionLibraries calls). A library's top-level redis.log
// writes nothing (no server is at hand while it loads).

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "scripting/function_library.hpp"
#include "scripting/interpreter.hpp"

namespace lawnkv::scripting {

class Functions {
 public:
  Functions();

  // FUNCTION LOAD [REPLACE]: the library's name, or false with *error (a
  // full error text).
  bool load(std::string_view payload, bool replace, std::string* name, std::string* error);
  // FUNCTION DUMP's payload (function_dump.hpp).
  std::string dump() const;
  // FUNCTION RESTORE: FLUSH replaces every library, APPEND adds (a library
  // that exists fails it), REPLACE adds over same-named ones; a function
  // name used by another library fails it. False with *error (a full
  // error text); nothing changes then.
  enum class RestorePolicy { kAppend, kReplace, kFlush };
  bool restore(std::string_view payload, RestorePolicy policy, std::string* error);
  // FUNCTION DELETE: false when there is no such library.
  bool remove(std::string_view library);
  // FUNCTION FLUSH: every library, and a fresh interpreter.
  void flush();

  const FunctionInfo* find(std::string_view function) const;
  const std::map<std::string, Library>& libraries() const { return libraries_; }
  size_t function_count() const { return by_function_.size(); }
  // The libraries' code and names (INFO used_memory_functions).
  size_t libraries_bytes() const;
  Interpreter& interpreter() { return *lua_; }
  size_t heap_bytes() const { return lua_->used_bytes(); }

 private:
  // Compiles payload and runs its top level into *lib (its functions
  // registered, not yet linked); false with the error text (no code).
  bool compile(std::string_view payload, Library* lib, std::string* error);
  // "Function <name> already exists" for a function of lib another
  // library has, or "".
  std::string collision(const Library& lib) const;
  void unlink(const Library& lib);
  void link(const Library& lib);
  void release(Library& lib);  // its callbacks, from the interpreter

  std::unique_ptr<Interpreter> lua_;
  std::map<std::string, Library> libraries_;
  // function name -> its library's name
  std::map<std::string, std::string, std::less<>> by_function_;
};

}  // namespace lawnkv::scripting
