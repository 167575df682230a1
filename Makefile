# lawnkv: `make` builds build/lawnkv-server; `make run` and `make test` also
# install what is missing (scripts/install-deps.sh) first.

CXX      ?= g++
# Asserts stay on in every build (nothing defines NDEBUG): they guard the
# invariants of the intrusive expiry structures (src/expiry), where a broken
# link would corrupt memory silently; an abort with file and line is the
# better failure, and they cost nothing measurable. No client input may reach
# one: what comes off the wire is validated above them (deadlines by
# core/deadline.hpp, 0 <= now by Clock), and every such path is pinned by a
# test that feeds it edge values (tests/compat/time_edges_test.cpp,
# tests/integration/dehydrator_test.cpp).
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=c++20 -Wall -Wextra -Wshadow -Wno-unused-parameter -MMD -MP -Isrc
UV_CFLAGS := $(shell pkg-config --cflags libuv 2>/dev/null)
UV_LIBS   := $(shell pkg-config --libs libuv 2>/dev/null || echo -luv)
# jemalloc replaces malloc in everything that links the library: see
# src/core/allocator.hpp for why.
LIBS      := $(UV_LIBS) -ljemalloc

BUILD := build
JOBS  := $(shell nproc 2>/dev/null || echo 2)
# Everything under src/ but main.cpp is a library that the tests link too.
LIB_SRCS  := $(filter-out src/main.cpp,$(shell find src -name '*.cpp' | sort))
LIB_OBJS  := $(LIB_SRCS:%.cpp=$(BUILD)/%.o)
UNIT_SRCS := $(shell find tests/unit -name '*.cpp' | sort)
SUPPORT_SRCS := $(shell find tests/support -name '*.cpp' 2>/dev/null | sort)
INTEG_SRCS := $(shell find tests/integration -name '*.cpp' | sort)
COMPAT_SRCS := $(shell find tests/compat -name '*.cpp' | sort)

SERVER := $(BUILD)/lawnkv-server

.PHONY: all run test deps-run deps-test deps-bench bench clean
all: $(SERVER)

$(BUILD)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(UV_CFLAGS) -c $< -o $@

$(BUILD)/liblawnkv.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(SERVER): $(BUILD)/src/main.o $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LIBS)

$(BUILD)/unit-tests: $(UNIT_SRCS:%.cpp=$(BUILD)/%.o) $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LIBS)

$(BUILD)/integration-tests: $(INTEG_SRCS:%.cpp=$(BUILD)/%.o) $(SUPPORT_SRCS:%.cpp=$(BUILD)/%.o)
	$(CXX) $(CXXFLAGS) $^ -o $@ -lhiredis

$(BUILD)/compat-tests: $(COMPAT_SRCS:%.cpp=$(BUILD)/%.o) $(SUPPORT_SRCS:%.cpp=$(BUILD)/%.o) $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ -lhiredis $(LIBS)

$(BUILD)/bench-expiry: $(BUILD)/bench/expiry_bench.o $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ -lbenchmark -lpthread

deps-run:
	@scripts/install-deps.sh run

deps-test:
	@scripts/install-deps.sh test

deps-bench:
	@scripts/install-deps.sh bench

run: deps-run
	$(MAKE) -j$(JOBS) $(SERVER)
	$(SERVER) redis.conf.example

test: deps-test
	$(MAKE) -j$(JOBS) $(SERVER) $(BUILD)/unit-tests $(BUILD)/integration-tests $(BUILD)/compat-tests
	scripts/run-tests.sh

bench: deps-bench
	$(MAKE) -j$(JOBS) $(SERVER) $(BUILD)/bench-expiry
	scripts/bench.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
