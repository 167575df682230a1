#pragma once
// Error texts that more than one stream command file sends, byte for byte as
// Redis 7.0 does (texts of one file are constants at the top of that file;
// texts every family shares are engine/errors.hpp's). The ones with "%s" are
// formats for format_error (src/core/error_format.hpp).

#include <string_view>

namespace lawnkv {

inline constexpr std::string_view kInvalidStreamId = "ERR Invalid stream ID specified as stream command argument";
// An exclusive bound "(id" that has no ID after (start) or before (end) it.
inline constexpr std::string_view kInvalidStartId = "ERR invalid start ID for the interval";
inline constexpr std::string_view kInvalidEndId = "ERR invalid end ID for the interval";
inline constexpr std::string_view kUnbalancedStreams =
    "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.";
// XREAD's and XREADGROUP's BLOCK: its timeout, and refused in a script
// (the command's name as the client wrote it).
inline constexpr std::string_view kBlockTimeoutNotInteger = "ERR timeout is not an integer or out of range";
inline constexpr std::string_view kBlockFromScript = "ERR %s command is not allowed with BLOCK option from scripts";
// Formats: key, then group; group, then key.
inline constexpr std::string_view kNoKeyOrGroup = "NOGROUP No such key '%s' or consumer group '%s'";
inline constexpr std::string_view kNoGroupForKey = "NOGROUP No such consumer group '%s' for key name '%s'";

}  // namespace lawnkv
