# SPDX-License-Identifier: GPL-2.0-only
"""Which fallbacks the loader may use.

* ``exact``: only a build for the running release or its ABI (steps 1-2);
* ``nearest``: also the nearest installed build by kernel version (step 3);
* ``any`` (the default): also the distribution's unversioned module (step 4).

Set by $PERF_PYTHON_POLICY (ignored under ``python -E`` and in set-uid
programs), else by ``policy = "..."`` in /etc/perf-python.toml. A value the
loader does not know, or a config file it cannot parse, selects ``exact``
with a warning: a typo in a strictness setting must not loosen it.
"""

import os

from . import ENV_POLICY
from ._loader import CONFIG, env, warn

POLICIES = ("exact", "nearest", "any")
DEFAULT = "any"


def config_path(root):
    """<root>/etc/perf-python.toml."""
    return os.path.join(root, CONFIG)


def _invalid(message):
    warn(f"perf: {message}; using policy 'exact'")
    return "exact"


def resolve(root, override=None):
    """(policy, source): `override` (an argument), else the environment, else
    the config file under `root`, else the default."""
    if override is not None:
        source = "argument"
        value = override
    else:
        value = env(ENV_POLICY)
        source = f"${ENV_POLICY}"
        if value is None:
            from . import _toml  # imports re and tomllib: only when the file is read

            path = config_path(root)
            source = path
            try:
                value = _toml.load_file(path).get("policy")
            except FileNotFoundError:
                return DEFAULT, "default"
            except (OSError, ValueError) as e:
                return _invalid(f"cannot read {path}: {e}"), source
            if value is None:
                return DEFAULT, f"default ({path} sets no policy)"
    if value not in POLICIES:
        return _invalid(f"unknown policy {value!r} from {source} (known: {', '.join(POLICIES)})"), source
    return value, source
