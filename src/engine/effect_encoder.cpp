#include "engine/effect_encoder.hpp"

#include "core/numbers.hpp"

namespace lawnkv {

namespace {

void put_header(std::string& out, char type, size_t n) {
  char buf[24];
  buf[0] = type;
  size_t len = 1 + ll_to_chars(buf + 1, static_cast<long long>(n));
  buf[len++] = '\r';
  buf[len++] = '\n';
  out.append(buf, len);
}

bool single_del(const EffectRecord& r) { return r.argv.size() == 2 && r.argv[0] == "DEL"; }

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

void EffectEncoder::select(int db, std::string& out) {
  if (db == selected_db_) return;
  const std::string select[] = {"SELECT", std::to_string(db)};
  put_command(out, select);
  selected_db_ = db;
}

void EffectEncoder::encode(std::span<const EffectRecord> records, std::string& out) {
  static const std::string kMulti[] = {"MULTI"};
  static const std::string kExec[] = {"EXEC"};
  if (records.size() > 1) put_command(out, kMulti);
  for (const EffectRecord& r : records) {
    select(r.db, out);
    put_command(out, r.argv);
  }
  if (records.size() > 1) put_command(out, kExec);
}

void EffectEncoder::encode_each(std::span<const EffectRecord> records, std::string& out) {
  size_t i = 0;
  while (i < records.size()) {
    const EffectRecord& r = records[i];
    select(r.db, out);
    if (!single_del(r)) {
      put_command(out, r.argv);
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < records.size() && end - i < kMaxJoinedKeys && records[end].db == r.db && single_del(records[end]))
      ++end;
    put_header(out, '*', 1 + (end - i));
    put_bulk(out, "DEL");
    for (; i < end; ++i) put_bulk(out, records[i].argv[1]);
  }
}

}  // namespace lawnkv
