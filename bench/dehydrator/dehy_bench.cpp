// dehy-bench: one-call costs of the REDE.* commands against a running lawnkv.
//
//   dehy-bench drain --port P --pid PID [--elements 1000000] [--ttls 100]
//                    [--ttl-step 60000] [--batch 10000]
//   dehy-bench empty --port P --pid PID [--ttls 10000] [--per-ttl 1]
//                    [--calls 100000] [--batch 100] [--ttl-base 3600000]
//                    [--ttl-spacing 1000] [--bpoll-probe 0]
//   dehy-bench xpoll --port P --pid PID [--elements 40000] [--ttls 1]
//                    [--ttl-step 60000]
//
// The server must run with --enable-debug-command yes: DEBUG ADVANCE-TIME
// moves its clock past the TTLs, so nothing here sleeps. Each mode starts
// with FLUSHALL and prints its results as one line of key=value pairs on
// stdout (the report script, bench/dehydrator/report.py, reads them).
//
// drain  Pushes --elements elements "val:<i>" with ids "id:<i>" (both 10-11
//        bytes) into key "dq", element i with TTL (i % ttls + 1) * ttl-step,
//        pipelined --batch at a time. With the default 60 s step and a push
//        shorter than that, every TTL-k element is due before every
//        TTL-(k+1) element, so the exact expected POLL order is known: TTL by
//        TTL, push order within one. Then DEBUG ADVANCE-TIME past them all,
//        CONFIG RESETSTAT and ONE REDE.POLL: client wall time (send -> last
//        byte received; the reply is parsed and checked afterwards, untimed),
//        INFO commandstats usec of rede.poll, and the server loop thread's
//        on-CPU and run-queue-wait time meanwhile (schedstat of --pid). The
//        reply must hold every element once (else it dies); order_errors
//        counts the positions that differ from the expected order. Memory
//        (INFO used_memory, VmRSS of --pid, MEMORY USAGE dq) before the
//        push, after it, after the POLL, after DEL dq and after MEMORY PURGE;
//        and of an emptied dehydrator (one element pushed and polled) before
//        the big push. --exec-before/--exec-after CMD run around the timed
//        POLL (profiler hooks, e.g. "callgrind_control -i on PID"); xpoll
//        has them too.
// empty  Key "eq" gets --per-ttl elements for each of --ttls distinct TTLs
//        (--ttl-base + --ttl-spacing * i ms; by default one hour and more
//        away). Then, for REDE.POLL, REDE.TTN and PING each: CONFIG
//        RESETSTAT, --calls calls pipelined --batch at a time (every POLL
//        reply must be *0, every TTN the ms to the nearest TTL), INFO
//        commandstats usec_per_call, the client's calls/s, and the server's
//        on-CPU time per call (schedstat of the loop thread; it includes
//        parsing and replying, so compare with PING's). lawnkv's
//        commandstats truncate each call to whole microseconds
//        (dispatch.cpp), so sub-microsecond calls read low there.
//        --bpoll-probe N: then N PING round trips from another client, first
//        alone, then while a third client is blocked in REDE.BPOLL eq 0
//        (p50/p99 and server on-CPU time per PING).
// xpoll  --elements elements into key "xq" (TTLs as in drain), ADVANCE-TIME
//        past them, then: one REDE.XPOLL (it moves them to the due list and
//        lists them), a second one (the list is built), both timed like the
//        POLL above and checked for the id order (order_errors, both calls
//        summed); then REDE.XACK of every id, 1000 ids a call, timed as a
//        whole, each reply checked.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "dehy-bench: %s\n", what.c_str());
  std::exit(1);
}

double mono_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A parsed reply. type is the RESP prefix: '+', '-', ':', '$', '*'; a nil
// bulk or array has nil set.
struct Reply {
  char type = 0;
  bool nil = false;
  std::string str;
  long long num = 0;
  std::vector<Reply> elems;
};

std::string show(const Reply& r) {
  switch (r.type) {
    case '+':
    case '-':
      return std::string(1, r.type) + r.str;
    case ':':
      return ":" + std::to_string(r.num);
    case '$':
      return r.nil ? "(nil)" : "\"" + r.str + "\"";
    case '*':
      return r.nil ? "(nil array)" : "array of " + std::to_string(r.elems.size());
  }
  return "?";
}

// A blocking RESP2 connection. Replies are either parsed (reply()) or, for
// timing a large one, first received whole with a resumable scanner that only
// finds where the reply ends (receive_one()), then parsed from memory.
class Conn {
 public:
  explicit Conn(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0)
      die("cannot connect to port " + std::to_string(port));
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~Conn() { close(fd_); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  void append(const std::vector<std::string_view>& argv) {
    out_ += "*" + std::to_string(argv.size()) + "\r\n";
    for (auto a : argv) {
      out_ += "$" + std::to_string(a.size()) + "\r\n";
      out_.append(a);
      out_ += "\r\n";
    }
  }
  void flush() {
    size_t off = 0;
    while (off < out_.size()) {
      const ssize_t n = write(fd_, out_.data() + off, out_.size() - off);
      if (n <= 0) die("write failed");
      off += static_cast<size_t>(n);
    }
    out_.clear();
  }

  Reply reply() {
    while (true) {
      size_t end = 0;
      if (scan(pos_, &end)) {
        Reply r;
        size_t p = pos_;
        parse(&p, &r);
        pos_ = end;
        compact();
        return r;
      }
      fill();
    }
  }
  Reply command(const std::vector<std::string_view>& argv) {
    append(argv);
    flush();
    return reply();
  }

  // Blocks until one whole reply is in the buffer, without parsing it.
  // Resumable: the scan state survives each read, so a reply of a million
  // elements is scanned once, at memcpy-like speed.
  void receive_one() {
    stack_.clear();
    stack_.push_back(1);
    scan_pos_ = pos_;
    while (!scan_step()) fill();
  }

 private:
  void fill() {
    if (in_.size() - len_ < 1 << 20) in_.resize(std::max<size_t>(in_.size() * 2, len_ + (1 << 20)));
    const ssize_t n = read(fd_, in_.data() + len_, in_.size() - len_);
    if (n <= 0) die("connection closed");
    len_ += static_cast<size_t>(n);
  }
  void compact() {
    if (pos_ == len_) {
      pos_ = len_ = 0;
    } else if (pos_ > 1 << 22) {
      std::memmove(in_.data(), in_.data() + pos_, len_ - pos_);
      len_ -= pos_;
      pos_ = 0;
    }
  }
  // Position after the CRLF that ends the line at p, or npos.
  size_t line_end(size_t p) const {
    const void* cr = std::memchr(in_.data() + p, '\r', len_ - p);
    if (!cr) return std::string::npos;
    const size_t at = static_cast<size_t>(static_cast<const char*>(cr) - in_.data());
    return at + 1 < len_ ? at + 2 : std::string::npos;
  }
  // Advances the resumable scan; true once the outermost reply is complete.
  bool scan_step() {
    while (!stack_.empty()) {
      if (stack_.back() == 0) {
        stack_.pop_back();
        continue;
      }
      const size_t p = scan_pos_;
      if (p >= len_) return false;
      const size_t eol = line_end(p);
      if (eol == std::string::npos) return false;
      const char t = in_[p];
      const long long n = std::atoll(in_.data() + p + 1);
      if (t == '$' && n >= 0) {
        if (eol + static_cast<size_t>(n) + 2 > len_) return false;
        scan_pos_ = eol + static_cast<size_t>(n) + 2;
        --stack_.back();
      } else if (t == '*' && n > 0) {
        scan_pos_ = eol;
        --stack_.back();
        stack_.push_back(n);
      } else {
        scan_pos_ = eol;
        --stack_.back();
      }
    }
    return true;
  }
  // Non-resumable check used by reply(): is a whole reply at p? Sets *end.
  bool scan(size_t p, size_t* end) {
    std::vector<long long> st{1};
    while (!st.empty()) {
      if (st.back() == 0) {
        st.pop_back();
        continue;
      }
      if (p >= len_) return false;
      const size_t eol = line_end(p);
      if (eol == std::string::npos) return false;
      const char t = in_[p];
      const long long n = std::atoll(in_.data() + p + 1);
      --st.back();
      if (t == '$' && n >= 0) {
        if (eol + static_cast<size_t>(n) + 2 > len_) return false;
        p = eol + static_cast<size_t>(n) + 2;
      } else {
        p = eol;
        if (t == '*' && n > 0) st.push_back(n);
      }
    }
    *end = p;
    return true;
  }
  // Parses the (complete) reply at *p.
  void parse(size_t* p, Reply* r) {
    const size_t eol = line_end(*p);
    r->type = in_[*p];
    const std::string_view body(in_.data() + *p + 1, eol - 2 - *p - 1);
    *p = eol;
    switch (r->type) {
      case '+':
      case '-':
        r->str = body;
        return;
      case ':':
        r->num = std::atoll(std::string(body).c_str());
        return;
      case '$': {
        const long long n = std::atoll(std::string(body).c_str());
        if (n < 0) {
          r->nil = true;
          return;
        }
        r->str.assign(in_.data() + *p, static_cast<size_t>(n));
        *p += static_cast<size_t>(n) + 2;
        return;
      }
      case '*': {
        const long long n = std::atoll(std::string(body).c_str());
        if (n < 0) {
          r->nil = true;
          return;
        }
        r->elems.resize(static_cast<size_t>(n));
        for (auto& e : r->elems) parse(p, &e);
        return;
      }
      default:
        die("unexpected reply type " + std::string(1, r->type));
    }
  }

 public:
  // Parses the reply that receive_one() found, and consumes it.
  Reply take_received() {
    Reply r;
    size_t p = pos_;
    parse(&p, &r);
    pos_ = p;
    compact();
    return r;
  }

 private:
  int fd_;
  std::string out_;
  std::string in_;
  size_t pos_ = 0, len_ = 0;
  std::vector<long long> stack_;
  size_t scan_pos_ = 0;
};

using Args = std::map<std::string, std::string>;

long long arg(const Args& a, const std::string& k, long long def) {
  auto it = a.find(k);
  return it == a.end() ? def : std::atoll(it->second.c_str());
}

void expect(const Reply& r, char type, const std::string& what) {
  if (r.type != type) die(what + ": unexpected reply " + show(r));
}

// A field of INFO <section>, or "" if absent.
std::string info_field(Conn& c, const std::string& section, const std::string& field) {
  const Reply r = c.command({"INFO", section});
  expect(r, '$', "INFO " + section);
  std::istringstream in(r.str);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(field + ":", 0) == 0) return line.substr(field.size() + 1);
  }
  return "";
}

long long used_memory(Conn& c) { return std::atoll(info_field(c, "memory", "used_memory").c_str()); }

// calls and usec of one cmdstat_<name> line.
void cmdstat(Conn& c, const std::string& name, long long* calls, long long* usec) {
  const std::string v = info_field(c, "commandstats", "cmdstat_" + name);
  *calls = *usec = -1;
  std::sscanf(v.c_str(), "calls=%lld,usec=%lld", calls, usec);
}

long long rss_kb(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  return -1;
}


// On-CPU and run-queue-wait nanoseconds of pid's main thread (the event
// loop), from /proc/PID/task/PID/schedstat. On a shared, loaded machine the
// wall time of a call includes the time the server waited for a core; its
// on-CPU time does not.
struct Sched {
  long long run_ns = 0, wait_ns = 0;
};
Sched sched(long pid) {
  Sched s;
  if (pid <= 0) return s;
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/schedstat");
  in >> s.run_ns >> s.wait_ns;
  return s;
}

long long memory_usage(Conn& c, const std::string& key) {
  const Reply r = c.command({"MEMORY", "USAGE", key});
  return r.type == ':' ? r.num : -1;
}

// Pushes n elements "val:<i>" / "id:<i>" with TTL (i % ttls + 1) * step.
double push_elements(Conn& c, const std::string& key, long long n, long long ttls, long long step, long long batch) {
  const double t0 = mono_ms();
  char id[32], val[32], ttl[32];
  for (long long done = 0; done < n;) {
    const long long end = std::min(n, done + batch);
    for (long long i = done; i < end; ++i) {
      std::snprintf(id, sizeof id, "id:%07lld", i);
      std::snprintf(val, sizeof val, "val:%07lld", i);
      std::snprintf(ttl, sizeof ttl, "%lld", (i % ttls + 1) * step);
      c.append({"REDE.PUSH", key, ttl, val, id});
    }
    c.flush();
    for (long long i = done; i < end; ++i) {
      const Reply r = c.reply();
      if (r.type != '+' || r.str != "OK") die("REDE.PUSH element " + std::to_string(i) + ": " + show(r));
    }
    done = end;
  }
  return mono_ms() - t0;
}

// Checks that elems (values or ids, per prefix) are the n elements, each
// once; dies if not. Returns how many positions hold another element than the
// expected due order puts there (0: exact order), and describes the first
// such position on stderr.
long long check_order(const std::vector<Reply>& elems, long long n, long long ttls, const char* prefix,
                      const std::string& what) {
  if (static_cast<long long>(elems.size()) != n)
    die(what + ": " + std::to_string(elems.size()) + " elements, expected " + std::to_string(n));
  std::vector<std::string> want(static_cast<size_t>(n));
  char buf[32];
  long long k = 0, in_k = 0, count_k = (n + ttls - 1) / ttls;
  for (long long pos = 0; pos < n; ++pos) {
    while (in_k == count_k) {
      ++k;
      in_k = 0;
      count_k = (n - k + ttls - 1) / ttls;
    }
    std::snprintf(buf, sizeof buf, "%s%07lld", prefix, k + in_k * ttls);
    ++in_k;
    want[static_cast<size_t>(pos)] = buf;
  }
  long long mismatches = 0;
  for (long long pos = 0; pos < n; ++pos) {
    if (elems[static_cast<size_t>(pos)].str == want[static_cast<size_t>(pos)]) continue;
    if (mismatches++ == 0) {
      std::string got;
      for (long long j = std::max(0LL, pos - 2); j < std::min(n, pos + 6); ++j) got += " " + elems[static_cast<size_t>(j)].str;
      std::fprintf(stderr, "dehy-bench: %s out of due order: position %lld is %s, expected %s (positions %lld..:%s)\n",
                   what.c_str(), pos, elems[static_cast<size_t>(pos)].str.c_str(), want[static_cast<size_t>(pos)].c_str(),
                   std::max(0LL, pos - 2), got.c_str());
    }
  }
  std::vector<std::string> got;
  got.reserve(elems.size());
  for (const Reply& e : elems) got.push_back(e.str);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  if (got != want) die(what + ": not the elements pushed (missing or repeated ones)");
  return mismatches;
}

// --exec-before / --exec-after: a shell command run just before sending the
// measured call and just after its reply (to switch a profiler on and off,
// e.g. "callgrind_control -i on PID"). Not part of the timed span.
void hook(const Args& a, const std::string& when) {
  auto it = a.find("exec-" + when);
  if (it == a.end()) return;
  if (std::system(it->second.c_str()) != 0) die("--exec-" + when + " failed: " + it->second);
}

void mode_drain(const Args& a) {
  const int port = static_cast<int>(arg(a, "port", 0));
  const long pid = static_cast<long>(arg(a, "pid", 0));
  const long long n = arg(a, "elements", 1000000), ttls = arg(a, "ttls", 100);
  const long long step = arg(a, "ttl-step", 60000), batch = arg(a, "batch", 10000);
  // Memory is read on this connection, which only ever carries small
  // replies; the push and the POLL use their own, closed before the next
  // reading, so their buffers are not counted as the dehydrator's.
  Conn admin(port);
  expect(admin.command({"FLUSHALL"}), '+', "FLUSHALL");
  admin.command({"MEMORY", "PURGE"});
  const long long mem0 = used_memory(admin), rss0 = rss_kb(pid);

  // An emptied dehydrator's own cost: one element pushed and polled.
  expect(admin.command({"REDE.PUSH", "dq", "0", "v", "id"}), '+', "REDE.PUSH");
  expect(admin.command({"DEBUG", "ADVANCE-TIME", "2"}), '+', "DEBUG ADVANCE-TIME");
  expect(admin.command({"REDE.POLL", "dq"}), '*', "REDE.POLL");
  const long long mem_empty = used_memory(admin), usage_empty = memory_usage(admin, "dq");

  double push_ms;
  {
    Conn c(port);
    push_ms = push_elements(c, "dq", n, ttls, step, batch);
  }
  const long long mem1 = used_memory(admin), rss1 = rss_kb(pid), usage1 = memory_usage(admin, "dq");

  expect(admin.command({"DEBUG", "ADVANCE-TIME", std::to_string((ttls + 1) * step)}), '+', "DEBUG ADVANCE-TIME");
  expect(admin.command({"CONFIG", "RESETSTAT"}), '+', "CONFIG RESETSTAT");
  double poll_ms;
  long long order_errors;
  Sched s0, s1;
  {
    Conn c(port);
    c.append({"REDE.POLL", "dq"});
    hook(a, "before");
    s0 = sched(pid);
    const double t0 = mono_ms();
    c.flush();
    c.receive_one();
    poll_ms = mono_ms() - t0;
    s1 = sched(pid);
    hook(a, "after");
    const Reply r = c.take_received();
    expect(r, '*', "REDE.POLL");
    order_errors = check_order(r.elems, n, ttls, "val:", "REDE.POLL");
  }
  long long calls, usec;
  cmdstat(admin, "rede.poll", &calls, &usec);
  if (calls != 1) die("cmdstat_rede.poll calls=" + std::to_string(calls));

  const Reply ttn = admin.command({"REDE.TTN", "dq"});
  if (ttn.type != ':' || ttn.num != -1) die("REDE.TTN after the drain: " + show(ttn));
  const Reply again = admin.command({"REDE.POLL", "dq"});
  if (again.type != '*' || !again.elems.empty()) die("second REDE.POLL: " + show(again));
  const long long mem2 = used_memory(admin), rss2 = rss_kb(pid), usage2 = memory_usage(admin, "dq");
  expect(admin.command({"DEL", "dq"}), ':', "DEL");
  const long long mem3 = used_memory(admin), rss3 = rss_kb(pid);
  admin.command({"MEMORY", "PURGE"});
  const long long mem4 = used_memory(admin), rss4 = rss_kb(pid);

  std::printf(
      "elements=%lld ttls=%lld push_ms=%.1f poll_client_ms=%.2f poll_server_usec=%lld poll_server_cpu_ms=%.2f "
      "poll_server_wait_ms=%.2f "
      "mem_before=%lld mem_empty_dehydrator=%lld mem_pushed=%lld mem_polled=%lld mem_deleted=%lld mem_purged=%lld "
      "rss_kb_before=%lld rss_kb_pushed=%lld rss_kb_polled=%lld rss_kb_deleted=%lld rss_kb_purged=%lld "
      "usage_empty=%lld usage_pushed=%lld usage_polled=%lld order_errors=%lld\n",
      n, ttls, push_ms, poll_ms, usec, (s1.run_ns - s0.run_ns) / 1e6, (s1.wait_ns - s0.wait_ns) / 1e6, mem0, mem_empty, mem1, mem2, mem3, mem4, rss0, rss1, rss2, rss3, rss4,
      usage_empty, usage1, usage2, order_errors);
}

// calls pipelined batch at a time; check(reply) validates each.
template <class Check>
double run_calls(Conn& c, const std::vector<std::string_view>& argv, long long calls, long long batch, Check check) {
  const double t0 = mono_ms();
  for (long long done = 0; done < calls;) {
    const long long end = std::min(calls, done + batch);
    for (long long i = done; i < end; ++i) c.append(argv);
    c.flush();
    for (long long i = done; i < end; ++i) check(c.reply());
    done = end;
  }
  return mono_ms() - t0;
}

void mode_empty(const Args& a) {
  const int port = static_cast<int>(arg(a, "port", 0));
  const long pid = static_cast<long>(arg(a, "pid", 0));
  const long long ttls = arg(a, "ttls", 10000), per = arg(a, "per-ttl", 1);
  const long long calls = arg(a, "calls", 100000), batch = arg(a, "batch", 100);
  const long long base = arg(a, "ttl-base", 3600000), spacing = arg(a, "ttl-spacing", 1000);
  Conn c(port);
  expect(c.command({"FLUSHALL"}), '+', "FLUSHALL");
  char id[48], ttl[32];
  for (long long j = 0; j < per; ++j) {
    for (long long i = 0; i < ttls; ++i) {
      std::snprintf(id, sizeof id, "id:%lld:%lld", i, j);
      std::snprintf(ttl, sizeof ttl, "%lld", base + spacing * i);
      c.append({"REDE.PUSH", "eq", ttl, "v", id});
    }
    c.flush();
    for (long long i = 0; i < ttls; ++i) {
      const Reply r = c.reply();
      if (r.type != '+') die("REDE.PUSH: " + show(r));
    }
  }
  std::printf("ttls=%lld per_ttl=%lld ttl_base=%lld ttl_spacing=%lld calls=%lld batch=%lld", ttls, per, base, spacing,
              calls, batch);
  struct Case {
    const char* name;
    std::vector<std::string_view> argv;
  };
  const Case cases[] = {{"rede.poll", {"REDE.POLL", "eq"}}, {"rede.ttn", {"REDE.TTN", "eq"}}, {"ping", {"PING"}}};
  for (const Case& k : cases) {
    expect(c.command({"CONFIG", "RESETSTAT"}), '+', "CONFIG RESETSTAT");
    const Sched s0 = sched(pid);
    const double ms = run_calls(c, k.argv, calls, batch, [&](const Reply& r) {
      if (k.argv[0] == "REDE.POLL" && (r.type != '*' || !r.elems.empty())) die("empty REDE.POLL replied " + show(r));
      // The nearest TTL is base ms away: TTN is a bit under base + 1.
      if (k.argv[0] == "REDE.TTN" && (r.type != ':' || r.num <= base - 600000 || r.num > base + 1))
        die("REDE.TTN replied " + show(r));
      if (k.argv[0] == "PING" && r.type != '+') die("PING replied " + show(r));
    });
    const Sched s1 = sched(pid);
    long long n, usec;
    cmdstat(c, k.name, &n, &usec);
    if (n != calls) die(std::string("cmdstat_") + k.name + " calls=" + std::to_string(n));
    const std::string label = k.name == std::string("rede.poll") ? "poll" : k.name == std::string("rede.ttn") ? "ttn" : "ping";
    const double per_call = static_cast<double>(calls);
    std::printf(" %s_usec=%lld %s_usec_per_call=%.3f %s_client_calls_per_s=%.0f %s_server_cpu_us_per_call=%.3f",
                label.c_str(), usec, label.c_str(), static_cast<double>(usec) / per_call, label.c_str(),
                per_call / ms * 1000.0, label.c_str(), static_cast<double>(s1.run_ns - s0.run_ns) / 1e3 / per_call);
  }
  if (const long long pings = arg(a, "bpoll-probe", 0); pings > 0) {
    // PING round trips (one at a time) from another client, without and then
    // with a client blocked in REDE.BPOLL on eq: what a waiter costs everyone.
    Conn probe(port);
    auto measure = [&](const char* label) {
      std::vector<double> us;
      const Sched s0 = sched(pid);
      for (long long i = 0; i < pings; ++i) {
        const double t0 = mono_ms();
        const Reply r = probe.command({"PING"});
        us.push_back((mono_ms() - t0) * 1000.0);
        if (r.type != '+') die("PING replied " + show(r));
      }
      const Sched s1 = sched(pid);
      std::sort(us.begin(), us.end());
      std::printf(" %s_ping_p50_us=%.1f %s_ping_p99_us=%.1f %s_server_cpu_us_per_ping=%.1f", label, us[us.size() / 2], label,
                  us[std::min(us.size() - 1, us.size() * 99 / 100)], label,
                  static_cast<double>(s1.run_ns - s0.run_ns) / 1e3 / static_cast<double>(pings));
    };
    measure("nowaiter");
    {
      Conn waiter(port);
      waiter.append({"REDE.BPOLL", "eq", "0"});
      waiter.flush();
      // Blocked once CLIENT LIST shows flags=b (INFO's blocked_clients
      // stays 0 in lawnkv).
      auto blocked = [&] {
        const Reply r = probe.command({"CLIENT", "LIST"});
        return r.type == '$' && r.str.find("flags=b ") != std::string::npos;
      };
      for (int i = 0; i < 1000 && !blocked(); ++i) usleep(1000);
      if (!blocked()) die("the REDE.BPOLL client did not block");
      measure("waiter");
    }
  }
  std::printf("\n");
}

// Sends one command and times it to the last byte of its reply.
// Sends one command and times it to the last byte of its reply: client wall
// ms, and the server's on-CPU ms meanwhile (pid 0: not read).
Reply timed(Conn& c, const std::vector<std::string_view>& argv, long pid, double* ms, double* cpu_ms) {
  c.append(argv);
  const Sched s0 = sched(pid);
  const double t0 = mono_ms();
  c.flush();
  c.receive_one();
  *ms = mono_ms() - t0;
  const Sched s1 = sched(pid);
  *cpu_ms = static_cast<double>(s1.run_ns - s0.run_ns) / 1e6;
  return c.take_received();
}

void mode_xpoll(const Args& a) {
  const int port = static_cast<int>(arg(a, "port", 0));
  const long pid = static_cast<long>(arg(a, "pid", 0));
  const long long n = arg(a, "elements", 40000), ttls = arg(a, "ttls", 1);
  const long long step = arg(a, "ttl-step", 60000);
  Conn c(port);
  expect(c.command({"FLUSHALL"}), '+', "FLUSHALL");
  push_elements(c, "xq", n, ttls, step, 10000);
  expect(c.command({"DEBUG", "ADVANCE-TIME", std::to_string((ttls + 1) * step)}), '+', "DEBUG ADVANCE-TIME");
  expect(c.command({"CONFIG", "RESETSTAT"}), '+', "CONFIG RESETSTAT");
  double first_ms, second_ms, first_cpu, second_cpu;
  hook(a, "before");
  const Reply first = timed(c, {"REDE.XPOLL", "xq"}, pid, &first_ms, &first_cpu);
  hook(a, "after");
  long long calls, first_usec, total_usec;
  cmdstat(c, "rede.xpoll", &calls, &first_usec);
  const Reply second = timed(c, {"REDE.XPOLL", "xq"}, pid, &second_ms, &second_cpu);
  cmdstat(c, "rede.xpoll", &calls, &total_usec);
  expect(first, '*', "REDE.XPOLL");
  const long long order_errors = check_order(first.elems, n, ttls, "id:", "first REDE.XPOLL") +
                                 check_order(second.elems, n, ttls, "id:", "second REDE.XPOLL");

  // XACK every id, 1000 a call: each reply is the element.
  const Sched s0 = sched(pid);
  const double t0 = mono_ms();
  const long long per = 1000;
  for (long long done = 0; done < n; done += per) {
    const long long end = std::min(n, done + per);
    std::vector<std::string_view> argv{"REDE.XACK", "xq"};
    for (long long i = done; i < end; ++i) argv.emplace_back(first.elems[static_cast<size_t>(i)].str);
    const Reply r = c.command(argv);
    if (r.type != '*' || static_cast<long long>(r.elems.size()) != end - done) die("REDE.XACK: " + show(r));
    for (long long i = done; i < end; ++i) {
      const std::string& idv = first.elems[static_cast<size_t>(i)].str;
      const Reply& v = r.elems[static_cast<size_t>(i - done)];
      if (v.type != '$' || v.nil || v.str != "val:" + idv.substr(3)) die("REDE.XACK " + idv + ": " + show(v));
    }
  }
  const double xack_ms = mono_ms() - t0;
  const Sched s1 = sched(pid);
  long long xack_calls, xack_usec;
  cmdstat(c, "rede.xack", &xack_calls, &xack_usec);
  const Reply after = c.command({"REDE.XPOLL", "xq"});
  if (after.type != '*' || !after.elems.empty()) die("REDE.XPOLL after XACK of all: " + show(after));
  std::printf(
      "elements=%lld ttls=%lld xpoll1_client_ms=%.2f xpoll1_server_usec=%lld xpoll1_server_cpu_ms=%.2f "
      "xpoll2_client_ms=%.2f xpoll2_server_usec=%lld xpoll2_server_cpu_ms=%.2f "
      "xack_all_client_ms=%.2f xack_all_server_usec=%lld xack_all_server_cpu_ms=%.2f order_errors=%lld\n",
      n, ttls, first_ms, first_usec, first_cpu, second_ms, total_usec - first_usec, second_cpu, xack_ms, xack_usec,
      static_cast<double>(s1.run_ns - s0.run_ns) / 1e6, order_errors);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: dehy-bench drain|empty|xpoll --port P [options] (see the source's header)");
  const std::string mode = argv[1];
  Args a;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k.rfind("--", 0) != 0) die("bad option " + k);
    a[k.substr(2)] = argv[i + 1];
  }
  if (arg(a, "port", 0) == 0) die("--port is required");
  if (mode == "drain") mode_drain(a);
  else if (mode == "empty") mode_empty(a);
  else if (mode == "xpoll") mode_xpoll(a);
  else die("unknown mode " + mode);
  return 0;
}
