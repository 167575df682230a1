#include "reply_forms.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "../support/resp_reply.hpp"

namespace lawnkv::test {

namespace {

void sort_in_place(Reply& reply) {
  for (auto& element : reply.elements) sort_in_place(element);
  if (reply.type == '*' || reply.type == '~' || reply.type == '>') {
    std::sort(reply.elements.begin(), reply.elements.end(),
              [](const Reply& a, const Reply& b) { return write_reply(a) < write_reply(b); });
  } else if (reply.type == '%') {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
      pairs.emplace_back(write_reply(reply.elements[i]), write_reply(reply.elements[i + 1]));
    }
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < pairs.size(); ++i) {
      reply.elements[2 * i] = parse_reply(pairs[i].first);
      reply.elements[2 * i + 1] = parse_reply(pairs[i].second);
    }
  }
}

}  // namespace

std::string sorted_form(std::string_view reply) {
  try {
    Reply tree = parse_reply(reply);
    sort_in_place(tree);
    return write_reply(tree);
  } catch (const RespError&) {
    return std::string(reply);
  }
}

std::string hello_form(std::string_view reply) {
  static constexpr std::array<std::string_view, 3> kExcluded{"server", "version", "id"};
  try {
    Reply tree = parse_reply(reply);
    if ((tree.type != '%' && tree.type != '*') || tree.elements.size() % 2 != 0) {
      return std::string(reply);
    }
    std::vector<Reply> kept;
    for (size_t i = 0; i < tree.elements.size(); i += 2) {
      const Reply& key = tree.elements[i];
      if (std::find(kExcluded.begin(), kExcluded.end(), key.text) != kExcluded.end()) continue;
      kept.push_back(key);
      kept.push_back(tree.elements[i + 1]);
    }
    tree.elements = std::move(kept);
    return write_reply(tree);
  } catch (const RespError&) {
    return std::string(reply);
  }
}

std::string type_form(std::string_view reply) {
  if (reply.empty()) return "<empty>";
  if (reply == "$-1\r\n" || reply == "*-1\r\n" || reply == "_\r\n") {
    return std::string("<null of type ") + reply[0] + ">";
  }
  return std::string("<type ") + reply[0] + ">";
}

}  // namespace lawnkv::test
