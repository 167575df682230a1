#pragma once
// The server command family, one idea per file. register_server_commands
// (server_family.cpp) calls the register function of each file; the helpers below
// are shared by them.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "engine/context.hpp"

namespace lawnkv {

void register_info_command(CommandTable& t);     // info.cpp: INFO
void register_config_command(CommandTable& t);   // config_command.cpp: CONFIG
void register_command_command(CommandTable& t);  // command_command.cpp: COMMAND
void register_debug_command(CommandTable& t);    // debug.cpp: DEBUG
void register_memory_command(CommandTable& t);   // memory.cpp: MEMORY
void register_module_command(CommandTable& t);   // module_command.cpp: MODULE LIST

// Redis's HELP reply: "<NAME> <subcommand> [<arg> [value] [opt] ...].
// Subcommands are:", the lines, then "HELP" / "    Prints this help.", each
// a simple string.
void reply_help(Call& call, std::string_view name, std::initializer_list<std::string_view> lines);

// Redis's addReplySubcommandSyntaxError: err::kSubcommandSyntax for
// argv[1] under argv[0] in upper case (a subcommand given arguments its
// arity allows but it does not take).
void reply_subcommand_syntax_error(Call& call);

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

}  // namespace lawnkv
