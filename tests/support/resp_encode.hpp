#pragma once
// Requests as clients send them: argv encoded as a RESP multibulk
// ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"). Binary-safe.

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace lawnkv::test {

std::string encode_command(std::span<const std::string> argv);
std::string encode_command(std::initializer_list<std::string_view> argv);

}  // namespace lawnkv::test
