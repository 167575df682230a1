#pragma once
// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO (client_tracking.cpp):
// rows the CLIENT container of connection_family.cpp takes in.

#include <vector>

#include "engine/context.hpp"

namespace lawnkv {

// rows with the client-side caching subcommands added.
std::vector<CommandSpec> with_client_tracking_rows(std::vector<CommandSpec> rows);

}  // namespace lawnkv
