#pragma once
// Error replies, byte for byte as Redis 7.0 sends them (without the leading
// '-' and the CRLF, which the writer adds). Texts with a parameter have a
// function in the family that needs them; a text that quotes client bytes is
// made by format_error (src/core/error_format.hpp), as Redis makes it.

#include <string>
#include <string_view>

namespace lawnkv::err {

inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kDbIndex = "ERR DB index is out of range";
inline constexpr std::string_view kSameObject = "ERR source and destination objects are the same";
inline constexpr std::string_view kStringTooLong = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kWrongPass = "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kExecAbort = "EXECABORT Transaction discarded because of previous errors.";
inline constexpr std::string_view kMultiNested = "ERR MULTI calls can not be nested";
inline constexpr std::string_view kExecWithoutMulti = "ERR EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMulti = "ERR DISCARD without MULTI";
inline constexpr std::string_view kWatchInMulti = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kNotPositive = "ERR value is out of range, must be positive";
inline constexpr std::string_view kCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
inline constexpr std::string_view kNumkeys = "ERR numkeys should be greater than 0";
inline constexpr std::string_view kTooManyKeys = "ERR Number of keys can't be greater than number of args";
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
// A replica (REPLICAOF host port) under replica-read-only: a client's write.
inline constexpr std::string_view kReadOnlyReplica = "READONLY You can't write against a read only replica.";
// A primary under min-replicas-to-write with too few good replicas.
inline constexpr std::string_view kNoReplicas = "NOREPLICAS Not enough good replicas to write.";
// A replica whose link is down under replica-serve-stale-data no.
inline constexpr std::string_view kMasterDown =
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
// While a replica loads its primary's snapshot: every command without the
// loading flag.
inline constexpr std::string_view kLoading = "LOADING Redis is loading the dataset in memory";
// While an EVAL script, or a FUNCTION, runs past busy-reply-threshold.
inline constexpr std::string_view kBusyScript =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kOutOfRange = "ERR value is out of range";
inline constexpr std::string_view kNanOrInfinity = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kLimitNegative = "ERR LIMIT can't be negative";
inline constexpr std::string_view kCountPositive = "ERR count should be greater than 0";
inline constexpr std::string_view kNegativeKeys = "ERR Number of keys can't be negative";

// Formats for format_error: an unknown subcommand (dispatch), and Redis's
// addReplySubcommandSyntaxError (the subcommand, then the command in upper
// case).
inline constexpr std::string_view kUnknownSubcommand = "ERR unknown subcommand '%.128s'. Try %s HELP.";
inline constexpr std::string_view kSubcommandSyntax =
    "ERR unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.";

// Redis's addReplyErrorArity, for a command that checks its arguments' count
// beyond its row's arity (name is the row's, lower case).
inline std::string wrong_arity(std::string_view name) {
  return "ERR wrong number of arguments for '" + std::string(name) + "' command";
}

}  // namespace lawnkv::err
