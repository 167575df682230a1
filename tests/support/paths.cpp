#include "paths.hpp"

#include <system_error>

namespace lawnkv::test {

std::filesystem::path repo_root() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::filesystem::current_path();
  return exe.parent_path().parent_path();
}

std::filesystem::path log_dir() {
  auto dir = repo_root() / "build" / "test-logs";
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace lawnkv::test
