// notify-lag: how late `expired` keyspace events arrive, or with
// --tracking 1 the invalidation messages of client-side caching.
//
//   notify-lag --port P [--keys 10000] [--min-ms 100] [--max-ms 2000]
//              [--background 0] [--wait-ms 60000] [--seed 1] [--out FILE]
//              [--tracking 0|1] [--sub-port P2] [--event NAME] [--absolute 0|1]
//
// Against a server already started with notify-keyspace-events including
// E and x (lawnkv or redis-server; bench/notify_lag.sh starts them):
//  1. FLUSHALL; with --background N, N keys "bg:<i>" with EX 3600 (an hour
//     away: they never expire during the run, but a sampling expirer has to
//     look through them).
//  2. A subscriber connection on __keyevent@0__:expired, read by its own
//     thread that stamps each message with CLOCK_REALTIME as it is parsed.
//  3. --keys keys "k:<i>" with PX uniform in [min-ms, max-ms], each followed
//     in the pipeline by PEXPIRETIME for its exact deadline (Unix ms, the
//     server's own).
//  4. Waits until every key's event has arrived, or --wait-ms after the last
//     deadline.
// With --tracking 1, step 2's connection says HELLO 3 instead and the
// keys' connection turns CLIENT TRACKING on with REDIRECT to it; step 3
// also GETs each key (so it is tracked): each key's invalidation, pushed
// when the server deletes it, stands for the event.
// With --sub-port the subscriber listens on another server (a replica of
// P: bench/replication_bench.sh), on the event --event names (a replica
// hears the primary's DEL as `del`: notify-keyspace-events Eg). With
// --absolute 1 every deadline is set by PXAT at start + uniform
// [min-ms, max-ms], whenever the key is written: 1,000,000 keys due within
// one second however long writing them takes.
// Lag = receive time - deadline, in ms (fractional). A key exists while
// now <= deadline (Redis's rule, in whole ms), so the earliest possible
// event is at deadline + 1 ms: no server can show a lag under 1.0.
//
// Prints one line "received=R keys=K p50=.. p99=.. max=.. mean=.." (ms), and
// with --out writes every received lag, one per line, for the histogram.
// Missing events are counted, never guessed.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

double realtime_ms() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "notify-lag: %s\n", what.c_str());
  std::exit(1);
}

// A blocking RESP connection with a read buffer; replies are parsed only as
// far as this bench needs (integers, simple strings, bulks, arrays of them).
class Conn {
 public:
  explicit Conn(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) die("cannot connect to port " + std::to_string(port));
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~Conn() { close(fd_); }

  void append(std::initializer_list<std::string_view> argv) {
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

  // The next reply as text: ":5" -> "5", "+OK" -> "OK", "$3 abc" -> "abc",
  // arrays flattened into their elements joined by '\n'; errors abort.
  std::string reply() {
    const std::string line = read_line();
    switch (line[0]) {
      case ':':
      case '+':
        return line.substr(1);
      case '-':
        die("server error: " + line);
      case '_':
        return "(nil)";
      case '$': {
        const long n = std::stol(line.substr(1));
        if (n < 0) return "(nil)";
        return read_bytes(static_cast<size_t>(n));
      }
      case '*':
      case '>':
      case '%': {
        const long n = std::stol(line.substr(1)) * (line[0] == '%' ? 2 : 1);
        std::string joined;
        for (long i = 0; i < n; ++i) joined += (i ? "\n" : "") + reply();
        return joined;
      }
      default:
        die("unexpected reply: " + line);
    }
  }

  int fd() const { return fd_; }

 private:
  void fill() {
    char buf[65536];
    const ssize_t n = read(fd_, buf, sizeof(buf));
    if (n <= 0) throw std::runtime_error("connection closed");
    in_.append(buf, static_cast<size_t>(n));
  }
  std::string read_line() {
    size_t eol;
    while ((eol = in_.find("\r\n", pos_)) == std::string::npos) fill();
    std::string line = in_.substr(pos_, eol - pos_);
    pos_ = eol + 2;
    compact();
    return line;
  }
  std::string read_bytes(size_t n) {
    while (in_.size() - pos_ < n + 2) fill();
    std::string s = in_.substr(pos_, n);
    pos_ += n + 2;
    compact();
    return s;
  }
  void compact() {
    if (pos_ > 1 << 20) {
      in_.erase(0, pos_);
      pos_ = 0;
    }
  }

  int fd_;
  std::string out_, in_;
  size_t pos_ = 0;
};

struct Options {
  int port = 0;
  int keys = 10000;
  int min_ms = 100;
  int max_ms = 2000;
  long background = 0;
  long wait_ms = 60000;
  unsigned seed = 1;
  std::string out;
  bool tracking = false;
  int sub_port = 0;  // 0: --port
  std::string event = "expired";
  bool absolute = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--port") o.port = std::stoi(v);
    else if (k == "--keys") o.keys = std::stoi(v);
    else if (k == "--min-ms") o.min_ms = std::stoi(v);
    else if (k == "--max-ms") o.max_ms = std::stoi(v);
    else if (k == "--background") o.background = std::stol(v);
    else if (k == "--wait-ms") o.wait_ms = std::stol(v);
    else if (k == "--seed") o.seed = static_cast<unsigned>(std::stoul(v));
    else if (k == "--out") o.out = v;
    else if (k == "--tracking") o.tracking = v == "1";
    else if (k == "--sub-port") o.sub_port = std::stoi(v);
    else if (k == "--event") o.event = v;
    else if (k == "--absolute") o.absolute = v == "1";
    else die("unknown option " + k);
  }
  if (o.port == 0) die("--port is required");
  if (o.sub_port == 0) o.sub_port = o.port;
  return o;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return NAN;
  const size_t i = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size()))) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Conn admin(o.port);
  admin.append({"FLUSHALL"});
  admin.flush();
  admin.reply();

  constexpr long kBatch = 10000;
  for (long done = 0; done < o.background;) {
    const long n = std::min(kBatch, o.background - done);
    for (long i = 0; i < n; ++i) admin.append({"SET", "bg:" + std::to_string(done + i), "v", "EX", "3600"});
    admin.flush();
    for (long i = 0; i < n; ++i) admin.reply();
    done += n;
  }

  // The subscriber thread records (key, receive time) for every message.
  Conn sub(o.sub_port);
  if (o.tracking) {
    sub.append({"CLIENT", "ID"});
    sub.append({"HELLO", "3"});
    sub.flush();
    const std::string id = sub.reply();
    sub.reply();
    admin.append({"CLIENT", "TRACKING", "on", "REDIRECT", id});
    admin.flush();
    admin.reply();
  } else {
    sub.append({"SUBSCRIBE", "__keyevent@0__:" + o.event});
    sub.flush();
    sub.reply();
  }
  std::mutex mu;
  std::vector<std::pair<std::string, double>> received;
  // Room for every event up front: growing the vector moves what it holds
  // (tens of ms at half a million keys), and meanwhile the reader reads
  // nothing, which the next events would show as the server's lag.
  received.reserve(static_cast<size_t>(o.keys) + 1024);
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    try {
      while (!stop) {
        const std::string frame = sub.reply();  // "message\n<channel>\n<key>", "invalidate\n<key>"
        const double at = realtime_ms();
        const size_t last = frame.rfind('\n');
        std::lock_guard<std::mutex> lock(mu);
        received.emplace_back(frame.substr(last + 1), at);
      }
    } catch (const std::exception&) {
    }
  });

  std::mt19937 rng(o.seed);
  std::uniform_int_distribution<int> ttl(o.min_ms, o.max_ms);
  std::unordered_map<std::string, long long> deadline;
  const long long start_ms = static_cast<long long>(realtime_ms());
  for (int done = 0; done < o.keys;) {
    const int n = std::min<int>(static_cast<int>(kBatch), o.keys - done);
    for (int i = 0; i < n; ++i) {
      const std::string key = "k:" + std::to_string(done + i);
      if (o.absolute) admin.append({"SET", key, "v", "PXAT", std::to_string(start_ms + ttl(rng))});
      else admin.append({"SET", key, "v", "PX", std::to_string(ttl(rng))});
      admin.append({"PEXPIRETIME", key});
      if (o.tracking) admin.append({"GET", key});
    }
    admin.flush();
    for (int i = 0; i < n; ++i) {
      admin.reply();
      const long long d = std::stoll(admin.reply());
      if (d < 0) die("PEXPIRETIME of k:" + std::to_string(done + i) + " replied " + std::to_string(d));
      if (o.tracking) admin.reply();
      deadline["k:" + std::to_string(done + i)] = d;
    }
    done += n;
  }
  long long last_deadline = 0;
  for (const auto& [k, d] : deadline) last_deadline = std::max(last_deadline, d);

  const double give_up = static_cast<double>(last_deadline + o.wait_ms);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (static_cast<int>(received.size()) >= o.keys) break;
    }
    if (realtime_ms() > give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a progress poll, not a measurement
  }
  stop = true;
  shutdown(sub.fd(), SHUT_RDWR);
  reader.join();

  std::vector<double> lags;
  size_t unknown = 0;
  for (const auto& [key, at] : received) {
    auto it = deadline.find(key);
    if (it == deadline.end()) {
      ++unknown;
      continue;
    }
    lags.push_back(at - static_cast<double>(it->second));
  }
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    for (double l : lags) f << l << "\n";
  }
  std::sort(lags.begin(), lags.end());
  double sum = 0;
  for (double l : lags) sum += l;
  std::printf("received=%zu keys=%d unknown=%zu p50=%.3f p99=%.3f max=%.3f mean=%.3f min=%.3f\n", lags.size(),
              o.keys, unknown, percentile(lags, 50), percentile(lags, 99), lags.empty() ? NAN : lags.back(),
              lags.empty() ? NAN : sum / static_cast<double>(lags.size()), lags.empty() ? NAN : lags.front());
  return 0;
}
