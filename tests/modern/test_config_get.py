# SPDX-License-Identifier: GPL-2.0-only
"""perf.config_get() against perf 6.1's own `perf config -l` (perf's
tools/perf/util/config.c reads the files the same way for both):

* syntax: each case is one file given as $PERF_CONFIG; every key perf lists
  has perf's value here, and every other key the file mentions is None;
* which files: /etc/perfconfig (put in place inside a private mount
  namespace, /etc overlaid, so the machine's own is untouched) and
  ~/.perfconfig, with PERF_CONFIG, PERF_CONFIG_NOSYSTEM,
  PERF_CONFIG_NOGLOBAL, HOME and the user file's owner.
"""

import os
import re
import subprocess

import pytest

from sidebyside.harness import needs_root

PERF = "/usr/bin/perf"

pytestmark = pytest.mark.skipif(not os.access(PERF, os.X_OK), reason="perf is not installed")

# (case id, file text); no value holds a newline (perf config -l prints it raw).
SYNTAX = [
    ("basic", b"[core]\n\tproc-map-timeout = 100\n[report]\nchildren=false\n"),
    ("case", b"[CoRe]\nFooBar = x\nfOO = y\n"),
    ("dotted-section", b"[a.B]\nk = 1\n"),
    ("subsection", b'[section "Sub.Name"]\nkey = v\n[s "a\\"b\\\\c d"]\nk = w\n'),
    ("same-line", b"[s]k = v\n"),
    ("repeated", b"[s]\nk = 1\n[t]\nk = 2\n[s]\nk = 3\nj = 4\n"),
    ("blanks", b"[s]\nk =   a   b\t c  \nj=\n"),
    ("quotes", b'[s]\nk = "  a # b ; c  "  # comment\nj = a"b c"d\n'),
    ("comments", b"# c\n; c\n[s] # c\nk = v ; c\n  # k = w\n"),
    ("escapes", b"[s]\nk = a\\tb\\\\c\\\"d\nj = x\\\n  y\n"),
    ("crlf", b"[s]\r\nk = v\r\nj = w\r\n"),
    ("bom", b"\xef\xbb\xbf[s]\nk = v\n"),
    ("no-newline", b"[s]\nk = v"),
    ("no-value", b"[s]\na = 1\nnovalue\nb = 2\n"),
    ("no-section", b"k = v\n[s]\nj = w\n"),
    ("open-quote", b'[s]\na = 1\nk = "open\nb = 2\n'),
    ("bad-escape", b"[s]\na = 1\nk = a\\qb\nb = 2\n"),
    ("empty-section", b"[]\nk = v\n"),
    ("bad-subsection", b'[s t]\nk = v\n'),
    ("bad-key", b"[s]\na = 1\n1k = v\nb = 2\n"),
    ("dot-in-key", b"[s]\na = 1\nk.j = v\n"),
    ("long-value", b"[s]\nk = " + b"x" * 1022 + b"\nj = " + b"y" * 1023 + b"\nl = 1\n"),
    ("long-section", b"[" + b"s" * 129 + b"]\nk = v\n[" + b"t" * 130 + b"]\nj = w\n"),
    ("latin1-blank", b"[s]\nk = a\xa0\xa0b\nj = caf\xc3\xa9\n"),
    ("nul", b"[s]\nk = 1\n\x00j = 2\n"),
    ("empty", b""),
]


def perf_config_list(env):
    """{key: value bytes} that `perf config -l` prints."""
    p = subprocess.run([PERF, "config", "-l"], env=env, capture_output=True)
    assert p.returncode == 0, p.stderr
    return dict(line.split(b"=", 1) for line in p.stdout.splitlines())


def mentioned_keys(text):
    """section.key names a file's text suggests, to ask for the absent ones."""
    keys, section = set(), b"s"
    for line in text.splitlines():
        m = re.match(rb'\s*\[([^\]"\s]*)', line)
        if m:
            section = m.group(1).lower()
        m = re.match(rb"\s*(?:\[[^\]]*\])?\s*([A-Za-z][\w.-]*)\s*=", line)
        if m:
            keys |= {section + b"." + m.group(1), section + b"." + m.group(1).lower()}
    return keys


def base_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_CONFIG")}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env["HOME"] = str(home)
    return env


def ours_get(perf_ours, keys):
    """{key: value} from our config_get, UnicodeDecodeError as its name."""
    out = {}
    for key in keys:
        try:
            out[key] = perf_ours.config_get(key.decode("utf-8", "surrogateescape"))
        except UnicodeDecodeError:
            out[key] = "UnicodeDecodeError"
    return out


def expected_from(listing, keys):
    """What config_get must give for `keys`, from perf's listing."""
    out = {}
    for key in keys:
        value = listing.get(key)
        if value is None:
            out[key] = None
        else:
            try:
                out[key] = value.decode("utf-8")
            except UnicodeDecodeError:
                out[key] = "UnicodeDecodeError"
    return out


@pytest.mark.parametrize("text", [t for _, t in SYNTAX], ids=[i for i, _ in SYNTAX])
def test_syntax_as_perf_reads_it(perf_ours, tmp_path, monkeypatch, text):
    config = tmp_path / "perfconfig"
    config.write_bytes(text)
    env = base_env(tmp_path)
    env["PERF_CONFIG"] = str(config)
    listing = perf_config_list(env)
    keys = set(listing) | mentioned_keys(text)
    for name in ("PERF_CONFIG_NOSYSTEM", "PERF_CONFIG_NOGLOBAL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PERF_CONFIG", str(config))
    monkeypatch.setenv("HOME", env["HOME"])
    assert ours_get(perf_ours, keys) == expected_from(listing, keys)


def test_the_syntax_cases_are_not_vacuous(tmp_path):
    """perf lists keys for most syntax cases (the comparisons above are not
    all None == None)."""
    listed = 0
    for _, text in SYNTAX:
        config = tmp_path / "perfconfig"
        config.write_bytes(text)
        env = base_env(tmp_path)
        env["PERF_CONFIG"] = str(config)
        listed += len(perf_config_list(env))
    assert listed >= 30


# -- which files -------------------------------------------------------------

# In a private mount namespace: /etc overlaid (a tmpfs upper layer), the
# system file copied in or removed, then the command.
NAMESPACE = ('set -e; mount -t tmpfs none "$1"; mkdir "$1/u" "$1/w"; '
             'mount -t overlay overlay -o lowerdir=/etc,upperdir="$1/u",workdir="$1/w" /etc; '
             'if [ -n "$2" ]; then cp "$2" /etc/perfconfig; else rm -f /etc/perfconfig; fi; '
             'shift 2; exec "$@"')
KEYS = ["a.x", "a.y", "b.z", "c.w"]
OURS = f"result({{k: perf.config_get(k) for k in {KEYS!r}}})"


def scenario(run_py, tmp_path, system=None, user=None, env=None, unset_home=False, user_uid=None):
    """({key: value} per perf config -l, the same keys per our config_get)
    with the given system and user files and environment."""
    base = base_env(tmp_path)
    home = base["HOME"]
    sysfile = ""
    if system is not None:
        (tmp_path / "system").write_bytes(system)
        sysfile = str(tmp_path / "system")
    if user is not None:
        path = tmp_path / "home" / ".perfconfig"
        path.write_bytes(user)
        if user_uid is not None:
            os.chown(path, user_uid, user_uid)
    mnt = tmp_path / "mnt"
    mnt.mkdir(exist_ok=True)
    wrapper = ["unshare", "-m", "--propagation", "private", "sh", "-c", NAMESPACE, "sh", str(mnt), sysfile]
    if unset_home:
        wrapper += ["env", "-u", "HOME"]
    perf_env = dict(base, **(env or {}))
    if unset_home:
        del perf_env["HOME"]
    p = subprocess.run(wrapper + [PERF, "config", "-l"], env=perf_env, capture_output=True)
    assert p.returncode == 0, p.stderr
    listing = dict(line.split(b"=", 1) for line in p.stdout.splitlines())
    perf = {k: (v.decode() if (v := listing.get(k.encode())) is not None else None) for k in KEYS}
    ours = run_py("ours", OURS, env=dict({"HOME": home}, **(env or {})), wrapper=wrapper).check()
    return perf, ours


SYSTEM = b"[a]\nx = system\ny = system\n[c]\nw = system\n"
USER = b"[a]\nx = user\n[b]\nz = user\n"


@needs_root
@pytest.mark.parametrize("case", [
    dict(system=SYSTEM, user=USER),
    dict(system=SYSTEM),
    dict(user=USER),
    dict(system=b"[a]\ny = system\nbroken\n[c]\nw = system\n", user=USER),
    dict(system=SYSTEM, user=USER, env={"PERF_CONFIG_NOSYSTEM": "1"}),
    dict(system=SYSTEM, user=USER, env={"PERF_CONFIG_NOSYSTEM": "0"}),
    dict(system=SYSTEM, user=USER, env={"PERF_CONFIG_NOSYSTEM": "junk"}),
    dict(system=SYSTEM, user=USER, env={"PERF_CONFIG_NOGLOBAL": "yes"}),
    dict(system=SYSTEM, user=USER, env={"PERF_CONFIG_NOGLOBAL": "off"}),
    dict(system=SYSTEM, user=USER, env={"PERF_CONFIG": "/dev/null"}),
    dict(system=SYSTEM, user=USER, env={"PERF_CONFIG": ""}),
    dict(system=SYSTEM, user=USER, env={"PERF_CONFIG": "/nonexistent/perfconfig"}),
    dict(system=SYSTEM, user=USER, unset_home=True),
    dict(system=SYSTEM, user=USER, env={"HOME": ""}),
    dict(system=SYSTEM, user=USER, user_uid=65534),
    dict(system=SYSTEM, user=b""),
], ids=["both", "system", "user", "bad-system", "nosystem", "nosystem-0", "nosystem-junk",
        "noglobal", "noglobal-off", "perf-config-devnull", "perf-config-empty",
        "perf-config-missing", "no-home", "empty-home", "user-not-ours", "empty-user"])
def test_files_as_perf_chooses_them(run_py, tmp_path, case):
    perf, ours = scenario(run_py, tmp_path, **case)
    assert ours == perf


@needs_root
def test_user_file_wins_over_system(run_py, tmp_path):
    perf, ours = scenario(run_py, tmp_path, system=SYSTEM, user=USER)
    assert ours == perf == {"a.x": "user", "a.y": "system", "b.z": "user", "c.w": "system"}


def test_values_are_read_per_call(perf_ours, tmp_path, monkeypatch):
    config = tmp_path / "perfconfig"
    monkeypatch.setenv("PERF_CONFIG", str(config))
    config.write_text("[s]\nk = 1\n")
    assert perf_ours.config_get("s.k") == "1"
    config.write_text("[s]\nk = 2\n")
    assert perf_ours.config_get("s.k") == "2"


def test_a_fifo_does_not_block(perf_ours, tmp_path, monkeypatch):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("PERF_CONFIG", str(fifo))
    assert perf_ours.config_get("s.k") is None
