// lawnkv-server [config-file] [--directive value ...]
// Reads the configuration as redis-server does (file first, then command-line
// directives), builds the server state and runs the event loop.

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <clocale>
#include <csignal>
#include <iostream>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "commands/server_factory.hpp"
#include "core/allocator.hpp"
#include "core/log.hpp"
#include "engine/server_state.hpp"
#include "server/server.hpp"

namespace {

using lawnkv::config::kLawnkvVersion;

void usage() {
  std::puts(
      "Usage: lawnkv-server [/path/to/redis.conf] [options]\n"
      "       lawnkv-server - (read config from stdin)\n"
      "       lawnkv-server -v or --version\n"
      "       lawnkv-server -h or --help\n\n"
      "Examples:\n"
      "       lawnkv-server (run the server with default config)\n"
      "       lawnkv-server redis.conf.example\n"
      "       lawnkv-server --port 7777\n"
      "       lawnkv-server redis.conf.example --loglevel verbose --notify-keyspace-events Ex\n\n"
      "Every directive of the configuration file can be given as --name value.");
}

std::string executable_path(const char* argv0) {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string(argv0);
}

}  // namespace

int main(int argc, char** argv) {
  // As redis-server: a client that goes away mid-write, or a closed
  // terminal, must not end the server.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGHUP, SIG_IGN);
  // jemalloc's purges on the background thread only (core/allocator.hpp).
  lawnkv::allocator::start();
  // As redis-server: SORT ... ALPHA collates by the environment's locale.
  std::setlocale(LC_COLLATE, "");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "-v" || args[0] == "--version")) {
    std::printf("lawnkv server v=%.*s (Redis 7.0 protocol) bits=%d\n", static_cast<int>(kLawnkvVersion.size()),
                kLawnkvVersion.data(), static_cast<int>(sizeof(long) * 8));
    return 0;
  }
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    usage();
    return 0;
  }

  lawnkv::config::Config cfg;
  cfg.set_user_rule_check(lawnkv::config_user_rule_check());
  size_t first_directive = 0;
  if (!args.empty() && args[0].rfind("--", 0) != 0) {
    const lawnkv::config::Status st = args[0] == "-" ? cfg.load_text(std::string(
                                                           std::istreambuf_iterator<char>(std::cin), {}))
                                                     : cfg.load_file(args[0]);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.error.c_str());
      return 1;
    }
    first_directive = 1;
  }
  const lawnkv::config::Status st =
      cfg.load_args(std::vector<std::string>(args.begin() + static_cast<long>(first_directive), args.end()));
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.error.c_str());
    return 1;
  }

  const std::unique_ptr<lawnkv::ServerState> state = lawnkv::make_server_state(std::move(cfg));
  state->facts.executable = executable_path(argv[0]);

  lawnkv::Logger log;
  log.configure(state->config.values().loglevel, state->config.values().logfile);
  log.log(lawnkv::LogLevel::kNotice,
          "lawnkv " + std::string(kLawnkvVersion) + " (Redis 7.0 compatible) starting, port=" +
              std::to_string(state->config.values().port) + ", pid=" + std::to_string(getpid()) +
              (state->config.file().empty() ? ", no config file" : ", config file " + state->config.file()));
  if (const std::string why = lawnkv::load_startup_acl_users(*state); !why.empty()) {
    for (size_t at = 0; at <= why.size();) {
      const size_t nl = std::min(why.find('\n', at), why.size());
      log.log(lawnkv::LogLevel::kWarning, std::string_view(why).substr(at, nl - at));
      at = nl + 1;
    }
    return 1;
  }
  lawnkv::server::Server server(*state, log);
  return server.run();
}
