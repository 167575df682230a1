#pragma once
// The `cmsgpack` library of Redis's Lua (Salvatore Sanfilippo's
// lua-cmsgpack 0.4.0 as Redis 7.0 ships it): MessagePack for Lua values.
//
//   cmsgpack.pack(v1, v2, ...)          the values' encodings, concatenated
//   cmsgpack.unpack(s)                  every value in s
//   cmsgpack.unpack_one(s [, offset])   next offset (-1 at the end), value
//   cmsgpack.unpack_limit(s, n [, offset])  next offset, up to n values
//
// Encoding, as Redis's library chooses:
// - A number that a 64-bit integer holds exactly is the smallest MessagePack
//   integer (positive fixint, uint 8/16/32/64, negative fixint, int
//   8/16/32/64); any other number is a float 32 when converting it to float
//   and back gives it again (1.5, inf), a float 64 otherwise (0.1, NaN).
// - A string is fixstr / str 8 / str 16 / str 32 by length; true and false
//   are themselves; nil, functions, userdata and threads are nil.
// - A table whose keys are exactly 1..n (n >= 0: {} too) is an array, any
//   other a map in lua_next order. A table nested 16 deep (the 17th level)
//   is encoded as nil, which keeps cyclic tables finite.
// Decoding knows the formats above plus array/map 16/32; bin, ext, fixext
// and 0xc1 are "Bad data format in input.", a value cut short is "Missing
// bytes in input.". uint 64 values from 2^63 up come back negative (the
// library reads them into a signed integer); there is no nesting limit but
// the Lua stack's ("stack overflow (too many return values at once; ...)").
//
// The offsets of unpack_one and unpack_limit are 0-based byte positions.
// With a limit of 0 and offset 0, unpack_limit decodes everything and
// returns no offset, as unpack does.

#include <lua.hpp>

namespace lawnkv::scripting {

// A lua_CFunction: sets the global `cmsgpack` to a table with pack, unpack,
// unpack_one, unpack_limit and the library's _NAME, _VERSION, _COPYRIGHT
// and _DESCRIPTION, and returns it. Call it with lua_call, as Redis does, or
// directly.
int open_cmsgpack(lua_State* L);

}  // namespace lawnkv::scripting
