#include "persistence/rdb_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "persistence/rdb_format.hpp"
#include "persistence/value_codecs.hpp"

namespace lawnkv::persistence {

int rdb_version_for(const store::Keyspace& ks) {
  int version = rdb::kVersion;
  for (int i = 0; i < ks.databases(); ++i) {
    ks.db(i).dict().for_each([&](const store::Entry& e) {
      const store::Object* obj = e.obj();
      if (!obj) return;
      const TypeCodec* c = codec_for(obj->type());
      if (c && c->version) version = std::max(version, c->version(*obj));
    });
  }
  return version;
}

namespace {

// e's value, by its codec c (nullptr for a string).
void write_value(RdbOutput& out, const store::Entry& e, const TypeCodec* c) {
  if (c) c->save(out, *e.obj());
  else out.string(e.str());
}

// Keeps nothing: what went through it is counted by RdbOutput::written.
class NullSink final : public Sink {
 public:
  bool write(std::string_view) override { return true; }
};

}  // namespace

uint64_t saved_value_length(const store::Entry& e, bool compress) {
  const store::Object* obj = e.obj();
  const TypeCodec* c = obj ? codec_for(obj->type()) : nullptr;
  if (obj && !c) return 0;
  NullSink sink;
  RdbOutput out(sink, compress, false);
  write_value(out, e, c);
  return out.written();
}

bool write_rdb(const store::Keyspace& ks, RdbOutput& out, const SaveOptions& opts, std::string* why) {
  // A value of a type without a codec stops the save: a file without it
  // would lose data silently.
  std::string missing;
  out.header(rdb_version_for(ks));
  out.aux("redis-ver", "7.0.15");
  out.aux("redis-bits", sizeof(void*) == 8 ? "64" : "32");
  out.aux("ctime", std::to_string(opts.now_ms / 1000));
  out.aux("used-mem", std::to_string(opts.used_memory));
  out.aux("aof-base", "0");
  for (const std::string& code : opts.functions) {
    out.byte(rdb::kOpFunction2);
    out.string(code);
  }
  for (int i = 0; i < ks.databases(); ++i) {
    const store::Db& db = ks.db(i);
    if (db.size() == 0) continue;
    out.byte(rdb::kOpSelectDb);
    out.len(static_cast<uint64_t>(i));
    out.byte(rdb::kOpResizeDb);
    out.len(db.size());
    out.len(db.expires());
    db.dict().for_each([&](const store::Entry& e) {
      if (!out.ok() || !missing.empty()) return;
      const store::Object* obj = e.obj();
      const TypeCodec* c = obj ? codec_for(obj->type()) : nullptr;
      if (obj && !c) {
        missing = std::string(e.key());
        return;
      }
      if (e.has_ttl()) {
        out.byte(rdb::kOpExpireTimeMs);
        out.ms(e.deadline());
      }
      out.byte(obj ? c->save_type(*obj) : rdb::kTypeString);
      out.string(e.key());
      write_value(out, e, c);
    });
  }
  if (!missing.empty()) {
    if (why) *why = "no RDB form for the type of key '" + missing + "'";
    return false;
  }
  const bool ok = out.finish();
  if (!ok && why) *why = "write error";
  return ok;
}

std::string join_path(const std::string& dir, const std::string& file) {
  if (dir.empty()) return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

std::string save_rdb_file(const store::Keyspace& ks, const std::string& path, const SaveOptions& opts) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string temp = dir + "temp-" + std::to_string(getpid()) + ".rdb";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "Failed opening the temp RDB file " + temp + " (in server root dir): " + std::strerror(errno);
  FdSink sink(fd);
  RdbOutput out(sink, opts.compress, opts.checksum);
  std::string error, why;
  if (!write_rdb(ks, out, opts, &why))
    error = sink.error() ? std::string("Write error saving DB on disk: ") + std::strerror(sink.error())
                         : "Error saving DB on disk: " + why;
  else if (::fsync(fd) != 0) error = std::string("fsync of the RDB file failed: ") + std::strerror(errno);
  if (::close(fd) != 0 && error.empty()) error = std::string("close of the RDB file failed: ") + std::strerror(errno);
  if (error.empty() && std::rename(temp.c_str(), path.c_str()) != 0)
    error = "Error moving temp DB file " + temp + " on the final destination " + path + ": " + std::strerror(errno);
  if (!error.empty()) ::unlink(temp.c_str());
  return error;
}

}  // namespace lawnkv::persistence
