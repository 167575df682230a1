#include "pubsub_scenario.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../support/escape.hpp"
#include "../support/raw_client.hpp"
#include "../support/resp_encode.hpp"
#include "core/ascii.hpp"
#include "core/split_args.hpp"
#include "reply_forms.hpp"

namespace lawnkv::test {

namespace {

constexpr std::chrono::milliseconds kTimeout{3000};
constexpr std::string_view kSyncBulk = "$8\r\n__sync__\r\n";
constexpr std::string_view kSyncPong = "*2\r\n$4\r\npong\r\n$8\r\n__sync__\r\n";

struct Line {
  int number = 0;     // in the script, 1-based
  int conn = 1;
  bool sorted = false;
  bool nosync = false;
  bool reply = false;
  bool ids = false;
  std::vector<std::string> argv;
};

std::vector<Line> parse_script(const Scenario& s) {
  std::vector<Line> lines;
  std::istringstream in{std::string(s.script)};
  int number = 0;
  for (std::string text; std::getline(in, text);) {
    ++number;
    std::string_view rest = text;
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    if (rest.empty() || rest.front() == '#') continue;
    Line line;
    line.number = number;
    for (bool more = true; more;) {
      more = false;
      for (auto [word, flag] : {std::pair<std::string_view, bool*>{"@sorted ", &line.sorted},
                                {"@nosync ", &line.nosync}, {"@reply ", &line.reply}, {"@ids ", &line.ids}}) {
        if (rest.starts_with(word)) {
          *flag = true;
          rest.remove_prefix(word.size());
          more = true;
        }
      }
    }
    const size_t colon = rest.find(": ");
    if (colon != std::string_view::npos && colon > 0 &&
        std::all_of(rest.begin(), rest.begin() + static_cast<long>(colon),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      line.conn = std::stoi(std::string(rest.substr(0, colon)));
      rest.remove_prefix(colon + 2);
    }
    auto argv = split_args(rest);
    if (!argv || argv->empty())
      throw std::runtime_error(s.name + ":" + std::to_string(number) + ": cannot parse '" + text + "'");
    line.argv = std::move(*argv);
    lines.push_back(std::move(line));
  }
  return lines;
}

// One server's connections for a scenario.
class Side {
 public:
  Side(uint16_t port, const std::set<int>& resp3) : port_(port), resp3_(resp3) {}

  // Runs line and returns every open connection's output, by connection.
  std::map<int, std::vector<std::string>> step(const Line& line) {
    std::map<int, std::vector<std::string>> out;
    Conn& acting = conn(line.conn);
    const std::string name = to_upper(line.argv[0]);
    try {
      acting.client.send(encode_command(with_ids(line.argv)));
      if (line.nosync || (acting.in_multi && name != "EXEC" && name != "DISCARD" && name != "RESET")) {
        out[line.conn].push_back(acting.client.read_reply());  // +QUEUED or an error
      } else if (line.reply) {
        out[line.conn].push_back(acting.client.read_reply());
      } else if (name == "MULTI") {
        const std::string reply = acting.client.read_reply();
        acting.in_multi = reply == "+OK\r\n";
        out[line.conn].push_back(reply);
      } else {
        acting.in_multi = false;
      }
    } catch (const std::exception& e) {
      out[line.conn].push_back(std::string("<") + e.what() + ">");
      conns_.erase(line.conn);
    }
    // The acting connection first: once its command has replied, whatever
    // it published is in the other connections' output, ahead of their PING.
    std::vector<int> order{line.conn};
    for (const auto& [n, c] : conns_)
      if (n != line.conn) order.push_back(n);
    for (int n : order) {
      auto it = conns_.find(n);
      if (it == conns_.end() || it->second.in_multi || (line.nosync && n == line.conn)) continue;
      if (!sync(it->second.client, out[n])) conns_.erase(it);
    }
    if (line.ids) {
      for (auto& [n, frames] : out)
        for (std::string& f : frames)
          for (const auto& [m, id] : ids_)
            f = replace_all(f, ":" + std::to_string(id) + "\r\n", ":{id:" + std::to_string(m) + "}\r\n");
    }
    return out;
  }

  // RESET on every connection (dropping their subscriptions now rather than
  // when the server notices the close), then closes them.
  void finish() {
    for (auto& [n, c] : conns_) {
      try {
        c.client.send(encode_command({"RESET"}));
        while (c.client.read_reply() != "+RESET\r\n") {
        }
      } catch (const std::exception&) {
      }
    }
    conns_.clear();
  }

 private:
  struct Conn {
    RawClient client;
    bool in_multi = false;
    long long id = 0;  // CLIENT ID
  };

  Conn& conn(int n) {
    auto it = conns_.find(n);
    if (it != conns_.end()) return it->second;
    RawClient client(port_, kTimeout);
    if (resp3_.count(n)) client.call({"HELLO", "3"});
    const long long id = std::stoll(client.call({"CLIENT", "ID"}).substr(1));  // ":<id>\r\n"
    ids_[n] = id;
    return conns_.emplace(n, Conn{std::move(client), false, id}).first->second;
  }

  static std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
    return s;
  }

  // argv with each {id:N} replaced by connection N's id here.
  std::vector<std::string> with_ids(std::vector<std::string> argv) {
    for (std::string& a : argv) {
      for (size_t pos; (pos = a.find("{id:")) != std::string::npos;) {
        const size_t end = a.find('}', pos);
        const int n = std::stoi(a.substr(pos + 4, end - pos - 4));
        // A connection that has closed keeps its id (a redirect to a gone client).
        auto known = ids_.find(n);
        a.replace(pos, end - pos + 1, std::to_string(known != ids_.end() ? known->second : conn(n).id));
      }
    }
    return argv;
  }

  // Appends what c received before the reply to PING __sync__; false (with a
  // note appended) when the connection failed.
  static bool sync(RawClient& c, std::vector<std::string>& frames) {
    try {
      c.send(encode_command({"PING", "__sync__"}));
      for (;;) {
        std::string frame = c.read_reply();
        if (frame == kSyncBulk || frame == kSyncPong) return true;
        frames.push_back(std::move(frame));
      }
    } catch (const std::exception& e) {
      frames.push_back(std::string("<") + e.what() + ">");
      return false;
    }
  }

  uint16_t port_;
  const std::set<int>& resp3_;
  std::map<int, Conn> conns_;
  std::map<int, long long> ids_;  // every connection's CLIENT ID, closed ones too
};

void configure(uint16_t port, std::string_view flags, bool active_expire) {
  RawClient admin(port, kTimeout);
  admin.call({"FLUSHALL"});
  const std::string set = admin.call({"CONFIG", "SET", "notify-keyspace-events", flags});
  REQUIRE_MESSAGE(set == "+OK\r\n", "CONFIG SET notify-keyspace-events " << flags << ": " << escape_bytes(set));
  const std::string debug = admin.call({"DEBUG", "SET-ACTIVE-EXPIRE", active_expire ? "1" : "0"});
  REQUIRE_MESSAGE(debug == "+OK\r\n", "DEBUG SET-ACTIVE-EXPIRE: " << escape_bytes(debug));
}

std::string describe(const std::vector<std::string>& frames) {
  if (frames.empty()) return "(nothing)";
  std::string out;
  for (const auto& f : frames) out += "\n      " + escape_bytes(f);
  return out;
}

}  // namespace

ScenarioCounts run_scenario(ServerProcess& lawnkv, ServerProcess& redis, const Scenario& s) {
  const std::vector<Line> lines = parse_script(s);
  configure(lawnkv.port(), s.notify_flags, false);
  configure(redis.port(), s.notify_flags, false);
  ScenarioCounts counts;
  Side ours(lawnkv.port(), s.resp3), theirs(redis.port(), s.resp3);
  for (const Line& line : lines) {
    ++counts.steps;
    auto got = ours.step(line);
    auto want = theirs.step(line);
    std::set<int> conns;
    for (auto& [n, f] : got) conns.insert(n);
    for (auto& [n, f] : want) conns.insert(n);
    for (auto& [n, f] : want) counts.frames += static_cast<int>(f.size());
    for (int n : conns) {
      auto& g = got[n];
      auto& w = want[n];
      if (line.sorted) {
        for (auto& f : g) f = sorted_form(f);
        for (auto& f : w) f = sorted_form(f);
        std::sort(g.begin(), g.end());
        std::sort(w.begin(), w.end());
      }
      if (g == w) continue;
      ++counts.mismatches;
      std::string command;
      for (const auto& a : line.argv) command += (command.empty() ? "" : " ") + a;
      CHECK_MESSAGE(g == w, s.name << " (notify-keyspace-events '" << s.notify_flags << "') line "
                                   << line.number << ": " << line.conn << ": " << command
                                   << "\n  connection " << n << " of redis-server received:" << describe(w)
                                   << "\n  connection " << n << " of lawnkv received:" << describe(g));
    }
  }
  ours.finish();
  theirs.finish();
  configure(lawnkv.port(), "", true);
  configure(redis.port(), "", true);
  return counts;
}

void run_scenarios(ServerProcess& lawnkv, ServerProcess& redis, std::span<const Scenario> scenarios,
                   ScenarioCounts* total) {
  for (const Scenario& s : scenarios) {
    const ScenarioCounts c = run_scenario(lawnkv, redis, s);
    total->steps += c.steps;
    total->mismatches += c.mismatches;
    total->frames += c.frames;
    REQUIRE_MESSAGE(lawnkv.running(), "lawnkv exited during " << s.name << " (notify-keyspace-events "
                                                              << s.notify_flags << ")");
  }
}

}  // namespace lawnkv::test
