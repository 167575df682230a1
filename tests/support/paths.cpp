#include "paths.hpp"

#include <cstdlib>
#include <system_error>

namespace lawnkv::test {

std::filesystem::path build_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::filesystem::current_path() / "build";
  return exe.parent_path();
}

std::filesystem::path repo_root() { return build_dir().parent_path(); }

std::filesystem::path log_dir() {
  const char* env = std::getenv("LAWNKV_TEST_LOGS");
  auto dir = env && *env ? std::filesystem::path(env) : build_dir() / "test-logs";
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace lawnkv::test
