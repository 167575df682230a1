#pragma once
// Where the tests find the repository, the server and their logs. Both are
// found from the running test binary (build/<name>: build/ is its build
// directory, the directory above it the repository root), so tests behave
// the same from any working directory, and the test binaries of another
// build directory (build-asan/) start that directory's server and keep their
// logs there.

#include <filesystem>

namespace lawnkv::test {

// The repository root: the parent of the directory holding the test binary.
std::filesystem::path repo_root();

// The directory holding the test binary: build/ or build-asan/.
std::filesystem::path build_dir();

// test-logs under build_dir(), or LAWNKV_TEST_LOGS when set (the sanitizer
// suites run build/'s integration tests against build-asan/'s or build-tsan/'s
// server and keep its logs beside it); created on first use.
std::filesystem::path log_dir();

}  // namespace lawnkv::test
