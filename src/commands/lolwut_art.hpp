#pragma once
// LOLWUT's computer art, as Redis 7.0 draws it (lolwut5.c, lolwut6.c): a
// canvas of small integer colours, drawn on and rendered to text.
//
//   schotter(cols, per_row, per_col): Georg Nees's "Schotter" (1968), a grid
//     of squares that tumble more the lower their row, rendered in Braille
//     characters (U+2800 + a byte of 2x4 pixels: each character is 2 pixels
//     wide and 4 tall), a canvas cols*2 pixels wide.
//   skyline(cols, rows): a city skyline of three greys with lit windows, one
//     character per pixel, each an ANSI colour escape around a space.
// Both are random, from rng; the text has no final newline.

#include <cstdint>
#include <random>
#include <string>

namespace lawnkv::lolwut {

std::string schotter(int cols, int squares_per_row, int squares_per_col, std::mt19937_64& rng);
std::string skyline(int cols, int rows, std::mt19937_64& rng);

}  // namespace lawnkv::lolwut
