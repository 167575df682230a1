// struct.pack / unpack / size: see lib_struct.hpp for the formats.
//
// These are C functions called from Lua: every luaL_error / luaL_argerror
// longjmps out of them, so nothing here owns a resource or has a
// destructor; the output is built in a luaL_Buffer, which lives on the Lua
// stack.

#include "scripting/lib_struct.hpp"

#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>

#include "scripting/x86_casts.hpp"

namespace lawnkv::scripting {

namespace {

// Integer items are at most this wide ("integral size %d is larger than
// limit of %d").
constexpr int kMaxIntSize = 32;
// The default of '!': the strictest alignment of the C types.
constexpr int kMaxAlign = alignof(double) > sizeof(int) ? static_cast<int>(alignof(double))
                                                        : static_cast<int>(sizeof(int));
constexpr bool kNativeLittle = std::endian::native == std::endian::little;

struct Options {
  bool little = kNativeLittle;
  int align = 1;
};

bool is_digit(int c) { return c >= '0' && c <= '9'; }
bool is_alnum(int c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The decimal count after an option letter, or `fallback` without one.
int read_count(lua_State* L, const char** fmt, int fallback) {
  if (!is_digit(**fmt)) return fallback;
  int n = 0;
  do {
    int digit = *(*fmt)++ - '0';
    if (n > (INT_MAX - digit) / 10) luaL_error(L, "integral size overflow");
    n = n * 10 + digit;
  } while (is_digit(**fmt));
  return n;
}

// The byte size of the item `opt` (reading its count from `fmt`); 0 for
// options that are not items, and for 's' (whose size is its string's).
size_t item_size(lua_State* L, int opt, const char** fmt) {
  switch (opt) {
    case 'b': case 'B': return sizeof(char);
    case 'h': case 'H': return sizeof(short);
    case 'l': case 'L': return sizeof(long);
    case 'T': return sizeof(size_t);
    case 'f': return sizeof(float);
    case 'd': return sizeof(double);
    case 'x': return 1;
    case 'c': return static_cast<size_t>(read_count(L, fmt, 1));
    case 'i': case 'I': {
      int size = read_count(L, fmt, static_cast<int>(sizeof(int)));
      if (size > kMaxIntSize)
        luaL_error(L, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      return static_cast<size_t>(size);
    }
    default: return 0;
  }
}

// Padding bytes that put an item of `size` at offset `at` on its alignment:
// min(size, align), computed with a mask as the library does (for sizes
// that are not powers of two too).
size_t padding(size_t at, const Options& o, int opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<size_t>(o.align)) size = static_cast<size_t>(o.align);
  return (size - (at & (size - 1))) & (size - 1);
}

bool is_power_of_2(int n) { return n > 0 && (n & (n - 1)) == 0; }

// The options that set state rather than describe an item; anything else
// is an error against the format (argument 1).
void apply_control(lua_State* L, int opt, const char** fmt, Options& o) {
  switch (opt) {
    case ' ': return;
    case '>': o.little = false; return;
    case '<': o.little = true; return;
    case '!': {
      int align = read_count(L, fmt, kMaxAlign);
      if (!is_power_of_2(align)) luaL_error(L, "alignment %d is not a power of 2", align);
      o.align = align;
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

// Copies `size` bytes of a native value into `out` in the requested order.
void ordered_copy(char* out, const void* native, size_t size, bool little) {
  std::memcpy(out, native, size);
  if (little != kNativeLittle) {
    for (size_t i = 0, j = size - 1; i < j; i++, j--) {
      char t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
  }
}

void pack_integer(lua_State* L, luaL_Buffer* b, int arg, bool little, size_t size) {
  lua_Number n = luaL_checknumber(L, arg);
  // Negative numbers go through the signed cast, the rest the unsigned one.
  uint64_t value = n < 0 ? static_cast<uint64_t>(x86_double_to_int64(n)) : x86_double_to_uint64(n);
  char bytes[kMaxIntSize];
  for (size_t i = 0; i < size; i++) {
    bytes[little ? i : size - 1 - i] = static_cast<char>(value & 0xff);
    value >>= 8;  // past 8 bytes the value is exhausted: zero bytes
  }
  luaL_addlstring(b, bytes, size);
}

// The integer of `size` bytes at `p`. Only the low 8 bytes survive; the
// sign bit is found with the shift count taken modulo 64, as x86-64 does
// for the library's over-wide shift (so i9 sign-extends from bit 7).
lua_Number unpack_integer(const char* p, bool little, bool is_signed, size_t size) {
  uint64_t v = 0;
  for (size_t k = 0; k < size; k++) {
    size_t i = little ? size - 1 - k : k;
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  }
  if (!is_signed) return static_cast<lua_Number>(v);
  uint64_t sign = ~uint64_t{0} << ((size * 8 - 1) & 63);
  if (v & sign) v |= sign;
  return static_cast<lua_Number>(static_cast<int64_t>(v));
}

/* struct.pack(fmt, v1, v2, ...) */
int struct_pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Options o;
  int arg = 2;
  size_t total = 0;
  // A nil between the arguments and what the buffer may push: a missing
  // argument reads as nil ("number expected, got nil"), as in Redis.
  lua_pushnil(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    int opt = *fmt++;
    size_t size = item_size(L, opt, &fmt);
    size_t pad = padding(total, o, opt, size);
    total += pad;
    for (; pad > 0; pad--) luaL_addchar(&b, '\0');
    switch (opt) {
      case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I':
        pack_integer(L, &b, arg++, o.little, size);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f': {
        float f = static_cast<float>(luaL_checknumber(L, arg++));
        char bytes[sizeof f];
        ordered_copy(bytes, &f, sizeof f, o.little);
        luaL_addlstring(&b, bytes, sizeof f);
        break;
      }
      case 'd': {
        double d = luaL_checknumber(L, arg++);
        char bytes[sizeof d];
        ordered_copy(bytes, &d, sizeof d, o.little);
        luaL_addlstring(&b, bytes, sizeof d);
        break;
      }
      case 'c': case 's': {
        size_t len;
        const char* s = luaL_checklstring(L, arg++, &len);
        if (size == 0) size = len;
        // The library names `arg` after its increment: the next argument.
        luaL_argcheck(L, len >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          size++;
        }
        break;
      }
      default:
        apply_control(L, opt, &fmt, o);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

/* struct.unpack(fmt, data [, start]) -> v1, v2, ..., next position */
int struct_unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t len;
  const char* data = luaL_checklstring(L, 2, &len);
  // A negative start wraps to a huge offset: "data string too short".
  size_t pos = static_cast<size_t>(luaL_optinteger(L, 3, 1));
  luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
  pos--;
  int results = 0;
  Options o;
  while (*fmt != '\0') {
    int opt = *fmt++;
    size_t size = item_size(L, opt, &fmt);
    pos += padding(pos, o, opt, size);
    luaL_argcheck(L, size <= len && pos <= len - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
      case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I': {
        bool is_signed = opt >= 'a' && opt <= 'z';
        lua_pushnumber(L, unpack_integer(data + pos, o.little, is_signed, size));
        results++;
        break;
      }
      case 'x':
        break;
      case 'f': {
        float f;
        char bytes[sizeof f];
        ordered_copy(bytes, data + pos, sizeof f, o.little);
        std::memcpy(&f, bytes, sizeof f);
        lua_pushnumber(L, f);
        results++;
        break;
      }
      case 'd': {
        double d;
        char bytes[sizeof d];
        ordered_copy(bytes, data + pos, sizeof d, o.little);
        std::memcpy(&d, bytes, sizeof d);
        lua_pushnumber(L, d);
        results++;
        break;
      }
      case 'c': {
        if (size == 0) {
          // c0: the length is the previous result, which it replaces (a
          // numeric string counts, as lua_isnumber says).
          if (results == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
          size = static_cast<size_t>(x86_double_to_uint64(lua_tonumber(L, -1)));
          lua_pop(L, 1);
          results--;
          luaL_argcheck(L, size <= len && pos <= len - size, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        results++;
        break;
      }
      case 's': {
        const void* end = std::memchr(data + pos, '\0', len - pos);
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size_t n = static_cast<size_t>(static_cast<const char*>(end) - (data + pos));
        lua_pushlstring(L, data + pos, n);
        size = n + 1;
        results++;
        break;
      }
      default:
        apply_control(L, opt, &fmt, o);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return results + 1;
}

/* struct.size(fmt) -> bytes that struct.pack(fmt, ...) produces */
int struct_size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t pos = 0;
  Options o;
  while (*fmt != '\0') {
    int opt = *fmt++;
    size_t size = item_size(L, opt, &fmt);
    pos += padding(pos, o, opt, size);
    if (opt == 's')
      luaL_argerror(L, 1, "option 's' has no fixed size");
    else if (opt == 'c' && size == 0)
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    // Letters and digits are never checked here: size('z') is 0.
    if (!is_alnum(opt)) apply_control(L, opt, &fmt, o);
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

const luaL_Reg kFunctions[] = {
    {"pack", struct_pack},
    {"unpack", struct_unpack},
    {"size", struct_size},
    {nullptr, nullptr},
};

}  // namespace

int open_struct(lua_State* L) {
  luaL_register(L, "struct", kFunctions);
  return 1;
}

}  // namespace lawnkv::scripting
