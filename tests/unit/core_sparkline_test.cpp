// ASCII sparklines (src/core/sparkline.hpp) as Redis's sparkline.c draws
// them for LATENCY GRAPH: the header's worked example, equal samples, and
// samples past the width continuing below.

#include <doctest/doctest.h>

#include "core/sparkline.hpp"
#include "engine/latency_monitor.hpp"

using namespace lawnkv;

TEST_CASE("sparkline: the worked example of sparkline.hpp") {
  CHECK(render_sparkline({{1, "a"}, {2, "bb"}, {3, ""}}, 80, 4) ==
        "  #\n"
        " _|\n"
        " ||\n"
        "_||\n"
        "   \n"
        "ab \n"
        " b \n");
}

TEST_CASE("sparkline: equal samples lie at the bottom; no labels, no label rows; blocks of `columns`") {
  CHECK(render_sparkline({{5, ""}, {5, ""}}, 80, 2) == "  \n__\n");
  // 3 samples 2 wide: a block of 2, a blank line, a block of 1 (the
  // scale is the whole sequence's).
  CHECK(render_sparkline({{0, "x"}, {10, "y"}, {5, "zz"}}, 2, 2) ==
        " #\n"
        "_|\n"
        "  \n"
        "xy\n"
        "\n"
        "_\n"
        "|\n"
        " \n"
        "z\n"
        "z\n");
  CHECK(render_sparkline({}, 80, 4).empty());
}

TEST_CASE("LATENCY GRAPH's drawing: header, rule, sparkline with how long ago each sample was") {
  LatencyMonitor m;
  m.add("command", 120, 1000);
  m.add("command", 250, 1070);
  const LatencyMonitor::Series* s = m.find("command");
  REQUIRE(s != nullptr);
  CHECK(LatencyMonitor::graph("command", *s, 1100) ==
        "command - high 250 ms, low 120 ms (all time high 250 ms)\n" + std::string(80, '-') + "\n" +
        " #\n"
        " |\n"
        " |\n"
        "_|\n"
        "  \n"
        "13\n"
        "m0\n"
        " s\n");
}
