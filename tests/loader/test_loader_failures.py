# SPDX-License-Identifier: GPL-2.0-only
"""When nothing may be loaded: a KernelNotFoundError, which is a
ModuleNotFoundError (so `except ImportError` works, as tuned >= 2.25 does),
listing the release, the directories searched, the builds found, the
refusals, and the packages to install; never IndexError or a bare Exception
(the defects of Ubuntu's wrappers, research consumers.md 1.2-1.3)."""

import pytest

from loader_helpers import MID, NEW, OLD, PROBE, run_import


def test_failure_is_a_module_not_found_error_with_everything_in_it(root):
    root.install(OLD)
    root.config('policy = "exact"\n')
    run = run_import(root, MID)
    err = run.error
    assert err["error"] == "KernelNotFoundError"
    assert err["mro"][:4] == ["KernelNotFoundError", "ModuleNotFoundError", "ImportError", "Exception"]
    assert err["name"] == "perf"
    lines = err["message"].splitlines()
    assert lines[0] == f"python perf module not found for kernel {MID} (ABI 6.8.0-31, flavour generic)"
    message = err["message"]
    for expected in (
        f"{root.lib}/linux-tools/{MID}/lib: missing",
        f"{root.lib}/linux-tools-6.8.0-31/lib: missing",
        "builds installed:",
        f"{root.lib}/linux-tools-6.1.0-18/lib/perf.abi3.so  ({OLD}, kernel 6.1.0 (from the manifest))",
        "install the build for this kernel:",
        "python3-perf-6.8.0-31  (this project's build for ABI 6.8.0-31)",
        f"linux-tools-{MID}  (Ubuntu's tools for this kernel)",
        "to keep up to date: linux-tools-generic (Ubuntu)",
    ):
        assert expected in message, message


def test_except_import_error_catches_it(root):
    code = ("try:\n    import perf\nexcept ImportError as e:\n"
            "    print('RESULT {\"caught\": \"%s\"}' % type(e).__name__)\n")
    run = run_import(root, MID, code=code)
    assert run.result == {"caught": "KernelNotFoundError"}


@pytest.mark.parametrize("release", [
    "6.1.0",                 # Ubuntu's v2 wrapper: IndexError in the error's constructor
    "6.12.0+",
    "6.18.44-fc-v595",       # no Debian-style flavour: no "keep up to date" hint
    "5.14.0-362.el9.x86_64",
    "..",
    "a/b",
    "é-ü-ß",
    "-",
])
def test_odd_releases_fail_cleanly(root, release):
    run = run_import(root, release)
    err = run.error
    assert err["error"] == "KernelNotFoundError", run.describe()
    assert err["message"].startswith(f"python perf module not found for kernel {release}")
    assert "to keep up to date" not in err["message"]
    assert "Traceback" not in run.stderr


def test_unusable_release_is_not_made_into_a_path(root):
    root.install(OLD)
    run = run_import(root, "../../..", env={"PERF_PYTHON_POLICY": "exact"})
    assert "(release '../../..'): not usable as a directory name" in run.error["message"]


def test_package_name_of_odd_abis(loader_modules):
    name = loader_modules.errors.package_name
    assert name("6.8.0-31") == "python3-perf-6.8.0-31"
    assert name("5.14.0-362.el9.x86_64") == "python3-perf-5.14.0-362.el9.x86-64"
    assert name("6.18.44-FC-v595") == "python3-perf-6.18.44-fc-v595"
    assert name("6.12.0+") == "python3-perf-6.12.0+"


def test_empty_root_fails_cleanly(tmp_path, root):
    # No /usr/lib at all under the root given.
    run = run_import(root, NEW, env={"PERF_PYTHON_SYSROOT": str(tmp_path / "nothing")})
    assert run.error["error"] == "KernelNotFoundError"
    assert f"{tmp_path}/nothing/usr/lib/linux-tools/{NEW}/lib: missing" in run.error["message"]


def test_empty_flavour_directory_is_not_an_index_error(root):
    # Ubuntu's wrappers: glob(...)[-1] on an existing, empty directory.
    (root.lib / "linux-tools" / MID / "lib").mkdir(parents=True)
    run = run_import(root, MID)
    assert run.error["error"] == "KernelNotFoundError"
    assert f"{root.lib}/linux-tools/{MID}/lib: no loadable perf.*.so" in run.error["message"]


def test_failure_object_carries_the_details(root, loader_modules):
    root.install(OLD)
    search = loader_modules.loader.Search(MID, str(root.path), euid=0, policy="exact")
    assert list(search.candidates()) == []
    err = search.failure()
    assert isinstance(err, ModuleNotFoundError)
    assert err.release == MID
    assert err.policy == ("exact", "argument")
    assert [d for d, _ in err.searched] == [str(root.lib / "linux-tools" / MID / "lib"),
                                            str(root.lib / "linux-tools-6.8.0-31" / "lib")]
    assert len(err.found) == 1 and OLD in err.found[0]


def test_warnings_as_errors_still_give_an_import_error(root):
    # python -W error: the nearest build's warning is an error, so the build
    # is not used and the caller gets the ModuleNotFoundError it can catch.
    root.install(OLD)
    code = PROBE.replace('warnings.simplefilter("always")', 'warnings.simplefilter("error")')
    assert code != PROBE
    run = run_import(root, MID, code=code)
    err = run.error
    assert err["error"] == "KernelNotFoundError", run.describe()
    assert (f"{root.lib}/linux-tools-6.1.0-18/lib/perf.abi3.so: not used: the warning is an error here: "
            f"perf: no build for kernel {MID} is installed; loaded the nearest") in err["message"]
    # A bad policy setting's warning, made an error, leaves the search strict.
    root.config("policy = 'strict'\n")
    err = run_import(root, MID, code=code).error
    assert err["error"] == "KernelNotFoundError"
    assert "policy: exact (the policy setting could not be used)" in err["message"]
    # The build for this kernel needs no warning and loads.
    root.install(MID)
    assert run_import(root, MID, code=code).build == MID
    assert run_import(root, MID, args=("-W", "error"), code="import perf").rc == 0
