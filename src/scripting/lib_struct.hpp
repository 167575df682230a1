#pragma once
// The `struct` library of Redis's Lua (Roberto Ierusalimschy's struct.c as
// Redis 7.0 ships it): struct.pack, struct.unpack and struct.size convert
// between Lua values and binary strings described by a format.
//
//   >  <        big / little endian from here on (native, little, at start)
//   ![n]        align items to min(size, n) bytes; n a power of 2, default 8
//   x           one zero byte (pack), one skipped byte (unpack)
//   b B h H     signed / unsigned char and short (1, 2 bytes)
//   l L T       signed / unsigned long, size_t (8 bytes)
//   i[n] I[n]   signed / unsigned integer of n bytes (default 4, at most 32)
//   f d         float, double
//   s           zero-terminated string
//   c[n]        n bytes (default 1); pack c0: the whole string; unpack c0:
//               as many bytes as the previous value says
//   ' '         ignored
//
//   struct.pack('>I2c0', 5, 'hello')          "\0\5hello"
//   struct.unpack('>I2', '\0\5hello')         5, 3   (values, next position)
//   struct.unpack('>I2c0', '\0\5hello')       'hello', 8
//   struct.unpack('b', 'xyz', 2)              121, 3 (optional start position)
//   struct.size('!4bi')                       8
//
// Quirks kept on purpose, since scripts see them: numbers are C doubles cast
// to 64-bit integers as x86-64 does (struct.pack('<L', 2^64) is eight zero
// bytes); integers wider than 8 bytes pack their value zero-extended and
// unpack only their low 8 bytes; '=' is not a format option; struct.size
// ignores unknown letters; pack's "string too short" names the argument
// after the short one; the error texts are the library's.

#include <lua.hpp>

namespace lawnkv::scripting {

// A lua_CFunction: sets the global `struct` (and package.loaded.struct when
// the package library is open) to a table with pack, unpack and size, and
// returns it. Call it with lua_call, as Redis does, or directly.
int open_struct(lua_State* L);

}  // namespace lawnkv::scripting
