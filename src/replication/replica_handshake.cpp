#include "replication/replica_handshake.hpp"

#include "core/numbers.hpp"

namespace lawnkv::replication {

namespace {

constexpr size_t kReplidLen = 40;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string encode_command(std::initializer_list<std::string_view> argv) {
  std::string out = "*" + std::to_string(argv.size()) + "\r\n";
  for (std::string_view a : argv) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out.append(a);
    out += "\r\n";
  }
  return out;
}

void ReplicaHandshake::send(std::initializer_list<std::string_view> argv) { pending_ += encode_command(argv); }

void ReplicaHandshake::start() {
  state_ = State::kPing;
  pending_.clear();
  error_.clear();
  warning_.clear();
  send({"PING"});
}

void ReplicaHandshake::advance() {
  switch (state_) {
    case State::kPing:
      if (!settings_.masterauth.empty()) {
        state_ = State::kAuth;
        if (settings_.masteruser.empty())
          send({"AUTH", settings_.masterauth});
        else
          send({"AUTH", settings_.masteruser, settings_.masterauth});
        return;
      }
      [[fallthrough]];
    case State::kAuth:
      state_ = State::kPort;
      send({"REPLCONF", "listening-port", std::to_string(settings_.listening_port)});
      return;
    case State::kPort:
      if (!settings_.announce_ip.empty()) {
        state_ = State::kIp;
        send({"REPLCONF", "ip-address", settings_.announce_ip});
        return;
      }
      [[fallthrough]];
    case State::kIp:
      state_ = State::kCapa;
      send({"REPLCONF", "capa", "eof", "capa", "psync2"});
      return;
    case State::kCapa:
      state_ = State::kPsync;
      if (settings_.psync_failover)
        send({"PSYNC", settings_.psync_replid, std::to_string(settings_.psync_offset), "FAILOVER"});
      else
        send({"PSYNC", settings_.psync_replid, std::to_string(settings_.psync_offset)});
      return;
    case State::kPsync:
    case State::kDone:
      state_ = State::kDone;
      return;
  }
}

ReplicaHandshake::Outcome ReplicaHandshake::on_line(std::string_view line) {
  if (line.empty()) return Outcome::kWaiting;  // a keepalive newline
  switch (state_) {
    case State::kPing:
      if (line[0] != '+' && !starts_with(line, "-NOAUTH") && !starts_with(line, "-NOPERM") &&
          !starts_with(line, "-ERR operation not permitted")) {
        error_ = "Error reply to PING from master: '" + std::string(line) + "'";
        return Outcome::kFailed;
      }
      advance();
      return Outcome::kWaiting;
    case State::kAuth:
      if (line[0] == '-') {
        error_ = "Unable to AUTH to MASTER: " + std::string(line);
        return Outcome::kFailed;
      }
      advance();
      return Outcome::kWaiting;
    case State::kPort:
      if (line[0] == '-') warning_ = "(Non critical) Master does not understand REPLCONF listening-port: " +
                                     std::string(line);
      advance();
      return Outcome::kWaiting;
    case State::kIp:
      if (line[0] == '-') warning_ = "(Non critical) Master does not understand REPLCONF ip-address: " +
                                     std::string(line);
      advance();
      return Outcome::kWaiting;
    case State::kCapa:
      if (line[0] == '-') warning_ = "(Non critical) Master does not understand REPLCONF capa: " + std::string(line);
      advance();
      return Outcome::kWaiting;
    case State::kPsync:
      return psync_reply(line);
    case State::kDone:
      break;
  }
  error_ = "Unexpected reply from master: " + std::string(line);
  return Outcome::kFailed;
}

ReplicaHandshake::Outcome ReplicaHandshake::psync_reply(std::string_view line) {
  if (starts_with(line, "+FULLRESYNC")) {
    // +FULLRESYNC <40 byte replid> <offset>
    std::string_view rest = line.substr(11);
    long long off = 0;
    if (rest.size() < 2 + kReplidLen || rest[0] != ' ' || rest[1 + kReplidLen] != ' ' ||
        !string_to_ll(rest.substr(2 + kReplidLen), &off)) {
      // Redis blanks the id so the next PSYNC cannot continue it.
      replid_.clear();
      offset_ = -1;
    } else {
      replid_ = std::string(rest.substr(1, kReplidLen));
      offset_ = off;
    }
    state_ = State::kDone;
    return Outcome::kFullResync;
  }
  if (starts_with(line, "+CONTINUE")) {
    // +CONTINUE, or +CONTINUE <new replid> (PSYNC2: the primary's history
    // goes on under a new id).
    std::string_view rest = line.substr(9);
    if (rest.size() == 1 + kReplidLen && rest[0] == ' ') replid_ = std::string(rest.substr(1));
    else replid_ = settings_.psync_replid;
    state_ = State::kDone;
    return Outcome::kContinue;
  }
  if (starts_with(line, "-NOMASTERLINK") || starts_with(line, "-LOADING")) {
    error_ = "Master is currently unable to PSYNC but should be in the future: " + std::string(line);
    return Outcome::kTryLater;
  }
  error_ = "Unexpected reply to PSYNC from master: " + std::string(line);
  return Outcome::kFailed;
}

}  // namespace lawnkv::replication
