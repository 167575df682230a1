#include "engine/effect_encoder.hpp"

namespace lawnkv {

namespace {

void put_header(std::string& out, char type, size_t n) {
  out += type;
  out += std::to_string(n);
  out += "\r\n";
}

void put_bulk(std::string& out, std::string_view arg) {
  put_header(out, '$', arg.size());
  out.append(arg);
  out += "\r\n";
}

}  // namespace

void EffectEncoder::put_command(std::string& out, std::span<const std::string> argv) {
  put_header(out, '*', argv.size());
  for (const std::string& a : argv) put_bulk(out, a);
}

void EffectEncoder::encode(std::span<const EffectRecord> records, std::string& out) {
  static const std::string kMulti[] = {"MULTI"};
  static const std::string kExec[] = {"EXEC"};
  if (records.size() > 1) put_command(out, kMulti);
  for (const EffectRecord& r : records) {
    if (r.db != selected_db_) {
      const std::string select[] = {"SELECT", std::to_string(r.db)};
      put_command(out, select);
      selected_db_ = r.db;
    }
    put_command(out, r.argv);
  }
  if (records.size() > 1) put_command(out, kExec);
}

}  // namespace lawnkv
