#include "engine/monitor.hpp"

#include <cstdio>
#include <vector>

#include "core/split_args.hpp"

namespace lawnkv {

std::string monitor_line(int64_t now_us, int db, std::string_view peer, std::span<const std::string_view> argv) {
  char head[64];
  std::snprintf(head, sizeof(head), "+%lld.%06lld [%d ", static_cast<long long>(now_us / 1'000'000),
                static_cast<long long>(now_us % 1'000'000), db);
  std::string line = head;
  line.append(peer).append("] ");
  for (size_t j = 0; j < argv.size(); ++j) {
    if (j) line.push_back(' ');
    line += repr_quoted(argv[j]);
  }
  line += "\r\n";
  return line;
}

void feed_monitors(ServerState& server, const Session& session, const CommandSpec& spec,
                   std::span<const std::string_view> argv) {
  if (server.clients.monitors().empty() || server.facts.loading || session.detached ||
      spec.has(kSkipMonitor | kAdmin))
    return;
  const std::string line = monitor_line(server.clock.now_us(), session.db, session.peer_address(), argv);
  // A copy: a monitor past its output limit is closed (and leaves the list)
  // as it is delivered to.
  const std::vector<Session*> monitors = server.clients.monitors();
  for (Session* m : monitors) m->deliver(line);
}

}  // namespace lawnkv
