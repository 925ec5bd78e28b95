# SPDX-License-Identifier: GPL-2.0-only
"""Reading the loader's two TOML files: /etc/perf-python.toml and the build
manifests (perf-python.toml beside each build).

Python 3.11+ has tomllib. For 3.9 and 3.10 a small parser handles the subset
those files use: comments, ``[table]`` headers, and ``key = value`` where the
value is a string, an integer, a boolean or a (possibly multi-line) array of
those. Anything else is a TomlError, never a silent misreading.
"""

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9 and 3.10
    tomllib = None


class TomlError(ValueError):
    """The text is not TOML (or not the subset the fallback parser reads)."""


def loads(text: str) -> dict:
    """Parse TOML text into a dict."""
    if tomllib is not None:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise TomlError(str(e)) from None
    return loads_subset(text)


def load_file(path: str) -> dict:
    """Parse a TOML file; OSError if it cannot be read, TomlError if it is not
    TOML."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return loads(text)


_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


class _Reader:
    """A cursor over the text with the line number for error messages."""

    def __init__(self, text):
        self.text = text
        self.pos = 0

    def error(self, what):
        line = self.text.count("\n", 0, self.pos) + 1
        return TomlError(f"{what} (line {line})")

    def peek(self):
        return self.text[self.pos:self.pos + 1]

    def skip_blank(self, newlines=False):
        """Skip spaces, tabs and comments (and newlines if asked)."""
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c in " \t" or (newlines and c in "\r\n"):
                self.pos += 1
            elif c == "#":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            else:
                break

    def end_of_line(self):
        self.skip_blank()
        c = self.peek()
        if c == "\r":
            self.pos += 1
            c = self.peek()
        if c not in ("\n", ""):
            raise self.error(f"unexpected {c!r} after value")
        self.pos += 1

    def key(self):
        c = self.peek()
        if c == '"':
            return self.basic_string()
        if c == "'":
            return self.literal_string()
        start = self.pos
        while self.peek() and self.peek() in _BARE:
            self.pos += 1
        if start == self.pos:
            raise self.error("expected a key")
        return self.text[start:self.pos]

    def dotted_key(self):
        parts = [self.key()]
        self.skip_blank()
        while self.peek() == ".":
            self.pos += 1
            self.skip_blank()
            parts.append(self.key())
            self.skip_blank()
        return parts

    def basic_string(self):
        if self.text.startswith('"""', self.pos):
            raise self.error("multi-line strings are not supported")
        self.pos += 1
        out = []
        while True:
            c = self.peek()
            if c in ("", "\n"):
                raise self.error("unterminated string")
            self.pos += 1
            if c == '"':
                return "".join(out)
            if c != "\\":
                out.append(c)
                continue
            e = self.peek()
            self.pos += 1
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
            elif e in ("u", "U"):
                width = 4 if e == "u" else 8
                digits = self.text[self.pos:self.pos + width]
                if len(digits) != width or any(d not in "0123456789abcdefABCDEF" for d in digits):
                    raise self.error("bad unicode escape")
                self.pos += width
                out.append(chr(int(digits, 16)))
            else:
                raise self.error(f"bad escape \\{e}")

    def literal_string(self):
        if self.text.startswith("'''", self.pos):
            raise self.error("multi-line strings are not supported")
        end = self.text.find("'", self.pos + 1)
        newline = self.text.find("\n", self.pos + 1)
        if end < 0 or 0 <= newline < end:
            raise self.error("unterminated string")
        value = self.text[self.pos + 1:end]
        self.pos = end + 1
        return value

    def value(self):
        c = self.peek()
        if c == '"':
            return self.basic_string()
        if c == "'":
            return self.literal_string()
        if c == "[":
            return self.array()
        start = self.pos
        while self.peek() and self.peek() in _BARE | {"+"}:
            self.pos += 1
        word = self.text[start:self.pos]
        if word == "true":
            return True
        if word == "false":
            return False
        digits = word.lstrip("+-").replace("_", "")
        if digits.isdigit() and digits.isascii() and "__" not in word \
                and not word.lstrip("+-").startswith("_") and not word.endswith("_") \
                and (digits == "0" or not digits.startswith("0")):
            return int(word.replace("_", ""))
        raise self.error(f"unsupported value {self.text[start:start + 20]!r}")

    def array(self):
        self.pos += 1
        items = []
        while True:
            self.skip_blank(newlines=True)
            if self.peek() == "]":
                self.pos += 1
                return items
            items.append(self.value())
            self.skip_blank(newlines=True)
            c = self.peek()
            if c == ",":
                self.pos += 1
            elif c == "]":
                self.pos += 1
                return items
            else:
                raise self.error("expected , or ] in array")


def _table(root, keys, r):
    table = root
    for k in keys:
        table = table.setdefault(k, {})
        if not isinstance(table, dict):
            raise r.error(f"{k!r} is not a table")
    return table


def loads_subset(text: str) -> dict:
    """The fallback parser (used directly by the tests on every Python)."""
    r = _Reader(text)
    root: dict = {}
    table = root
    defined = set()
    while True:
        r.skip_blank(newlines=True)
        if r.pos >= len(text):
            return root
        if r.peek() == "[":
            if r.text.startswith("[[", r.pos):
                raise r.error("arrays of tables are not supported")
            r.pos += 1
            r.skip_blank()
            keys = r.dotted_key()
            if r.peek() != "]":
                raise r.error("expected ] after table name")
            r.pos += 1
            if tuple(keys) in defined:
                raise r.error(f"table {'.'.join(keys)} defined twice")
            defined.add(tuple(keys))
            table = _table(root, keys, r)
            r.end_of_line()
            continue
        keys = r.dotted_key()
        if r.peek() != "=":
            raise r.error("expected = after key")
        r.pos += 1
        r.skip_blank()
        value = r.value()
        target = _table(table, keys[:-1], r)
        if keys[-1] in target:
            raise r.error(f"key {keys[-1]!r} defined twice")
        target[keys[-1]] = value
        r.end_of_line()
