# SPDX-License-Identifier: GPL-2.0-only
"""Reading the loader's TOML files: /etc/perf-python.toml and the build
manifests (perf-python.toml beside each build, written by `perf-abi manifest`).

Python 3.11 and later read them with tomllib. Python 3.10 has no tomllib:
there loads_flat() reads the flat TOML these files are written in (comments,
and `key = value` lines whose value is a string, an integer, a boolean, or
an array of those over one line or several). Anything else, a table
included, is a ValueError there, never a misreading.
"""

import re


def loads(text):
    """TOML text as a dict, read by tomllib, or by loads_flat() on Python
    3.10. ValueError (tomllib.TOMLDecodeError is one) if it is not TOML, or
    not TOML that loads_flat() reads."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        return loads_flat(text)
    return tomllib.loads(text)


def load_file(path):
    """The TOML file at `path` as a dict: OSError if it cannot be read,
    ValueError if it is not UTF-8 or not TOML (loads())."""
    with open(path, "rb") as f:
        return loads(f.read().decode())


_TOKEN = re.compile(r"""
      [\ \t]+ | \#[^\n]*                                        # skipped
    | (?P<newline> \r?\n )
    | (?P<string> "(?: [^"\\\x00-\x08\x0a-\x1f\x7f] | \\["\\bfnrt] | \\u[0-9A-Fa-f]{4}
                     | \\U[0-9A-Fa-f]{8} )*" )
    | (?P<literal> '[^'\x00-\x08\x0a-\x1f\x7f]*' )
    | (?P<word> [A-Za-z0-9_+-]+ )
    | (?P<punctuation> [=,\[\]] )
    | (?P<other> . )
""", re.VERBOSE)
_ESCAPE = re.compile(r"\\(u....|U........|.)")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_INTEGER = re.compile(r"[+-]?(?:0|[1-9](?:_?[0-9])*)")
_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _unescape(match):
    escape = match[1]
    if len(escape) == 1:
        return _ESCAPES[escape]
    code = int(escape[1:], 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise ValueError(f"\\{escape} is not a Unicode scalar value")
    return chr(code)


def _value(tokens, kind, text):
    """The value starting with the token (kind, text); arrays read on from
    `tokens`."""
    if kind == "string":
        return _ESCAPE.sub(_unescape, text[1:-1])
    if kind == "literal":
        return text[1:-1]
    if kind == "word" and text in ("true", "false"):
        return text == "true"
    if kind == "word" and _INTEGER.fullmatch(text):
        return int(text)
    if (kind, text) != ("punctuation", "["):
        raise ValueError(f"unsupported value {text!r}")
    items = []
    while True:
        kind, text = _next(tokens, newlines=True)
        if (kind, text) == ("punctuation", "]"):
            return items
        items.append(_value(tokens, kind, text))
        kind, text = _next(tokens, newlines=True)
        if (kind, text) == ("punctuation", "]"):
            return items
        if (kind, text) != ("punctuation", ","):
            raise ValueError(f"expected , or ] in an array, not {text!r}")


def _next(tokens, newlines=False):
    """The next token, as (kind, text); ("end", "") at the end."""
    for kind, text in tokens:
        if kind != "newline" or not newlines:
            return kind, text
    return "end", ""


def loads_flat(text):
    """Flat TOML text as a dict (see the module's docstring)."""
    tokens = ((m.lastgroup, m[0]) for m in _TOKEN.finditer(text) if m.lastgroup)
    table = {}
    while True:
        kind, key = _next(tokens, newlines=True)
        if kind == "end":
            return table
        if kind == "string" or kind == "literal":
            key = _value(tokens, kind, key)
        elif kind != "word" or not _KEY.fullmatch(key):
            raise ValueError(f"expected a key, not {key!r}")
        if key in table:
            raise ValueError(f"{key!r} is defined twice")
        if _next(tokens) != ("punctuation", "="):
            raise ValueError(f"expected = after {key!r}")
        table[key] = _value(tokens, *_next(tokens))
        if _next(tokens)[0] not in ("newline", "end"):
            raise ValueError(f"expected the end of the line after {key!r}")
