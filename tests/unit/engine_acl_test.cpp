// ACL users (engine/acl_user.hpp, acl_selector.hpp, acl_users.hpp) and the
// checks before every command (engine/acl_check.hpp, dispatch): the rule
// parser and its errors, the description ACL LIST shows, passwords, the
// permission matrix (users x commands x keys x channels), the ACL LOG, and
// the fast path of an unrestricted user.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "command_fixture.hpp"
#include "core/glob.hpp"
#include "core/sha256.hpp"
#include "engine/acl_users.hpp"

namespace lawnkv {

namespace {

using test::CommandServer;
using test::FakeSession;

// rules applied to a fresh user; the first error, or kNone.
acl::RuleError apply_all(acl::User& u, const CommandTable& t, std::initializer_list<std::string_view> rules) {
  for (std::string_view r : rules)
    if (acl::RuleError e = u.apply(r, t, false); e != acl::RuleError::kNone) return e;
  return acl::RuleError::kNone;
}

}  // namespace

TEST_CASE("acl: a new user, the default user, and their descriptions") {
  CommandServer srv;
  const CommandTable& t = srv.state.commands;
  acl::User u("u", false);
  CHECK(u.describe(t) == "off resetchannels -@all");
  CHECK_FALSE(u.unrestricted());
  const acl::User& def = srv.state.acl.default_user();
  CHECK(def.describe(t) == "on nopass ~* &* +@all");
  CHECK(def.unrestricted());
  // acl-pubsub-default allchannels: new users and selectors get &*.
  acl::User all("a", true);
  CHECK(all.describe(t) == "off &* -@all");
}

TEST_CASE("acl: rules and their errors") {
  CommandServer srv;
  const CommandTable& t = srv.state.commands;
  acl::User u("u", false);
  CHECK(apply_all(u, t, {"on", ">p1", "~k*", "%R~r*", "%W~w*", "&c*", "+get", "+@hash", "-hdel"}) ==
        acl::RuleError::kNone);
  CHECK(u.describe(t) == "on #" + sha256_hex("p1") + " ~k* %R~r* %W~w* resetchannels &c* -@all +@hash +get -hdel");
  // Several single commands come in the table's name order.
  CHECK(apply_all(u, t, {"-@all", "+set", "+get", "+append"}) == acl::RuleError::kNone);
  CHECK(u.selectors()[0].describe_commands(t) == "-@all +append +get +set");
  CHECK(u.apply("+nosuch", t, false) == acl::RuleError::kUnknownName);
  CHECK(u.apply("+@nosuch", t, false) == acl::RuleError::kUnknownName);
  CHECK(u.apply("-get|x", t, false) == acl::RuleError::kUnknownName);
  CHECK(u.apply("+config|get|x", t, false) == acl::RuleError::kSubcommandFirstArg);
  CHECK(u.apply("+get|", t, false) == acl::RuleError::kSyntax);
  CHECK(u.apply("bogus", t, false) == acl::RuleError::kSyntax);
  CHECK(u.apply("%", t, false) == acl::RuleError::kSyntax);
  CHECK(u.apply("%X~a", t, false) == acl::RuleError::kSyntax);
  CHECK(u.apply("~a b", t, false) == acl::RuleError::kSyntax);
  CHECK(u.apply(std::string_view("&a\0b", 4), t, false) == acl::RuleError::kSyntax);
  CHECK(u.apply("#abc", t, false) == acl::RuleError::kBadHash);
  CHECK(u.apply("<nosuch", t, false) == acl::RuleError::kNoSuchPassword);
  CHECK(u.apply("allkeys", t, false) == acl::RuleError::kNone);
  CHECK(u.apply("~x", t, false) == acl::RuleError::kKeyAfterAllKeys);
  CHECK(u.apply("allchannels", t, false) == acl::RuleError::kNone);
  CHECK(u.apply("&x", t, false) == acl::RuleError::kChannelAfterAll);
  CHECK(acl::rule_error_text(acl::RuleError::kUnknownName) == "Unknown command or category name in ACL");
}

TEST_CASE("acl: SETUSER applies every rule or none") {
  CommandServer srv;
  acl::Users& users = srv.state.acl;
  const std::vector<std::string_view> good = {"on", ">pw", "+get"};
  CHECK(users.set_user("x", good, srv.state.commands).empty());
  const std::vector<std::string_view> bad = {"off", "+nosuch"};
  CHECK(users.set_user("x", bad, srv.state.commands) ==
        "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL");
  REQUIRE(users.find("x"));
  CHECK(users.find("x")->enabled());
  const std::vector<std::string_view> open = {"(~a", "+get"};
  CHECK(users.set_user("x", open, srv.state.commands) == "Unmatched parenthesis in acl selector starting at '(~a'.");
  const std::vector<std::string_view> sel = {"(~a", "+set)", "(%R~b", "+@read)"};
  CHECK(users.set_user("x", sel, srv.state.commands).empty());
  CHECK(users.find("x")->describe(srv.state.commands) ==
        "on #" + sha256_hex("pw") + " resetchannels -@all +get (~a resetchannels -@all +set) "
        "(%R~b resetchannels -@all +@read)");
  CHECK(users.remove("default") == nullptr);
  CHECK(users.remove("x") != nullptr);
  CHECK(users.find("x") == nullptr);
}

TEST_CASE("acl: passwords match by digest; nopass matches anything; requirepass is the default's") {
  CommandServer srv;
  acl::User u("u", false);
  const CommandTable& t = srv.state.commands;
  CHECK_FALSE(u.password_matches(""));
  u.apply(">secret", t, false);
  CHECK(u.password_matches("secret"));
  CHECK_FALSE(u.password_matches("secreT"));
  CHECK_FALSE(u.password_matches(""));
  u.apply("#" + sha256_hex("other"), t, false);
  CHECK(u.password_matches("other"));
  u.apply("!" + sha256_hex("secret"), t, false);
  CHECK_FALSE(u.password_matches("secret"));
  u.apply("nopass", t, false);
  CHECK(u.password_matches("anything"));
  CHECK(u.passwords().empty());
  acl::Users& users = srv.state.acl;
  users.set_default_password("pw", t);
  CHECK_FALSE(users.default_user().nopass());
  CHECK(users.default_user().password_matches("pw"));
  users.set_default_password("", t);
  CHECK(users.default_user().nopass());
}

// The permission matrix: each user runs each command through dispatch, as
// a connection would; the reply says whether it ran.
TEST_CASE("acl: permission matrix, users x commands x keys x channels") {
  CommandServer srv;
  auto setuser = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"ACL", "SETUSER"});
    REQUIRE(srv.run(args) == "+OK\r\n");
  };
  setuser({"reader", "on", "nopass", "-@all", "+@read", "%R~r:*", "~both:*"});
  setuser({"writer", "on", "nopass", "-@all", "+@write", "+@read", "%W~w:*", "~both:*"});
  setuser({"pub", "on", "nopass", "-@all", "+publish", "+subscribe", "+psubscribe", "&news.*"});
  setuser({"sel", "on", "nopass", "-@all", "+get", "~a:*", "(+set ~b:*)"});
  setuser({"admin", "on", "nopass", "+@all", "-@dangerous", "+config|get", "~*", "&*"});
  setuser({"lit", "on", "nopass", "+@all", "~exact", "%R~*", "%W~w?"});
  const std::string kCmd = "-NOPERM this user has no permissions to run the '";
  const std::string kKey = "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n";
  const std::string kChan = "-NOPERM this user has no permissions to access one of the channels used as arguments\r\n";
  struct Case {
    const char* user;
    std::vector<std::string> cmd;
    std::string expect;  // "ok": anything but a NOPERM; else the error
  };
  const std::vector<Case> cases = {
      {"reader", {"GET", "r:1"}, "ok"},
      {"reader", {"GET", "both:1"}, "ok"},
      {"reader", {"GET", "w:1"}, kKey},
      {"reader", {"SET", "r:1", "v"}, kCmd + "set' command\r\n"},
      {"reader", {"MGET", "r:1", "w:1"}, kKey},
      {"reader", {"EXISTS", "r:1", "both:2"}, "ok"},
      {"writer", {"SET", "w:1", "v"}, "ok"},
      {"writer", {"SET", "r:1", "v"}, kKey},
      {"writer", {"GET", "w:1"}, kKey},
      {"writer", {"DEL", "w:1"}, "ok"},
      {"writer", {"SET", "w:1", "v", "GET"}, kKey},  // GET reads the key too
      {"writer", {"SET", "both:1", "v", "GET"}, "ok"},
      {"writer", {"COPY", "both:1", "w:2"}, "ok"},
      {"writer", {"COPY", "w:2", "both:1"}, kKey},
      {"writer", {"PUBLISH", "news.x", "m"}, kCmd + "publish' command\r\n"},
      {"pub", {"PUBLISH", "news.x", "m"}, "ok"},
      {"pub", {"PUBLISH", "sports", "m"}, kChan},
      {"pub", {"SUBSCRIBE", "news.a", "news.b"}, "ok"},
      {"pub", {"SUBSCRIBE", "news.a", "sports"}, kChan},
      {"pub", {"PSUBSCRIBE", "news.*"}, "ok"},
      {"pub", {"PSUBSCRIBE", "news.a*"}, kChan},  // a pattern must equal an allowed one
      {"pub", {"GET", "k"}, kCmd + "get' command\r\n"},
      {"sel", {"GET", "a:1"}, "ok"},
      {"sel", {"GET", "b:1"}, kKey},
      {"sel", {"SET", "b:1", "v"}, "ok"},
      {"sel", {"SET", "a:1", "v"}, kKey},  // root has no SET, the selector no a:*: the key is reported
      {"sel", {"DEL", "a:1"}, kCmd + "del' command\r\n"},
      {"admin", {"GET", "any"}, "ok"},
      {"admin", {"FLUSHALL"}, kCmd + "flushall' command\r\n"},
      {"admin", {"CONFIG", "GET", "maxmemory"}, "ok"},
      {"admin", {"CONFIG", "SET", "maxmemory", "0"}, kCmd + "config|set' command\r\n"},
      {"admin", {"AUTH", "x", "y"}, "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
      {"lit", {"SET", "exact", "v"}, "ok"},
      {"lit", {"SET", "exactly", "v"}, kKey},
      {"lit", {"GET", "anything"}, "ok"},
      {"lit", {"GET", ""}, kKey},  // "*" does not match the empty key (stringmatchlen)
      {"lit", {"SET", "", "v"}, kKey},
      {"lit", {"SET", "w1", "v"}, "ok"},
      {"lit", {"SET", "w12", "v"}, kKey},
      {"lit", {"MSET", "exact", "1", "w1", "2", "x", "3"}, kKey},
      {"lit", {"ZUNIONSTORE", "exact", "2", "a", "b"}, "ok"},
      {"lit", {"ZUNIONSTORE", "w12", "2", "a", "b"}, kKey},
      {"lit", {"ZUNIONSTORE", "w12", "0", "a"}, "ok"},  // a bad count: no keys found, the command refuses it
  };
  for (const Case& c : cases) {
    FakeSession s;
    s.id = srv.state.clients.next_id();
    s.authenticated = true;
    s.user = srv.state.acl.find(c.user);
    srv.state.clients.add(s);
    const std::string reply = srv.run_as(s, c.cmd);
    srv.state.data.hub.unsubscribe_all(s);
    srv.state.clients.remove(s);
    CAPTURE(c.user);
    CAPTURE(c.cmd[0]);
    CAPTURE(c.cmd.size() > 1 ? c.cmd[1] : "");
    if (c.expect == "ok")
      CHECK(reply.rfind("-NOPERM", 0) == std::string::npos);
    else
      CHECK(reply == c.expect);
  }
}

TEST_CASE("acl: key patterns of the simple kinds answer as the glob engine") {
  using K = acl::KeyPattern;
  CHECK(K("*", acl::kKeyRead).kind == K::kPrefix);
  CHECK(K("cache:*", acl::kKeyRead).kind == K::kPrefix);
  CHECK(K("exact", acl::kKeyRead).kind == K::kLiteral);
  CHECK(K("", acl::kKeyRead).kind == K::kLiteral);
  CHECK(K("a*b", acl::kKeyRead).kind == K::kGlob);
  CHECK(K("**", acl::kKeyRead).kind == K::kGlob);
  CHECK(K("a?", acl::kKeyRead).kind == K::kGlob);
  CHECK(K("a[bc]", acl::kKeyRead).kind == K::kGlob);
  CHECK(K("a\\*", acl::kKeyRead).kind == K::kGlob);
  const char* patterns[] = {"*", "cache:*", "exact", "", "a*", "a*b", "**", "a?", "a[bc]", "a\\*", "]", "^x", "x-y"};
  const char* keys[] = {"", "a", "ab", "a*", "abc", "cache:", "cache:1", "cache", "Cache:1", "exact", "exactly",
                        "xexact", "]", "^x", "x-y", "ac"};
  for (const char* p : patterns)
    for (const char* k : keys) {
      CAPTURE(p);
      CAPTURE(k);
      CHECK(K(p, acl::kKeyRead).matches(k) == glob_match(p, k));
    }
}

TEST_CASE("acl: the ACL LOG groups alike entries and keeps the newest") {
  CommandServer srv;
  REQUIRE(srv.run({"ACL", "SETUSER", "u", "on", "nopass", "-@all", "+get", "~a*"}) == "+OK\r\n");
  FakeSession s;
  s.id = srv.state.clients.next_id();
  s.authenticated = true;
  s.user = srv.state.acl.find("u");
  srv.state.clients.add(s);
  srv.run_as(s, {"SET", "a", "v"});
  srv.now += 1000;
  srv.run_as(s, {"SET", "a", "v"});
  srv.run_as(s, {"GET", "b"});
  srv.run_as(s, {"MULTI"});
  srv.run_as(s, {"AUTH", "u2", "x"});
  const auto& log = srv.state.acl.log.entries();
  REQUIRE(log.size() == 4);
  CHECK(log[0].reason == acl::kDeniedAuth);
  CHECK(log[0].object == "AUTH");
  CHECK(log[0].username == "u2");
  CHECK(log[1].reason == acl::kDeniedCommand);  // MULTI is not allowed either
  CHECK(log[1].object == "multi");
  CHECK(log[2].reason == acl::kDeniedKey);
  CHECK(log[2].object == "b");
  CHECK(log[3].object == "set");
  CHECK(log[3].count == 2);
  CHECK(log[3].context == "toplevel");
  CHECK(log[3].client_info.find("user=u") != std::string::npos);
  // Past a minute, a like entry is a new one.
  srv.now += 61000;
  srv.run_as(s, {"SET", "a", "v"});
  CHECK(srv.state.acl.log.entries().size() == 5);
  // The reply: 7 fields; age-seconds from the command's time.
  const std::string one = srv.run({"ACL", "LOG", "1"});
  CHECK(one.rfind("*1\r\n*14\r\n$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$7\r\ncommand\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n"
                  "$6\r\nobject\r\n$3\r\nset\r\n$8\r\nusername\r\n$1\r\nu\r\n$11\r\nage-seconds\r\n$1\r\n0\r\n",
                  0) == 0);
  srv.state.config.mutable_values().acllog_max_len = 2;
  srv.run_as(s, {"GET", "c"});
  CHECK(srv.state.acl.log.entries().size() == 2);
  CHECK(srv.run({"ACL", "LOG", "RESET"}) == "+OK\r\n");
  CHECK(srv.run({"ACL", "LOG"}) == "*0\r\n");
  srv.state.clients.remove(s);
}

TEST_CASE("acl: MULTI refuses what the user may not run; EXEC checks again") {
  CommandServer srv;
  REQUIRE(srv.run({"ACL", "SETUSER", "u", "on", "nopass", "-@all", "+@transaction", "+get", "+set", "~*"}) == "+OK\r\n");
  FakeSession s;
  s.id = srv.state.clients.next_id();
  s.authenticated = true;
  s.user = srv.state.acl.find("u");
  srv.state.clients.add(s);
  CHECK(srv.run_as(s, {"MULTI"}) == "+OK\r\n");
  CHECK(srv.run_as(s, {"DEL", "k"}) == "-NOPERM this user has no permissions to run the 'del' command\r\n");
  CHECK(srv.run_as(s, {"EXEC"}) == "-EXECABORT Transaction discarded because of previous errors.\r\n");
  CHECK(srv.state.acl.log.entries().front().context == "multi");
  CHECK(srv.run_as(s, {"MULTI"}) == "+OK\r\n");
  CHECK(srv.run_as(s, {"SET", "k", "v"}) == "+QUEUED\r\n");
  CHECK(srv.run_as(s, {"GET", "k"}) == "+QUEUED\r\n");
  REQUIRE(srv.run({"ACL", "SETUSER", "u", "-set"}) == "+OK\r\n");
  CHECK(srv.run_as(s, {"EXEC"}) ==
        "*2\r\n-NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. "
        "This command is no longer allowed for the following reason: no permission to execute the command or "
        "subcommand\r\n$-1\r\n");
  srv.state.clients.remove(s);
}

TEST_CASE("acl: the fast path is one flag; changing the default user takes it away") {
  CommandServer srv;
  const acl::User& def = srv.state.acl.default_user();
  CHECK(def.unrestricted());
  FakeSession s;
  s.id = srv.state.clients.next_id();
  s.authenticated = true;
  s.user = &def;
  srv.state.clients.add(s);
  CHECK(srv.run_as(s, {"SET", "k", "v"}) == "+OK\r\n");
  REQUIRE(srv.run({"ACL", "SETUSER", "default", "-get"}) == "+OK\r\n");
  CHECK_FALSE(def.unrestricted());
  CHECK(srv.run_as(s, {"GET", "k"}) == "-NOPERM this user has no permissions to run the 'get' command\r\n");
  REQUIRE(srv.run({"ACL", "SETUSER", "default", "+get"}) == "+OK\r\n");
  // +get again: every bit set, yet no longer "all commands" (as Redis, the
  // flag comes back with +@all only); still allowed.
  CHECK(srv.run_as(s, {"GET", "k"}) == "$1\r\nv\r\n");
  REQUIRE(srv.run({"ACL", "SETUSER", "default", "+@all"}) == "+OK\r\n");
  CHECK(def.unrestricted());
  srv.state.clients.remove(s);
}

TEST_CASE("acl: DELUSER logs the user's clients out and closes them") {
  CommandServer srv;
  REQUIRE(srv.run({"ACL", "SETUSER", "gone", "on", "nopass", "+@all", "~*"}) == "+OK\r\n");
  struct Closing : FakeSession {
    int closed = 0;
    void close_soon() override { ++closed; }
  } s;
  s.id = srv.state.clients.next_id();
  s.authenticated = true;
  s.user = srv.state.acl.find("gone");
  srv.state.clients.add(s);
  CHECK(srv.run({"ACL", "DELUSER", "gone", "nosuch"}) == ":1\r\n");
  CHECK(s.closed == 1);
  CHECK(s.user == &srv.state.acl.default_user());
  CHECK_FALSE(s.authenticated);
  srv.state.clients.remove(s);
}

}  // namespace lawnkv

namespace lawnkv {

TEST_CASE("acl: config user lines are checked as Redis's, then made at start") {
  CommandServer srv;
  const CommandTable& t = srv.state.commands;
  config::Config cfg;
  cfg.set_user_rule_check(
      [&t](std::span<const std::string> rules) { return acl::Users::check_config_rules(rules, t); });
  // Unknown commands pass the check (Redis defers them to start-up).
  REQUIRE(cfg.load_text("user app on >pw ~a* +get +nosuch\nuser default on nopass ~* &* +@all -flushall\n").ok());
  REQUIRE(cfg.values().users.size() == 2);
  config::Config bad;
  bad.set_user_rule_check(
      [&t](std::span<const std::string> rules) { return acl::Users::check_config_rules(rules, t); });
  const config::Status st = bad.load_text("user bob on ~* ~x\n");
  CHECK(st.error.find("Error in user declaration 'on': Adding a pattern after the * pattern") != std::string::npos);
  config::Config dup;
  CHECK(dup.load_text("user bob on\nuser bob off\n").error.find(
            "Error in user declaration 'bob': Duplicate user found. A user can only be defined once in config "
            "files") != std::string::npos);

  acl::Users users;
  CHECK(users.load_config_users(cfg.values().users, t) ==
        "Error loading ACL rule '+nosuch' for the user named 'app': Unknown command or category name in ACL");
  acl::Users good;
  std::vector<std::vector<std::string>> lines = cfg.values().users;
  lines[0].pop_back();
  CHECK(good.load_config_users(lines, t).empty());
  CHECK(good.find("app")->describe(t) == "on #" + sha256_hex("pw") + " ~a* resetchannels -@all +get");
  // "reset" first, as Redis: that leaves sanitize-payload.
  CHECK(good.default_user().describe(t) == "on nopass sanitize-payload ~* &* +@all -flushall");
}

TEST_CASE("acl: SETUSER that narrows a user's channels closes its subscribers it no longer covers") {
  CommandServer srv;
  REQUIRE(srv.run({"ACL", "SETUSER", "u", "on", "nopass", "+@all", "~*", "&news.*", "&a"}) == "+OK\r\n");
  struct Closing : FakeSession {
    int closed = 0;
    void close_soon() override { ++closed; }
  } chan, pat, idle;
  for (Closing* s : {&chan, &pat, &idle}) {
    s->id = srv.state.clients.next_id();
    s->authenticated = true;
    s->user = srv.state.acl.find("u");
    srv.state.clients.add(*s);
  }
  REQUIRE(srv.run_as(chan, {"SUBSCRIBE", "news.x"}).find("subscribe") != std::string::npos);
  REQUIRE(srv.run_as(pat, {"PSUBSCRIBE", "news.*"}).find("psubscribe") != std::string::npos);
  // A superset: nothing closes.
  REQUIRE(srv.run({"ACL", "SETUSER", "u", "&b"}) == "+OK\r\n");
  CHECK(chan.closed + pat.closed + idle.closed == 0);
  // "news.*" replaced by "news.?": the channel is still covered, the
  // pattern (compared literally) is not.
  REQUIRE(srv.run({"ACL", "SETUSER", "u", "resetchannels", "&news.?", "&a"}) == "+OK\r\n");
  CHECK(chan.closed == 0);
  CHECK(pat.closed == 1);
  CHECK(idle.closed == 0);
  for (Closing* s : {&chan, &pat, &idle}) {
    srv.state.data.hub.unsubscribe_all(*s);
    srv.state.clients.remove(*s);
  }
}

}  // namespace lawnkv

namespace lawnkv {

TEST_CASE("acl: GENPASS gives (bits + 3) / 4 random hex digits") {
  CommandServer srv;
  auto hex_of = [](const std::string& reply) {
    // "$<n>\r\n<digits>\r\n"
    const size_t start = reply.find("\r\n") + 2;
    return reply.substr(start, reply.size() - start - 2);
  };
  const std::string a = hex_of(srv.run({"ACL", "GENPASS"}));
  const std::string b = hex_of(srv.run({"ACL", "GENPASS"}));
  CHECK(a.size() == 64);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
  CHECK(hex_of(srv.run({"ACL", "GENPASS", "5"})).size() == 2);
  CHECK(hex_of(srv.run({"ACL", "GENPASS", "4096"})).size() == 1024);
  CHECK(srv.run({"ACL", "GENPASS", "4097"}) ==
        "-ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to "
        "4096\r\n");
}

}  // namespace lawnkv
