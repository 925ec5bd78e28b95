# SPDX-License-Identifier: GPL-2.0-only
"""perf.pyi, the type stubs (crates/perf-py/perf.pyi, installed as
perf/__init__.pyi with py.typed beside the loader):

* mypy --strict accepts the stub, a typed example program (which also runs
  under our module) and the kernel's own scripts, and rejects a file of
  wrong uses exactly where it is marked;
* the stub matches the module both ways: every public name of the module is
  in the stub and every stub name in the module; per class, the members
  (dir()), which are read-only, the types of their values, base classes,
  finality and constructors; constant values; evsel's keywords;
* mypy.stubtest agrees, but for the allowlisted, deliberate differences.
"""

import ast
import inspect
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from modern import new_scripts
from sidebyside import harness, kernel_scripts

HERE = Path(__file__).resolve().parent
REPO = harness.REPO
STUB = REPO / "crates" / "perf-py" / "perf.pyi"

pytestmark = pytest.mark.skipif(subprocess.run([sys.executable, "-m", "mypy", "--version"],
                                               capture_output=True).returncode != 0,
                                reason="mypy is not installed for this python3")


@pytest.fixture(scope="module")
def stub_path(tmp_path_factory):
    """A directory holding only perf/__init__.pyi -> the stub (for MYPYPATH,
    so that the loader's own modules stay out of the check)."""
    d = tmp_path_factory.mktemp("stubs")
    (d / "perf").mkdir()
    (d / "perf" / "__init__.pyi").symlink_to(STUB)
    return d


def mypy(*args, cwd, env=None):
    """(rc, [(file, line, code)], output) of one mypy run."""
    full_env = dict(os.environ)
    full_env.pop("PYTHONPATH", None)
    full_env.pop("MYPYPATH", None)
    full_env.update(env or {})
    p = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull,
                        "--no-error-summary", *args], cwd=cwd, env=full_env, capture_output=True, text=True)
    errors = [(Path(m[1]).name, int(m[2]), m[3]) for m in
              re.finditer(r"^(.*?):(\d+): error: .*\[([a-z-]+)\]$", p.stdout, re.M)]
    return p.returncode, errors, p.stdout + p.stderr


# -- installation ------------------------------------------------------------

def test_loader_stub_is_the_crate_stub():
    loader_stub = REPO / "loader" / "perf" / "__init__.pyi"
    assert loader_stub.resolve() == STUB
    assert (REPO / "loader" / "perf" / "py.typed").is_file()


def test_stub_is_installed_beside_the_loader(staged_root):
    pkg = staged_root / "usr/lib/python3/dist-packages/perf"
    assert (pkg / "__init__.pyi").read_bytes() == STUB.read_bytes()
    assert (pkg / "py.typed").is_file()


def test_installed_stub_is_found_through_py_typed(staged_root, tmp_path):
    """PEP 561: with the installation on the search path (and no MYPYPATH),
    mypy takes perf/__init__.pyi because of py.typed, not the loader's .py."""
    (tmp_path / "use.py").write_text("import perf\nreveal_type(perf.parse_events('task-clock'))\n")
    pkgdir = str(staged_root / "usr/lib/python3/dist-packages")
    rc, errors, out = mypy("use.py", cwd=tmp_path, env={"PYTHONPATH": pkgdir})
    assert rc == 0 and errors == [], out
    assert 'Revealed type is "perf.evlist"' in out


# -- mypy --------------------------------------------------------------------

def test_mypy_strict_on_the_stub(stub_path):
    rc, errors, out = mypy("--strict", str(stub_path / "perf" / "__init__.pyi"), cwd=stub_path)
    assert rc == 0 and errors == [], out


def test_mypy_strict_on_the_typed_example(stub_path):
    rc, errors, out = mypy("--strict", str(HERE / "typed_example.py"), cwd=stub_path,
                           env={"MYPYPATH": str(stub_path)})
    assert rc == 0 and errors == [], out


def test_mypy_rejects_the_misuses_where_marked(stub_path):
    path = HERE / "typed_misuse.py"
    expected = sorted((path.name, n, m.group(1)) for n, line in enumerate(path.read_text().splitlines(), 1)
                      if (m := re.search(r"# E: ([a-z-]+)$", line)))
    assert len(expected) > 20
    rc, errors, out = mypy("--strict", str(path), cwd=stub_path, env={"MYPYPATH": str(stub_path)})
    assert rc == 1
    assert sorted(set(errors)) == expected, out


def test_typed_example_runs(run_ours_file):
    """The example is real code: it runs under our module."""
    import json
    p = run_ours_file(HERE / "typed_example.py")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    got = json.loads(p.stdout)
    assert got["count"]["evsel(task-clock)"] > 0 and "evsel(page-faults)" in got["count"]
    assert got["switches"].get("sample of evsel(context-switches:HG)", 0) >= 10, got["switches"]
    assert got["step"] == "exact" and isinstance(got["attr_size"], int)
    assert set(got["pmus"]) == set(os.listdir("/sys/bus/event_source/devices")) | {"tool"}
    if harness.tracepoint_id("sched", "sched_switch") is not None:
        assert got["tracepoint"], got


def kernel_script_paths():
    """The kernel's example scripts available here (6.1's and 6.15+'s)."""
    paths = []
    try:
        old = kernel_scripts.scripts_dir()
        paths += [old / "twatch.py", old / "tracepoint.py"]
    except kernel_scripts.Unavailable:
        pass
    try:
        new = new_scripts.scripts_dir()
        paths += [new / "tracepoint.py", new / "counting.py"]
    except new_scripts.Unavailable:
        pass
    return paths


def test_mypy_on_the_kernel_scripts(stub_path, tmp_path):
    """The scripts the kernel ships type-check against our stub (bodies of
    unannotated functions included)."""
    paths = kernel_script_paths()
    if not paths:
        pytest.skip("no kernel scripts available (apt)")
    names = []
    for i, path in enumerate(paths):
        copy = tmp_path / f"s{i}_{path.name}"  # two tracepoint.py
        copy.write_text(path.read_text())
        names.append(copy.name)
    rc, errors, out = mypy("--check-untyped-defs", "--ignore-missing-imports", *names, cwd=tmp_path,
                           env={"MYPYPATH": str(stub_path)})
    assert rc == 0 and errors == [], out


# -- the stub against the module ---------------------------------------------

def stub_tree():
    return ast.parse(STUB.read_text())


def is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_level(tree):
    """{name: node} of the stub's top-level definitions."""
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node
    return out


MODULE_DUNDERS = {"__version__", "__build__", "__loaded_by__", "__all__"}


def test_module_names_both_ways(perf_ours):
    stub = module_level(stub_tree())
    stub_public = {n for n in stub if not is_private(n)}
    runtime_public = {n for n in dir(perf_ours) if not n.startswith("_")} | \
        (MODULE_DUNDERS & set(dir(perf_ours)))
    assert sorted(runtime_public - stub_public) == [], "in the module, not in the stub"
    assert sorted(stub_public - runtime_public) == [], "in the stub, not in the module"
    # The stub's private names are typing helpers, absent at runtime.
    assert [n for n in stub if is_private(n) and hasattr(perf_ours, n)] == []


def test_all_and_constants(perf_ours):
    stub = module_level(stub_tree())
    assert ast.literal_eval(stub["__all__"].value) == perf_ours.__all__
    constants = {n: node for n, node in stub.items()
                 if isinstance(node, ast.AnnAssign) and ast.unparse(node.annotation) == "Final"}
    runtime = {n for n in dir(perf_ours) if re.fullmatch(r"[A-Z][A-Z0-9_]+", n)}
    assert set(constants) == runtime and len(runtime) == 73
    for name, node in constants.items():
        value = getattr(perf_ours, name)
        assert type(value) is int and value == ast.literal_eval(node.value), name


def test_functions_and_module_data(perf_ours):
    stub = module_level(stub_tree())
    functions = [n for n, node in stub.items() if isinstance(node, ast.FunctionDef)]
    assert sorted(functions) == ["arch_strerrno", "config_get", "metrics", "parse_events",
                                 "parse_metrics", "pmus", "set_abi_policy", "syscall_id",
                                 "syscall_name", "tracepoint"]
    for name in functions:
        runtime = getattr(perf_ours, name)
        assert callable(runtime) and not isinstance(runtime, type)
        node = stub[name]
        stub_params = [a.arg for a in node.args.posonlyargs + node.args.args]
        assert stub_params == list(inspect.signature(runtime).parameters), name
    data = {n: ast.unparse(stub[n].annotation) for n in ("__version__", "__build__", "__loaded_by__")}
    assert data == {"__version__": "str", "__build__": "_BuildInfo", "__loaded_by__": "_LoadedBy"}
    for name, helper in (("__build__", "_BuildInfo"), ("__loaded_by__", "_LoadedBy")):
        fields = {s.target.id: s.annotation for s in stub[helper].body if isinstance(s, ast.AnnAssign)}
        value = getattr(perf_ours, name)
        assert set(fields) == set(value), name
        for key, annotation in fields.items():
            assert matches(perf_ours, value[key], annotation), (name, key, value[key])


def matches(perf, value, node):
    """Whether `value` is of the stub type `node` (the forms perf.pyi uses)."""
    if isinstance(node, ast.Constant):
        return node.value is None and value is None or value == node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return matches(perf, value, node.left) or matches(perf, value, node.right)
    if isinstance(node, ast.Subscript):
        outer = ast.unparse(node.value)
        if outer == "Literal":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return value in [ast.literal_eval(i) for i in items]
        if outer == "list":
            return isinstance(value, list) and all(matches(perf, v, node.slice) for v in value)
        if outer == "tuple":
            items = node.slice.elts
            if len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis:
                return isinstance(value, tuple) and all(matches(perf, v, items[0]) for v in value)
            return isinstance(value, tuple) and len(value) == len(items) and \
                all(matches(perf, v, i) for v, i in zip(value, items))
        if outer == "dict":
            key, val = node.slice.elts
            return isinstance(value, dict) and \
                all(matches(perf, k, key) and matches(perf, v, val) for k, v in value.items())
        raise AssertionError(f"unknown stub type {ast.unparse(node)}")
    name = ast.unparse(node)
    if name == "None":
        return value is None
    if name == "Any":
        return True
    builtin = {"int": int, "str": str, "bool": bool, "bytes": bytes}
    if name in builtin:
        return type(value) is builtin[name]
    helper = module_level(stub_tree()).get(name)
    if is_private(name) and isinstance(helper, ast.ClassDef):  # a TypedDict
        fields = {f.target.id: f.annotation for f in helper.body if isinstance(f, ast.AnnAssign)}
        return isinstance(value, dict) and set(value) == set(fields) and \
            all(matches(perf, value[k], a) for k, a in fields.items())
    return isinstance(value, getattr(perf, name))


def class_members(node):
    """{name: kind} of a stub class body: 'attr' (writable), 'property'
    (read-only), 'property+setter', 'method'."""
    members = {}
    for s in node.body:
        if isinstance(s, ast.AnnAssign):
            members[s.target.id] = "attr"
        elif isinstance(s, ast.FunctionDef):
            decorators = [ast.unparse(d) for d in s.decorator_list]
            if "property" in decorators:
                members[s.name] = "property"
            elif any(d.endswith(".setter") for d in decorators):
                members[s.name] = "property+setter"
            else:
                members[s.name] = "method"
    return members


def annotations(node):
    """{member: annotation node} of a stub class (property return types)."""
    out = {}
    for s in node.body:
        if isinstance(s, ast.AnnAssign):
            out[s.target.id] = s.annotation
        elif isinstance(s, ast.FunctionDef) and "property" in [ast.unparse(d) for d in s.decorator_list]:
            out[s.name] = s.returns
    return out


def stub_classes():
    """The module's types (its warning classes are checked on their own)."""
    return {n: node for n, node in module_level(stub_tree()).items()
            if isinstance(node, ast.ClassDef) and not is_private(n) and not n.endswith("Warning")}


def test_warning_classes(perf_ours):
    """The stub's warning classes are the module's, with the same base."""
    warnings = {n: node for n, node in module_level(stub_tree()).items()
                if isinstance(node, ast.ClassDef) and n.endswith("Warning")}
    runtime = {n for n in dir(perf_ours) if isinstance(getattr(perf_ours, n), type)
               and issubclass(getattr(perf_ours, n), Warning)}
    assert sorted(warnings) == sorted(runtime) == ["DataWarning"]
    for name, node in warnings.items():
        cls = getattr(perf_ours, name)
        assert [ast.unparse(b) for b in node.bases] == [b.__name__ for b in cls.__bases__]
        assert cls.__module__ == "perf"


@pytest.fixture(scope="module")
def small_perf_data(tmp_path_factory):
    """A perf.data file of a few task-clock samples (None without perf or root)."""
    if os.geteuid() != 0 or not os.access("/usr/bin/perf", os.X_OK):
        return None
    path = tmp_path_factory.mktemp("perfdata") / "small.data"
    p = subprocess.run(["/usr/bin/perf", "record", "-q", "-e", "task-clock", "-c", "100000", "-o", str(path),
                        "--", sys.executable, "-c", "sum(range(10**6))"], capture_output=True)
    return path if p.returncode == 0 else None


def instance_of(perf, name, perf_data=None):
    """A live instance of a class, or None if there is no cheap way to get one."""
    if name in ("data", "session", "thread", "call_return"):
        if perf_data is None:
            return None
        data = perf.data(str(perf_data))
        if name == "data":
            return data
        if name == "call_return":
            crs = []
            perf.session(data, call_return=crs.append).process_events()
            return crs[0]
        pids = []
        session = perf.session(data, sample=lambda s: pids.append((s.sample_pid, s.sample_tid)))
        if name == "session":
            return session
        session.process_events()
        return session.find_thread(*pids[0])
    if name == "evlist":
        return perf.evlist(None, None)
    if name == "pmu":
        return next(perf.pmus())
    if name == "event_iterator":
        return perf.evlist(None, None).read_all()
    if name == "sample_columns":
        return perf.evlist(None, None).read_columns()
    if name in ("tracepoint_sample_event", "callchain", "callchain_node", "branch_stack",
                "branch_entry"):
        return None
    if name == "evsel":  # opened, so that ids is not empty
        evsel = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, exclude_kernel=1, exclude_hv=1)
        evsel.open(cpus=perf.cpu_map(""), threads=perf.thread_map(os.getpid()))
        assert evsel.ids
        return evsel
    return getattr(perf, name)()


def constructible(cls):
    try:
        cls()
    except TypeError as e:
        return "cannot create" not in str(e)
    except OSError:  # perf.data() opens ./perf.data
        return True
    return True


def subclassable(cls):
    try:
        type("Sub", (cls,), {})
    except TypeError:
        return False
    return True


# Dunders the stub may declare although the type lacks the attribute, and
# the behaviour that justifies each (checked in test_class_members).
STUB_ONLY_DUNDERS = {
    ("sample_event", "__getattr__"),
}
PROTOCOL_DUNDERS = {"__len__", "__getitem__", "__iter__", "__next__", "__getattr__", "__call__",
                    "__contains__", "__enter__", "__exit__",
                    "__arrow_c_schema__", "__arrow_c_array__", "__arrow_c_stream__"}


@pytest.mark.parametrize("name", sorted(stub_classes()))
def test_class_members(perf_ours, small_perf_data, name):
    node = stub_classes()[name]
    cls = getattr(perf_ours, name)
    assert isinstance(cls, type)
    members = class_members(node)

    # Public members, both ways.
    stub_public = {m for m in members if not m.startswith("_")}
    runtime_public = {m for m in dir(cls) if not m.startswith("_")}
    if name == "tracepoint_sample_event":  # members inherited in the stub
        stub_public |= {m for m in class_members(stub_classes()["sample_event"]) if not m.startswith("_")}
    assert sorted(runtime_public - stub_public) == [], "in the class, not in the stub"
    assert sorted(stub_public - runtime_public) == [], "in the stub, not in the class"

    # Protocol dunders, both ways (constructors are checked below).
    stub_dunders = {m for m in members if m.startswith("__") and m not in ("__new__", "__init__")}
    runtime_dunders = {m for m in vars(cls) if m in PROTOCOL_DUNDERS}
    assert sorted(runtime_dunders - stub_dunders) == []
    for d in stub_dunders - runtime_dunders:
        assert (name, d) in STUB_ONLY_DUNDERS, f"{name}.{d} is not a member of the type"
        assert issubclass(perf_ours.tracepoint_sample_event, cls)
        with pytest.raises(AttributeError):
            cls().nosuch_field

    # Bases and finality.
    bases = [ast.unparse(b) for b in node.bases]
    runtime_bases = [b.__name__ if b is object else next(k for k in dir(perf_ours) if getattr(perf_ours, k) is b)
                     for b in cls.__bases__]
    assert bases == [b for b in runtime_bases if b != "object"]
    decorators = [ast.unparse(d) for d in node.decorator_list]
    assert ("final" in decorators) == (not subclassable(cls))
    # tracepoint_sample_event adds no storage to sample_event (its fields
    # live in per-format subclasses), so it is no disjoint base; stubtest
    # checks the decorator against the runtime either way.
    assert "disjoint_base" in decorators or "final" in decorators or name == "tracepoint_sample_event"

    # Constructors: declared exactly for the types Python code may create.
    declares = "__new__" in members or "__init__" in members
    if name != "tracepoint_sample_event":  # inherits sample_event's in the stub
        assert declares == constructible(cls)

    # Values, writability and methods on a live instance.
    obj = instance_of(perf_ours, name, small_perf_data)
    if obj is None:
        return
    types = annotations(node)
    for m, kind in members.items():
        if m.startswith("_"):
            continue
        if kind == "method":
            assert callable(getattr(obj, m)), m
            continue
        value = getattr(obj, m)
        if m in types:
            assert matches(perf_ours, value, types[m]), (m, value, ast.unparse(types[m]))
        if kind == "property":
            with pytest.raises(AttributeError):
                setattr(obj, m, value)
        else:
            setattr(obj, m, value)
            assert getattr(obj, m) == value


def evsel_init(node):
    (init,) = [s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"]
    return init


def test_evsel_keywords(perf_ours):
    """The 30 positional keywords in the C module's order (as evsel_args.rs
    lists them), then every keyword-only attr field the module accepts."""
    init = evsel_init(stub_classes()["evsel"])
    positional = [a.arg for a in init.args.args[1:]]
    keyword_only = [a.arg for a in init.args.kwonlyargs]
    source = (REPO / "crates/perf-py/src/evsel_args.rs").read_text()
    classic_block = source.split("const CLASSIC", 1)[1].split("];", 1)[0]
    assert positional == re.findall(r'\("(\w+)", Conv::', classic_block)
    fields_block = source.split("const FIELDS", 1)[1].split("];", 1)[0]
    fields = re.findall(r'\("(\w+)", \d+\)', fields_block)
    table = tomllib.loads((REPO / "crates/perf-abi/data/features.toml").read_text())
    flags = [f["name"] for f in table["feature"] if f["kind"] == "flag" and f["name"] not in positional]
    assert sorted(keyword_only) == sorted(flags + fields)
    for kw in keyword_only:
        perf_ours.evsel(**{kw: 0})  # accepted
    with pytest.raises(TypeError, match="invalid keyword"):
        perf_ours.evsel(nosuch_field=0)
    # The stub's defaults are the module's.
    defaults = dict(zip(positional[-len(init.args.defaults):], (ast.literal_eval(d) for d in init.args.defaults)))
    ev = perf_ours.evsel()
    for attr in ("type", "config", "sample_type", "read_format", "wakeup_events", "sample_period"):
        assert getattr(ev, attr) == defaults[attr], attr


def test_stubtest(stub_path, ours_env, tmp_path):
    """mypy's own runtime-vs-stub check (signatures, defaults, kinds), with
    the allowlisted differences (tests/modern/stubtest-allowlist.txt); an
    allowlist entry that no longer matches fails too."""
    env = dict(ours_env)
    env["MYPYPATH"] = str(stub_path)
    p = subprocess.run([sys.executable, "-m", "mypy.stubtest", "perf", "--allowlist",
                        str(HERE / "stubtest-allowlist.txt"), "--mypy-config-file", os.devnull],
                       cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
