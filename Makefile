# SPDX-License-Identifier: GPL-2.0-only
# `make run`  builds, installs into build/stage and runs the seed's test case.
# `make test` runs every test (cargo and pytest).
KERNEL_RELEASE ?= $(shell uname -r)
DESTDIR ?= $(CURDIR)/build/stage
PYTHON ?= python3

.PHONY: all setup build install run test test-rust test-python lint clean

all: build

setup:
	@scripts/setup.sh

build:
	@scripts/build.sh "$(KERNEL_RELEASE)"

install: build
	@scripts/install.sh "$(DESTDIR)" "$(KERNEL_RELEASE)"

run: setup
	@scripts/run.sh

test: setup test-rust test-python

test-rust:
	cargo test --workspace --quiet

test-python: build
	@rm -rf build/test-root
	@scripts/install.sh build/test-root "$(KERNEL_RELEASE)"
	PERF_TEST_ROOT=$(CURDIR)/build/test-root PERF_TEST_RELEASE="$(KERNEL_RELEASE)" \
		$(PYTHON) -m pytest -q tests

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings

clean:
	rm -rf build target

# --- loader, per-ABI builds and Debian packages (docs/loader.md, docs/packaging.md)
.PHONY: build-all deb test-loader test-packaging

# Builds and installs side by side (DESTDIR, default build/stage) the
# extension for the running release and every release with headers or
# modules on this machine, or for RELEASES="r1 r2 ...".
build-all:
	@scripts/build-all.sh $(RELEASES)

# Debian packages for PERF_PYTHON_RELEASES (default: the running release)
# into build/deb/, checked with lintian.
deb:
	@scripts/deb.sh

test-loader:
	$(PYTHON) -m pytest -q tests/loader

# Builds the packages, installs them with dpkg, runs the seed's test case and
# tuned's perf logic with /usr/bin/python3, purges them (root; slow).
test-packaging:
	$(PYTHON) -m pytest -q -m slow tests/packaging

bench: setup install
	/usr/bin/python3 benchmarks/bench.py
	benchmarks/instructions.sh
