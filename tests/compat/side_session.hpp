#pragma once
// One server's half of a compat run: its numbered connections, opened on
// first use (RESP2, or RESP3 through HELLO 3 when the run asks), and the
// execution of one step into the string that is compared with the other
// server's. Failures to talk to the server (closed connection, timeout, bytes
// that are not RESP) become a "<...>" string that will not match, and the
// connection is dropped so the next step starts on a fresh one.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "../support/raw_client.hpp"
#include "case_script.hpp"

namespace lawnkv::test {

class SideSession {
 public:
  static constexpr std::chrono::milliseconds kReplyTimeout{3000};
  // For an @slow step: PFSELFTEST takes about 0.35 s on the plain build, a
  // sanitizer build is about ten times slower and a loaded 2-core machine
  // several times more again; a hang is still caught.
  static constexpr std::chrono::milliseconds kSlowReplyTimeout{60000};

  SideSession(uint16_t port, bool resp3) : port_(port), resp3_(resp3) {}

  // Makes connection n the current one.
  void use_client(int n) { current_ = n; }

  // Runs `step` (not a @client switch) on the current connection and returns
  // the comparable form of its outcome, see reply_forms.hpp.
  std::string execute(const Step& step);

 private:
  RawClient& client();
  std::string run_scan(RawClient& client, const Step& step);

  uint16_t port_;
  bool resp3_;
  int current_ = 1;
  std::map<int, RawClient> clients_;
};

}  // namespace lawnkv::test
