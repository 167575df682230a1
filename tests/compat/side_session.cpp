#include "side_session.hpp"

#include <algorithm>
#include <vector>

#include "../support/escape.hpp"
#include "../support/resp_encode.hpp"
#include "../support/resp_reply.hpp"
#include "reply_forms.hpp"

namespace lawnkv::test {

namespace {

constexpr int kMaxScanCalls = 100'000;

// Thrown inside execute() when HELLO 3 fails on a new connection.
struct SetupFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

RawClient& SideSession::client() {
  auto it = clients_.find(current_);
  if (it != clients_.end()) return it->second;
  RawClient fresh(port_, kReplyTimeout);
  if (resp3_) {
    std::string hello = fresh.call({"HELLO", "3"});
    if (hello.empty() || hello[0] != '%') {
      throw SetupFailed("<HELLO 3 on a new connection replied " + escape_bytes(hello) + ">");
    }
  }
  return clients_.emplace(current_, std::move(fresh)).first->second;
}

std::string SideSession::execute(const Step& step) {
  try {
    RawClient& c = client();
    c.set_timeout(step.slow ? kSlowReplyTimeout : kReplyTimeout);
    if (step.compare == Compare::kScan) return run_scan(c, step);
    c.send(step.raw ? step.argv[0] : encode_command(step.argv));
    std::string reply = c.read_reply();
    if (step.closes && !c.wait_closed()) {
      clients_.erase(current_);
      return reply + "<connection still open>";
    }
    if (step.closes) clients_.erase(current_);
    switch (step.compare) {
      case Compare::kSorted: return sorted_form(reply);
      case Compare::kHello: return hello_form(reply);
      case Compare::kType: return type_form(reply);
      default: return reply;
    }
  } catch (const SetupFailed& e) {
    return e.what();
  } catch (const ConnectionClosed&) {
    clients_.erase(current_);
    return "<connection closed>";
  } catch (const Timeout&) {
    clients_.erase(current_);
    const auto waited = step.slow ? kSlowReplyTimeout : kReplyTimeout;
    return "<no reply within " + std::to_string(waited.count()) + " ms>";
  } catch (const RespError& e) {
    clients_.erase(current_);
    return std::string("<not RESP: ") + e.what() + ">";
  } catch (const std::runtime_error& e) {
    clients_.erase(current_);
    return std::string("<") + e.what() + ">";
  }
}

// SCAN cursor [options] (or SSCAN key cursor [options]): calls it again with
// each returned cursor until the cursor is "0", collecting every element.
// Any reply that is not a [cursor, [elements...]] array ends the scan and is
// returned as is.
std::string SideSession::run_scan(RawClient& c, const Step& step) {
  std::vector<std::string> argv = step.argv;
  const size_t at = scan_cursor_at(argv);
  std::vector<std::string> seen;
  for (int calls = 0; calls < kMaxScanCalls; ++calls) {
    std::string raw = c.call(argv);
    Reply reply = parse_reply(raw);
    if (reply.type != '*' || reply.elements.size() != 2 || reply.elements[0].type != '$' ||
        reply.elements[1].type != '*') {
      return raw;
    }
    for (auto& element : reply.elements[1].elements) seen.push_back(write_reply(element));
    argv[at] = reply.elements[0].text;
    if (argv[at] == "0") {
      // Elements are kept as wire bytes so non-bulk elements compare too.
      std::sort(seen.begin(), seen.end());
      seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
      std::string out = "*" + std::to_string(seen.size()) + "\r\n";
      for (const auto& element : seen) out += element;
      return out;
    }
  }
  return "<SCAN did not finish in " + std::to_string(kMaxScanCalls) + " calls>";
}

}  // namespace lawnkv::test
