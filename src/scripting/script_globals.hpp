#pragma once
// KEYS and ARGV of an EVAL script: globals of its state, set before each run.
//
// Redis builds two new tables for every run. Here the tables of the last
// run are refilled when the script left them as it got them: no
// metatable, and exactly the keys 1..n in that order when traversed (the
// order of a new table's array), with n the count of this run. A script
// that set a field, removed one, grew the table or gave it a metatable
// gets new tables next time, so no run can see what an earlier one did.
// Nothing an EVAL script can write outlives its run (the globals and the
// libraries are read-only, sandbox.hpp), so no other reference to the old
// tables can see them refilled. FCALL passes its keys and arguments as
// arguments, which a library may keep: those are always new tables.

#include <span>
#include <string_view>

extern "C" {
#include <lua.h>
}

namespace lawnkv::scripting {

class Interpreter;

// Sets the globals KEYS and ARGV of in's state to arrays of keys and
// args, in the direct environment too (sandbox.hpp). The interpreter keeps
// the two tables by registry reference, so a run finds them without a
// lookup by name.
void set_keys_and_argv(Interpreter& in, std::span<const std::string_view> keys,
                       std::span<const std::string_view> args);

// Pushes a new array of the strings of items.
void push_string_array(lua_State* L, std::span<const std::string_view> items);

}  // namespace lawnkv::scripting
