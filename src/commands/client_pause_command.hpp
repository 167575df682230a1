#pragma once
// CLIENT PAUSE and CLIENT UNPAUSE (client_pause_command.cpp): rows the
// CLIENT container of connection_family.cpp takes in. What a pause does is
// engine/client_pause.hpp's.

#include <vector>

#include "engine/context.hpp"

namespace lawnkv {

// rows with CLIENT PAUSE and CLIENT UNPAUSE added.
std::vector<CommandSpec> with_client_pause_rows(std::vector<CommandSpec> rows);

}  // namespace lawnkv
