// The aclfile: ACL LOAD reads it whole into a new set of users and keeps
// them only if every line applies (Redis's ACLLoadFromFile, with its error
// texts); ACL SAVE writes every user as ACL LIST shows it, through a
// temporary file renamed over the old one (ACLSaveToFile).

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/clock.hpp"
#include "engine/acl_users.hpp"

namespace lawnkv::acl {

namespace {

std::string_view trim(std::string_view s, std::string_view chars) {
  const size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(chars) - b + 1);
}

// sdssplitlen on " ": every space separates, so two in a row give an empty
// word (an empty rule does nothing).
std::vector<std::string_view> split_spaces(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t sp = line.find(' ');
    out.push_back(line.substr(0, sp));
    if (sp == std::string_view::npos) return out;
    line.remove_prefix(sp + 1);
  }
}

}  // namespace

std::string Users::load_file(const std::string& path, const CommandTable& table,
                             std::vector<std::unique_ptr<User>>* replaced) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "Error loading ACLs, opening file '" + path + "': " + std::strerror(errno);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();

  std::map<std::string, std::unique_ptr<User>, std::less<>> loaded;
  std::string errors;
  size_t start = 0;
  for (int linenum = 1; start <= all.size(); ++linenum) {
    size_t nl = all.find('\n', start);
    if (nl == std::string::npos) nl = all.size();
    const std::string_view line = trim(std::string_view(all).substr(start, nl - start), " \t\r\n");
    start = nl + 1;
    if (line.empty()) continue;
    const std::vector<std::string_view> argv = split_spaces(line);
    const std::string where = path + ":" + std::to_string(linenum);
    if (argv[0] != "user" || argv.size() < 2) {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    const std::string name(argv[1]);
    if (has_spaces(name)) {
      errors += "'" + where + ": username '" + name + "' contains invalid characters. ";
      continue;
    }
    if (loaded.count(name)) {
      errors += "WARNING: Duplicate user '" + name + "' found on line " + std::to_string(linenum) + ". ";
      continue;
    }
    User& u = *loaded.emplace(name, std::make_unique<User>(name, pubsub_default_all)).first->second;
    std::vector<std::string> merged;
    size_t open_at = 0;
    if (!merge_selector_args(std::span(argv).subspan(2), &merged, &open_at)) {
      errors += where + ": Unmatched parenthesis in selector definition.";
      merged.clear();
    }
    bool syntax_error = false;
    for (const std::string& arg : merged) {
      const std::string op(trim(arg, "\t\r\n"));
      const RuleError e = u.apply(op, table, pubsub_default_all);
      if (e == RuleError::kUnknownName) {
        errors += where + ": Error in applying operation '" + op + "': " + std::string(rule_error_text(e)) + ". ";
      } else if (e != RuleError::kNone && !syntax_error) {
        errors += where + ": " + std::string(rule_error_text(e)) + ". ";
        syntax_error = true;
      }
    }
  }
  if (!errors.empty())
    return errors + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed";

  // The default user keeps its address (sessions point at it) and takes
  // the file's rules, or the defaults when the file has none for it.
  auto def = loaded.find("default");
  if (def != loaded.end()) {
    default_->assign_rules(*def->second);
    loaded.erase(def);
  } else {
    Users fresh;
    default_->assign_rules(fresh.default_user());
  }
  for (auto& [name, u] : users_)
    if (u.get() != default_) replaced->push_back(std::move(u));
  auto kept = std::move(users_.find("default")->second);
  users_ = std::move(loaded);
  users_.emplace("default", std::move(kept));
  return {};
}

std::string Users::save_file(const std::string& path, const CommandTable& table) const {
  std::string text;
  for (const auto& [name, u] : users_) text += "user " + name + " " + u->describe(table) + "\n";
  const std::string tmp = path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(Clock::wall_ns() / 1000000);
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return std::string("Opening temp ACL file for ACL SAVE: ") + std::strerror(errno);
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int saved_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    std::remove(tmp.c_str());
    return std::string("Writing ACL file for ACL SAVE: ") + std::strerror(written ? errno : saved_errno);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    return std::string("Renaming ACL file for ACL SAVE: ") + std::strerror(e);
  }
  return {};
}

}  // namespace lawnkv::acl
