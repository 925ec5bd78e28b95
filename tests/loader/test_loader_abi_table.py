# SPDX-License-Identifier: GPL-2.0-only
"""The loader parses the running release itself (it has no manifest for a
kernel it has no build for); its abi_of() and version_of() must agree with
perf-abi, the build's one source of ABI names, over a table of releases."""

import subprocess

import pytest

import stamped_builds

RELEASES = [
    "6.8.0-31-generic", "6.8.0-31-generic-64k", "6.8.0-1009-aws", "6.1.0-18-amd64",
    "6.1.0-18-rt-amd64", "5.15.0-105-lowlatency", "6.18.44-fc-v595", "6.18.44-fc-v657",
    "5.14.0-362.el9.x86_64", "3.10.0-1160.el7.x86_64", "6.12.0+", "6.9.0-rc7+", "7.3-rc1",
    "6.8.0-31", "6.8.0-31-", "4.19.0-0.bpo.6-amd64", "6", "", "-", "--", "abc-def-ghi",
    "6.8.x-31-generic", "99999999999999999999.1.2-3-big", "6.1.0-18-amd64\n", " 6.1.0-18-amd64 ",
    "é-ü-ß", "6.8.0-٣١-generic", "6.\u00b2.0-1-generic", "4294967295.0.0-1-x", "4294967296.0.0-1-x",
    "6.1.0-18-amd64\u3000", "1.2.3-4-a-b-c",
    # Debian's backports and its +debN ABIs (6.12 on): tests/kernels boots the 6.12 ones.
    "6.1.0-0.deb11.17-amd64", "6.12.111+deb12-amd64", "6.12.107+deb12-amd64",
    "6.12.38+deb13-cloud-amd64", "6.12.38+deb13-rt-amd64", "6.12.9+bpo-amd64", "6.12.38+deb13",
    "6.12.38+deb13-", "6.12.38+deb-amd64", "6.12.0+custom-amd64", "6.1.0-0.deb11-amd64",
    "6.12+deb13-amd64", "6.1.0-0.bpo.x-amd64", "6.12.38+deb13+x-amd64", "6.12.38-+deb13-amd64",
]


@pytest.fixture(scope="module")
def perf_abi(builds):
    """perf-abi of the stamped builds."""
    return str(stamped_builds.perf_abi())


def ask(perf_abi, *args):
    p = subprocess.run([perf_abi, *args], capture_output=True, text=True, check=True)
    return p.stdout


@pytest.mark.parametrize("release", RELEASES, ids=repr)
def test_abi_and_flavour_agree_with_perf_abi(loader_modules, perf_abi, release):
    abi, flavour = loader_modules.layout.abi_of(release)
    assert abi == ask(perf_abi, "abi", release).removesuffix("\n")
    assert (flavour or "") == ask(perf_abi, "flavour", release).removesuffix("\n")


@pytest.mark.parametrize("release", RELEASES, ids=repr)
def test_version_agrees_with_the_manifest(loader_modules, perf_abi, release):
    manifest = loader_modules.toml.loads(ask(perf_abi, "manifest", release, "0"))
    ours = loader_modules.layout.version_of(release)
    theirs = manifest.get("kernel_version")
    assert (".".join(map(str, ours)) if ours else None) == theirs
