#pragma once
// FUNCTION DUMP's payload, as Redis 7.0 writes it: for each library the
// opcode RDB_OPCODE_FUNCTION2 (245) and its code as an RDB string (LZF
// when that is shorter, as rdbSaveRawString), then the RDB version (10) in
// 2 bytes and the CRC-64 of everything before in 8, both little endian;
// the footer of DUMP's key payloads. dump.rdb holds the same records.

#include <string>
#include <string_view>
#include <vector>

namespace lawnkv::scripting {

std::string dump_libraries(const std::vector<std::string_view>& codes);

// The library codes of payload, or false with Redis's error text (without
// its code): a wrong footer, a record that is not a function. Payloads of
// Redis 7.0 release candidates (opcode 246, name and engine apart) are
// turned into the same "#!<engine> name=<name>\n<code>" form.
bool undump_libraries(std::string_view payload, std::vector<std::string>* codes, std::string* error);

}  // namespace lawnkv::scripting
