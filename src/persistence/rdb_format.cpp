#include "persistence/rdb_format.hpp"

namespace lawnkv::persistence::rdb {

std::string_view type_name(uint8_t type) {
  switch (type) {
    case kTypeString:
      return "string";
    case kTypeList:
    case kTypeListZiplist:
    case kTypeListQuicklist:
    case kTypeListQuicklist2:
      return "list";
    case kTypeSet:
    case kTypeSetIntset:
    case kTypeSetListpack:
      return "set";
    case kTypeZSet:
    case kTypeZSet2:
    case kTypeZSetZiplist:
    case kTypeZSetListpack:
      return "zset";
    case kTypeHash:
    case kTypeHashZipmap:
    case kTypeHashZiplist:
    case kTypeHashListpack:
    case kTypeHashMetadataPreGa:
    case kTypeHashListpackExPreGa:
    case kTypeHashMetadata:
    case kTypeHashListpackEx:
      return "hash";
    case kTypeModulePreGa:
    case kTypeModule2:
      return "module";
    case kTypeStreamListpacks:
    case kTypeStreamListpacks2:
    case kTypeStreamListpacks3:
      return "stream";
    default:
      return "unknown";
  }
}

}  // namespace lawnkv::persistence::rdb
