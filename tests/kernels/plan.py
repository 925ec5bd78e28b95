# SPDX-License-Identifier: GPL-2.0-only
"""The host's side of a guest run: the builds the guests load, and the plan
tests/kernels/guest.py follows in each guest.

* `stage()`: the extension built for the host's release, every guest release
  (tests/kernels/kernels.txt) and NEWEST (a build that knows every row of the
  feature table), by tests/stamped_builds.py; the host's and the guests'
  installed side by side with the loader under build/kernels/root by
  scripts/install.sh, as scripts/build-all.sh lays them out.
* `rows_newer_than(release)`: every attr row the release lacks, with the
  `perf.evsel` keywords that set it and what the kernel must answer.
* `debs(releases)`: the Debian packages for `releases` (scripts/deb.sh into
  build/kernels/deb, or the directory $PERF_TEST_DEBS names).
* `rust_tests()`: perf-core's unit-test binary (tests_real.rs runs in guests).
"""

import errno
import json
import os
import subprocess
import tomllib
from pathlib import Path

import stamped_builds
from kernels.vm import REPO

OUT = REPO / "build" / "kernels"
ROOT = OUT / "root"
FEATURES = REPO / "crates" / "perf-abi" / "data" / "features.toml"
# Newer than every row of the feature table (checked by the tests).
NEWEST = "7.0.0-1-generic"
# PERF_SAMPLE_BRANCH_STACK: branch_sample_type is only read under it.
SAMPLE_BRANCH_STACK = 1 << 11


class StageFailed(Exception):
    """A build or the install failed; the message has its output."""


def _sh(cmd):
    p = subprocess.run(cmd, cwd=REPO, env=stamped_builds.env(), capture_output=True, text=True)
    if p.returncode != 0:
        raise StageFailed(f"{' '.join(map(str, cmd))} failed (rc {p.returncode}):\n"
                          f"{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    return p.stdout


def build(release):
    """The directory holding perf.abi3.so and perf-python.toml for `release`."""
    try:
        return stamped_builds.build(release)
    except stamped_builds.BuildFailed as e:
        raise StageFailed(str(e)) from None


def stage(guests):
    """Builds for the host, `guests` and NEWEST; installs the host's and the
    guests' under ROOT (recreated). Returns ROOT."""
    host = os.uname().release
    build(NEWEST)
    perf_abi = stamped_builds.perf_abi()
    subprocess.run(["rm", "-rf", str(ROOT)], check=True)
    abis = set()
    for release in dict.fromkeys([host, *guests]):
        abi = _sh([perf_abi, "abi", release]).strip()
        if abi not in abis:
            build(release)
        _sh([REPO / "scripts" / "install.sh", ROOT, release,
             "--links-only" if abi in abis else "--no-loader"])
        abis.add(abi)
    _sh([REPO / "scripts" / "install.sh", ROOT, host, "--only-loader"])
    return ROOT


def manifest(release):
    """perf-abi's manifest for `release` (version, attr size, features)."""
    return tomllib.loads(_sh([stamped_builds.perf_abi(), "manifest", release, "0"]))


def table():
    """The feature table, features.toml as read by tomllib."""
    with open(FEATURES, "rb") as f:
        return tomllib.load(f)


def _keywords(row, rows):
    """perf.evsel keywords that set `row`, with its probe_with companions."""
    kind, name = row["kind"], row["name"]
    if kind in ("flag", "field", "aux_action"):
        kw = {name: 1}
    elif kind in ("sample_type", "read_format"):
        kw = {kind: 1 << row["bit"]}
    elif kind == "branch_sample_type":
        kw = {"sample_type": SAMPLE_BRANCH_STACK, "branch_sample_type": 1 << row["bit"]}
    else:
        return None  # open flags: perf.evsel sets only FD_CLOEXEC, itself
    for companion in row.get("probe_with", []):
        field, _, value = companion.partition("=")
        extra = {field: int(value)} if value else _keywords(rows[companion], rows)
        for key, v in extra.items():
            kw[key] = kw.get(key, 0) | v if key in ("sample_type", "branch_sample_type") else v
    return kw


def rows_newer_than(release):
    """{row name: {"keywords", "since", "names", "errno"}} for every row the
    feature table says `release` lacks and perf.evsel can set: the error must
    name one of `names` and `since`; a field past the kernel's attr size must
    give E2BIG, anything else EINVAL."""
    m = manifest(release)
    has = set(m["features"])
    rows = {r["name"]: r for r in table()["feature"]}
    out = {}
    for name, row in rows.items():
        kw = _keywords(row, rows)
        if name in has or kw is None:
            continue
        past = row["kind"] == "field" and row["offset"] + row["size"] > m["attr_size"]
        # A field whose bits are rows of their own (aux_action = 1 is
        # aux_start_paused) may be named by the bit it holds.
        names = [name] + [r["name"] for r in rows.values()
                          if r["kind"] == name and kw.get(name, 0) & (1 << r["bit"])]
        since = " and ".join([row["since"], *row.get("stable", [])])  # as the messages say it
        out[name] = {"keywords": kw, "since": since, "names": names,
                     "errno": errno.E2BIG if past else errno.EINVAL}
    return out


def rust_tests():
    """perf-core's library test binary (built by `cargo test` into target/)."""
    p = subprocess.run(["cargo", "test", "-q", "-p", "perf-core", "--lib", "--no-run",
                        "--message-format=json"], cwd=REPO, capture_output=True, text=True)
    if p.returncode != 0:
        raise StageFailed(f"cargo test --no-run failed:\n{p.stderr[-3000:]}")
    for line in p.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") \
                and msg["target"]["name"] == "perf_core":
            return msg["executable"]
    raise StageFailed("cargo test --no-run named no perf_core test binary")


def debs(releases):
    """The .debs (no -dbgsym) built by scripts/deb.sh for `releases`."""
    given = os.environ.get("PERF_TEST_DEBS")
    out = Path(given) if given else OUT / "deb"
    if not given:
        env = dict(os.environ, PERF_PYTHON_RELEASES=" ".join(dict.fromkeys(releases)),
                   PERF_PYTHON_DEB_OUT=str(out))
        p = subprocess.run([str(REPO / "scripts" / "deb.sh")], cwd=REPO, env=env,
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise StageFailed(f"scripts/deb.sh failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    found = sorted(d for d in out.glob("*.deb") if "-dbgsym_" not in d.name)
    if not found:
        raise StageFailed(f"no packages in {out}")
    return found
