// cmsgpack.pack / unpack / unpack_one / unpack_limit: see lib_cmsgpack.hpp.
//
// These are C functions called from Lua: a Lua error (a failed stack check,
// "table index is nil" while decoding, out of memory) longjmps out of them.
// So nothing here owns a resource or has a destructor: the encoder's bytes
// live in a Lua userdata on the stack (the collector frees it, whatever
// happens), and the decoder only reads the argument string.

#include "scripting/lib_cmsgpack.hpp"

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "scripting/x86_casts.hpp"

namespace lawnkv::scripting {

namespace {

// Tables nested deeper than this are encoded as nil.
constexpr int kMaxNesting = 16;

// ---------------------------------------------------------------- encoding

// The bytes encoded so far, in the userdata at stack index `slot`.
struct Output {
  lua_State* L;
  int slot;
  unsigned char* bytes;
  size_t len;
  size_t cap;
};

void open_output(lua_State* L, Output& out) {
  constexpr size_t kInitial = 64;
  out.L = L;
  out.bytes = static_cast<unsigned char*>(lua_newuserdata(L, kInitial));
  out.slot = lua_gettop(L);
  out.len = 0;
  out.cap = kInitial;
}

// Makes room for `more` bytes: a userdata twice the needed size replaces
// the old one in its slot.
void reserve(Output& out, size_t more) {
  if (out.cap - out.len >= more) return;
  if (more > SIZE_MAX / 4 - out.len) luaL_error(out.L, "not enough memory");
  size_t cap = (out.len + more) * 2;
  luaL_checkstack(out.L, 1, "in function mp_buf_append");
  auto* grown = static_cast<unsigned char*>(lua_newuserdata(out.L, cap));
  if (out.len > 0) std::memcpy(grown, out.bytes, out.len);
  lua_replace(out.L, out.slot);
  out.bytes = grown;
  out.cap = cap;
}

void append(Output& out, const void* data, size_t n) {
  reserve(out, n);
  if (n > 0) std::memcpy(out.bytes + out.len, data, n);
  out.len += n;
}

// A type byte followed by the low `size` bytes of `value`, big endian.
void append_tagged(Output& out, unsigned char tag, uint64_t value, size_t size) {
  unsigned char b[9];
  b[0] = tag;
  for (size_t i = 0; i < size; i++) b[size - i] = static_cast<unsigned char>(value >> (8 * i));
  append(out, b, size + 1);
}

void encode_int(Output& out, int64_t n) {
  auto u = static_cast<uint64_t>(n);
  if (n >= 0) {
    if (n <= 127) append_tagged(out, static_cast<unsigned char>(n), 0, 0);  // positive fixint
    else if (n <= 0xff) append_tagged(out, 0xcc, u, 1);
    else if (n <= 0xffff) append_tagged(out, 0xcd, u, 2);
    else if (n <= 0xffffffffLL) append_tagged(out, 0xce, u, 4);
    else append_tagged(out, 0xcf, u, 8);
  } else {
    if (n >= -32) append_tagged(out, static_cast<unsigned char>(u & 0xff), 0, 0);  // negative fixint
    else if (n >= -128) append_tagged(out, 0xd0, u, 1);
    else if (n >= -32768) append_tagged(out, 0xd1, u, 2);
    else if (n >= -2147483648LL) append_tagged(out, 0xd2, u, 4);
    else append_tagged(out, 0xd3, u, 8);
  }
}

// Float 32 when the value survives the trip through float, else float 64.
void encode_double(Output& out, double d) {
  auto f = static_cast<float>(d);
  if (d == static_cast<double>(f)) append_tagged(out, 0xca, std::bit_cast<uint32_t>(f), 4);
  else append_tagged(out, 0xcb, std::bit_cast<uint64_t>(d), 8);
}

void encode_number(Output& out, lua_Number n) {
  int64_t i = x86_double_to_int64(n);
  if (!std::isinf(n) && static_cast<double>(i) == n) encode_int(out, i);
  else encode_double(out, n);
}

// Lengths past 32 bits keep their low 32 bits, as the library writes them.
void encode_string(Output& out, const char* s, size_t len) {
  if (len < 32) append_tagged(out, static_cast<unsigned char>(0xa0 | len), 0, 0);
  else if (len <= 0xff) append_tagged(out, 0xd9, len, 1);
  else if (len <= 0xffff) append_tagged(out, 0xda, len, 2);
  else append_tagged(out, 0xdb, len, 4);
  append(out, s, len);
}

// Array or map header: fix form up to 15, 16-bit up to 65535, else 32-bit.
void encode_header(Output& out, bool array, uint64_t n) {
  if (n <= 15) append_tagged(out, static_cast<unsigned char>((array ? 0x90 : 0x80) | n), 0, 0);
  else if (n <= 65535) append_tagged(out, array ? 0xdc : 0xde, n, 2);
  else append_tagged(out, array ? 0xdd : 0xdf, n, 4);
}

// Whether the table on top has exactly the keys 1..n (n = 0 included): keys
// that are numbers, positive, integral and within int range, as many as the
// largest of them.
bool table_is_array(lua_State* L) {
  int top = lua_gettop(L);
  luaL_checkstack(L, 2, "in function table_is_an_array");
  int count = 0;
  int max = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    lua_Number n = 0;
    if (lua_type(L, -1) != LUA_TNUMBER || (n = lua_tonumber(L, -1)) <= 0 || std::isinf(n) ||
        static_cast<double>(x86_double_to_int(n)) != n) {
      lua_settop(L, top);
      return false;
    }
    int key = x86_double_to_int(n);
    if (key > max) max = key;
    count++;
  }
  lua_settop(L, top);
  return max == count;
}

void encode_top(Output& out, int level);

void encode_array(Output& out, int level) {
  lua_State* L = out.L;
  size_t len = lua_objlen(L, -1);
  encode_header(out, true, len);
  luaL_checkstack(L, 1, "in function mp_encode_lua_table_as_array");
  for (size_t j = 1; j <= len; j++) {
    // Keys 1..len all exist (table_is_array), so a raw read is what a
    // metamethod-aware one would give.
    lua_rawgeti(L, -1, static_cast<int>(j));
    encode_top(out, level + 1);
  }
}

void encode_map(Output& out, int level) {
  lua_State* L = out.L;
  luaL_checkstack(L, 3, "in function mp_encode_lua_table_as_map");
  size_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    count++;
  }
  encode_header(out, false, count);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);  // a copy of the key: encoding pops it, lua_next needs the key
    encode_top(out, level + 1);
    encode_top(out, level + 1);
  }
}

// Encodes the value on top of the stack and pops it.
void encode_top(Output& out, int level) {
  lua_State* L = out.L;
  int type = lua_type(L, -1);
  if (type == LUA_TTABLE && level == kMaxNesting) type = LUA_TNIL;
  switch (type) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, -1, &len);
      encode_string(out, s, len);
      break;
    }
    case LUA_TBOOLEAN:
      append_tagged(out, lua_toboolean(L, -1) ? 0xc3 : 0xc2, 0, 0);
      break;
    case LUA_TNUMBER:
      encode_number(out, lua_tonumber(L, -1));
      break;
    case LUA_TTABLE:
      if (table_is_array(L)) encode_array(out, level);
      else encode_map(out, level);
      break;
    default:
      append_tagged(out, 0xc0, 0, 0);
  }
  lua_pop(L, 1);
}

/* cmsgpack.pack(v1, v2, ...) */
int mp_pack(lua_State* L) {
  int nargs = lua_gettop(L);
  if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  if (!lua_checkstack(L, nargs)) return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
  luaL_checkstack(L, 1, "in function mp_check");
  Output out;
  open_output(L, out);
  for (int i = 1; i <= nargs; i++) {
    luaL_checkstack(L, 1, "in function mp_check");
    lua_pushvalue(L, i);
    encode_top(out, 0);
    lua_pushlstring(L, reinterpret_cast<const char*>(out.bytes), out.len);
    out.len = 0;
  }
  lua_concat(L, nargs);
  return 1;
}

// ---------------------------------------------------------------- decoding

enum class InputError { kNone, kMissingBytes, kBadFormat };

struct Input {
  const unsigned char* p;
  size_t left;
  InputError error;
};

bool need(Input& in, size_t n) {
  if (in.left >= n) return true;
  in.error = InputError::kMissingBytes;
  return false;
}

void consume(Input& in, size_t n) {
  in.p += n;
  in.left -= n;
}

// The `size`-byte big-endian unsigned number after the type byte.
uint64_t read_be(const Input& in, size_t size) {
  uint64_t v = 0;
  for (size_t i = 1; i <= size; i++) v = (v << 8) | in.p[i];
  return v;
}

void decode_value(lua_State* L, Input& in);

void decode_array(lua_State* L, Input& in, size_t len) {
  lua_newtable(L);
  luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
  for (size_t i = 1; i <= len; i++) {
    lua_pushnumber(L, static_cast<lua_Number>(i));
    decode_value(L, in);
    if (in.error != InputError::kNone) return;
    lua_settable(L, -3);
  }
}

// A nil or NaN key raises Lua's own "table index is nil" / "is NaN".
void decode_map(lua_State* L, Input& in, size_t len) {
  lua_newtable(L);
  for (size_t i = 0; i < len; i++) {
    decode_value(L, in);
    if (in.error != InputError::kNone) return;
    decode_value(L, in);
    if (in.error != InputError::kNone) return;
    lua_settable(L, -3);
  }
}

// A string whose `hdr`-byte length follows the type byte.
void decode_string(lua_State* L, Input& in, size_t hdr) {
  if (!need(in, 1 + hdr)) return;
  auto len = static_cast<size_t>(read_be(in, hdr));
  consume(in, 1 + hdr);
  if (!need(in, len)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(in.p), len);
  consume(in, len);
}

// An array (or map) whose `hdr`-byte length follows the type byte.
void decode_container(lua_State* L, Input& in, size_t hdr, bool array) {
  if (!need(in, 1 + hdr)) return;
  auto len = static_cast<size_t>(read_be(in, hdr));
  consume(in, 1 + hdr);
  if (array) decode_array(L, in, len);
  else decode_map(L, in, len);
}

// A fixed-size number: type byte and `size` bytes.
bool take_number(Input& in, size_t size, uint64_t& v) {
  if (!need(in, 1 + size)) return false;
  v = read_be(in, size);
  consume(in, 1 + size);
  return true;
}

// Pushes the value at the cursor and moves past it, or sets in.error.
void decode_value(lua_State* L, Input& in) {
  if (!need(in, 1)) return;
  // Each value may be one more result: past the Lua stack's limit this is
  // the error a caller sees.
  luaL_checkstack(L, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
  unsigned char tag = in.p[0];
  uint64_t v = 0;
  switch (tag) {
    case 0xcc: if (take_number(in, 1, v)) lua_pushinteger(L, static_cast<lua_Integer>(v)); return;
    case 0xcd: if (take_number(in, 2, v)) lua_pushinteger(L, static_cast<lua_Integer>(v)); return;
    case 0xce: if (take_number(in, 4, v)) lua_pushinteger(L, static_cast<lua_Integer>(v)); return;
    // From 2^63 up it turns negative: the library pushes it as a signed integer.
    case 0xcf: if (take_number(in, 8, v)) lua_pushinteger(L, static_cast<lua_Integer>(v)); return;
    case 0xd0: if (take_number(in, 1, v)) lua_pushinteger(L, static_cast<int8_t>(v)); return;
    case 0xd1: if (take_number(in, 2, v)) lua_pushinteger(L, static_cast<int16_t>(v)); return;
    case 0xd2: if (take_number(in, 4, v)) lua_pushinteger(L, static_cast<int32_t>(v)); return;
    case 0xd3:
      if (take_number(in, 8, v)) lua_pushnumber(L, static_cast<lua_Number>(static_cast<int64_t>(v)));
      return;
    case 0xca:
      if (take_number(in, 4, v)) lua_pushnumber(L, std::bit_cast<float>(static_cast<uint32_t>(v)));
      return;
    case 0xcb:
      if (take_number(in, 8, v)) lua_pushnumber(L, std::bit_cast<double>(v));
      return;
    case 0xc0: lua_pushnil(L); consume(in, 1); return;
    case 0xc2: lua_pushboolean(L, 0); consume(in, 1); return;
    case 0xc3: lua_pushboolean(L, 1); consume(in, 1); return;
    case 0xd9: decode_string(L, in, 1); return;
    case 0xda: decode_string(L, in, 2); return;
    case 0xdb: decode_string(L, in, 4); return;
    case 0xdc: decode_container(L, in, 2, true); return;
    case 0xdd: decode_container(L, in, 4, true); return;
    case 0xde: decode_container(L, in, 2, false); return;
    case 0xdf: decode_container(L, in, 4, false); return;
    default: break;
  }
  if ((tag & 0x80) == 0) {  // positive fixint
    lua_pushinteger(L, tag);
    consume(in, 1);
  } else if ((tag & 0xe0) == 0xe0) {  // negative fixint
    lua_pushinteger(L, static_cast<int8_t>(tag));
    consume(in, 1);
  } else if ((tag & 0xe0) == 0xa0) {  // fixstr
    size_t len = tag & 0x1f;
    if (!need(in, 1 + len)) return;
    lua_pushlstring(L, reinterpret_cast<const char*>(in.p + 1), len);
    consume(in, 1 + len);
  } else if ((tag & 0xf0) == 0x90) {  // fixarray
    consume(in, 1);
    decode_array(L, in, tag & 0x0f);
  } else if ((tag & 0xf0) == 0x80) {  // fixmap
    consume(in, 1);
    decode_map(L, in, tag & 0x0f);
  } else {  // 0xc1, bin, ext, fixext
    in.error = InputError::kBadFormat;
  }
}

// Decodes up to `limit` values of argument 1 from byte `offset`. Both 0:
// everything, without the next offset; otherwise the next offset (-1 when
// the input is used up) comes first, then the values.
int unpack_values(lua_State* L, lua_Integer limit, lua_Integer offset) {
  size_t len;
  const char* s = luaL_checklstring(L, 1, &len);
  // The library prints the input length where it means the limit.
  if (offset < 0 || limit < 0)
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  if (static_cast<size_t>(offset) > len)
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  bool everything = limit == 0 && offset == 0;
  if (everything) limit = INT_MAX;
  Input in{reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset),
           InputError::kNone};
  int count = 0;
  for (; in.left > 0 && count < limit; count++) {
    decode_value(L, in);
    if (in.error == InputError::kMissingBytes) return luaL_error(L, "Missing bytes in input.");
    if (in.error == InputError::kBadFormat) return luaL_error(L, "Bad data format in input.");
  }
  if (everything) return count;
  luaL_checkstack(L, 1, "in function mp_unpack_full");
  lua_pushinteger(L, in.left == 0 ? -1 : static_cast<lua_Integer>(len - in.left));
  lua_insert(L, 2);  // after the input string, before the values
  return count + 1;
}

/* cmsgpack.unpack(s) */
int mp_unpack(lua_State* L) { return unpack_values(L, 0, 0); }

/* cmsgpack.unpack_one(s [, offset]) */
int mp_unpack_one(lua_State* L) {
  lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_pop(L, lua_gettop(L) - 1);  // without arguments: none, "got no value"
  return unpack_values(L, 1, offset);
}

/* cmsgpack.unpack_limit(s, limit [, offset]) */
int mp_unpack_limit(lua_State* L) {
  lua_Integer limit = luaL_checkinteger(L, 2);
  lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_pop(L, lua_gettop(L) - 1);
  return unpack_values(L, limit, offset);
}

}  // namespace

int open_cmsgpack(lua_State* L) {
  lua_newtable(L);
  const luaL_Reg functions[] = {
      {"pack", mp_pack},
      {"unpack", mp_unpack},
      {"unpack_one", mp_unpack_one},
      {"unpack_limit", mp_unpack_limit},
  };
  for (const luaL_Reg& f : functions) {
    lua_pushcfunction(L, f.func);
    lua_setfield(L, -2, f.name);
  }
  const char* const metadata[][2] = {
      {"_NAME", "cmsgpack"},
      {"_VERSION", "lua-cmsgpack 0.4.0"},
      {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
      {"_DESCRIPTION", "MessagePack C implementation for Lua"},
  };
  for (const auto& field : metadata) {
    lua_pushstring(L, field[1]);
    lua_setfield(L, -2, field[0]);
  }
  lua_pushvalue(L, -1);
  lua_setglobal(L, "cmsgpack");
  return 1;
}

}  // namespace lawnkv::scripting
