// Loading redis.conf text and command-line directives, CONFIG SET and
// CONFIG GET, all driven by the parameter table (params.hpp).

#include "config/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "config/params.hpp"
#include "core/ascii.hpp"
#include "core/error_format.hpp"
#include "core/glob.hpp"
#include "core/split_args.hpp"

namespace lawnkv::config {

namespace {

constexpr int kMaxIncludeDepth = 16;

// sdstrim(line, " \t\r\n")
std::string_view trim(std::string_view s) {
  constexpr std::string_view kBlank = " \t\r\n";
  const size_t b = s.find_first_not_of(kBlank);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kBlank) - b + 1);
}

// redis-server's fatal config error, for a bad line or (line 0) none.
Status fatal(int line, std::string_view text, std::string_view reason) {
  std::string msg = "\n*** FATAL CONFIG FILE ERROR (Redis " + std::string(kRedisVersion) + ") ***\n";
  if (line > 0) {
    msg += "Reading the configuration file, at line " + std::to_string(line) + "\n";
    msg += ">>> '" + std::string(text) + "'\n";
  }
  msg += reason;
  return {msg};
}

// Redis's getAbsolutePath: the file need not exist.
std::string absolute_path(const std::string& path) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

// Redis's CONFIG SET error for a parameter it found.
Status set_failed(std::string_view name, std::string_view why) {
  return {format_error("ERR CONFIG SET failed (possibly related to argument '%s') - %s", {name, why})};
}

}  // namespace

Config::Config() = default;

// Text read from stdin (redis-server -) is appended to the file's, so it
// moves the command-line options' line numbers too.
Status Config::load_text(std::string_view text) {
  file_newlines_ += static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  return load_lines(text, 1, 0);
}

Status Config::load_file(const std::string& path) {
  file_ = absolute_path(path);
  return load_file_at(path, 0, &file_newlines_);
}

Status Config::load_file_at(const std::string& path, int depth, size_t* newlines) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return {"Fatal error, can't open config file '" + absolute_path(path) + "': " + std::strerror(err)};
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  if (newlines) *newlines = static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
  return load_lines(s, 1, depth);
}

// Each line: trimmed; blank and '#' lines skipped; split as redis-cli does;
// the first word names a parameter (any case) or `include`.
Status Config::load_lines(std::string_view text, int first_line, int depth) {
  int line_no = first_line - 1;
  while (true) {
    ++line_no;
    const size_t nl = text.find('\n');
    const std::string_view line = trim(text.substr(0, nl));
    const bool last = nl == std::string_view::npos;
    if (!last) text.remove_prefix(nl + 1);

    if (!line.empty() && line[0] != '#') {
      auto words = split_args(line);
      if (!words) return fatal(line_no, line, "Unbalanced quotes in configuration line");
      if (!words->empty()) {
        const std::string name = to_lower((*words)[0]);
        std::span<const std::string> args(words->data() + 1, words->size() - 1);
        const Param* p = find_param(name);
        // As Redis 7.0: a multi-argument directive given one non-empty
        // argument (`--save "3600 1"`, a quoted line) has it split in words.
        std::optional<std::vector<std::string>> split;
        if (p && p->multi_arg && args.size() == 1 && !args[0].empty()) {
          split = split_args(args[0]);
          if (!split) return fatal(line_no, line, "Unbalanced quotes in configuration line");
          args = *split;
        }
        if (p) {
          if (!p->multi_arg && args.size() != 1) return fatal(line_no, line, "wrong number of arguments");
          const std::string err = set_param(*p, values_, args, true);
          if (!err.empty()) return fatal(line_no, line, err);
        } else if (name == "user" && !args.empty()) {
          // As Redis's ACLAppendUserForLoading: a name once, rules that apply.
          const std::string why = "Error in user declaration '";
          for (const auto& u : values_.users) {
            if (u[0] == args[0])
              return fatal(line_no, line, why + args[0] + "': Duplicate user found. A user can only be defined once in config files");
          }
          if (user_rule_check_) {
            if (const auto e = user_rule_check_(args.subspan(1)))
              return fatal(line_no, line, why + (*words)[std::min(e->index, words->size() - 1)] + "': " + e->reason);
          }
          values_.users.emplace_back(args.begin(), args.end());
        } else if (name == "include" && args.size() == 1) {
          if (depth >= kMaxIncludeDepth) return fatal(line_no, line, "include nested too deeply");
          Status st = load_file_at(args[0], depth + 1, nullptr);
          if (!st.ok()) return st;
        } else {
          return fatal(line_no, line, "Bad directive or wrong number of arguments");
        }
      }
    }
    if (last) break;
  }
  // As Redis, after the whole text: a log file must be writable now.
  if (!values_.logfile.empty()) {
    if (FILE* f = std::fopen(values_.logfile.c_str(), "a")) {
      std::fclose(f);
    } else {
      return fatal(0, {}, std::string("Can't open the log file: ") + std::strerror(errno));
    }
  }
  return {};
}

// redis-server turns its arguments into config lines: "--name" starts a
// line, the words after it are quoted; "--save" right before another option
// (or last) means save "". The first option line follows the file's text
// and one newline.
Status Config::load_args(const std::vector<std::string>& args) {
  std::string options;
  bool had_value = true;  // redis-server's handled_last_config_arg
  for (size_t j = 0; j < args.size(); ++j) {
    const std::string& a = args[j];
    const bool is_option = a.size() >= 2 && a[0] == '-' && a[1] == '-';
    if (had_value && is_option) {
      if (!options.empty()) options += '\n';
      options += a.substr(2);
      options += ' ';
      auto words = split_args(a);
      if (words && words->size() == 1) {
        // "--port": its value follows (even one that starts with "--").
        had_value = false;
        const bool next_is_option =
            j + 1 < args.size() && args[j + 1].size() >= 2 && args[j + 1][0] == '-' && args[j + 1][1] == '-';
        if (to_lower(a) == "--save" && (next_is_option || j + 1 == args.size())) {
          options += "\"\"";
          had_value = next_is_option;
        }
      } else {
        had_value = true;  // "--port 6380" as one argument
      }
    } else {
      options += repr_quoted(a);
      options += ' ';
      had_value = true;
    }
  }
  if (options.empty()) return {};
  return load_lines(options, static_cast<int>(file_newlines_) + 2, 0);
}

Status Config::set(const std::vector<std::pair<std::string, std::string>>& pairs) {
  // Every name first: the first unknown, unsettable or repeated one is the
  // error, before any value is looked at.
  std::vector<const Param*> targets;
  for (const auto& [name, value] : pairs) {
    const Param* p = find_param(name);
    if (!p) {
      // A feature lawnkv does not have: Redis's own refusal where it has one.
      const Param* reported = find_reported_param(name);
      if (reported && reported->access == Access::kImmutable) return set_failed(name, "can't set immutable config");
      return {format_error("ERR Unknown option or number of arguments for CONFIG SET - '%s'", {name})};
    }
    if (p->access != Access::kMutable) {
      return set_failed(name, p->access == Access::kImmutable ? "can't set immutable config"
                                                              : "can't set protected config");
    }
    for (const Param* seen : targets)
      if (seen == p) return set_failed(name, "duplicate parameter");
    targets.push_back(p);
  }
  // Then the values, on a copy: all or nothing.
  Values next = values_;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const Param& p = *targets[i];
    std::vector<std::string> words;
    if (p.multi_arg) {
      // sdssplitlen on single spaces: "" is no words, "a  b" has an empty one.
      const std::string& value = pairs[i].second;
      if (!value.empty()) {
        size_t start = 0;
        while (true) {
          const size_t sp = value.find(' ', start);
          words.push_back(value.substr(start, sp - start));
          if (sp == std::string::npos) break;
          start = sp + 1;
        }
      }
    } else {
      words.push_back(pairs[i].second);
    }
    const std::string err = set_param(p, next, words, false);
    if (!err.empty()) return set_failed(p.name, err);
  }
  // The live applies, as Redis applies: on a failure every one gathered is
  // applied again with the old values.
  std::vector<const LiveApply*> applies;
  for (const Param* p : targets) {
    const auto it = live_apply_.find(p->name);
    if (it == live_apply_.end() || !it->second) continue;
    if (p->kind != Kind::kSpecial && !p->always_apply && get_param(*p, values_) == get_param(*p, next)) continue;
    applies.push_back(&it->second);
  }
  for (size_t i = 0; i < applies.size(); ++i) {
    const std::string err = (*applies[i])(next);
    if (err.empty()) continue;
    for (const LiveApply* restore : applies) (*restore)(values_);
    const auto failed = std::find_if(targets.begin(), targets.end(), [&](const Param* p) {
      const auto it = live_apply_.find(p->name);
      return it != live_apply_.end() && &it->second == applies[i];
    });
    return set_failed((*failed)->name, err);
  }
  // Assigned member by member (not swapped): others hold references into values_.
  values_ = next;
  return {};
}

void Config::set_live_apply(std::string_view name, LiveApply fn) {
  if (fn) {
    live_apply_[std::string(name)] = std::move(fn);
  } else {
    live_apply_.erase(std::string(name));
  }
}

std::vector<std::pair<std::string, std::string>> Config::get(const std::vector<std::string_view>& patterns) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> listed;  // lower-case names already in out
  for (std::string_view pattern : patterns) {
    if (pattern.find_first_of("[*?") == std::string_view::npos) {
      const std::string key = to_lower(pattern);
      if (listed.count(key)) continue;
      const Param* p = find_param(pattern);
      if (!p) p = find_reported_param(pattern);
      if (p) {
        out.emplace_back(std::string(pattern), get_param(*p, values_));
        listed.insert(key);
      }
      continue;
    }
    for (std::span<const Param> table : {params(), reported_params()}) {
      for (const Param& p : table) {
        if (p.hidden) continue;  // an exact name only
        // An alias is a name of its own, as in Redis's table of names.
        for (std::string_view name : {p.name, p.alias}) {
          if (name.empty() || listed.count(std::string(name))) continue;
          if (glob_match(pattern, name, true)) {
            out.emplace_back(std::string(name), get_param(p, values_));
            listed.insert(std::string(name));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace lawnkv::config
