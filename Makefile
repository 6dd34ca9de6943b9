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

.PHONY: deps test-deps build run test lint bench clean image-test

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
	swift format lint --strict --configuration .swift-format -r Sources Tests

bench: build
	bench/run-all

clean:
	rm -rf .build bench/results
