# SPDX-License-Identifier: GPL-2.0-only
"""The packaging tests are slow (they build the .debs); `-m "not slow"`
deselects them."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: builds Debian packages or runs for minutes")
