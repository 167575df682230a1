#include "scripting/conversions.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string>

#include "core/numbers.hpp"

namespace lawnkv::scripting {

namespace {

// ---- RESP -> Lua -----------------------------------------------------------

// The line after the type byte at p (without CRLF); *next is past its CRLF.
std::string_view line_at(std::string_view r, size_t p, size_t* next) {
  const size_t end = r.find("\r\n", p);
  *next = end + 2;
  return r.substr(p, end - p);
}

int64_t to_int(std::string_view s) {
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

void set_field(lua_State* L, const char* name) {  // t.name = top; pops it
  lua_pushstring(L, name);
  lua_insert(L, -2);
  lua_rawset(L, -3);
}

// One converter per RESP type byte. Each reads the element whose line
// starts at p (after the type byte), pushes its value, returns the offset
// past it.
using FromResp = size_t (*)(lua_State* L, std::string_view r, size_t p);

size_t push_at(lua_State* L, std::string_view r, size_t p);

size_t from_status(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const std::string_view s = line_at(r, p, &next);
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, s.data(), s.size());
  set_field(L, "ok");
  return next;
}

size_t from_error(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const std::string_view s = line_at(r, p - 1, &next);  // with its '-'
  push_error_table(L, s);
  mark_error_counted(L);
  return next;
}

// The digits read as they come (a server's own integer: an optional '-',
// then digits up to CR LF).
size_t from_integer(lua_State* L, std::string_view r, size_t p) {
  const bool negative = r[p] == '-';
  uint64_t v = 0;
  size_t i = p + (negative ? 1 : 0);
  for (; r[i] != '\r'; ++i) v = v * 10 + static_cast<uint64_t>(r[i] - '0');
  const int64_t n = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  lua_pushnumber(L, static_cast<lua_Number>(n));
  return i + 2;
}

size_t from_bulk(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const int64_t len = to_int(line_at(r, p, &next));
  if (len < 0) {
    lua_pushboolean(L, 0);
    return next;
  }
  lua_pushlstring(L, r.data() + next, static_cast<size_t>(len));
  return next + static_cast<size_t>(len) + 2;
}

size_t from_array(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const int64_t n = to_int(line_at(r, p, &next));
  if (n < 0) {
    lua_pushboolean(L, 0);
    return next;
  }
  lua_createtable(L, static_cast<int>(n), 0);
  for (int64_t i = 1; i <= n; ++i) {
    next = push_at(L, r, next);
    lua_rawseti(L, -2, static_cast<int>(i));
  }
  return next;
}

size_t from_map(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const int64_t n = to_int(line_at(r, p, &next));
  lua_createtable(L, 0, 1);
  lua_createtable(L, 0, static_cast<int>(n));
  for (int64_t i = 0; i < n; ++i) {
    next = push_at(L, r, next);
    next = push_at(L, r, next);
    if (lua_isnil(L, -2)) {
      lua_pop(L, 2);
    } else {
      lua_rawset(L, -3);
    }
  }
  set_field(L, "map");
  return next;
}

size_t from_set(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const int64_t n = to_int(line_at(r, p, &next));
  lua_createtable(L, 0, 1);
  lua_createtable(L, 0, static_cast<int>(n));
  for (int64_t i = 0; i < n; ++i) {
    next = push_at(L, r, next);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
  }
  set_field(L, "set");
  return next;
}

size_t from_null(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  line_at(r, p, &next);
  lua_pushnil(L);
  return next;
}

size_t from_boolean(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  lua_pushboolean(L, line_at(r, p, &next) == "t");
  return next;
}

size_t from_double(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const std::string text(line_at(r, p, &next));
  lua_createtable(L, 0, 1);
  lua_pushnumber(L, std::strtod(text.c_str(), nullptr));
  set_field(L, "double");
  return next;
}

size_t from_big_number(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const std::string_view s = line_at(r, p, &next);
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, s.data(), s.size());
  set_field(L, "big_number");
  return next;
}

size_t from_verbatim(lua_State* L, std::string_view r, size_t p) {
  size_t next;
  const int64_t len = to_int(line_at(r, p, &next));
  const std::string_view body = r.substr(next, static_cast<size_t>(len));  // "txt:..."
  lua_createtable(L, 0, 1);
  lua_createtable(L, 0, 2);
  lua_pushlstring(L, body.data() + 4, body.size() - 4);
  set_field(L, "string");
  lua_pushlstring(L, body.data(), 3);
  set_field(L, "format");
  set_field(L, "verbatim_string");
  return next + static_cast<size_t>(len) + 2;
}

struct FromRow {
  char type;
  FromResp convert;
};
constexpr FromRow kFromResp[] = {
    {'+', from_status}, {'-', from_error},  {':', from_integer},     {'$', from_bulk},
    {'*', from_array},  {'%', from_map},    {'~', from_set},         {'_', from_null},
    {'#', from_boolean}, {',', from_double}, {'(', from_big_number}, {'=', from_verbatim},
    {'>', from_array},
};

size_t push_at(lua_State* L, std::string_view r, size_t p) {
  if (!lua_checkstack(L, 4)) {
    // Nested past what a Lua stack holds: the rest of the reply is
    // skipped as nil (no server reply nests that deep).
    lua_pushnil(L);
    return r.size();
  }
  for (const FromRow& row : kFromResp) {
    if (r[p] == row.type) return row.convert(L, r, p + 1);
  }
  lua_pushnil(L);
  return r.size();
}

// ---- Lua -> RESP -----------------------------------------------------------

void write_top(lua_State* L, resp::Writer& w, int proto);

// t.name of the table on top, pushed; true when it has type want (else
// nothing is left pushed).
bool field_of(lua_State* L, const char* name, int want) {
  lua_pushstring(L, name);
  lua_rawget(L, -2);
  if (lua_type(L, -1) == want) return true;
  lua_pop(L, 1);
  return false;
}

std::string_view view_of(lua_State* L, int idx) {
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  return {s, len};
}

// The single-field tables, in Redis's order of checks. Each writes the
// reply when the table on top has its field (and leaves the stack as it
// found it), or returns false.
using ToResp = bool (*)(lua_State* L, resp::Writer& w, int proto);

bool to_error(lua_State* L, resp::Writer& w, int) {
  if (!field_of(L, "err", LUA_TSTRING)) return false;
  resp::ErrorObserver* observer = w.error_observer();
  if (error_counted(L, -2)) w.observe_errors(nullptr);
  w.error(view_of(L, -1));
  w.observe_errors(observer);
  lua_pop(L, 1);
  return true;
}

bool to_status(lua_State* L, resp::Writer& w, int) {
  if (!field_of(L, "ok", LUA_TSTRING)) return false;
  w.simple(view_of(L, -1));
  lua_pop(L, 1);
  return true;
}

bool to_double(lua_State* L, resp::Writer& w, int) {
  if (!field_of(L, "double", LUA_TNUMBER)) return false;
  w.dbl(lua_tonumber(L, -1));
  lua_pop(L, 1);
  return true;
}

bool to_big_number(lua_State* L, resp::Writer& w, int) {
  if (!field_of(L, "big_number", LUA_TSTRING)) return false;
  std::string digits(view_of(L, -1));
  for (char& c : digits) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  w.big_number(digits);
  lua_pop(L, 1);
  return true;
}

bool to_verbatim(lua_State* L, resp::Writer& w, int) {
  if (!field_of(L, "verbatim_string", LUA_TTABLE)) return false;
  bool done = false;
  if (field_of(L, "format", LUA_TSTRING)) {
    lua_pushstring(L, "string");
    lua_rawget(L, -3);  // the verbatim table, under its format
    if (lua_type(L, -1) == LUA_TSTRING) {
      w.verbatim(view_of(L, -1), view_of(L, -2).substr(0, 3));
      done = true;
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  return done;
}

// The number of keys of the table on top of the stack (a map's or a set's
// RESP3 length).
size_t entries_of_top(lua_State* L) {
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    ++n;
  }
  return n;
}

bool to_map(lua_State* L, resp::Writer& w, int proto) {
  if (!field_of(L, "map", LUA_TTABLE)) return false;
  w.map(entries_of_top(L));
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    write_top(L, w, proto);  // the key
    write_top(L, w, proto);  // the value
  }
  lua_pop(L, 1);
  return true;
}

bool to_set(lua_State* L, resp::Writer& w, int proto) {
  if (!field_of(L, "set", LUA_TTABLE)) return false;
  w.set(entries_of_top(L));
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    write_top(L, w, proto);
  }
  lua_pop(L, 1);
  return true;
}

constexpr ToResp kToResp[] = {to_error, to_status, to_double, to_big_number, to_verbatim, to_map, to_set};

// The length of the array on top: its items 1, 2, ... up to the first nil.
size_t array_length(lua_State* L) {
  size_t n = 0;
  for (;;) {
    lua_rawgeti(L, -1, static_cast<int>(n + 1));
    const bool nil = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (nil) return n;
    ++n;
  }
}

// Up to this many items, an array is checked for other keys by counting
// its keys (just_items) rather than by looking up each field of kToResp.
constexpr size_t kCountedArray = 8;

// Whether the table on top, whose items 1..n are not nil, has no other key
// (so none of the fields kToResp looks for).
bool just_items(lua_State* L, size_t n) {
  size_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    if (++count > n) {
      lua_pop(L, 1);
      return false;
    }
  }
  return true;
}

void write_items(lua_State* L, resp::Writer& w, int proto, size_t n) {
  w.array(n);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, -1, static_cast<int>(i));
    write_top(L, w, proto);
  }
}

// C's (long long) cast of a double as x86 does it: out of range and NaN
// give INT64_MIN.
int64_t truncate(lua_Number d) {
  if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(d);
}

void write_top(lua_State* L, resp::Writer& w, int proto) {
  if (!lua_checkstack(L, 4)) {
    w.error("ERR reached lua stack limit");
    lua_pop(L, 1);
    return;
  }
  switch (lua_type(L, -1)) {
    case LUA_TSTRING:
      w.bulk(view_of(L, -1));
      break;
    case LUA_TBOOLEAN:
      if (proto == 2) {
        if (lua_toboolean(L, -1)) {
          w.integer(1);
        } else {
          w.null();
        }
      } else {
        w.boolean(lua_toboolean(L, -1) != 0);
      }
      break;
    case LUA_TNUMBER:
      w.integer(truncate(lua_tonumber(L, -1)));
      break;
    case LUA_TTABLE: {
      const size_t n = array_length(L);
      bool done = n <= kCountedArray && just_items(L, n);
      if (done) write_items(L, w, proto, n);
      for (size_t i = 0; !done && i < std::size(kToResp); ++i) done = kToResp[i](L, w, proto);
      if (!done) write_items(L, w, proto, n);
      break;
    }
    default:
      w.null();
  }
  lua_pop(L, 1);
}

}  // namespace

size_t push_reply(lua_State* L, std::string_view reply) { return push_at(L, reply, 0); }

void push_error_table(lua_State* L, std::string_view text) {
  std::string_view code = "ERR", msg = text;
  if (!text.empty() && text[0] == '-') {
    const size_t space = text.find(' ');
    if (space == std::string_view::npos) {
      msg = text.substr(1);
    } else {
      code = text.substr(1, space - 1);
      msg = text.substr(space + 1);
    }
  }
  while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n')) msg.remove_suffix(1);
  while (!msg.empty() && (msg.front() == '\r' || msg.front() == '\n')) msg.remove_prefix(1);
  std::string full;
  full.reserve(code.size() + 1 + msg.size());
  full.append(code).append(" ").append(msg);
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, full.data(), full.size());
  set_field(L, "err");
}

void write_value(lua_State* L, resp::Writer& w, int script_protocol) { write_top(L, w, script_protocol); }

void mark_error_counted(lua_State* L) {
  lua_pushliteral(L, "ignore_error_stats_update");
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
}

bool error_counted(lua_State* L, int idx) {
  if (!lua_istable(L, idx)) return false;
  lua_pushliteral(L, "ignore_error_stats_update");
  lua_rawget(L, idx < 0 ? idx - 1 : idx);
  const bool yes = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  return yes;
}

}  // namespace lawnkv::scripting
