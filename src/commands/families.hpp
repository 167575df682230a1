#pragma once
// One registration function per command family (one file each); the server
// calls them all to build its command table.

#include "engine/table.hpp"

namespace lawnkv {

void register_connection_commands(CommandTable& t);   // connection_family.cpp
void register_acl_commands(CommandTable& t);          // acl_family.cpp
void register_cluster_connection_commands(CommandTable& t);  // cluster_connection.cpp
void register_transaction_commands(CommandTable& t);  // transactions_family.cpp
void register_string_commands(CommandTable& t);       // strings_family.cpp
void register_bit_commands(CommandTable& t);          // bits_family.cpp
void register_hyperloglog_commands(CommandTable& t);  // hyperloglog_family.cpp
void register_lcs_command(CommandTable& t);           // lcs_command.cpp
void register_lolwut_command(CommandTable& t);        // lolwut_command.cpp
void register_key_commands(CommandTable& t);          // keys_family.cpp
void register_object_commands(CommandTable& t);       // object_command.cpp
void register_dump_restore_commands(CommandTable& t); // dump_restore.cpp
void register_sort_commands(CommandTable& t);         // sort_command.cpp
void register_migrate_command(CommandTable& t);       // migrate_command.cpp
void register_slowlog_commands(CommandTable& t);      // slowlog_family.cpp: SLOWLOG, LATENCY
void register_monitor_command(CommandTable& t);       // monitor_command.cpp
void register_expire_commands(CommandTable& t);       // expire_family.cpp
void register_server_commands(CommandTable& t);       // server_family.cpp, info.cpp, ...
void register_pubsub_commands(CommandTable& t);       // pubsub_family.cpp
void register_dehydrate_commands(CommandTable& t);    // dehydrator_family.cpp
void register_hash_commands(CommandTable& t);         // hashes_family.cpp
void register_hash_ttl_commands(CommandTable& t);     // hash_ttl_family.cpp
void register_set_commands(CommandTable& t);          // sets_family.cpp
void register_zset_commands(CommandTable& t);         // zsets_family.cpp, zsets_ranges.cpp, zsets_algebra.cpp
void register_geo_commands(CommandTable& t);          // geo_family.cpp, geo_search.cpp
void register_list_commands(CommandTable& t);         // lists_family.cpp
void register_stream_commands(CommandTable& t);       // streams_family.cpp
void register_stream_group_commands(CommandTable& t); // streams_groups_family.cpp
void register_stream_claim_commands(CommandTable& t); // streams_claims.cpp
void register_stream_info_commands(CommandTable& t);  // streams_info.cpp
void register_scripting_commands(CommandTable& t);    // scripting_family.cpp
void register_function_commands(CommandTable& t);     // functions_family.cpp
void register_replication_commands(CommandTable& t);  // replication_family.cpp
void register_replicaof_commands(CommandTable& t);    // replicaof_command.cpp
void register_failover_commands(CommandTable& t);     // failover_command.cpp

inline void register_all_commands(CommandTable& t) {
  register_connection_commands(t);
  register_acl_commands(t);
  register_cluster_connection_commands(t);
  register_transaction_commands(t);
  register_string_commands(t);
  register_bit_commands(t);
  register_hyperloglog_commands(t);
  register_lcs_command(t);
  register_lolwut_command(t);
  register_key_commands(t);
  register_object_commands(t);
  register_dump_restore_commands(t);
  register_sort_commands(t);
  register_migrate_command(t);
  register_slowlog_commands(t);
  register_monitor_command(t);
  register_expire_commands(t);
  register_server_commands(t);
  register_pubsub_commands(t);
  register_dehydrate_commands(t);
  register_hash_commands(t);
  register_hash_ttl_commands(t);
  register_set_commands(t);
  register_zset_commands(t);
  register_geo_commands(t);
  register_list_commands(t);
  register_stream_commands(t);
  register_stream_group_commands(t);
  register_stream_claim_commands(t);
  register_stream_info_commands(t);
  register_scripting_commands(t);
  register_function_commands(t);
  register_replication_commands(t);
  register_replicaof_commands(t);
  register_failover_commands(t);
}

}  // namespace lawnkv
