#pragma once
// Lua <-> RESP, both directions as Redis 7.0's script_lua.c does them, one
// table per direction (conversions.cpp).
//
// A command's reply -> the Lua value redis.call returns (the script's
// client speaks the protocol redis.setresp chose):
//   integer :n            number n
//   bulk $s               string s
//   null bulk, null array false (RESP2 both; RESP3's null is nil)
//   status +s             {ok=s}
//   error -CODE msg       {err="CODE msg"} (redis.call raises it)
//   array *n              table {v1, ..., vn}
//   RESP3: map %n {map={k=v,...}}, set ~n {set={m=true,...}}, null _ nil,
//   boolean #t/#f true/false, double ,d {double=d}, big number (s
//   {big_number=s}, verbatim =fmt:s {verbatim_string={format=fmt, string=s}}.
//
// The script's return value -> the client's reply:
//   string -> bulk; number -> integer (truncated toward zero, as C's cast;
//   NaN and out of range as x86's INT64_MIN); true -> :1 (RESP3 scripts:
//   boolean); false -> null (RESP3 scripts: boolean false); nil -> null;
//   table: {err=s} error, {ok=s} status, {double=n}, {big_number=s},
//   {verbatim_string={format,string}}, {map=t}, {set=t}, checked in that
//   order, else an array of t[1], t[2], ... up to the first nil.
//   Anything else (a function, userdata) -> null.

#include <cstddef>
#include <string_view>

extern "C" {
#include <lua.h>
}

#include "resp/writer.hpp"

namespace lawnkv::scripting {

// Pushes the Lua value of the complete RESP reply at the start of reply
// and returns how many bytes it took. reply must be well formed (a
// server's own reply). Needs no more than a few stack slots a level, and
// raises no Lua error (keys that would be nil are left out).
size_t push_reply(lua_State* L, std::string_view reply);

// Pushes Redis's error table for text: "-CODE msg" keeps its code, a text
// without '-' gets "ERR " in front; trailing CR/LF trimmed.
void push_error_table(lua_State* L, std::string_view text);

// Writes the value on top of the stack as a reply, and pops it.
// script_protocol is what redis.setresp chose (2 or 3).
void write_value(lua_State* L, resp::Writer& w, int script_protocol);

}  // namespace lawnkv::scripting
