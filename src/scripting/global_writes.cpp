#include "scripting/global_writes.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace lawnkv::scripting {

namespace {

// Lua 5.1's lopcodes.h: an instruction's low 6 bits are its opcode, and
// SETGLOBAL is opcode 7.
constexpr uint32_t kOpcodeMask = 0x3F;
constexpr uint32_t kSetGlobal = 7;
using Instruction = uint32_t;

// What luaU_header writes on this build: signature, version 5.1, the
// official format, little endian, the sizes of int, size_t, Instruction
// and lua_Number, and 0 for a floating-point lua_Number.
constexpr char kHeader[] = {'\x1b', 'L', 'u', 'a', '\x51', 0, 1,
                            static_cast<char>(sizeof(int)), static_cast<char>(sizeof(size_t)),
                            static_cast<char>(sizeof(Instruction)), static_cast<char>(sizeof(lua_Number)), 0};

// lua_dump's writer: the bytes into a std::string (no exception may cross
// Lua's C frames: a failure stops the dump instead).
int append_bytes(lua_State*, const void* p, size_t n, void* ud) {
  try {
    static_cast<std::string*>(ud)->append(static_cast<const char*>(p), n);
    return 0;
  } catch (...) {
    return 1;
  }
}

// Reads a dump front to back; every read fails past its end.
class DumpReader {
 public:
  explicit DumpReader(std::string_view bytes) : bytes_(bytes) {}

  bool take(size_t n, const char** p) {
    if (bytes_.size() - pos_ < n) return false;
    *p = bytes_.data() + pos_;
    pos_ += n;
    return true;
  }
  bool skip(size_t n) {
    const char* p;
    return take(n, &p);
  }
  bool count(int* n) {  // a vector's length (a C int in the dump)
    const char* p;
    if (!take(sizeof(int), &p)) return false;
    std::memcpy(n, p, sizeof(int));
    return *n >= 0;
  }
  bool byte(unsigned char* b) {
    const char* p;
    if (!take(1, &p)) return false;
    *b = static_cast<unsigned char>(*p);
    return true;
  }
  bool string() {  // a size_t length (0: no string), then that many bytes
    const char* p;
    size_t n;
    if (!take(sizeof n, &p)) return false;
    std::memcpy(&n, p, sizeof n);
    return skip(n);
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

// One function as ldump.c's DumpFunction writes it, with the functions
// nested in it. False when the bytes do not read as one; *found is set
// when an instruction is SETGLOBAL.
bool scan_function(DumpReader& r, int depth, bool* found) {
  // The parser refuses deeper nesting (LUAI_MAXCCALLS) long before this.
  if (depth > 1000) return false;
  // source, linedefined, lastlinedefined, then nups, numparams, is_vararg
  // and maxstacksize, a byte each.
  if (!r.string() || !r.skip(2 * sizeof(int) + 4)) return false;
  int n = 0;
  const char* code;
  if (!r.count(&n) || !r.take(static_cast<size_t>(n) * sizeof(Instruction), &code)) return false;
  for (int i = 0; i < n; ++i) {
    Instruction ins;
    std::memcpy(&ins, code + static_cast<size_t>(i) * sizeof ins, sizeof ins);
    if ((ins & kOpcodeMask) == kSetGlobal) *found = true;
  }
  if (!r.count(&n)) return false;  // the constants: a type byte, then the value
  for (int i = 0; i < n; ++i) {
    unsigned char type;
    if (!r.byte(&type)) return false;
    bool ok = true;
    switch (type) {
      case LUA_TNIL: break;
      case LUA_TBOOLEAN: ok = r.skip(1); break;
      case LUA_TNUMBER: ok = r.skip(sizeof(lua_Number)); break;
      case LUA_TSTRING: ok = r.string(); break;
      default: return false;
    }
    if (!ok) return false;
  }
  if (!r.count(&n)) return false;  // the nested functions
  for (int i = 0; i < n; ++i) {
    if (!scan_function(r, depth + 1, found)) return false;
  }
  // Debug information: line numbers, locals (name, startpc, endpc),
  // upvalue names.
  if (!r.count(&n) || !r.skip(static_cast<size_t>(n) * sizeof(int))) return false;
  if (!r.count(&n)) return false;
  for (int i = 0; i < n; ++i) {
    if (!r.string() || !r.skip(2 * sizeof(int))) return false;
  }
  if (!r.count(&n)) return false;
  for (int i = 0; i < n; ++i) {
    if (!r.string()) return false;
  }
  return true;
}

}  // namespace

bool may_assign_globals(lua_State* L) {
  std::string bytes;
  if (!lua_isfunction(L, -1) || lua_iscfunction(L, -1) || lua_dump(L, append_bytes, &bytes) != 0) return true;
  if (bytes.size() < sizeof kHeader || std::memcmp(bytes.data(), kHeader, sizeof kHeader) != 0) return true;
  DumpReader r(std::string_view(bytes).substr(sizeof kHeader));
  bool found = false;
  return !scan_function(r, 0, &found) || found;
}

}  // namespace lawnkv::scripting
