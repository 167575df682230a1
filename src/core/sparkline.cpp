#include "core/sparkline.hpp"

#include <algorithm>

namespace lawnkv {

namespace {

constexpr std::string_view kLevels = "_o#";  // one row's three heights, low to high
constexpr int kLabelMarginTop = 1;          // blank rows between the graph and the labels

// The rows of samples[offset, offset + len).
void render_range(std::string& out, const std::vector<SparkSample>& samples, double min, double max,
                  bool labelled, size_t offset, size_t len, int rows) {
  const int levels = static_cast<int>(kLevels.size());
  const int steps = levels * rows;
  const double span = max - min == 0 ? 1 : max - min;
  std::vector<int> height(len);
  size_t longest_label = 0;
  for (size_t j = 0; j < len; ++j) {
    const SparkSample& s = samples[offset + j];
    // As Redis: the product truncated, then divided, then truncated.
    int step = static_cast<int>(static_cast<int>((s.value - min) * steps) / span);
    height[j] = std::clamp(step, 0, steps - 1);
    longest_label = std::max(longest_label, s.label.size());
  }
  std::string row_text(len, ' ');
  for (int row = 0; row < rows; ++row) {
    for (size_t j = 0; j < len; ++j) {
      const int level = height[j] - (rows - row - 1) * levels;
      row_text[j] = level < 0 ? ' ' : level < levels ? kLevels[static_cast<size_t>(level)] : '|';
    }
    out += row_text;
    out += '\n';
  }
  if (!labelled) return;
  for (int i = 0; i < kLabelMarginTop; ++i) out += std::string(len, ' ') + "\n";
  // Redis stops at the first row no label of this block reaches.
  for (size_t c = 0; c < longest_label; ++c) {
    for (size_t j = 0; j < len; ++j) {
      const std::string& label = samples[offset + j].label;
      row_text[j] = c < label.size() ? label[c] : ' ';
    }
    out += row_text;
    out += '\n';
  }
}

}  // namespace

std::string render_sparkline(const std::vector<SparkSample>& samples, size_t columns, int rows) {
  std::string out;
  if (samples.empty()) return out;
  double min = samples[0].value, max = samples[0].value;
  bool labelled = false;
  for (const SparkSample& s : samples) {
    min = std::min(min, s.value);
    max = std::max(max, s.value);
    labelled = labelled || !s.label.empty();
  }
  for (size_t j = 0; j < samples.size(); j += columns) {
    if (j != 0) out += '\n';
    render_range(out, samples, min, max, labelled, j, std::min(columns, samples.size() - j), rows);
  }
  return out;
}

}  // namespace lawnkv
