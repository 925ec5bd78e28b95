# SPDX-License-Identifier: GPL-2.0-only
"""The modern API (6.14-6.18), counting mode, the batch reader and
the type stubs."""
