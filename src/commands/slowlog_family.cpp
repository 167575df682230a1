// What operators read of the server's timing: SLOWLOG (the commands that ran
// longer than slowlog-log-slower-than, engine/slow_log.hpp) and LATENCY (the
// spikes past latency-monitor-threshold, engine/latency_monitor.hpp), both
// fed by dispatch with the duration commandstats counts.

#include <climits>
#include <string>
#include <vector>

#include "commands/families.hpp"
#include "commands/server_family.hpp"
#include "core/error_format.hpp"
#include "core/numbers.hpp"
#include "engine/args.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kBadCount = "ERR count should be greater than or equal to -1";

/* SLOWLOG GET [count] */
void slowlog_get_command(Call& call) {
  if (call.argv.size() > 3)
    return reply_subcommand_syntax_error(call);
  const auto& entries = call.server.slowlog.entries();
  long long count = 10;
  if (call.argv.size() == 3) {
    if (!integer_or_reply(call, call.argv[2], &count, kBadCount)) return;
    if (count < -1) return call.error(kBadCount);
    if (count == -1) count = static_cast<long long>(entries.size());
  }
  const size_t n = std::min(entries.size(), static_cast<size_t>(count));
  call.reply.array(n);
  for (size_t i = 0; i < n; ++i) {
    const SlowLogEntry& e = entries[i];
    call.reply.array(6);
    call.reply.integer(static_cast<long long>(e.id));
    call.reply.integer(e.time_s);
    call.reply.integer(e.duration_us);
    call.reply.array_of_bulks(e.argv);
    call.reply.bulk(e.peer);
    call.reply.bulk(e.name);
  }
}

/* SLOWLOG LEN */
void slowlog_len_command(Call& call) {
  call.reply.integer(static_cast<long long>(call.server.slowlog.entries().size()));
}

/* SLOWLOG RESET */
void slowlog_reset_command(Call& call) {
  call.server.slowlog.reset();
  call.reply.simple("OK");
}

/* SLOWLOG HELP */
void slowlog_help_command(Call& call) {
  reply_help(call, "SLOWLOG",
             {"GET [<count>]", "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
              "    Entries are made of:",
              "    id, timestamp, time in microseconds, arguments array, client IP and port,", "    client name",
              "LEN", "    Return the length of the slowlog.", "RESET", "    Reset the slowlog."});
}

void reply_samples(Call& call, const LatencyMonitor::Series& s) {
  size_t n = 0;
  for (const auto& x : s.samples) n += x.time_s != 0;
  call.reply.array(n);
  for (size_t j = 0; j < LatencyMonitor::kSamples; ++j) {
    const auto& x = s.samples[(s.next + j) % LatencyMonitor::kSamples];
    if (x.time_s == 0) continue;
    call.reply.array(2);
    call.reply.integer(x.time_s);
    call.reply.integer(x.latency_ms);
  }
}

/* LATENCY LATEST */
void latency_latest_command(Call& call) {
  const auto& events = call.server.latency.events();
  call.reply.array(events.size());
  for (const auto& [event, s] : events) {
    call.reply.array(4);
    call.reply.bulk(event);
    call.reply.integer(s.latest().time_s);
    call.reply.integer(s.latest().latency_ms);
    call.reply.integer(s.max_ms);
  }
}

/* LATENCY HISTORY event */
void latency_history_command(Call& call) {
  const LatencyMonitor::Series* s = call.server.latency.find(call.argv[2]);
  if (!s) return call.reply.array(0);
  reply_samples(call, *s);
}

/* LATENCY GRAPH event */
void latency_graph_command(Call& call) {
  const LatencyMonitor::Series* s = call.server.latency.find(call.argv[2]);
  if (!s) return call.error(format_error("ERR No samples available for event '%s'", {call.argv[2]}));
  call.reply.verbatim(LatencyMonitor::graph(call.argv[2], *s, call.now_ms / 1000));
}

// One command's histogram: {calls, histogram_usec: {us: count at or below}}.
void reply_histogram(Call& call, const CommandSpec& spec) {
  const LatencyHistogram& h = *spec.latency_histogram;
  call.reply.bulk(spec.name);
  call.reply.map(2);
  call.reply.bulk("calls");
  call.reply.integer(static_cast<long long>(h.total()));
  call.reply.bulk("histogram_usec");
  const auto steps = h.cumulative_steps();
  call.reply.map(steps.size());
  for (const auto& [us, count] : steps) {
    call.reply.integer(us);
    call.reply.integer(static_cast<long long>(count));
  }
}

/* LATENCY HISTOGRAM [command ...]
 * The latency histograms of the commands named (a container's: its
 * subcommands'), or of every command that has one; unknown names are
 * skipped. */
void latency_histogram_command(Call& call) {
  std::vector<const CommandSpec*> found;
  auto take = [&](const CommandSpec& spec) {
    if (spec.latency_histogram) found.push_back(&spec);
  };
  if (call.argv.size() == 2) {
    call.server.commands.for_each_spec(take);
  } else {
    for (size_t j = 2; j < call.argv.size(); ++j) {
      const CommandSpec* spec = call.server.commands.find_fullname(call.argv[j]);
      if (!spec) continue;
      take(*spec);
      for (const CommandSpec& sub : spec->subcommands) take(sub);
    }
  }
  call.reply.map(found.size());
  for (const CommandSpec* spec : found) reply_histogram(call, *spec);
}

/* LATENCY RESET [event ...] */
void latency_reset_command(Call& call) {
  if (call.argv.size() == 2) return call.reply.integer(call.server.latency.reset_all());
  int resets = 0;
  for (size_t j = 2; j < call.argv.size(); ++j) resets += call.server.latency.reset(call.argv[j]);
  call.reply.integer(resets);
}

/* LATENCY DOCTOR */
void latency_doctor_command(Call& call) {
  call.reply.verbatim(call.server.latency.doctor(call.cfg().latency_monitor_threshold, call.now_ms / 1000));
}

/* LATENCY HELP */
void latency_help_command(Call& call) {
  reply_help(call, "LATENCY",
             {"DOCTOR", "    Return a human readable latency analysis report.", "GRAPH <event>",
              "    Return an ASCII latency graph for the <event> class.", "HISTORY <event>",
              "    Return time-latency samples for the <event> class.", "LATEST",
              "    Return the latest latency samples for all events.", "RESET [<event> ...]",
              "    Reset latency data of one or more <event> classes.",
              "    (default: reset all data for all event classes)", "HISTOGRAM [COMMAND ...]",
              "    Return a cumulative distribution of latencies in the format of a histogram for the specified "
              "command names.",
              "    If no commands are specified then all histograms are replied."});
}

}  // namespace

void register_slowlog_commands(CommandTable& t) {
  constexpr std::string_view kAdminAcl = "@admin @slow @dangerous";
  constexpr uint32_t kLatencyFlags = kAdmin | kNoscript | kLoading | kStale;
  t.add({
      {.name = "slowlog", .arity = -2, .flags = 0,
       .acl = "@slow",
       .group = "server", .since = "2.2.12", .complexity = "Depends on the subcommand",
       .summary = "Commands about the slow log",
       .subcommands = {
           {.name = "slowlog|get", .arity = -2, .flags = kAdmin | kLoading | kStale,
            .acl = kAdminAcl, .group = "server", .since = "2.2.12", .complexity = "O(N) where N is the number of entries returned",
            .summary = "Returns the slow log's entries, newest first",
            .tips = "request_policy:all_nodes nondeterministic_output",
            .handler = slowlog_get_command},
           {.name = "slowlog|help", .arity = 2, .flags = kLoading | kStale,
            .acl = "@slow", .group = "server", .since = "6.2.0", .complexity = "O(1)",
            .summary = "Describes the SLOWLOG subcommands",
            .handler = slowlog_help_command},
           {.name = "slowlog|len", .arity = 2, .flags = kAdmin | kLoading | kStale,
            .acl = kAdminAcl, .group = "server", .since = "2.2.12", .complexity = "O(1)",
            .summary = "Returns the number of entries in the slow log",
            .tips = "request_policy:all_nodes response_policy:agg_sum nondeterministic_output",
            .handler = slowlog_len_command},
           {.name = "slowlog|reset", .arity = 2, .flags = kAdmin | kLoading | kStale,
            .acl = kAdminAcl, .group = "server", .since = "2.2.12", .complexity = "O(N) where N is the number of entries",
            .summary = "Clears the slow log",
            .tips = "request_policy:all_nodes response_policy:all_succeeded",
            .handler = slowlog_reset_command},
       }},
      {.name = "latency", .arity = -2, .flags = 0,
       .acl = "@slow",
       .group = "server", .since = "2.8.13", .complexity = "Depends on the subcommand",
       .summary = "Commands about the latency monitor",
       .subcommands = {
           {.name = "latency|doctor", .arity = 2, .flags = kLatencyFlags,
            .acl = kAdminAcl, .group = "server", .since = "2.8.13", .complexity = "O(1)",
            .summary = "Returns a report of the latency events seen",
            .tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
            .handler = latency_doctor_command},
           {.name = "latency|graph", .arity = 3, .flags = kLatencyFlags,
            .acl = kAdminAcl, .group = "server", .since = "2.8.13", .complexity = "O(1)",
            .summary = "Draws one latency event's samples as an ASCII graph",
            .tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
            .handler = latency_graph_command},
           {.name = "latency|help", .arity = 2, .flags = kLoading | kStale,
            .acl = "@slow", .group = "server", .since = "2.8.13", .complexity = "O(1)",
            .summary = "Describes the LATENCY subcommands",
            .handler = latency_help_command},
           {.name = "latency|histogram", .arity = -2, .flags = kLatencyFlags,
            .acl = kAdminAcl, .group = "server", .since = "7.0.0",
            .complexity = "O(N) where N is the number of commands with latency information being retrieved",
            .summary = "Returns the latency histograms of some or all commands",
            .tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
            .handler = latency_histogram_command},
           {.name = "latency|history", .arity = 3, .flags = kLatencyFlags,
            .acl = kAdminAcl, .group = "server", .since = "2.8.13", .complexity = "O(1)",
            .summary = "Returns the samples of one latency event",
            .tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
            .handler = latency_history_command},
           {.name = "latency|latest", .arity = 2, .flags = kLatencyFlags,
            .acl = kAdminAcl, .group = "server", .since = "2.8.13", .complexity = "O(1)",
            .summary = "Returns the latest sample of each latency event",
            .tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
            .handler = latency_latest_command},
           {.name = "latency|reset", .arity = -2, .flags = kLatencyFlags,
            .acl = kAdminAcl, .group = "server", .since = "2.8.13", .complexity = "O(1)",
            .summary = "Forgets the samples of some or all latency events",
            .tips = "request_policy:all_nodes response_policy:all_succeeded",
            .handler = latency_reset_command},
       }},
  });
}

}  // namespace lawnkv
