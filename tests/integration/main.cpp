// The doctest runner for the integration tests, which start build/lawnkv-server.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
