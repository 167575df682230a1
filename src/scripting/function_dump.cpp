#include "scripting/function_dump.hpp"

#include <cstdint>

#include "persistence/crc64.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/rdb_input.hpp"
#include "persistence/rdb_output.hpp"

namespace lawnkv::scripting {

namespace {

constexpr size_t kFooter = 10;  // version (2) + CRC-64 (8)

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t get_le(std::string_view in, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(in[static_cast<size_t>(i)]);
  return v;
}

}  // namespace

std::string dump_libraries(const std::vector<std::string_view>& codes) {
  std::string out;
  {
    persistence::StringSink sink(out);
    persistence::RdbOutput rdb(sink, /*compress=*/true, /*checksum=*/false);
    for (std::string_view code : codes) {
      rdb.byte(persistence::rdb::kOpFunction2);
      rdb.string(code);
    }
    // finish() writes what is buffered, after an EOF opcode and a checksum
    // field that a payload does not have: they are cut off again.
    rdb.finish();
  }
  out.resize(out.size() - 9);
  put_le(out, persistence::rdb::kVersion, 2);
  put_le(out, persistence::crc64(0, out.data(), out.size()), 8);
  return out;
}

bool undump_libraries(std::string_view payload, std::vector<std::string>* codes, std::string* error) {
  if (payload.size() < kFooter) {
    *error = "DUMP payload version or checksum are wrong";
    return false;
  }
  const std::string_view footer = payload.substr(payload.size() - kFooter);
  const uint64_t version = get_le(footer, 2);
  const uint64_t crc = get_le(footer.substr(2), 8);
  if (version > static_cast<uint64_t>(persistence::rdb::kVersion) ||
      persistence::crc64(0, payload.data(), payload.size() - 8) != crc) {
    *error = "DUMP payload version or checksum are wrong";
    return false;
  }
  persistence::RdbInput in(payload.substr(0, payload.size() - kFooter));
  codes->clear();
  while (in.remaining() > 0) {
    uint8_t type = 0;
    if (!in.u8(&type)) {
      *error = "can not read data type";
      return false;
    }
    std::string code;
    if (type == persistence::rdb::kOpFunction2) {
      if (!in.string(&code)) {
        *error = "Failed loading library payload";
        return false;
      }
    } else if (type == persistence::rdb::kOpFunctionPreGa) {
      std::string name, engine, desc, blob;
      uint64_t has_desc = 0;
      if (!in.string(&name)) {
        *error = "Failed loading library name";
        return false;
      }
      if (!in.string(&engine)) {
        *error = "Failed loading engine name";
        return false;
      }
      if (!in.len(&has_desc)) {
        *error = "Failed loading library description indicator";
        return false;
      }
      if (has_desc && !in.string(&desc)) {
        *error = "Failed loading library description";
        return false;
      }
      if (!in.string(&blob)) {
        *error = "Failed loading library blob";
        return false;
      }
      code = "#!" + engine + " name=" + name + "\n" + blob;
    } else {
      *error = "given type is not a function";
      return false;
    }
    codes->push_back(std::move(code));
  }
  return true;
}

}  // namespace lawnkv::scripting
