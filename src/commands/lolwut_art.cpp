#include "commands/lolwut_art.hpp"

#include <cmath>
#include <cstdlib>
#include <numbers>
#include <vector>

namespace lawnkv::lolwut {

namespace {

class Canvas {
 public:
  Canvas(int width, int height, uint8_t background)
      : width_(width), height_(height), pixels_(static_cast<size_t>(width) * height, background) {}
  int width() const { return width_; }
  int height() const { return height_; }
  // Pixels outside the canvas are dropped (set) or read as 0 (get).
  void set(int x, int y, uint8_t color) {
    if (x >= 0 && x < width_ && y >= 0 && y < height_) pixels_[static_cast<size_t>(y) * width_ + x] = color;
  }
  uint8_t get(int x, int y) const {
    return x >= 0 && x < width_ && y >= 0 && y < height_ ? pixels_[static_cast<size_t>(y) * width_ + x] : 0;
  }

  // Bresenham's line, both ends included.
  void line(int x1, int y1, int x2, int y2, uint8_t color) {
    const int dx = std::abs(x2 - x1), dy = std::abs(y2 - y1);
    const int sx = x1 < x2 ? 1 : -1, sy = y1 < y2 ? 1 : -1;
    int err = dx - dy;
    for (;;) {
      set(x1, y1, color);
      if (x1 == x2 && y1 == y2) return;
      const int e2 = err * 2;
      if (e2 > -dy) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dx) {
        err += dx;
        y1 += sy;
      }
    }
  }

  // A square of side `size` centred on (x, y), turned by angle (radians):
  // its corners lie on a circle of radius size / sqrt(2), rounded.
  void square(int x, int y, float size, float angle, uint8_t color) {
    const float radius = std::round(size / 1.4142135623f);
    int px[4], py[4];
    float k = static_cast<float>(std::numbers::pi / 4) + angle;
    for (int j = 0; j < 4; ++j) {
      px[j] = static_cast<int>(std::round(std::sin(k) * radius + x));
      py[j] = static_cast<int>(std::round(std::cos(k) * radius + y));
      k += static_cast<float>(std::numbers::pi / 2);
    }
    for (int j = 0; j < 4; ++j) line(px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4], color);
  }

 private:
  int width_, height_;
  std::vector<uint8_t> pixels_;
};

// A uniform draw in [0, 1], and a draw in [0, n).
float unit(std::mt19937_64& rng) { return std::uniform_real_distribution<float>(0.0f, 1.0f)(rng); }
int below(std::mt19937_64& rng, int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }

// Braille: 2x4 pixels a character, as U+2800 + bits in the standard dot
// order (left column 0, 1, 2, right column 3, 4, 5, then the bottom row 6, 7).
std::string render_braille(const Canvas& c) {
  std::string text;
  for (int y = 0; y < c.height(); y += 4) {
    for (int x = 0; x < c.width(); x += 2) {
      int byte = 0;
      const int dots[8][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}};
      for (int bit = 0; bit < 8; ++bit)
        if (c.get(x + dots[bit][0], y + dots[bit][1])) byte |= 1 << bit;
      const int code = 0x2800 + byte;
      text += static_cast<char>(0xE0 | (code >> 12));
      text += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      text += static_cast<char>(0x80 | (code & 0x3F));
    }
    // As Redis: no newline after the last row when the height is a
    // multiple of 4 plus one (its test is y != height - 1).
    if (y != c.height() - 1) text += '\n';
  }
  return text;
}

std::string render_colors(const Canvas& c) {
  static constexpr const char* kEscapes[] = {"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"};
  std::string text;
  for (int y = 0; y < c.height(); ++y) {
    for (int x = 0; x < c.width(); ++x) {
      const uint8_t color = c.get(x, y);
      text += "\033[";
      text += kEscapes[color < 4 ? color : 0];
      text += " \033[0m";
    }
    if (y != c.height() - 1) text += '\n';
  }
  return text;
}

struct Skyscraper {
  int xoff, width, height;
  bool windows;
  uint8_t color;
};

void draw_skyscraper(Canvas& c, const Skyscraper& s, std::mt19937_64& rng) {
  const int start_y = c.height() - 1;
  const int end_y = start_y - s.height + 1;
  for (int y = start_y; y >= end_y; --y) {
    for (int x = s.xoff; x < s.xoff + s.width; ++x) {
      // The roof is four pixels narrower.
      if (y == end_y && (x <= s.xoff + 1 || x >= s.xoff + s.width - 2)) continue;
      uint8_t color = s.color;
      if (s.windows && x > s.xoff + 1 && x < s.xoff + s.width - 2 && y > end_y + 1 && y < start_y - 1) {
        const int rel_x = x - (s.xoff + 1), rel_y = y - (end_y + 1);
        // Windows two pixels wide, one tall, in a grey other than the wall.
        if ((rel_x / 2) % 2 && rel_y % 2) {
          do {
            color = static_cast<uint8_t>(1 + below(rng, 2));
          } while (color == s.color);
          if (rel_x % 2) color = c.get(x - 1, y);
        }
      }
      c.set(x, y, color);
    }
  }
}

}  // namespace

std::string schotter(int cols, int squares_per_row, int squares_per_col, std::mt19937_64& rng) {
  const int width = cols * 2;
  const int padding = width > 4 ? 2 : 0;
  const float side = static_cast<float>(width - padding * 2) / squares_per_row;
  const int height = static_cast<int>(side * squares_per_col + padding * 2);
  Canvas canvas(width, height, 0);
  for (int y = 0; y < squares_per_col; ++y) {
    for (int x = 0; x < squares_per_row; ++x) {
      int sx = static_cast<int>(x * side + side / 2 + padding);
      int sy = static_cast<int>(y * side + side / 2 + padding);
      float angle = 0;
      // From the third row down, more disorder the lower the row.
      if (y > 1) {
        float r[3];
        for (float& v : r) v = unit(rng) / squares_per_col * y;
        for (float& v : r)
          if (rng() % 2) v = -v;
        angle = r[0];
        sx += static_cast<int>(r[1] * side / 3);
        sy += static_cast<int>(r[2] * side / 3);
      }
      canvas.square(sx, sy, side, angle, 1);
    }
  }
  return render_braille(canvas);
}

std::string skyline(int cols, int rows, std::mt19937_64& rng) {
  Canvas canvas(cols, rows, 3);
  const int h = canvas.height();
  // The background without windows, the lighter grey behind the darker.
  for (uint8_t color = 2; color >= 1; --color) {
    for (int offset = -10; offset < canvas.width();) {
      offset += below(rng, 8);
      Skyscraper s{offset, 10 + below(rng, 9), 0, false, color};
      s.height = h / 2 + below(rng, h) / (color == 2 ? 2 : 3);
      draw_skyscraper(canvas, s, rng);
      offset += color == 2 ? s.width / 2 : s.width + 1;
    }
  }
  // The foreground, black, with windows.
  for (int offset = -10; offset < canvas.width();) {
    offset += below(rng, 8);
    Skyscraper s{offset, 5 + below(rng, 14), 0, true, 0};
    if (s.width % 4) s.width += s.width % 3;
    s.height = h / 3 + below(rng, h) / 2;
    draw_skyscraper(canvas, s, rng);
    offset += s.width + 5;
  }
  return render_colors(canvas);
}

}  // namespace lawnkv::lolwut
