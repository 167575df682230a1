#include "case_script.hpp"

#include <fstream>
#include <stdexcept>

#include "core/split_args.hpp"

namespace lawnkv::test {

namespace {

[[noreturn]] void syntax_error(const std::filesystem::path& path, int line, const std::string& why) {
  throw std::runtime_error(path.string() + ":" + std::to_string(line) + ": " + why);
}

void set_compare(Step& step, Compare compare, const std::filesystem::path& path) {
  if (step.compare != Compare::kExact) syntax_error(path, step.line, "two comparison modifiers");
  step.compare = compare;
}

}  // namespace

CaseScript load_case_script(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open case file " + path.string());
  CaseScript script;
  script.path = path;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos || text[first] == '#') continue;

    auto tokens = lawnkv::split_args(text);
    if (!tokens) syntax_error(path, number, "unbalanced quotes");
    Step step;
    step.line = number;
    step.source = text.substr(first);
    size_t i = 0;
    for (; i < tokens->size() && (*tokens)[i].starts_with('@'); ++i) {
      const std::string& word = (*tokens)[i];
      if (word == "@also-resp3" && tokens->size() == 1) {
        script.also_resp3 = true;
      } else if (word == "@client" && i == 0 && tokens->size() == 2) {
        step.switch_to_client = std::stoi((*tokens)[1]);
        if (step.switch_to_client < 1) syntax_error(path, number, "@client wants N >= 1");
        i = tokens->size();
        break;
      } else if (word == "@sorted") {
        set_compare(step, Compare::kSorted, path);
      } else if (word == "@scan") {
        set_compare(step, Compare::kScan, path);
      } else if (word == "@hello") {
        set_compare(step, Compare::kHello, path);
      } else if (word == "@type") {
        set_compare(step, Compare::kType, path);
      } else if (word == "@raw") {
        step.raw = true;
      } else if (word == "@closes") {
        step.closes = true;
      } else if (word == "@slow") {
        step.slow = true;
      } else {
        syntax_error(path, number, "unknown directive " + word);
      }
    }
    if (tokens->size() == 1 && (*tokens)[0] == "@also-resp3") continue;
    step.argv.assign(tokens->begin() + static_cast<long>(i), tokens->end());
    if (step.switch_to_client == 0 && step.argv.empty()) {
      syntax_error(path, number, "modifiers without a command");
    }
    if (step.raw && step.argv.size() != 1) {
      syntax_error(path, number, "@raw wants exactly one quoted argument: the bytes to send");
    }
    if (step.compare == Compare::kScan && step.argv.size() <= scan_cursor_at(step.argv)) {
      syntax_error(path, number, "@scan wants SCAN cursor [options] or SSCAN key cursor [options]");
    }
    script.steps.push_back(std::move(step));
  }
  return script;
}

}  // namespace lawnkv::test
