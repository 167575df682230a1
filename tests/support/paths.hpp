#pragma once
// Where the tests find the repository and put their logs. The repository root
// is found from the running test binary (build/<name> -> the directory above
// build/), so tests behave the same from any working directory.

#include <filesystem>

namespace lawnkv::test {

// The repository root: the parent of the directory holding the test binary.
std::filesystem::path repo_root();

// build/test-logs under the repository root, created on first use.
std::filesystem::path log_dir();

}  // namespace lawnkv::test
