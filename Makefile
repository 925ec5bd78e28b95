# SPDX-License-Identifier: GPL-2.0-only
# `make run`  builds, installs into build/stage and runs the smoke test
#             (python3 -c 'import perf; [print(c) for c in perf.cpu_map()]').
# `make test` runs every test (cargo and pytest), with one boot of each real
# kernel in tests/kernels/kernels.txt; `make test-kernels` runs the whole matrix.
KERNEL_RELEASE ?= $(shell uname -r)
DESTDIR ?= $(CURDIR)/build/stage
PYTHON ?= python3

.PHONY: all setup build install run test test-rust test-sweep test-python test-wheel test-kernels-quick test-kernels lint clean tables

all: build

setup:
	@scripts/setup.sh

build:
	@scripts/build.sh "$(KERNEL_RELEASE)"

install: build
	@scripts/install.sh "$(DESTDIR)" "$(KERNEL_RELEASE)"

run: setup
	@scripts/run.sh

test: setup lint test-rust test-sweep test-python test-wheel test-kernels-quick

test-rust:
	cargo test --workspace --quiet

# Seconds of the robustness sweep (random records, model rings honest and
# adversarial, perf.data files generated and mutated; `make fuzz` runs it
# for longer), so CI catches what it finds. The dev profile: debug
# assertions on, and a cold build is quicker than the run is slower. It is
# built in the workspace's target directory, from the workspace's lock file
# (fuzz-lock), so it reuses the dependencies `cargo test` built.
test-sweep: fuzz-lock
	cd $(FUZZ_DIR) && CARGO_TARGET_DIR=$(CURDIR)/target cargo build --quiet --no-default-features --bin sweep
	target/debug/sweep --systematic none --random 100000 --ring 4000 --perf-data 20000

# -rs: why each skipped test could not run here; --durations: where CI's time goes.
test-python: build
	@rm -rf build/test-root
	@scripts/install.sh build/test-root "$(KERNEL_RELEASE)"
	PERF_TEST_ROOT=$(CURDIR)/build/test-root PERF_TEST_RELEASE="$(KERNEL_RELEASE)" \
		$(PYTHON) -m pytest -q -rs --durations=15 tests --ignore=tests/kernels --ignore=tests/wheel

# The wheel (pyproject.toml, docs/packaging.md): built with the pinned maturin
# and checked with auditwheel, installed in a fresh venv of each CPython >= 3.10
# (tests/wheel), then the side-by-side suite and tests/perfdata run against
# it in a fresh venv of the oldest, the side-by-side suite in one of the
# newest (scripts/test-wheel.sh).
test-wheel: setup
	@scripts/test-wheel.sh

# Real Debian kernels under QEMU (docs/kernels.md): one boot per kernel, two
# at a time, every check in one guest command, about a minute; skips with the reason where
# QEMU cannot boot them. test-kernels adds the .debs installed with dpkg in
# each guest, the other CPU count and the side-by-side suite on 6.1.
test-kernels-quick:
	$(PYTHON) -m pytest -q -rs tests/kernels/test_quick.py tests/kernels/test_vm.py

test-kernels: setup
	PERF_TEST_KERNELS=full $(PYTHON) -m pytest -q -rs tests/kernels

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings

clean:
	rm -rf build target

# Rewrites perf-core's syscall and errno tables (crates/perf-core/data) from
# the syscalls crate (crates/perf-core/gen, outside the workspace: it needs
# rustc >= 1.87). Bump the crate there, run this, review the diff.
tables:
	cd crates/perf-core/gen && cargo run --release --quiet -- ../data

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

# Builds the packages, installs them with dpkg, runs the smoke test and
# tuned's perf logic with /usr/bin/python3, purges them (root; slow).
test-packaging:
	$(PYTHON) -m pytest -q -m slow tests/packaging

bench: setup install
	/usr/bin/python3 benchmarks/bench.py
	benchmarks/instructions.sh
	/usr/bin/python3 benchmarks/loader_import.py --runs 300
	/usr/bin/python3 benchmarks/perf_data_read.py
	/usr/bin/python3 benchmarks/perf_data_threads.py
	/usr/bin/python3 benchmarks/perf_data_arrow.py
	/usr/bin/python3 benchmarks/symbols.py
	/usr/bin/python3 benchmarks/perf_data_symbols.py
	/usr/bin/python3 benchmarks/metric_compute.py

# Robustness fuzzing (docs/reliability.md), longer than `make test`:
# the Python API under hypothesis with fresh random examples, the
# libFuzzer-free sweep over every sample_type x read_format (SWEEP=full or
# quick) and, with a nightly toolchain, the cargo-fuzz targets for
# FUZZ_SECONDS each.
FUZZ_SECONDS ?= 120
FUZZ_CALLS ?= 5000
FUZZ_ORDERS ?= 1000
SWEEP ?= full
FUZZ_DIR = crates/perf-core/fuzz

.PHONY: fuzz fuzz-python fuzz-rust fuzz-lock
fuzz: fuzz-python fuzz-rust

# The fuzz workspace (outside the main one, for cargo fuzz) starts from the
# main lock file: the same versions of every shared dependency, with its own
# two (libfuzzer-sys, arbitrary) added by cargo.
fuzz-lock:
	cp Cargo.lock $(FUZZ_DIR)/Cargo.lock

fuzz-python: build
	@rm -rf build/fuzz-root
	@scripts/install.sh build/fuzz-root "$(KERNEL_RELEASE)"
	PERF_TEST_ROOT=$(CURDIR)/build/fuzz-root PERF_TEST_RELEASE="$(KERNEL_RELEASE)" \
	PERF_FUZZ_CALLS=$(FUZZ_CALLS) PERF_FUZZ_ORDERS=$(FUZZ_ORDERS) PERF_FUZZ_RANDOM=1 \
		$(PYTHON) -m pytest -q tests/robustness/test_api_fuzz.py

fuzz-rust: fuzz-lock
	cd $(FUZZ_DIR) && cargo build --release --quiet --no-default-features --bin sweep && \
		./target/release/sweep --systematic $(SWEEP)
	@if cargo +nightly fuzz --version >/dev/null 2>&1; then \
		cd $(FUZZ_DIR) && for t in parse_record parse_generated ring_read \
				perf_data_bytes perf_data_generated perf_data_zstd; do \
			cargo +nightly fuzz run $$t -- -max_total_time=$(FUZZ_SECONDS) \
				-print_final_stats=1 || exit 1; \
		done; \
	else \
		echo "fuzz-rust: no nightly cargo-fuzz; the sweep above covered the same targets"; \
	fi
