#pragma once
// Splits a line into arguments with redis-cli's quoting (sdssplitargs):
// "double quotes" with \n \r \t \b \a \\ \" \xHH escapes, 'single quotes'
// with \' only, unquoted words split at whitespace. Returns nullopt for
// unbalanced quotes or a closing quote not followed by a space.
//
// Interim: to be replaced by the server's own lawnkv::split_args
// (src/core/split_args.hpp) as soon as that lands and is linkable here.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lawnkv::test {

std::optional<std::vector<std::string>> split_line(std::string_view line);

}  // namespace lawnkv::test
