#include "server_process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "net.hpp"
#include "paths.hpp"
#include "poll_until.hpp"
#include "process.hpp"
#include "test_failure.hpp"

namespace lawnkv::test {

namespace {

constexpr int kStartAttempts = 3;
constexpr size_t kLogTailLines = 40;

std::string env_or(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : std::move(fallback);
}

bool names_redis_server(const std::string& binary) {
  return std::filesystem::path(binary).filename() == "redis-server";
}

// binary [config-file] --port P --bind 127.0.0.1 <defaults> <extra>
ServerProcess::ArgvForPort redis_like_argv(std::string binary, std::vector<std::string> defaults,
                                           std::vector<std::string> extra) {
  return [binary = std::move(binary), defaults = std::move(defaults),
          extra = std::move(extra)](uint16_t port) {
    std::vector<std::string> argv{binary};
    size_t first_extra = 0;
    if (!extra.empty() && extra[0].rfind("--", 0) != 0) argv.push_back(extra[first_extra++]);
    argv.insert(argv.end(), {"--port", std::to_string(port), "--bind", "127.0.0.1"});
    argv.insert(argv.end(), defaults.begin(), defaults.end());
    argv.insert(argv.end(), extra.begin() + static_cast<long>(first_extra), extra.end());
    return argv;
  };
}

// A full sync goes through the file unless a test asks for the diskless
// form, on both servers alike (lawnkv's defaults below).
const std::vector<std::string> kRedisDefaults{"--save", "",   "--appendonly", "no",
                                              "--enable-debug-command", "yes",
                                              "--daemonize", "no", "--repl-diskless-sync", "no"};

}  // namespace

ServerProcess ServerProcess::lawnkv(std::vector<std::string> extra_args) {
  std::string binary = env_or("LAWNKV_SERVER", (build_dir() / "lawnkv-server").string());
  // No save rules (the default has some): a test server writes no file unless
  // the test asks for one. A full sync goes through the file, as the tests
  // written before diskless sync expect; those of the diskless form ask for
  // it (the default, yes with a 5 s delay, would make every sync wait).
  std::vector<std::string> defaults{"--enable-debug-command", "yes", "--save", "", "--repl-diskless-sync", "no"};
  // The suites again with I/O threads (scripts/run-tests.sh): every lawnkv
  // they start reads, parses and writes on that many threads.
  if (const std::string threads = env_or("LAWNKV_IO_THREADS", ""); !threads.empty()) {
    defaults.insert(defaults.end(), {"--io-threads", threads, "--io-threads-do-reads", "yes"});
  }
  if (names_redis_server(binary)) defaults = kRedisDefaults;
  return ServerProcess("lawnkv", redis_like_argv(binary, defaults, std::move(extra_args)));
}

ServerProcess ServerProcess::redis(std::vector<std::string> extra_args) {
  std::string binary = env_or("REDIS_SERVER", "redis-server");
  return ServerProcess("redis", redis_like_argv(binary, kRedisDefaults, std::move(extra_args)));
}

ServerProcess::ServerProcess(std::string label, ArgvForPort argv_for,
                             std::chrono::milliseconds start_timeout)
    : label_(std::move(label)) {
  for (int attempt = 1;; ++attempt) {
    port_ = pick_free_port();
    argv_ = argv_for(port_);
    log_path_ = log_dir() / (label_ + "-" + std::to_string(port_) + ".log");
    pid_ = spawn_logged(argv_, log_path_);
    exit_status_.reset();

    bool accepting = poll_until(std::chrono::steady_clock::now() + start_timeout, [&] {
      if (!running()) return true;
      int fd = connect_loopback(port_);
      if (fd < 0) return false;
      ::close(fd);
      return true;
    });
    if (accepting && running()) return;

    std::string why;
    if (!accepting) {
      why = "did not accept connections within " + std::to_string(start_timeout.count()) + " ms";
      stop(std::chrono::milliseconds(1000));
    } else {
      why = "exited during start-up (" + describe_status(*exit_status_) + ")";
      if (attempt < kStartAttempts) continue;  // maybe the port was taken: try another
    }
    std::string command;
    for (const auto& arg : argv_) command += (command.empty() ? "" : " ") + arg;
    throw std::runtime_error(label_ + " server " + why + "\n  command: " + command +
                             "\n  log " + log_path_.string() + ":\n" +
                             last_lines(log(), kLogTailLines));
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ < 0 && !exit_status_) return;  // moved from
  bool failed = current_test_failed();
  if (running()) stop();
  if (failed) print_log_tail();
}

ServerProcess::ServerProcess(ServerProcess&& other) noexcept { *this = std::move(other); }

ServerProcess& ServerProcess::operator=(ServerProcess&& other) noexcept {
  if (this != &other) {
    if (running()) stop();
    label_ = std::move(other.label_);
    argv_ = std::move(other.argv_);
    log_path_ = std::move(other.log_path_);
    pid_ = std::exchange(other.pid_, -1);
    exit_status_ = std::exchange(other.exit_status_, std::nullopt);
    port_ = other.port_;
  }
  return *this;
}

std::string ServerProcess::log() const { return read_text_file(log_path_); }

bool ServerProcess::running() {
  if (pid_ < 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_status_ = status;
    pid_ = -1;
    return false;
  }
  return true;
}

int ServerProcess::stop(std::chrono::milliseconds grace) {
  if (running()) {
    exit_status_ = terminate(pid_, grace);
    pid_ = -1;
  }
  return exit_status_.value_or(0);
}

std::optional<int> ServerProcess::wait_exit(std::chrono::milliseconds timeout) {
  if (running()) {
    auto status = wait_for_exit(pid_, timeout);
    if (!status) return std::nullopt;
    exit_status_ = status;
    pid_ = -1;
  }
  return exit_status_;
}

void ServerProcess::signal(int signal) {
  if (running()) ::kill(pid_, signal);
}

void ServerProcess::print_log_tail() const {
  std::cout << "---- last lines of " << label_ << " server log " << log_path_.string();
  if (exit_status_) std::cout << " (" << describe_status(*exit_status_) << ")";
  std::cout << "\n" << last_lines(log(), kLogTailLines) << "---- end of log\n" << std::flush;
}

}  // namespace lawnkv::test
