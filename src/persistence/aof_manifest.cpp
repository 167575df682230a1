#include "persistence/aof_manifest.hpp"

#include <algorithm>

#include "core/numbers.hpp"
#include "core/split_args.hpp"

namespace lawnkv::persistence {

const AofManifest::File* AofManifest::base() const {
  for (const File& f : files)
    if (f.type == 'b') return &f;
  return nullptr;
}

int64_t AofManifest::last_incr_seq() const {
  int64_t seq = 0;
  for (const File& f : files)
    if (f.type == 'i') seq = std::max(seq, f.seq);
  return seq;
}

int64_t AofManifest::base_seq() const {
  const File* b = base();
  return b ? b->seq : 0;
}

std::string AofManifest::to_text() const {
  std::string out;
  for (const File& f : files) {
    const bool plain = !f.name.empty() && std::all_of(f.name.begin(), f.name.end(), [](char c) {
      return c > 0x20 && c < 0x7f && c != '"' && c != '\'' && c != '\\';
    });
    out += "file " + (plain ? f.name : repr_quoted(f.name)) + " seq " + std::to_string(f.seq) + " type ";
    out += f.type;
    out += '\n';
  }
  return out;
}

bool AofManifest::parse(std::string_view text, AofManifest* out, std::string* error) {
  out->files.clear();
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    const auto words = split_args(line);
    auto fail = [&](const std::string& why) {
      *error = "Invalid AOF manifest file format (line " + std::to_string(line_no) + "): " + why;
      return false;
    };
    if (!words || words->size() % 2 != 0) return fail("unbalanced quotes or an odd number of words");
    File f;
    bool has_name = false, has_seq = false, has_type = false;
    for (size_t i = 0; i < words->size(); i += 2) {
      const std::string& k = (*words)[i];
      const std::string& v = (*words)[i + 1];
      if (k == "file") {
        if (v.empty() || v.find('/') != std::string::npos) return fail("a file name must be a plain name");
        f.name = v;
        has_name = true;
      } else if (k == "seq") {
        long long seq;
        if (!string_to_ll(v, &seq) || seq < 1) return fail("seq must be a positive integer");
        f.seq = seq;
        has_seq = true;
      } else if (k == "type") {
        if (v.size() != 1 || (v[0] != 'b' && v[0] != 'i' && v[0] != 'h')) return fail("type must be b, i or h");
        f.type = v[0];
        has_type = true;
      }
      // Other keys (Redis may add some) are ignored.
    }
    if (!has_name || !has_seq || !has_type) return fail("a line needs file, seq and type");
    if (f.type == 'h') continue;
    if (f.type == 'b' && out->base() != nullptr) return fail("more than one base file");
    out->files.push_back(std::move(f));
  }
  // The base first, then increments by seq.
  std::stable_sort(out->files.begin(), out->files.end(), [](const File& a, const File& b) {
    if (a.type != b.type) return a.type == 'b';
    return a.seq < b.seq;
  });
  return true;
}

std::string AofManifest::base_name(std::string_view prefix, int64_t seq, bool rdb) {
  return std::string(prefix) + "." + std::to_string(seq) + (rdb ? ".base.rdb" : ".base.aof");
}

std::string AofManifest::incr_name(std::string_view prefix, int64_t seq) {
  return std::string(prefix) + "." + std::to_string(seq) + ".incr.aof";
}

std::string AofManifest::manifest_name(std::string_view prefix) { return std::string(prefix) + ".manifest"; }

}  // namespace lawnkv::persistence
