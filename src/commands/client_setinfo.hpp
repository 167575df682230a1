#pragma once
// CLIENT SETINFO (client_setinfo.cpp): the row the CLIENT container of
// connection_family.cpp takes in.

#include <vector>

#include "engine/context.hpp"

namespace lawnkv {

// rows with CLIENT SETINFO added.
std::vector<CommandSpec> with_client_setinfo_row(std::vector<CommandSpec> rows);

}  // namespace lawnkv
