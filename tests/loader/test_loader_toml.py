# SPDX-License-Identifier: GPL-2.0-only
"""The fallback TOML reader (Python 3.10 has no tomllib) reads what tomllib
reads for the flat files the loader needs, and refuses the rest: never a
misreading."""

import subprocess

import pytest

from loader_helpers import MID, OLD, pyenv_python, run_import
from stamped_builds import PERF_ABI

tomllib = pytest.importorskip("tomllib")

DOCUMENTS = [
    'policy = "exact"\n',
    "# comment only\n\n",
    "policy = 'nearest'  # trailing comment\n",
    'a = 1\nb = -2\nc = +3\nd = 1_000\ne = true\nf = false\n',
    'list = ["a", "b",\n  "c", # comment\n]\nempty = []\n',
    'nested = [[1, 2], ["x"]]\n',
    '"quoted key" = "v"\nbare-key_1 = "w"\n',
    'escapes = "tab\\tquote\\"back\\\\slash\\u00e9\\U0001F600"\n',
    "crlf = 1\r\nnext = 2\r\n",
    "zero = 0\n",
    "k = \"a # not a comment\"\ntab = \"a\tb\"\n",
    "list = [\n]\ntrailing = [1,]\n",
    "'literal key' = 'x'\n",
]

# TOML that tomllib reads and the fallback refuses; the loader's files hold none of it.
BEYOND = [
    "[table]\nkey = 1\n[other.sub]\nkey = 2\n",
    "dotted.key = 1\n",
    "x = 1.5\n",
    "x = 2024-01-01\n",
    "x = {a = 1}\n",
    "[[array]]\n",
    'x = """multi"""\n',
    "x = 0x10\n",
]

# Not TOML.
BAD = [
    "policy = exact\n",
    'policy = "unterminated\n',
    "a = 1\na = 2\n",
    "[t]\n[t]\n",
    "x = 1 2\n",
    "x = 01\n",
    "x = 1__0\n",
    'x = "\\q"\n',
    'x = "\\ud800"\n',
    "= 1\n",
    "x = [1 2]\n",
    "x = [1,,2]\n",
    "x = [1\n",
    "x =\n",
]


@pytest.mark.parametrize("text", DOCUMENTS, ids=repr)
def test_fallback_reads_what_tomllib_reads(loader_modules, text):
    assert loader_modules.toml.loads_flat(text) == tomllib.loads(text)


@pytest.mark.parametrize("text", BEYOND, ids=repr)
def test_fallback_refuses_what_it_does_not_read(loader_modules, text):
    tomllib.loads(text)
    with pytest.raises(ValueError):
        loader_modules.toml.loads_flat(text)


@pytest.mark.parametrize("text", BAD, ids=repr)
def test_fallback_refuses_what_is_not_toml(loader_modules, text):
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    with pytest.raises(ValueError):
        loader_modules.toml.loads_flat(text)


def test_real_manifest(loader_modules, builds):
    text = subprocess.run([str(PERF_ABI), "manifest", MID, "0.1.0"], capture_output=True,
                          text=True, check=True).stdout
    assert loader_modules.toml.loads_flat(text) == tomllib.loads(text)


@pytest.mark.parametrize("version", ["3.10"])
def test_loader_on_a_python_without_tomllib(root, version):
    python = pyenv_python(version)
    root.install(OLD)
    run = run_import(root, MID, python=python)
    assert run.build == OLD  # the nearest, dated by its manifest
    assert "(from the manifest)" in run.result["loaded_by"]["reason"]
    root.config('policy = "exact"  # strict\n')
    assert run_import(root, MID, python=python).error["error"] == "KernelNotFoundError"
