#pragma once
// The server command family, one idea per file. register_server_commands
// (server_family.cpp) calls the register function of each file; the helpers below
// are shared by them.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "commands/context.hpp"

namespace lawnkv {

void register_info_command(CommandTable& t);     // info.cpp: INFO
void register_config_command(CommandTable& t);   // config_command.cpp: CONFIG
void register_command_command(CommandTable& t);  // command_command.cpp: COMMAND
void register_debug_command(CommandTable& t);    // debug.cpp: DEBUG
void register_memory_command(CommandTable& t);   // memory.cpp: MEMORY

// A row of this family (key positions only where a command has keys).
CommandSpec server_row(std::string name, int arity, uint32_t flags, Handler h, std::string acl,
                       int first_key = 0, int last_key = 0, int key_step = 0);

// Redis's HELP reply: "<NAME> <subcommand> [<arg> [value] [opt] ...].
// Subcommands are:", the lines, then "HELP" / "    Prints this help.", each
// a simple string.
void reply_help(Call& call, std::string_view name, std::initializer_list<std::string_view> lines);

// Redis's bytesToHuman: 1023 -> "1023B", 1138320 -> "1.09M".
std::string bytes_to_human(uint64_t n);

// Memory facts for INFO memory and MEMORY STATS.
// Bytes held in clients' input and output buffers.
uint64_t client_buffer_bytes(const ServerState& server);
// Bytes the expiry indexes of all databases hold.
uint64_t expiry_index_bytes(const ServerState& server);
// MEMORY USAGE of one key: its entry, key and value bytes plus its slot in
// the dictionary.
uint64_t entry_bytes(const store::Entry& e);

// What COMMAND reports that the table rows do not carry. Our own words for
// the docs; tips and key-spec flags as Redis 7.0 reports them.
struct CommandMeta {
  std::string_view name;        // "get", "config|get"
  std::string_view group;       // Redis's command group: "string", "server"...
  std::string_view since;       // the Redis version that introduced it (lawnkv's own: 0.1.0)
  std::string_view complexity;
  std::string_view summary;
  std::string_view tips = {};       // space separated: "nondeterministic_output ..."
  std::string_view key_flags = {};  // per key spec, ';' separated: "RW access delete;OW update"
  std::string_view key_notes = {};  // per key spec, ';' separated; Redis's text, as its replies carry it
};
// The facts for a full command name, or nullptr (COMMAND then derives them).
const CommandMeta* command_meta(std::string_view fullname);

}  // namespace lawnkv
