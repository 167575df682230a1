#pragma once
// A server under test, running as a child process on a free loopback port:
// lawnkv (build/lawnkv-server) or the reference redis-server. The constructor
// returns once the server accepts connections; the destructor stops it by
// PID. Its stdout and stderr go to <build>/test-logs/<label>-<port>.log, and
// the log's tail is printed when the test that owned it failed.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace lawnkv::test {

class ServerProcess {
 public:
  // The full argv (binary first) for a server listening on `port`.
  using ArgvForPort = std::function<std::vector<std::string>(uint16_t port)>;

  static constexpr std::chrono::milliseconds kStartTimeout{10'000};
  static constexpr std::chrono::milliseconds kStopGrace{10'000};

  // lawnkv-server beside the test binary (build/ or build-asan/; env
  // LAWNKV_SERVER overrides) with
  //   [config-file] --port P --bind 127.0.0.1 --enable-debug-command yes --save "" <extra>
  // A first extra argument that does not start with "--" is the config file
  // and goes first, as the command line requires. Later directives win, so
  // extra args can override the defaults. Env LAWNKV_IO_THREADS=N adds
  // --io-threads N --io-threads-do-reads yes to the defaults. When LAWNKV_SERVER names a
  // redis-server (to check the tests themselves against Redis on both
  // sides), persistence is turned off as for redis() below.
  static ServerProcess lawnkv(std::vector<std::string> extra_args = {});

  // redis-server (env REDIS_SERVER overrides) with
  //   [config-file] --port P --bind 127.0.0.1 --save "" --appendonly no
  //   --enable-debug-command yes --daemonize no <extra>
  static ServerProcess redis(std::vector<std::string> extra_args = {});

  // Starts argv_for(port) on a free port and waits until it accepts a TCP
  // connection. If it exits first (the port was taken meanwhile), retries on
  // another port, three times in all. Throws with the log's tail when it
  // cannot start.
  ServerProcess(std::string label, ArgvForPort argv_for,
                std::chrono::milliseconds start_timeout = kStartTimeout);

  // Stops the server if it still runs (see stop()).
  ~ServerProcess();
  ServerProcess(ServerProcess&& other) noexcept;
  ServerProcess& operator=(ServerProcess&& other) noexcept;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& label() const { return label_; }
  const std::vector<std::string>& argv() const { return argv_; }
  const std::filesystem::path& log_path() const { return log_path_; }
  std::string log() const;

  // Whether the process is still running (reaps it if it has exited).
  bool running();

  // SIGTERM, SIGKILL after `grace`; returns the wait status (see
  // describe_status), or the status seen earlier if it had already exited.
  int stop(std::chrono::milliseconds grace = kStopGrace);

  // Waits for the server to exit by itself (SHUTDOWN, a fatal error).
  // Returns the wait status, or nullopt if it still runs at the deadline.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);

  // Sends `signal` to the server.
  void signal(int signal);

 private:
  void print_log_tail() const;

  std::string label_;
  std::vector<std::string> argv_;
  std::filesystem::path log_path_;
  pid_t pid_ = -1;                 // -1 once reaped (or moved from)
  std::optional<int> exit_status_;  // set when reaped
  uint16_t port_ = 0;
};

}  // namespace lawnkv::test
