#include "persistence/rdb_loader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "persistence/crc64.hpp"
#include "persistence/rdb_format.hpp"
#include "persistence/rdb_input.hpp"

namespace lawnkv::persistence {

// One pass over the file: opcodes and keys up to EOF, in as many calls of
// run() as its caller likes.
class Loader {
 public:
  Loader(std::string_view data, store::Keyspace& ks, const LoadOptions& opts, LoadResult& result)
      : data_(data), in_(data), ks_(ks), opts_(opts), result_(result) {}

  // Streamed (RdbStreamLoad): data holds the image from byte base on,
  // crc_before is the CRC-64 of the bytes before it; reading goes on at
  // pos (of data). The checksum is checked at the end, from the running CRC.
  void rebase(std::string_view data, size_t pos, uint64_t base, uint64_t crc_before) {
    streamed_ = true;
    data_ = data;
    base_ = base;
    crc_before_ = crc_before;
    in_.reset(data, pos, base);
  }
  // Streamed: back to the start of the record whose read failed (its bytes
  // were not all there yet); nothing of it was loaded.
  void rewind() {
    in_.reset(data_, checkpoint_, base_);
    if (checkpoint_ == 0 && base_ == 0) started_ = false;
  }
  // Where the record being read starts (of data): bytes before it are done.
  size_t checkpoint() const { return checkpoint_; }

  // Loads until the end (true: done) or an error (false); with enough,
  // asked after each key, until it says so (*more set, true returned).
  bool run(const std::function<bool()>& enough = nullptr, bool* more = nullptr) {
    if (more) *more = false;
    if (!started_) {
      started_ = true;
      if (!header() || !checksum()) return false;
    }
    int64_t& deadline = deadline_;
    while (true) {
      // Every record before this point is whole (a deadline read for the
      // next key is kept in deadline_).
      checkpoint_ = in_.offset();
      uint8_t op;
      if (!in_.u8(&op)) return false;
      switch (op) {
        case rdb::kOpEof:
          return trailer();
        case rdb::kOpExpireTimeMs:
          if (!in_.ms(&deadline)) return false;
          if (deadline < 0) return in_.fail("negative expire time");
          continue;
        case rdb::kOpExpireTime: {
          uint32_t secs;
          if (!in_.u32le(&secs)) return false;
          deadline = int64_t{secs} * 1000;
          continue;
        }
        case rdb::kOpSelectDb: {
          uint64_t n;
          if (!in_.len(&n)) return false;
          if (n >= static_cast<uint64_t>(ks_.databases()))
            return in_.fail("db " + std::to_string(n) + " is past the " + std::to_string(ks_.databases()) +
                            " databases configured");
          db_ = static_cast<int>(n);
          continue;
        }
        case rdb::kOpResizeDb: {
          uint64_t keys, expires;
          if (!in_.len(&keys) || !in_.len(&expires)) return false;
          continue;
        }
        case rdb::kOpAux: {
          std::string name, value;
          if (!in_.string(&name) || !in_.string(&value)) return false;
          continue;
        }
        case rdb::kOpIdle: {
          uint64_t idle;
          if (!in_.len(&idle)) return false;
          continue;
        }
        case rdb::kOpFreq: {
          uint8_t freq;
          if (!in_.u8(&freq)) return false;
          continue;
        }
        case rdb::kOpSlotInfo: {
          uint64_t slot, size, expires;
          if (!in_.len(&slot) || !in_.len(&size) || !in_.len(&expires)) return false;
          continue;
        }
        case rdb::kOpModuleAux:
          return in_.fail("module auxiliary data: no module is loaded in lawnkv");
        case rdb::kOpFunction2: {
          std::string code;
          if (!in_.string(&code)) return false;
          result_.functions.push_back(std::move(code));
          continue;
        }
        case rdb::kOpFunctionPreGa: {
          std::string name, engine, desc, blob;
          uint64_t has_desc = 0;
          if (!in_.string(&name) || !in_.string(&engine) || !in_.len(&has_desc)) return false;
          if (has_desc && !in_.string(&desc)) return false;
          if (!in_.string(&blob)) return false;
          result_.functions.push_back("#!" + engine + " name=" + name + "\n" + blob);
          continue;
        }
        default:
          if (op > rdb::kLastType) return in_.fail("unknown opcode " + std::to_string(op));
          if (!key(op, deadline)) return false;
          deadline = -1;
          if (enough && enough()) {
            *more = true;
            return true;
          }
      }
    }
  }

  size_t offset() const { return in_.offset(); }

 private:
  bool header() {
    std::string_view magic;
    if (!in_.bytes(9, &magic)) return in_.fail("not an RDB file (too short)");
    if (magic.substr(0, 5) != "REDIS") return in_.fail("not an RDB file (no REDIS signature)");
    int version = 0;
    for (char c : magic.substr(5)) {
      if (c < '0' || c > '9') return in_.fail("not an RDB file (bad version digits)");
      version = version * 10 + (c - '0');
    }
    if (version < 1 || version > rdb::kMaxVersion)
      return in_.fail("can't handle RDB format version " + std::to_string(version));
    result_.version = version;
    return true;
  }

  // From version 5 the file ends with the CRC-64 of all before it; 0 means
  // it was written without one.
  bool checksum() {
    // With trailing bytes, or streamed, the checksum is found after EOF
    // (trailer()).
    if (streamed_ || opts_.allow_trailing || result_.version < 5 || !opts_.verify_checksum || data_.size() < 17) return true;
    const std::string_view tail = data_.substr(data_.size() - 8);
    uint64_t stored = 0;
    for (size_t i = 8; i-- > 0;) stored = (stored << 8) | static_cast<uint8_t>(tail[i]);
    if (stored == 0) return true;
    if (crc64(0, data_.data(), data_.size() - 8) != stored)
      return in_.fail("wrong RDB checksum (file ends at " + std::to_string(data_.size()) + ")");
    return true;
  }

  bool trailer() {
    const size_t want = result_.version >= 5 ? 8 : 0;
    if (in_.remaining() < want) return in_.fail("unexpected end of file in the checksum");
    if (!opts_.allow_trailing) {
      if (in_.remaining() > want) return in_.fail("bytes after the end of the RDB data");
      if (!streamed_) return true;
    }
    const size_t covered = in_.offset();
    std::string_view tail;
    if (!in_.bytes(want, &tail)) return false;
    result_.end = in_.offset();
    if (want == 0 || !opts_.verify_checksum) return true;
    uint64_t stored = 0;
    for (size_t i = 8; i-- > 0;) stored = (stored << 8) | static_cast<uint8_t>(tail[i]);
    if (stored != 0 && crc64(crc_before_, data_.data(), covered) != stored) return in_.fail("wrong RDB checksum");
    return true;
  }

  bool key(uint8_t type, int64_t deadline) {
    std::string name;
    if (!in_.string(&name)) return false;
    LoadedValue value;
    std::string str;
    if (type == rdb::kTypeString) {
      if (!in_.string(&str)) return false;
    } else {
      const TypeCodec* c = codec_for_rdb(type);
      if (!c)
        return in_.fail("key '" + printable(name) + "' (db " + std::to_string(db_) + ") has type " +
                        std::string(rdb::type_name(type)) + " (RDB type " + std::to_string(type) +
                        "), which lawnkv does not serve");
      if (!c->load(in_, type, opts_.values, value)) {
        context_ = "key '" + printable(name) + "' (db " + std::to_string(db_) + "): ";
        return in_.fail("corrupt value");  // unless the codec gave its reason
      }
      if (!value.obj) return true;  // empty, or every part expired
    }
    if (deadline >= 0 && deadline < opts_.values.now_ms) {
      ++result_.keys_expired;
      return true;
    }
    store::Db& db = ks_.db(db_);
    if (db.peek(name)) return in_.fail("duplicate key '" + printable(name) + "' (db " + std::to_string(db_) + ")");
    const bool timed = deadline >= 0;
    store::EntryPtr e = value.obj ? store::Entry::make_object(name, std::move(value.obj), timed)
                                  : store::Entry::make_string(name, str, timed);
    db.attach(std::move(e), deadline);
    ++result_.keys_loaded;
    return true;
  }

  // A key name for a message: printable ASCII kept, the rest as \xNN, cut
  // at 128 bytes.
  static std::string printable(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size() && i < 128; ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 32 && c < 127 && c != '\'' && c != '\\') {
        out.push_back(static_cast<char>(c));
      } else {
        char buf[5];
        std::snprintf(buf, sizeof(buf), "\\x%02x", c);
        out += buf;
      }
    }
    return out;
  }

  std::string_view data_;
  RdbInput in_;
  store::Keyspace& ks_;
  const LoadOptions& opts_;
  LoadResult& result_;
  int db_ = 0;
  bool started_ = false;
  bool streamed_ = false;
  uint64_t base_ = 0;        // streamed: where data_ starts in the image
  uint64_t crc_before_ = 0;  // streamed: the CRC-64 of the image before data_
  size_t checkpoint_ = 0;    // of data_: where the record being read starts
  int64_t deadline_ = -1;  // the deadline read for the next key
  std::string context_;    // the key whose value failed to load

 public:
  std::string error() const { return context_ + in_.error(); }
};

RdbLoad::RdbLoad(std::string data, store::Keyspace& ks, LoadOptions opts)
    : data_(std::move(data)), opts_(std::move(opts)), loader_(std::make_unique<Loader>(data_, ks, opts_, result_)) {}

RdbLoad::~RdbLoad() = default;

RdbLoad::Step RdbLoad::step(const std::function<bool()>& enough) {
  if (state_ != Step::kMore) return state_;
  bool more = false;
  if (!loader_->run(enough, &more)) {
    result_.error = "Bad RDB file: " + loader_->error();
    return state_ = Step::kFailed;
  }
  return state_ = more ? Step::kMore : Step::kDone;
}

size_t RdbLoad::loaded_bytes() const { return loader_->offset(); }

RdbStreamLoad::RdbStreamLoad(store::Keyspace& ks, LoadOptions opts)
    : opts_(std::move(opts)), loader_(std::make_unique<Loader>(std::string_view(), ks, opts_, result_)) {}

RdbStreamLoad::~RdbStreamLoad() = default;

void RdbStreamLoad::feed(std::string_view bytes) { buf_.append(bytes); }

void RdbStreamLoad::compact() {
  // Moving the rest down costs what is left: only once the parsed part is
  // large, and at least half the buffer.
  if (done_ < (1u << 20) || done_ < buf_.size() / 2) return;
  crc_ = crc64(crc_, buf_.data(), done_);
  base_ += done_;
  buf_.erase(0, done_);
  done_ = 0;
}

RdbStreamLoad::Step RdbStreamLoad::step(const std::function<bool()>& enough) {
  if (state_ != Step::kMore && state_ != Step::kStarved) return state_;
  const auto fail = [&](std::string why) {
    result_.error = "Bad RDB file: " + std::move(why);
    return state_ = Step::kFailed;
  };
  if (ended_) {
    if (buffered() > 0) return fail("bytes after the end of the RDB data at offset " + std::to_string(loaded_bytes()));
    return state_ = complete_ ? Step::kDone : Step::kStarved;
  }
  if (!complete_ && buffered() < retry_at_) return state_ = Step::kStarved;
  loader_->rebase(std::string_view(buf_), done_, base_, crc_);
  bool more = false;
  const bool ok = loader_->run(enough, &more);
  if (ok) {
    done_ = loader_->offset();  // after a whole key, or the end
    retry_at_ = 0;
    ended_ = !more;
    compact();
    if (more) return state_ = Step::kMore;
    return step(enough);  // the end: nothing may follow
  }
  if (complete_) return fail(loader_->error());
  // The record's bytes were not all there: again once twice as many are.
  loader_->rewind();
  done_ = loader_->checkpoint();
  retry_at_ = 2 * buffered() + 1;
  compact();
  return state_ = Step::kStarved;
}

LoadResult load_rdb(std::string_view data, store::Keyspace& ks, const LoadOptions& opts) {
  LoadResult result;
  Loader loader(data, ks, opts, result);
  if (!loader.run()) result.error = "Bad RDB file: " + loader.error();
  return result;
}

std::string read_rdb_file(const std::string& path, std::string* data, bool* missing) {
  *missing = false;
  data->clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) *missing = true;
    return *missing ? "" : "Fatal error loading the DB (" + path + "): " + std::strerror(errno);
  }
  std::string error;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = "Fatal error reading the DB (" + path + "): " + std::strerror(errno);
    if (n <= 0) break;
    data->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return error;
}

LoadResult load_rdb_file(const std::string& path, store::Keyspace& ks, const LoadOptions& opts, bool* missing) {
  LoadResult r;
  std::string data;
  r.error = read_rdb_file(path, &data, missing);
  if (!r.ok() || *missing) return r;
  return load_rdb(data, ks, opts);
}

void move_keys(store::Keyspace& from, store::Keyspace& to) {
  for (int i = 0; i < from.databases() && i < to.databases(); ++i) {
    store::Db& src = from.db(i);
    std::vector<store::Entry*> all;
    all.reserve(src.size());
    src.dict().for_each([&](const store::Entry& e) { all.push_back(const_cast<store::Entry*>(&e)); });
    for (store::Entry* e : all) {
      const int64_t deadline = e->has_ttl() ? e->deadline() : -1;
      store::EntryPtr taken = src.detach(e->key());
      to.db(i).attach(std::move(taken), deadline);
    }
  }
}

}  // namespace lawnkv::persistence
