#pragma once
// A fresh directory under /tmp for a test's files (snapshots, append-only
// files), removed with everything in it when the test is done.

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace lawnkv::test {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/lawnkv-test-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace lawnkv::test
