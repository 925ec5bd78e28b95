# SPDX-License-Identifier: GPL-2.0-only
"""perf.cpu_map, side by side with the C module (docs/api.md §4)."""

import pytest

from sidebyside.harness import online_cpus

# cpustr -> CPUs, as libperf's perf_cpu_map__new parses them.
GOOD = {"": [-1], "0": [0], "0-1": [0, 1], "1,0": [0, 1], "1,": [1], "0-0": [0],
        "0x1": [1], "010": [8], "0-1,5": [0, 1, 5]}
BAD = ["abc", " 1", "-1", "1x", "2-1", "0,0", "2147483647"]


def test_no_argument_is_the_online_cpus(module):
    assert module.run("result(list(perf.cpu_map()))").check() == online_cpus()


def test_cpu_strings(module):
    got = module.run(f"""
result({{"pos": {{s: list(perf.cpu_map(s)) for s in {list(GOOD)!r}}},
         "kw": {{s: list(perf.cpu_map(cpustr=s)) for s in {list(GOOD)!r}}}}})
""").check()
    assert got["pos"] == GOOD
    assert got["kw"] == GOOD


def test_bad_strings_raise_value_error_naming_the_string(perf_ours):
    for s in BAD:
        with pytest.raises(ValueError) as e:
            perf_ours.cpu_map(s)
        assert s in str(e.value), (s, str(e.value))


def test_c_module_bad_strings_give_system_error(c_module):
    """The documented C behaviour we improve on: NULL without an exception."""
    got = c_module.run(f"result([exc(perf.cpu_map, s) for s in {BAD!r}])").check()
    for s, outcome in zip(BAD, got):
        assert outcome[0] == "SystemError", (s, outcome)
        assert "returned NULL without setting an exception" in outcome[1]


def test_non_string_argument_is_a_type_error(module):
    got = module.run("result([exc(perf.cpu_map, 5), exc(perf.cpu_map, b'0'),"
                     " exc(perf.cpu_map, '0', '1'), exc(perf.cpu_map, cpustr='0', x=1)])").check()
    assert [g[0] for g in got] == ["TypeError"] * 4


def test_len_and_indexing(module):
    got = module.run("""
m = perf.cpu_map("0-1,5")
result([len(m), m[0], m[1], m[2], m[-1], m[-2], m[-3], m[True],
        type(m[0]).__name__, exc(lambda: m[0:1]), exc(lambda: m["a"]), exc(lambda: m[1.0])])
""").check()
    assert got[:9] == [3, 0, 1, 5, 5, 1, 0, 1, "int"]
    assert got[9] == ["TypeError", "sequence index must be integer, not 'slice'", None]
    assert got[10][0] == "TypeError"
    assert got[11][0] == "TypeError"


def test_index_out_of_range_is_an_index_error(perf_ours):
    m = perf_ours.cpu_map("0-1")
    for i in (2, 3, -3, 2**40, -(2**40), 2**70):
        with pytest.raises(IndexError):
            m[i]
    with pytest.raises(IndexError, match="Index out of range"):
        m[2]


def test_c_module_index_out_of_range_gives_system_error(c_module):
    got = c_module.run("m = perf.cpu_map('0-1'); result([exc(lambda: m[2]), exc(lambda: m[100])])").check()
    assert got == [["SystemError", "error return without exception set", None]] * 2


def test_iteration(module):
    got = module.run("""
m = perf.cpu_map("0-1,5")
seen = []
for cpu in m:
    seen.append(cpu)
result({"for": seen, "list": list(m), "set": sorted(set(m)), "again": list(m),
        "in": [0 in m, 5 in m, 2 in m, -1 in m], "iter": type(iter(m)).__name__,
        "join": ",".join(str(c) for c in m), "any": list(perf.cpu_map(""))})
""").check()
    assert got == {"for": [0, 1, 5], "list": [0, 1, 5], "set": [0, 1, 5], "again": [0, 1, 5],
                   "in": [True, True, False, False], "iter": "iterator", "join": "0,1,5",
                   "any": [-1]}


def test_sequence_protocol_and_iter(module):
    """C (6.1 and every later release): sq_length/sq_item only, no __iter__
    attribute; ours adds __iter__ (declared by upstream's 7.3 stub), which
    gives the same sequence iterator. Neither has __contains__."""
    got = module.run("""
result([hasattr(perf.cpu_map, n) for n in ("__iter__", "__contains__", "__len__", "__getitem__")])
""").check()
    assert got == [module.name == "ours", False, True, True]


def test_type_identity_and_doc(module):
    got = module.run("""
m = perf.cpu_map("0")
result({"name": perf.cpu_map.__name__, "qualname": perf.cpu_map.__qualname__,
        "module": perf.cpu_map.__module__, "type_repr": repr(perf.cpu_map),
        "doc": perf.cpu_map.__doc__, "repr": repr(m).split(" at 0x")[0], "str_is_repr": str(m) == repr(m),
        "setattr": exc(setattr, m, "foo", 1), "dict": exc(lambda: m.__dict__),
        "eq": m == perf.cpu_map("0"), "self_eq": m == m, "hash": hash(m) == hash(m)})
""").check()
    assert got["name"] == "cpu_map" and got["qualname"] == "cpu_map"
    assert got["module"] == "perf"
    assert got["type_repr"] == "<class 'perf.cpu_map'>"
    assert got["doc"] == "cpu map object."
    assert got["repr"] == "<perf.cpu_map object"
    assert got["str_is_repr"]
    # CPython 3.13 adds " and no __dict__ for setting new attributes".
    assert got["setattr"][0] == "AttributeError"
    assert got["setattr"][1].startswith("'perf.cpu_map' object has no attribute 'foo'")
    assert got["dict"][0] == "AttributeError"
    assert (got["eq"], got["self_eq"], got["hash"]) == (False, True, True)


def test_subclass(module):
    got = module.run("""
class M(perf.cpu_map):
    pass
m = M("1")
m.extra = 3
result([list(m), len(m), m.extra, isinstance(m, perf.cpu_map)])
""").check()
    assert got == [[1], 1, 3, True]
