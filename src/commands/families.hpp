#pragma once
// One registration function per command family (one file each); the server
// calls them all to build its command table.

#include "commands/table.hpp"

namespace lawnkv {

void register_connection_commands(CommandTable& t);   // connection.cpp
void register_transaction_commands(CommandTable& t);  // transactions.cpp
void register_string_commands(CommandTable& t);       // strings.cpp
void register_key_commands(CommandTable& t);          // keys.cpp
void register_expire_commands(CommandTable& t);       // expire.cpp
void register_server_commands(CommandTable& t);       // server.cpp, info.cpp, ...
void register_pubsub_commands(CommandTable& t);       // pubsub.cpp
void register_dehydrate_commands(CommandTable& t);    // dehydrate.cpp

inline void register_all_commands(CommandTable& t) {
  register_connection_commands(t);
  register_transaction_commands(t);
  register_string_commands(t);
  register_key_commands(t);
  register_expire_commands(t);
  register_server_commands(t);
  register_pubsub_commands(t);
  register_dehydrate_commands(t);
}

}  // namespace lawnkv
