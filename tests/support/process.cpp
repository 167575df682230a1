#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "paths.hpp"
#include "poll_until.hpp"

namespace lawnkv::test {

namespace {

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(char* const* argv, int log_fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
  int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, 0);
  ::dup2(log_fd, 1);
  ::dup2(log_fd, 2);
  ::execvp(argv[0], argv);
  const char* why = std::strerror(errno);
  const char prefix[] = "spawn_logged: exec failed: ";
  [[maybe_unused]] auto n = ::write(2, prefix, sizeof prefix - 1);
  n = ::write(2, argv[0], std::strlen(argv[0]));
  n = ::write(2, ": ", 2);
  n = ::write(2, why, std::strlen(why));
  n = ::write(2, "\n", 1);
  ::_exit(127);
}

}  // namespace

pid_t spawn_logged(const std::vector<std::string>& argv, const std::filesystem::path& log_path) {
  if (argv.empty()) throw std::invalid_argument("spawn_logged: empty argv");
  std::vector<char*> cargv;
  for (const auto& arg : argv) cargv.push_back(const_cast<char*>(arg.c_str()));
  cargv.push_back(nullptr);

  int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    throw std::runtime_error("spawn_logged: cannot open " + log_path.string() + ": " +
                             std::strerror(errno));
  }
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) exec_child(cargv.data(), log_fd, parent);
  int err = errno;
  ::close(log_fd);
  if (pid < 0) throw std::runtime_error(std::string("spawn_logged: fork: ") + std::strerror(err));
  return pid;
}

std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  int status = 0;
  bool exited = poll_until(std::chrono::steady_clock::now() + timeout, [&] {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    return r == pid || (r < 0 && errno != EINTR);
  });
  if (!exited) return std::nullopt;
  return status;
}

int terminate(pid_t pid, std::chrono::milliseconds grace) {
  ::kill(pid, SIGTERM);
  if (auto status = wait_for_exit(pid, grace)) return *status;
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  }
  return "wait status " + std::to_string(status);
}

ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  static std::atomic<int> counter{0};
  auto log = log_dir() / ("run-" + std::to_string(::getpid()) + "-" +
                          std::to_string(counter++) + ".log");
  pid_t pid = spawn_logged(argv, log);
  auto status = wait_for_exit(pid, timeout);
  if (!status) {
    terminate(pid, std::chrono::milliseconds(0));
    throw std::runtime_error("run_process: " + argv[0] + " still running after " +
                             std::to_string(timeout.count()) + " ms; output:\n" +
                             read_text_file(log));
  }
  ProcessResult result{*status, read_text_file(log)};
  std::filesystem::remove(log);
  return result;
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string last_lines(const std::string& text, size_t count) {
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  while (pos > 0 && count > 0) {
    size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) return text;
    pos = nl;
    --count;
  }
  return count > 0 ? text : text.substr(pos + 1);
}

}  // namespace lawnkv::test
