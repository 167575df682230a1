#pragma once
// The reply writer: appends RESP2 or RESP3 replies to a connection's output
// buffer. Every method writes one complete element (an aggregate method only
// its header; the caller then writes exactly that many elements, twice as
// many for map()). The bytes equal redis-server 7.0.15's for the same reply.
//
// How each type degrades to RESP2 (the client's HELLO decides the protocol):
//
//   method        RESP3                 RESP2
//   null()        _\r\n                 $-1\r\n
//   null_array()  _\r\n                 *-1\r\n
//   map(n)        %n\r\n                *<2n>\r\n
//   set(n)        ~n\r\n                *n\r\n
//   push(n)       >n\r\n                *n\r\n
//   dbl(d)        ,<%.17g>\r\n          $len\r\n<%.17g>\r\n   (inf, -inf spelled)
//   boolean(b)    #t\r\n / #f\r\n       :1\r\n / :0\r\n
//   verbatim(s)   =<len+4>\r\ntxt:s\r\n $len\r\ns\r\n
//   big_number(d) (d\r\n                $len\r\nd\r\n

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace lawnkv::resp {

// Told of every error reply a Writer writes (INFO errorstats counts them).
class ErrorObserver {
 public:
  virtual void on_error_reply(std::string_view text) = 0;

 protected:
  ~ErrorObserver() = default;
};

class Writer {
 public:
  // Appends to out, which must outlive the writer. protocol is 2 or 3.
  Writer(std::string& out, int protocol) : out_(&out), client_out_(&out), protocol_(protocol) {}

  // +s\r\n. CR and LF inside s become spaces, so a reply can never break
  // the stream (Redis does the same for formatted errors).
  void simple(std::string_view s);
  // -s\r\n, where s is the full error text with its code, e.g.
  // "ERR syntax error" or "WRONGTYPE Operation against ...". CR/LF as simple().
  void error(std::string_view s);
  // :v\r\n
  void integer(int64_t v);
  // $len\r\ns\r\n, binary safe.
  void bulk(std::string_view s);
  void null();
  void null_array();
  // *n\r\n
  void array(size_t n);
  void map(size_t pairs);
  void set(size_t n);
  void push(size_t n);
  // Redis 7.0's addReplyDouble: "%.17g" (so 0.1 is "0.10000000000000001",
  // -0.0 is "-0", NaN is glibc's "nan" or "-nan"), infinities "inf"/"-inf".
  void dbl(double d);
  // A double already written as text (Redis's addReplyHumanLongDouble, the
  // coordinates of GEOPOS): a bulk string in RESP2, a double in RESP3.
  void dbl_text(std::string_view text);
  void boolean(bool b);
  // fmt is the three-byte format tag, "txt" or "mkd".
  void verbatim(std::string_view s, std::string_view fmt = "txt");
  void big_number(std::string_view digits);

  // An array of n bulk strings, the common multi-value reply.
  template <typename Range>
  void array_of_bulks(const Range& items) {
    array(std::size(items));
    for (const auto& item : items) bulk(item);
  }

  int protocol() const { return protocol_; }
  // HELLO switches protocol mid-reply: its own reply already uses the new one.
  void set_protocol(int protocol) { protocol_ = protocol; }

  // CLIENT REPLY OFF | SKIP: while muted, replies go to sink (which the
  // caller throws away) instead of the client's output; push frames written
  // inside an Unmuted scope (Pub/Sub confirmations, as Redis's
  // CLIENT_PUSHING) still reach the client.
  void mute(std::string& sink) { out_ = &sink; }
  void unmute() { out_ = client_out_; }
  bool muted() const { return out_ != client_out_; }
  // Every error() from now on is told to o (nullptr: none), muted or not,
  // as Redis counts an error reply it does not send.
  void observe_errors(ErrorObserver* o) { errors_ = o; }
  ErrorObserver* error_observer() const { return errors_; }
  class Unmuted {
   public:
    explicit Unmuted(Writer& w) : w_(w), saved_(w.out_) { w.out_ = w.client_out_; }
    ~Unmuted() { w_.out_ = saved_; }
    Unmuted(const Unmuted&) = delete;
    Unmuted& operator=(const Unmuted&) = delete;

   private:
    Writer& w_;
    std::string* saved_;
  };

 private:
  // <prefix><n>\r\n
  void header(char prefix, int64_t n);
  // <prefix>s\r\n with CR and LF in s replaced by spaces.
  void line(char prefix, std::string_view s);

  std::string* out_;         // where replies go now
  std::string* client_out_;  // the client's output
  ErrorObserver* errors_ = nullptr;
  int protocol_;
};

}  // namespace lawnkv::resp
