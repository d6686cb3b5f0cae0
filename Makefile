# cctx: thin wrappers around CMake/CTest. `make demo` and `make test` work on a fresh Debian 12
# machine: they install the missing Debian packages first (apt-get, when run as root).

BUILD      ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

# Everything the build, the tests and the demo need, from Debian's archive.
DEB_PACKAGES := cmake make g++ pkg-config libboost-dev libyaml-cpp-dev libprotobuf-dev \
  protobuf-compiler libonnx-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev \
  nlohmann-json3-dev libfmt-dev libxml2-dev libjemalloc-dev libonnx-testdata binutils pybind11-dev python3-dev \
  python3-onnx python3-numpy python3-matplotlib python3-pytest zlib1g-dev chromium \
  python3-pip python3-setuptools python3-wheel python3-venv clang-14 libc++-14-dev libc++abi-14-dev
# `make format-check` and `make tidy-changed` (run by .ci/run) need Debian 12's clang-format-14
# and clang-tidy-14.
FORMAT_PACKAGES := clang-format-14 clang-tidy-14
# `make docs` and `make docs-check` (run by .ci/run) need Sphinx, MyST and sphinx-gallery.
DOCS_PACKAGES := python3-sphinx python3-myst-parser python3-sphinx-gallery
# Only `make fuzz` needs these: clang and its libFuzzer runtime.
FUZZ_PACKAGES := clang-14 libclang-rt-14-dev
# The runtime tests (ctest -L runtime) and `make validate` need node and npm. They are checked as
# commands, not packages: a node from elsewhere (NodeSource's nodejs bundles npm and conflicts with
# Debian's npm package) is fine; Debian's nodejs and npm are installed only when a command is missing.
NODE_PACKAGES := nodejs npm
# `make validate` exports its models with PyTorch (Debian's torch 1.13 and torchvision 0.14),
# checked as modules of /usr/bin/python3 for the same reason.
TORCH_PACKAGES := python3-torch python3-torchvision

ASAN_BUILD   ?= build-asan
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := fuzz_model fuzz_expr fuzz_profile fuzz_writers

.PHONY: all deps fuzz-deps validate-deps format-deps configure build test demo bench sanitize fuzz \
  clean format format-check \
  coverage-doc validate quantized realmodels decoders peers docs docs-check tidy tidy-changed

all: build

deps fuzz-deps validate-deps format-deps docs-deps:
	@missing=""; \
	for p in $(DEB_PACKAGES) $(if $(filter fuzz-deps,$@),$(FUZZ_PACKAGES)) \
	    $(if $(filter format-deps,$@),$(FORMAT_PACKAGES)) \
	    $(if $(filter docs-deps,$@),$(DOCS_PACKAGES)); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v node >/dev/null && command -v npm >/dev/null || missing="$$missing $(NODE_PACKAGES)"; \
	if [ "$@" = validate-deps ]; then \
	  /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null || missing="$$missing $(TORCH_PACKAGES)"; \
	fi; \
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

# Measures the models of tests/validate/export_models.py under the real ONNX Runtime (CPU, from
# the npm registry, installed into $(BUILD)/validate) and prints measured vs predicted memory,
# appending to tests/validate/history.tsv. The models are exported once into
# $(BUILD)/validate/models (delete it to re-export). VALIDATE_ARGS go to validate.py, e.g.
# VALIDATE_ARGS='--only resnet18,lstm --profile-no-arena onnxruntime-cpu-unoptimized-no-arena'.
VALIDATE_ARGS ?=
FIT_CHECK_ARGS ?=
validate: build validate-deps
	sh tests/validate/install_ort.sh $(BUILD)/validate
	@[ -f $(BUILD)/validate/models/manifest.json ] || \
	  /usr/bin/python3 tests/validate/export_models.py $(BUILD)/validate/models
	/usr/bin/python3 tests/validate/validate.py --build $(BUILD) $(VALIDATE_ARGS)
	# ONNX Runtime as a session is usually created (optimisation level all) at 1, 2 and 4 threads,
	# against onnxruntime-cpu-no-arena and onnxruntime-cpu
	for t in 1 2 4; do /usr/bin/python3 tests/validate/validate.py --build $(BUILD) --kinds symbolic \
	  --no-per-node --optimization all --threads $$t $(VALIDATE_ARGS) || exit 1; done
	# ... and through ONNX Runtime's Python API when `make peers` has made its environment
	if [ -x $(BUILD)/peers/venv/bin/python ]; then /usr/bin/python3 tests/validate/validate.py \
	  --build $(BUILD) --kinds symbolic --no-per-node --optimization all --binding python \
	  $(VALIDATE_ARGS); fi
	# cctx fit against the heap ONNX Runtime takes at the batch it returns (tests/validate/README.md)
	/usr/bin/python3 tests/validate/fit_check.py --build $(BUILD) $(FIT_CHECK_ARGS)
	# The LLM decoder suite as users run it (level all, Python API; tests/decoders/README.md)
	$(MAKE) decoders DECODERS_ARGS='--optimization all'
	# Quantized CNNs written by ONNX Runtime's quantizer, in the lab setting and at level all
	$(MAKE) quantized

# Quantized models (tests/validate/quantize_models.py: QDQ and QOperator forms of the suite's
# CNNs and dynamic quantization of its transformers and RNNs, written by onnxruntime.quantization
# in the decoders' environment) measured against ONNX Runtime with graph optimisation off (the
# unoptimized profiles) and at level all.
quantized: build validate-deps
	sh tests/validate/install_ort.sh $(BUILD)/validate
	@[ -f $(BUILD)/validate/models/manifest.json ] || \
	  /usr/bin/python3 tests/validate/export_models.py $(BUILD)/validate/models
	@[ -x $(DECODERS_VENV)/bin/python ] || /usr/bin/python3 -m venv --system-site-packages $(DECODERS_VENV)
	$(DECODERS_VENV)/bin/pip install --quiet $(DECODERS_PIP)
	$(DECODERS_VENV)/bin/python tests/validate/quantize_models.py $(BUILD)/validate/models \
	  $(BUILD)/validate/quantized
	/usr/bin/python3 tests/validate/validate.py --build $(BUILD) --models $(BUILD)/validate/quantized \
	  --kinds symbolic --no-per-node --history none --optimization disabled \
	  --profile-no-arena onnxruntime-cpu-unoptimized-no-arena --profile-arena onnxruntime-cpu-unoptimized
	/usr/bin/python3 tests/validate/validate.py --build $(BUILD) --models $(BUILD)/validate/quantized \
	  --kinds symbolic --no-per-node --history none --optimization all

# The LLM decoder suite (tests/decoders/README.md) against ONNX Runtime's Python API: a virtual
# environment under the build tree with the pinned PyPI packages (Debian's torch through
# --system-site-packages), then check.py: shapes of every node output, a numeric reserve at every
# point, the heap under the allocation counter. `make test` runs its quick subset (decoders_quick).
DECODERS_VENV := $(BUILD)/decoders/venv
DECODERS_PIP  := numpy==1.26.4 onnx==1.19.1 onnxruntime==1.30.0 onnxruntime-genai==0.8.3 \
  transformers==4.44.2
decoders: build validate-deps
	@[ -x $(DECODERS_VENV)/bin/python ] || /usr/bin/python3 -m venv --system-site-packages $(DECODERS_VENV)
	$(DECODERS_VENV)/bin/pip install --quiet $(DECODERS_PIP)
	PYTHONPATH=$(BUILD)/python $(DECODERS_VENV)/bin/python tests/decoders/check.py --build $(BUILD) \
	  $(DECODERS_ARGS)

# cctx side by side with its peers (issue 44, tests/peers/README.md): onnx's shape inference,
# onnx-shape-inference, ONNX Runtime's symbolic shape inference, onnxslim, onnx-tool and onnxsim,
# pinned in a virtual environment under the build tree (PyPI), on the real-model suite's models,
# the decoders and the 10k-node benchmark export: shapes against ONNX Runtime's, memory figures
# against its measured heap, time and peak RSS. Writes docs/peers.md and a line of
# tests/peers/history.tsv. PEERS_ARGS go to peers.py, e.g. PEERS_ARGS='--only repo_cnn --no-memory'.
PEERS_VENV := $(BUILD)/peers/venv
PEERS_PIP  := numpy==2.4.6 sympy==1.14.0 protobuf==7.36.2 onnx==1.23.2 onnxruntime==1.32.0 \
  onnx-ir==1.1.0 onnx-shape-inference==0.4.0 onnx-tool==1.0.1 onnxsim==0.4.36 onnxslim==0.1.98
PEERS_ARGS ?=
peers: build validate-deps
	sh tests/validate/install_ort.sh $(BUILD)/validate
	sh tests/realmodels/fetch_npm.sh $(BUILD)/realmodels/npm
	@[ -f $(BUILD)/realmodels/torch/torch.json ] || \
	  /usr/bin/python3 tests/realmodels/export_torch.py $(BUILD)/realmodels/torch
	@[ -x $(PEERS_VENV)/bin/python ] || /usr/bin/python3 -m venv --system-site-packages $(PEERS_VENV)
	$(PEERS_VENV)/bin/pip install --quiet $(PEERS_PIP)
	$(PEERS_VENV)/bin/python tests/peers/peers.py --build $(BUILD) --doc docs/peers.md $(PEERS_ARGS)

# The real-model suite (tests/realmodels/README.md): every main-graph value's dims and bytes of
# about 30 PyTorch exports, npm-shipped models and ONNX's test data against ONNX Runtime's run,
# and the self-consistency of the symbolic analysis; writes docs/real-models.md. The PyTorch
# exports are made once into $(BUILD)/realmodels/torch (delete it to re-export).
# REALMODELS_ARGS go to suite.py, e.g. REALMODELS_ARGS='--only resnet18,lstm'.
REALMODELS_ARGS ?=
realmodels: build validate-deps
	sh tests/validate/install_ort.sh $(BUILD)/validate
	sh tests/realmodels/fetch_npm.sh $(BUILD)/realmodels/npm
	@[ -f $(BUILD)/realmodels/torch/torch.json ] || \
	  /usr/bin/python3 tests/realmodels/export_torch.py $(BUILD)/realmodels/torch
	/usr/bin/python3 tests/realmodels/suite.py --build $(BUILD) --doc docs/real-models.md \
	  --json $(BUILD)/realmodels/results.json $(REALMODELS_ARGS)

# The documentation site (docs/conf.py): docs/ copied into the build tree and built there with
# warnings as errors, the gallery's scripts (examples/gallery/) run against the built package.
# `make docs-check` (in .ci/run) builds the same site without running the scripts: seconds, no build.
DOCS_OUT := $(BUILD)/docs
define build_docs
	rm -rf $(DOCS_OUT)/src && mkdir -p $(DOCS_OUT) && cp -r docs $(DOCS_OUT)/src
	CCTX_SOURCE_DIR=$(CURDIR) CCTX_DOCS_GALLERY=$(1) PYTHONPATH=$(CURDIR)/$(BUILD)/python MPLBACKEND=Agg \
	  /usr/bin/python3 -m sphinx -W --keep-going -q -b html $(DOCS_OUT)/src $(DOCS_OUT)/html
	@echo "the site: $(DOCS_OUT)/html/index.html"
endef
docs: build docs-deps
	$(call build_docs,1)
docs-check: docs-deps
	$(call build_docs,0)

# docs/coverage.md: the operator coverage table, generated from the plugins' registered rules.
coverage-doc: build
	$(BUILD)/bin/cctx plugins --format markdown > docs/coverage.md

# Every C++ file of the repository, with the style of .clang-format (Debian 12's clang-format-14).
CLANG_FORMAT ?= clang-format-14
format:
	git ls-files '*.cpp' '*.hpp' | xargs $(CLANG_FORMAT) -i

# The same, as a check (.ci/run): fails naming every file whose formatting drifted.
format-check: format-deps
	@git ls-files '*.cpp' '*.hpp' | xargs $(CLANG_FORMAT) --dry-run --Werror && \
	  echo "format-check: every C++ file is formatted as .clang-format says"

# clang-tidy with .clang-tidy (.ci/tidy): every compiled file but the tests (about 20 min on 2
# idle cores), or those changed since the commit in .ci/tidy-base (.ci/run: a ratchet, every
# file touched from that commit on must pass).
tidy: format-deps build
	.ci/tidy $(BUILD) all
tidy-changed: format-deps build
	.ci/tidy $(BUILD) changed

# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer, plugins loaded and
# unloaded included. The Python package is left out: Debian's python3 is not built with ASan, and
# loading an instrumented module into it needs LD_PRELOAD=libasan, which then reports the
# interpreter's own allocations. .ci/run runs it after `make test` (about 26 min on 2 cores).
sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCTX_SANITIZE=address,undefined \
	  -DCCTX_BUILD_PYTHON=OFF -DCCTX_BUILD_BENCH=OFF -DCCTX_USE_JEMALLOC=OFF $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) --timeout 1800

# Each fuzz target for FUZZ_SECONDS (clang + libFuzzer, ASan + UBSan), seeded from the test models
# and profiles (and the ONNX backend node models of libonnx-testdata); the corpus grows in $(FUZZ_BUILD)/corpus/<target>. A crash leaves its input as
# $(FUZZ_BUILD)/<target>-crash-*; copy it to tests/fuzz/regressions/<target>/ once fixed.
# Then fuzz_python.py (random call sequences on the Python API) for FUZZ_SECONDS against the
# ordinary build's package (the fuzz build has no Python): a failing seed goes, once fixed, into
# tests/fuzz/regressions/fuzz_python/.
fuzz: fuzz-deps build
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
	  -DCCTX_BUILD_FUZZ=ON -DCCTX_SANITIZE=address,undefined,fuzzer-no-link -DCCTX_WERROR=OFF \
	  -DCCTX_BUILD_TESTS=OFF -DCCTX_BUILD_PYTHON=OFF -DCCTX_BUILD_BENCH=OFF -DCCTX_USE_JEMALLOC=OFF $(CMAKE_ARGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS) cctx_onnx cctx_onnx_ml cctx_microsoft
	@mkdir -p $(addprefix $(FUZZ_BUILD)/corpus/,$(FUZZ_TARGETS))
	@cp examples/seed/seed.onnx tests/cli/nonzero.onnx $(FUZZ_BUILD)/corpus/fuzz_model/
	@for m in /usr/share/libonnx-testdata/data/node/*/model.onnx; do \
	  [ -f "$$m" ] && cp "$$m" $(FUZZ_BUILD)/corpus/fuzz_model/$$(basename $$(dirname $$m)).onnx; \
	done; true
	@cp tests/fuzz/seeds/fuzz_expr/* $(FUZZ_BUILD)/corpus/fuzz_expr/
	@cp tests/fuzz/seeds/fuzz_writers/* $(FUZZ_BUILD)/corpus/fuzz_writers/
	@cp config/profiles/*.yaml plugins/example_vendor/declarative.yaml $(FUZZ_BUILD)/corpus/fuzz_profile/
	@status=0; for t in $(FUZZ_TARGETS); do \
	  echo "== $$t for $(FUZZ_SECONDS) s"; \
	  (cd $(FUZZ_BUILD) && ./bin/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	    -rss_limit_mb=4096 -artifact_prefix=$$t- -print_final_stats=1 \
	    corpus/$$t $(CURDIR)/tests/fuzz/regressions/$$t > $$t.log 2>&1) || status=1; \
	  grep -E "^Done|stat::number_of_executed_units|ERROR|SUMMARY" $(FUZZ_BUILD)/$$t.log || true; \
	done; \
	echo "== fuzz_python for $(FUZZ_SECONDS) s"; \
	PYTHONPATH=$(BUILD)/python /usr/bin/python3 tests/fuzz/fuzz_python.py --seconds $(FUZZ_SECONDS) || status=1; \
	exit $$status

clean:
	rm -rf $(BUILD)
