#pragma once
// The replica's half of the handshake with its primary, as Redis 7.0's
// syncWithMaster drives it, one request and one reply line at a time
// (Redis pipelines the middle three; the bytes on the wire are the same):
//
//   state          sent                                   reply accepted
//   kPing          PING                                   +..., -NOAUTH, -NOPERM,
//                                                         -ERR operation not permitted
//   kAuth          AUTH [<masteruser>] <masterauth>       +... (an error ends the link)
//                  (only when masterauth is set)
//   kPort          REPLCONF listening-port <port>         anything (an error is logged)
//   kIp            REPLCONF ip-address <announce-ip>      anything (an error is logged)
//                  (only when replica-announce-ip is set)
//   kCapa          REPLCONF capa eof capa psync2          anything (an error is logged)
//   kPsync         PSYNC <replid> <offset> [FAILOVER]     +FULLRESYNC <replid> <offset>
//                  (PSYNC ? -1 the first time)            +CONTINUE [<new replid>]
//                                                         -NOMASTERLINK, -LOADING: later
//
// Empty lines are the primary's keepalives (it sends "\n" while a
// snapshot for us is being prepared) and are skipped in every state.
// Pure: no sockets; the caller sends requests() and feeds reply lines.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace lawnkv::replication {

struct HandshakeSettings {
  std::string masterauth;   // "" = no AUTH
  std::string masteruser;   // "" = AUTH <password> alone
  int64_t listening_port = 0;     // replica-announce-port, else this server's port
  std::string announce_ip;        // replica-announce-ip; "" = no REPLCONF ip-address
  std::string psync_replid = "?";  // the replication id to continue, "?" = none
  int64_t psync_offset = -1;       // the first byte wanted; -1 with "?"
  bool psync_failover = false;     // PSYNC <replid> <offset> FAILOVER (failover.hpp)
};

class ReplicaHandshake {
 public:
  enum class State { kPing, kAuth, kPort, kIp, kCapa, kPsync, kDone };
  enum class Outcome {
    kWaiting,      // send pending() (if any) and feed the next reply line
    kFullResync,   // replid(), offset(): a snapshot follows
    kContinue,     // replid() (maybe new): the stream resumes at our offset
    kTryLater,     // the primary cannot sync now (-NOMASTERLINK, -LOADING)
    kFailed,       // error(): the link must be dropped
  };

  explicit ReplicaHandshake(HandshakeSettings settings) : settings_(std::move(settings)) {}

  // Starts over: the PING to send is in pending().
  void start();
  // One reply line, without its CRLF.
  Outcome on_line(std::string_view line);
  // The request to send now (RESP), taken by the caller; "" if none.
  std::string take_pending() { return std::move(pending_); }

  State state() const { return state_; }
  const std::string& replid() const { return replid_; }
  int64_t offset() const { return offset_; }
  const std::string& error() const { return error_; }
  // What the last accepted-with-error reply said (REPLCONF refused), for the log.
  const std::string& warning() const { return warning_; }

 private:
  // Moves to the state after state_ and queues its request.
  void advance();
  void send(std::initializer_list<std::string_view> argv);
  Outcome psync_reply(std::string_view line);

  HandshakeSettings settings_;
  State state_ = State::kPing;
  std::string pending_;
  std::string replid_;
  int64_t offset_ = -1;
  std::string error_;
  std::string warning_;
};

// "*<n>\r\n$<len>\r\n<arg>\r\n..." for argv.
std::string encode_command(std::initializer_list<std::string_view> argv);

}  // namespace lawnkv::replication
