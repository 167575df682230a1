#pragma once
// Pub/Sub scenarios run on lawnkv and redis-server side by side, comparing
// everything each connection receives, byte for byte: replies, subscription
// frames, messages, RESP3 pushes, keyspace notifications.
//
// The case runner (case_runner.hpp) reads one reply per command; a Pub/Sub
// step can make any number of frames arrive on any connection. So after each
// step every open connection is synchronised: it is sent PING __sync__, and
// what it received before that PING's reply (["pong", "__sync__"] while a
// RESP2 connection is subscribed, the bulk "__sync__" otherwise) is its
// output for the step. A connection inside MULTI is not synchronised (its
// PING would be queued): the command it sent gets exactly one reply read.
//
// Script lines (Scenario::script):
//   # a comment; blank lines are skipped
//   SUBSCRIBE a b            a command on connection 1, redis-cli quoting
//   3: PSUBSCRIBE k*         a command on connection 3 (opened on first use)
//   @sorted 2: PUBLISH a x   compare each connection's frames of this step as
//                            a sorted list of sorted frames (reply_forms.hpp):
//                            for deliveries to several patterns and PUBSUB
//                            CHANNELS, whose order Redis leaves to a hash table
//   @nosync GET k            the acting connection reads its one reply and is
//                            not synchronised (a PING would spend CLIENT
//                            CACHING's flag before the next command)
//   @reply SET k v           the acting connection reads its one reply before it
//                            is synchronised (the PING would otherwise go in the
//                            same read as the command, ahead of what the server
//                            sends once per loop iteration: BCAST invalidations)
//   CLIENT TRACKING on REDIRECT {id:2}
//                            {id:N} is connection N's CLIENT ID on that server;
//   @ids CLIENT GETREDIR     and with @ids, an integer frame ":<id>" of an open
//                            connection N in any output reads ":{id:N}" (client
//                            ids differ between the servers)
//
// Before a scenario both servers get FLUSHALL, DEBUG SET-ACTIVE-EXPIRE 0 (so
// keys expire only when a command finds them, the same on both) and
// notify-keyspace-events; after it, every connection sends RESET (dropping
// its subscriptions before the next scenario starts) and the settings are
// restored.

#include <set>
#include <span>
#include <string>
#include <string_view>

#include "../support/server_process.hpp"

namespace lawnkv::test {

struct Scenario {
  std::string name;
  std::string notify_flags;   // notify-keyspace-events during the scenario
  std::set<int> resp3;        // connections that say HELLO 3 when they open
  std::string_view script;
};

struct ScenarioCounts {
  int steps = 0;
  int mismatches = 0;
  int frames = 0;  // received from redis-server, all connections: proof the run saw traffic
};

// Runs s on both servers; every step whose outputs differ is a failed doctest
// CHECK naming the scenario, the line, the connection and both outputs.
ScenarioCounts run_scenario(ServerProcess& lawnkv, ServerProcess& redis, const Scenario& s);

// Runs each scenario in turn and adds their counts to *total; stops the
// test if lawnkv exits (the rest would only fail to connect).
void run_scenarios(ServerProcess& lawnkv, ServerProcess& redis, std::span<const Scenario> scenarios,
                   ScenarioCounts* total);

}  // namespace lawnkv::test
