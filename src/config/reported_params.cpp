// The reported parameters (params.hpp, reported_params()): what Redis 7.0
// answers to CONFIG GET for a feature lawnkv does not have, at the value
// that means "off" (Redis's default). Not directives: redis.conf refuses
// them, and CONFIG SET answers Redis's "can't set immutable config" for
// those Redis marks immutable (the rows marked so here), an unknown option
// for the others.

#include <string_view>

#include "config/params.hpp"
#include "core/ascii.hpp"

namespace lawnkv::config {

namespace {

using enum Access;

const Param kReported[] = {
    {.name = "replica-ignore-disk-write-errors", .used = false, .def = "no",
     .doc = "No replication."},
    {.name = "propagation-error-behavior", .used = false, .def = "ignore",
     .doc = "No replication."},
    {.name = "bind-source-addr", .used = false, .def = "",
     .doc = "No outgoing connections (replication, cluster)."},
    {.name = "cluster-enabled", .access = kImmutable, .used = false, .def = "no",
     .doc = "No cluster mode."},
    {.name = "cluster-config-file", .access = kImmutable, .used = false, .def = "nodes.conf",
     .doc = "No cluster mode."},
    {.name = "cluster-node-timeout", .used = false, .def = "15000",
     .doc = "No cluster mode."},
    {.name = "cluster-port", .access = kImmutable, .used = false, .def = "0",
     .doc = "No cluster mode."},
    {.name = "cluster-announce-ip", .used = false, .def = "",
     .doc = "No cluster mode."},
    {.name = "cluster-announce-hostname", .used = false, .def = "",
     .doc = "No cluster mode."},
    {.name = "cluster-announce-port", .used = false, .def = "0",
     .doc = "No cluster mode."},
    {.name = "cluster-announce-bus-port", .used = false, .def = "0",
     .doc = "No cluster mode."},
    {.name = "cluster-announce-tls-port", .used = false, .def = "0",
     .doc = "No cluster mode."},
    {.name = "cluster-preferred-endpoint-type", .used = false, .def = "ip",
     .doc = "No cluster mode."},
    {.name = "cluster-require-full-coverage", .used = false, .def = "yes",
     .doc = "No cluster mode."},
    {.name = "cluster-replica-no-failover", .alias = "cluster-slave-no-failover", .used = false, .def = "no",
     .doc = "No cluster mode."},
    {.name = "cluster-replica-validity-factor", .alias = "cluster-slave-validity-factor", .used = false, .def = "10",
     .doc = "No cluster mode."},
    {.name = "cluster-migration-barrier", .used = false, .def = "1",
     .doc = "No cluster mode."},
    {.name = "cluster-allow-replica-migration", .used = false, .def = "yes",
     .doc = "No cluster mode."},
    {.name = "cluster-allow-reads-when-down", .used = false, .def = "no",
     .doc = "No cluster mode."},
    {.name = "cluster-allow-pubsubshard-when-down", .used = false, .def = "yes",
     .doc = "No cluster mode."},
    {.name = "cluster-link-sendbuf-limit", .used = false, .def = "0",
     .doc = "No cluster mode."},
    {.name = "unixsocket", .access = kImmutable, .used = false, .def = "",
     .doc = "No unix socket: TCP only."},
    {.name = "unixsocketperm", .access = kImmutable, .used = false, .def = "0",
     .doc = "No unix socket."},
    {.name = "socket-mark-id", .access = kImmutable, .used = false, .def = "0",
     .doc = "No socket marks."},
    {.name = "enable-protected-configs", .access = kImmutable, .used = false, .def = "no",
     .doc = "Protected parameters are never settable at run time."},
    {.name = "enable-module-command", .access = kImmutable, .used = false, .def = "no",
     .doc = "No modules."},
    {.name = "sanitize-dump-payload", .used = false, .def = "no",
     .doc = "No DUMP / RESTORE payload checks."},
    {.name = "shutdown-on-sigint", .used = false, .def = "default",
     .doc = "SIGINT shuts down as Redis's default does."},
    {.name = "shutdown-on-sigterm", .used = false, .def = "default",
     .doc = "SIGTERM shuts down as Redis's default does."},
    {.name = "server_cpulist", .access = kImmutable, .used = false, .def = "",
     .doc = "No CPU pinning."},
    {.name = "bio_cpulist", .access = kImmutable, .used = false, .def = "",
     .doc = "No CPU pinning."},
    {.name = "aof_rewrite_cpulist", .access = kImmutable, .used = false, .def = "",
     .doc = "No CPU pinning."},
    {.name = "bgsave_cpulist", .access = kImmutable, .used = false, .def = "",
     .doc = "No CPU pinning."},
};

}  // namespace

std::span<const Param> reported_params() { return kReported; }

const Param* find_reported_param(std::string_view name) {
  for (const Param& p : kReported)
    if (iequals(p.name, name) || (!p.alias.empty() && iequals(p.alias, name))) return &p;
  return nullptr;
}

}  // namespace lawnkv::config
