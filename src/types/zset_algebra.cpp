#include "types/zset_algebra.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/numbers.hpp"

namespace lawnkv::types {

namespace {

const void* subject(const ZSource& s) { return s.zset ? static_cast<const void*>(s.zset) : s.set; }

// fn(std::string_view member, double score) for each member of s.
template <class F>
void for_each(const ZSource& s, F&& fn) {
  if (s.zset) s.zset->walk(0, s.zset->size(), false, fn);
  if (s.set) s.set->for_each([&](const Member& m) {
    char buf[kLongStrSize];
    fn(m.text(buf), 1.0);
  });
}

bool find(const ZSource& s, std::string_view member, double* score) {
  if (s.zset) {
    const std::optional<double> found = s.zset->score(member);
    if (found) *score = *found;
    return found.has_value();
  }
  *score = 1;
  return s.set && s.set->contains(member);
}

void aggregate(double* target, double value, Aggregate how) {
  switch (how) {
    case Aggregate::kSum:
      *target += value;
      if (std::isnan(*target)) *target = 0;
      break;
    case Aggregate::kMin: *target = value < *target ? value : *target; break;
    case Aggregate::kMax: *target = value > *target ? value : *target; break;
  }
}

void smallest_first(std::span<ZSource> inputs) {
  std::stable_sort(inputs.begin(), inputs.end(), [](const ZSource& a, const ZSource& b) { return a.size() < b.size(); });
}

// ZINTER's walk: fn(member, score) for each member of every input, in the
// first input's order, until fn returns false.
template <class F>
void intersect(std::span<const ZSource> src, Aggregate how, F&& fn) {
  if (src[0].size() == 0) return;
  bool done = false;
  for_each(src[0], [&](std::string_view m, double s0) {
    if (done) return;
    double score = src[0].weight * s0;
    if (std::isnan(score)) score = 0;
    size_t k = 1;
    for (; k < src.size(); ++k) {
      double value;
      if (subject(src[k]) == subject(src[0])) {
        value = s0 * src[k].weight;
      } else if (find(src[k], m, &value)) {
        value *= src[k].weight;
      } else {
        break;
      }
      aggregate(&score, value, how);
    }
    if (k == src.size()) done = !fn(m, score);
  });
}

}  // namespace

std::unique_ptr<ZSet> combine(std::span<ZSource> inputs, ZSetOp op, Aggregate how, const ZSetOptions& opts,
                              size_t* max_len) {
  if (op != ZSetOp::kDiff) smallest_first(inputs);
  auto result = std::make_unique<ZSet>(true, opts.seed());
  *max_len = 0;
  auto keep = [&](std::string_view m, double s) {
    result->add(m, s, kZAddNone, opts);
    *max_len = std::max(*max_len, m.size());
  };
  if (op == ZSetOp::kInter) {
    intersect(inputs, how, [&](std::string_view m, double s) {
      keep(m, s);
      return true;
    });
  } else if (op == ZSetOp::kUnion) {
    std::unordered_map<std::string, double> acc;
    for (const ZSource& s : inputs) {
      for_each(s, [&](std::string_view m, double v) {
        double score = s.weight * v;
        if (std::isnan(score)) score = 0;
        auto [it, fresh] = acc.try_emplace(std::string(m), score);
        if (!fresh) aggregate(&it->second, score, how);
      });
    }
    for (const auto& [m, s] : acc) keep(m, s);
  } else if (inputs[0].size() > 0) {
    for_each(inputs[0], [&](std::string_view m, double s) {
      double unused;
      for (size_t k = 1; k < inputs.size(); ++k)
        if (find(inputs[k], m, &unused)) return;
      keep(m, s);
    });
  }
  return result;
}

size_t intersection_size(std::span<ZSource> inputs, size_t limit) {
  smallest_first(inputs);
  size_t n = 0;
  intersect(inputs, Aggregate::kSum, [&](std::string_view, double) {
    ++n;
    return limit == 0 || n < limit;
  });
  return n;
}

}  // namespace lawnkv::types
