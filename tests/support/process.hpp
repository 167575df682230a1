#pragma once
// Child processes for tests: start one with its output captured in a file,
// wait for it with a deadline, stop it, or run one to completion.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lawnkv::test {

// Starts argv[0] (searched in PATH when it has no '/') with argv. stdin is
// /dev/null; stdout and stderr go to log_path (truncated). The child gets
// SIGKILL if the test process dies first, so a crashed test leaves no server
// behind. If exec fails the child writes why to the log and exits 127.
// Returns the child's pid; throws if it cannot fork or open the log.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::filesystem::path& log_path);

// Waits up to `timeout` for pid to exit and reaps it. Returns its wait status,
// or nullopt if it is still running at the deadline.
std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout);

// SIGTERM, then SIGKILL if pid has not exited after `grace`; reaps it and
// returns the wait status.
int terminate(pid_t pid, std::chrono::milliseconds grace);

// "exit 0", "exit 1", "signal 9 (Killed)".
std::string describe_status(int status);

struct ProcessResult {
  int status;          // wait status; see describe_status
  std::string output;  // stdout and stderr, interleaved as written
};

// Runs argv to completion and returns its status and output. A child still
// running after `timeout` is killed and the call throws.
ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// The whole file, or "" when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

// The last `count` lines of text.
std::string last_lines(const std::string& text, size_t count);

}  // namespace lawnkv::test
