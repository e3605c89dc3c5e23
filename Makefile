# The two set-up commands of the README: `make run` and `make test`. Each installs missing
# Debian packages (a no-op when present), configures and builds into build/.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= 2
ARGS ?=

.PHONY: all deps configure build build-all run test unit conformance-deps container-deps workshop-deps lab clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) > /dev/null

# The emulator alone.
build: configure
	@cmake --build $(BUILD_DIR) -j$(JOBS) --target cosmolite

build-all: configure
	@cmake --build $(BUILD_DIR) -j$(JOBS)

# Runs the emulator on https://localhost:8081 (pass flags with ARGS="--in-memory ...").
run: build
	./$(BUILD_DIR)/cosmolite $(ARGS)

# The SDKs of the conformance suites: npm, PyPI (a venv), Maven Central (~/.m2), the Go module proxy;
# and playwright-core for the explorer's browser test.
conformance-deps:
	@cd conformance && npm ci --no-audit --no-fund --loglevel=error
	@cd explorer/test && npm ci --no-audit --no-fund --loglevel=error
	@cd workshop && npm ci --no-audit --no-fund --loglevel=error
	@bash conformance/python/install.sh
	@bash conformance/java/install.sh
	@bash conformance/go/install.sh

# A workshop lab (workshop/README.md) on a fresh emulator it starts itself: make lab NAME=hot-partition
# (a number works too; without NAME, the list). LAB_ARGS=--quick runs it on small data.
NAME ?=
LAB_ARGS ?=
workshop-deps:
	@cd workshop && npm ci --no-audit --no-fund --loglevel=error

lab: build workshop-deps
	@cd workshop && COSMOLITE_BIN=$(CURDIR)/$(BUILD_DIR)/cosmolite node run.mjs $(NAME) $(LAB_ARGS)

# A container runtime for the Docker image's test (podman); where it cannot be installed, that test
# says so and is skipped.
container-deps:
	@bash scripts/install-deps.sh container || echo "make: no container runtime installed; the docker_image test will be skipped"

# Unit tests, then the SDK conformance suites (JavaScript, Python, Java, Go) against the freshly built
# binary, and the Docker image built from it.
test: build-all conformance-deps container-deps
	@cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

unit: build-all
	@cd $(BUILD_DIR) && ctest --output-on-failure -L unit -j$(JOBS)

clean:
	rm -rf $(BUILD_DIR)

# The benchmark (bench/README.md): builds, installs the peer emulator into build/bench-peer once,
# runs every workload against cosmolite, the peer and the raw baselines (about 12 minutes on
# 2 cores) and writes bench/results/results.md. Options: BENCH_ARGS="--runs 5 --seconds 20".
.PHONY: bench
BENCH_ARGS ?=
bench: configure
	@cmake --build $(BUILD_DIR) -j$(JOBS) --target cosmolite cosmolite_bench bench_raw_server bench_sqlite bench_query_parse bench_scripts
	@python3 bench/run_bench.py --build-dir $(BUILD_DIR) $(BENCH_ARGS)

# Sustained load (bench/README.md, "Soak"): cosmolite on a fresh data directory under 16 clients of
# mixed operations for 10 minutes, a line every 10 s; writes bench/results/soak.md and soak.json.
# Not part of `make test`. Options: SOAK_ARGS="--minutes 60 --check".
.PHONY: soak
SOAK_ARGS ?=
soak: configure
	@cmake --build $(BUILD_DIR) -j$(JOBS) --target cosmolite cosmolite_bench
	@python3 bench/soak.py --build-dir $(BUILD_DIR) $(SOAK_ARGS)

# Fuzzing (tests/fuzz/README.md): a clang build in build-fuzz/ with libFuzzer, ASan and UBSan; runs
# each target for FUZZ_SECONDS on a copy of its seed corpus and prints executions and coverage.
.PHONY: fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= query json token patch request
fuzz: deps
	@command -v clang++-14 >/dev/null || apt-get install -y clang-14
	@cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 -DCOSMOLITE_FUZZ=ON > /dev/null
	@cmake --build build-fuzz -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t && cp -n tests/fuzz/corpus/$$t/* build-fuzz/corpus/$$t/ 2>/dev/null; \
	  echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; \
	  build-fuzz/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
	    -artifact_prefix=build-fuzz/crash-$$t- build-fuzz/corpus/$$t 2>&1 | grep -E "DONE|ERROR|SUMMARY|Done" ; \
	done
