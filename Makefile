# cctx: thin wrappers around CMake/CTest. `make demo` and `make test` work on a fresh Debian 12
# machine: they install the missing Debian packages first (apt-get, when run as root).

BUILD      ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

# Everything the build, the tests and the demo need, from Debian's archive.
DEB_PACKAGES := cmake make g++ pkg-config libboost-dev libyaml-cpp-dev libprotobuf-dev \
  protobuf-compiler libonnx-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev \
  nlohmann-json3-dev libfmt-dev libjemalloc-dev libonnx-testdata binutils pybind11-dev python3-dev \
  python3-onnx python3-numpy python3-matplotlib python3-pytest zlib1g-dev chromium

.PHONY: all deps configure build test demo bench clean format coverage-doc

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "Missing Debian packages:$$missing"; \
	    echo "Install them with: sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) --timeout 900

demo: build
	@echo "== The seed model (examples/seed/seed.onnx) =="
	@$(BUILD)/bin/cctx print examples/seed/seed.onnx
	@echo
	@$(BUILD)/bin/cctx analyze examples/seed/seed.onnx --eval N=1,8,32,128

bench: build
	bash $(BUILD)/tests/bench/run_benchmarks.sh

# docs/coverage.md: the operator coverage table, generated from the plugins' registered rules.
coverage-doc: build
	$(BUILD)/bin/cctx plugins --format markdown > docs/coverage.md

format:
	find sdk framework cli opsets tests -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
