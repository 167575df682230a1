#include "commands/table.hpp"

#include <cctype>

namespace lawnkv {

const CommandSpec* CommandSpec::subcommand(std::string_view lower_name) const {
  for (const auto& s : subcommands)
    if (std::string_view(s.name).substr(name.size() + 1) == lower_name) return &s;
  return nullptr;
}

void CommandTable::add(CommandSpec spec) {
  std::string key = spec.name;
  commands_.emplace(std::move(key), std::move(spec));
}

const CommandSpec* CommandTable::find(std::string_view name) const {
  char buf[64];
  if (name.size() >= sizeof(buf)) return nullptr;
  for (size_t i = 0; i < name.size(); ++i)
    buf[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  auto it = commands_.find(std::string(buf, name.size()));
  return it == commands_.end() ? nullptr : &it->second;
}

}  // namespace lawnkv
