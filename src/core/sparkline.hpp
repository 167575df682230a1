#pragma once
// ASCII sparklines as Redis's sparkline.c draws them (LATENCY GRAPH): each
// sample a column, its height in `rows` rows of three levels each
// ('_', 'o', '#' from low to high, '|' below the top of a tall column),
// then, when samples have labels, a blank row and each label written
// downwards under its column. Samples past `columns` continue in another
// block below, after a blank line.
//
// Worked example: samples 1, 2, 3 (labels "a", "bb", "") in 4 rows of
// 3 levels: min 1, max 3, so the heights are (value - min) * 12 / 2 =
// 0, 6, 12 (the last capped at level 11, the highest): column 1 is '_'
// in the bottom row, column 2 '_' in the third row up with '|' under it,
// column 3 '#' in the top row with '|' under it:
//   "  #\n"
//   " _|\n"
//   " ||\n"
//   "_||\n"
//   "   \n"
//   "ab \n"
//   " b \n"

#include <string>
#include <vector>

namespace lawnkv {

struct SparkSample {
  double value;
  std::string label;  // "" for none
};

// The sparkline of samples, filled (Redis's SPARKLINE_FILL), `columns`
// wide and `rows` high.
std::string render_sparkline(const std::vector<SparkSample>& samples, size_t columns, int rows);

}  // namespace lawnkv
