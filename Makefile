# Sluice — developer entry points. `make run` and `make test` are all a new checkout needs.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

# Appended, so a toolchain already on PATH wins: the usual Linux toolchain home for shells that
# lack it, /usr/sbin for the test peers (nginx, apache2) that a non-root PATH often lacks, and
# .venv/bin for schemathesis.
SWIFT_HOME ?= /opt/swift/usr/bin
export PATH := $(PATH):$(SWIFT_HOME):/usr/sbin:/sbin:$(CURDIR)/.venv/bin
# Where the tests find the scriptable fault origin.
export SLUICE_FAULT_ORIGIN := $(CURDIR)/Tests/Fixtures/fault_origin.py

# The machines this runs on have 2 cores; more jobs only add memory pressure.
JOBS ?= 2
SWIFT_STRICT := -Xswiftc -warnings-as-errors
CONFIG ?= examples/sluice.json

.PHONY: deps test-deps build run test lint bench clean image-test fuzz fuzz-build fuzz-smoke

deps:
	scripts/install-deps

test-deps:
	scripts/install-deps --test

build: deps
	swift build -c release -j $(JOBS) $(SWIFT_STRICT)

run: build
	.build/release/sluice serve --config $(CONFIG)

# The fault origin's own tests first (seconds), then the Swift suites. Swift Testing runs tests
# concurrently on the cooperative pool (one thread per core); --num-workers bounds XCTest too.
# Tests/Deploy checks deploy/ and runs the nginx cluster with the built binary (about 25 s); it uses
# .venv's Python, which has PyYAML through yamllint.
test: test-deps lint
	python3 -m unittest discover -s Tests/Fixtures -p 'test_*.py'
	swift build --build-tests -j $(JOBS) $(SWIFT_STRICT)
	.venv/bin/python -m unittest discover -s Tests/Deploy -p 'test_*.py'
	swift test --skip-build --parallel --num-workers $(JOBS)

# Builds deploy/Dockerfile with podman and tests the container (scripts/image-test). Not part of `make test`: on a
# clean machine it makes its base images first and the release build alone takes minutes. Run it before every change
# to deploy/.
image-test:
	scripts/install-deps --image
	scripts/image-test

lint:
	swift format lint --strict --configuration .swift-format -r Sources Tests fuzz

# libFuzzer harnesses (README, "Hostile input and fuzzing"), built in a scratch folder of their own with coverage instrumentation and
# AddressSanitizer; SLUICE_FUZZ declares their targets in Package.swift. Each runs FUZZ_SECONDS from the seeds in
# fuzz/corpus/NAME, growing a working corpus under .build/fuzz/corpus/NAME; a crash stops the run and leaves its
# input in .build/fuzz/crashes/. Leak detection is off: Foundation's XML parser keeps its error strings for good. lld
# links them: gold pulls in libFuzzer's own main beside SwiftPM's and fails.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= range asset-path config propfind dropbox-json signature
FUZZ_DIR := .build/fuzz

fuzz-build:
	for name in $(FUZZ_TARGETS); do \
	  SLUICE_FUZZ=1 swift build -c release -j $(JOBS) --scratch-path $(FUZZ_DIR) --product fuzz-$$name \
	    -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xswiftc -use-ld=lld; \
	done

fuzz: fuzz-build
	mkdir -p $(FUZZ_DIR)/crashes
	for name in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$name; \
	  ASAN_OPTIONS=detect_leaks=0 $(FUZZ_DIR)/release/fuzz-$$name -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/crashes/$$name- \
	    $(FUZZ_DIR)/corpus/$$name fuzz/corpus/$$name; \
	done

fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=20

bench: build
	bench/run-all

clean:
	rm -rf .build bench/results
