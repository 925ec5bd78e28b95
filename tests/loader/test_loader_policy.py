# SPDX-License-Identifier: GPL-2.0-only
"""Every step of the loader's policy, over staged roots holding real builds
for several kernel releases; perf.__build__ names the build that was loaded."""

import pytest

from loader_helpers import ABIS, MID, NEW, OLD, PROBE_IMPORT_LINE, online_cpus, run_import


def test_exact_release_loads_the_flavour_directory_build(root):
    root.install(MID)
    root.install(OLD)
    run = run_import(root, MID)
    assert run.build == MID
    assert run.step == "exact"
    assert run.result["file"] == str(root.lib / "linux-tools" / MID / "lib" / "perf.abi3.so")
    assert run.result["loaded_by"]["reason"] == f"exact release {MID}"
    assert run.result["cpus"] == online_cpus()
    assert run.warnings == []


def test_import_perf_gives_the_extension_not_the_package(root):
    root.install(NEW)
    run = run_import(root, NEW)
    assert run.result["is_extension"] is True
    assert run.result["same_object"] is True
    assert run.result["file"].endswith("perf.abi3.so")


def test_import_and_find_choose_the_same_build(root, loader_modules):
    root.install(MID, flavours=[MID, "6.8.0-31-lowlatency"])
    root.install(OLD)
    for release in (MID, "6.8.0-31-lowlatency", OLD):
        run = run_import(root, release)
        chosen = loader_modules.loader.find(release, str(root.path), euid=0)
        assert run.result["file"] == chosen.path
        assert run.step == chosen.step == "exact"


def test_same_abi_from_the_abi_directory(root):
    root.install(MID)
    run = run_import(root, "6.8.0-31-lowlatency")
    assert run.build == MID
    assert run.step == "abi"
    assert run.result["file"] == str(root.lib / "linux-tools-6.8.0-31" / "lib" / "perf.abi3.so")
    assert run.warnings == []


def test_same_abi_from_a_derivative_kernel_directory(root):
    root.put("linux-aws-tools-6.8.0-31/lib", MID)
    run = run_import(root, "6.8.0-31-aws")
    assert run.build == MID
    assert run.step == "abi"
    assert "/linux-aws-tools-6.8.0-31/lib/" in run.result["file"]


def test_abi_directory_comes_before_derivatives_which_are_sorted(root):
    root.put("linux-gcp-tools-6.8.0-31/lib", NEW)
    root.put("linux-aws-tools-6.8.0-31/lib", OLD)
    assert run_import(root, "6.8.0-31-azure").build == OLD  # aws sorts before gcp
    root.put("linux-tools-6.8.0-31/lib", MID)
    assert run_import(root, "6.8.0-31-azure").build == MID


def test_same_abi_from_another_flavour_directory(root):
    # Only the generic flavour directory holds a file (no ABI directory).
    root.put(f"linux-tools/{MID}/lib", MID)
    run = run_import(root, "6.8.0-31-generic-64k")
    assert run.build == MID
    assert run.step == "flavour"
    assert run.result["loaded_by"]["reason"] == f"same ABI 6.8.0-31, flavour of {MID}"


def test_another_abi_is_not_the_same_abi(root):
    root.put(f"linux-tools/{MID}/lib", MID)
    run = run_import(root, "6.8.0-32-generic", env={"PERF_PYTHON_POLICY": "exact"})
    assert run.error["error"] == "KernelNotFoundError"


@pytest.mark.parametrize("running, expected", [
    ("6.5.0-1-generic", MID),   # 6.5 is nearer 6.8 than 6.1
    ("6.3.0-1-generic", OLD),   # 6.3 is nearer 6.1
    ("6.19.0-2-amd64", NEW),
    ("7.3-rc1", NEW),
    ("5.4.0-150-generic", OLD),
    ("6.8.1-1-generic", MID),
    ("not-a-version", NEW),     # no version: the newest build
])
def test_nearest_build_by_kernel_version_with_a_warning(root, running, expected):
    for release in (OLD, MID, NEW):
        root.install(release)
    run = run_import(root, running)
    assert run.build == expected
    assert run.step == "nearest"
    assert len(run.warnings) == 1, run.describe()
    warning = run.warnings[0]
    assert warning.startswith(f"<string>:{PROBE_IMPORT_LINE}: RuntimeWarning: perf: ")
    assert f"no build for kernel {running} is installed" in warning
    assert f"built for {expected}" in warning
    assert f"linux-tools-{ABIS[expected]}/lib/perf.abi3.so" in warning


def test_nearest_prefers_the_newer_build_on_a_tie(root):
    root.install(OLD)   # 6.1.0
    root.put("linux-tools-6.3.0-1/lib", MID, manifest=False)  # dated by its name: 6.3.0
    # 6.2.0 is 1000 away from both 6.1.0 and 6.3.0.
    assert run_import(root, "6.2.0-1-generic").build == MID


def test_nearest_reads_the_manifest_not_the_directory_name(root):
    # A directory named for 9.9.9 holding the 6.1 build (its manifest says so)
    # and the 6.18 build: for 9.0 the 6.18 build is the nearer.
    root.put("linux-tools-9.9.9-1/lib", OLD)
    root.install(NEW)
    run = run_import(root, "9.0.0-1-generic")
    assert run.build == NEW
    assert "kernel 6.18.44 (from the manifest)" in run.result["loaded_by"]["reason"]


def test_nearest_dates_a_build_without_manifest_by_its_directory(root):
    root.put("linux-tools-6.8.0-31/lib", MID, manifest=False)
    root.put("linux-tools-6.1.0-18/lib", OLD, manifest=False)
    run = run_import(root, "6.7.0-1-generic")
    assert run.build == MID
    assert "(from the directory name)" in run.result["loaded_by"]["reason"]


def test_distro_module_on_sys_path_comes_last_with_a_warning(root):
    # Debian's linux-perf ships perf.cpython-*.so beside our perf/ package in
    # dist-packages: the package shadows it for a plain import, and the loader
    # loads it by path when no build is installed.
    distro = root.site / "perf.abi3.so"
    distro.write_bytes((root.builds[OLD] / "perf.abi3.so").read_bytes())
    run = run_import(root, MID)
    assert run.build == OLD
    assert run.step == "distro"
    assert run.result["file"] == str(distro)
    assert len(run.warnings) == 1
    assert f"loaded the distribution's module {distro}" in run.warnings[0]


def test_a_build_for_another_kernel_beats_the_distro_module(root):
    (root.site / "perf.abi3.so").write_bytes((root.builds[OLD] / "perf.abi3.so").read_bytes())
    root.install(NEW)
    assert run_import(root, MID).step == "nearest"


def test_without_the_loader_the_package_would_not_shadow_anything(root):
    # Control for the test above: the same site directory without perf/
    # imports the .so directly.
    import shutil

    shutil.rmtree(root.site / "perf")
    (root.site / "perf.abi3.so").write_bytes((root.builds[OLD] / "perf.abi3.so").read_bytes())
    run = run_import(root, MID, code="import perf; print('RESULT {\"file\": \"%s\"}' % perf.__file__)")
    assert run.result["file"] == str(root.site / "perf.abi3.so")


@pytest.mark.parametrize("how", ["env", "config"])
def test_policy_exact_forbids_the_fallbacks(root, how):
    root.install(OLD)
    (root.site / "perf.abi3.so").write_bytes((root.builds[OLD] / "perf.abi3.so").read_bytes())
    env = {}
    if how == "env":
        env["PERF_PYTHON_POLICY"] = "exact"
    else:
        root.config('# strict\npolicy = "exact"\n')
    run = run_import(root, MID, env=env)
    err = run.error
    assert err["error"] == "KernelNotFoundError"
    source = "$PERF_PYTHON_POLICY" if how == "env" else str(root.path / "etc" / "perf-python.toml")
    assert f"policy: exact ({source})" in err["message"]
    assert "or allow the nearest build: PERF_PYTHON_POLICY=nearest" in err["message"]
    assert run.warnings == []


def test_policy_exact_still_allows_the_same_abi(root):
    root.install(MID)
    run = run_import(root, "6.8.0-31-lowlatency", env={"PERF_PYTHON_POLICY": "exact"})
    assert run.step == "abi"


def test_policy_nearest_skips_the_distro_module(root):
    (root.site / "perf.abi3.so").write_bytes((root.builds[OLD] / "perf.abi3.so").read_bytes())
    root.config('policy = "nearest"\n')
    assert run_import(root, MID).error["error"] == "KernelNotFoundError"
    root.install(NEW)
    assert run_import(root, MID).step == "nearest"


def test_environment_overrides_the_config_file(root):
    root.install(OLD)
    root.config('policy = "exact"\n')
    assert run_import(root, MID).error["error"] == "KernelNotFoundError"
    assert run_import(root, MID, env={"PERF_PYTHON_POLICY": "nearest"}).build == OLD


@pytest.mark.parametrize("config, complaint", [
    ('policy = "strict"\n', "unknown policy 'strict'"),
    ("policy = exact\n", "cannot read"),
    ("policy = 1\n", "unknown policy 1"),
])
def test_a_bad_policy_setting_means_exact_with_a_warning(root, config, complaint):
    root.install(OLD)
    root.config(config)
    run = run_import(root, MID)
    assert run.error["error"] == "KernelNotFoundError"
    assert "policy: exact" in run.error["message"]
    assert len(run.warnings) == 1 and complaint in run.warnings[0], run.describe()
    assert run.warnings[0].endswith("; using policy 'exact'")


def test_unknown_policy_from_the_environment_means_exact(root):
    root.install(OLD)
    run = run_import(root, MID, env={"PERF_PYTHON_POLICY": "loose"})
    assert run.error["error"] == "KernelNotFoundError"
    assert any("unknown policy 'loose' from $PERF_PYTHON_POLICY" in w for w in run.warnings)


def test_the_warning_is_attributed_to_the_importing_code(root, tmp_path):
    root.install(OLD)
    script = tmp_path / "consumer.py"
    script.write_text("import os\n\nimport perf  # line 3\n")
    run = run_import(root, MID, code=f"exec(compile(open({str(script)!r}).read(), {str(script)!r}, 'exec'))")
    assert len(run.warnings) == 1
    assert run.warnings[0].startswith(f"{script}:3: RuntimeWarning: perf: no build for kernel {MID}")
