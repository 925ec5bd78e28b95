# SPDX-License-Identifier: GPL-2.0-only
"""The perf.data API itself: arguments and their errors, threads and comm
over time, the evsel of a sample, the context_switch callback, callback
exceptions, re-entry, garbage collection of session <-> callback cycles,
and Ctrl-C (and other signals) while a file or a pipe is read."""

import gc
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import weakref
from pathlib import Path

import pytest

from perfdata import oracle
from sidebyside import harness


# -- perf.data ------------------------------------------------------------------

def test_data_arguments(perf_ours, record, tmp_path):
    path = str(record("sw"))
    d = perf_ours.data(path)
    assert str(d) == repr(d) == path
    assert str(perf_ours.data(path=path, fd=-1)) == path
    for bad in (None, b"x", 3):
        with pytest.raises(TypeError):
            perf_ours.data(bad)
    with pytest.raises(TypeError):
        perf_ours.data(path, fd="3")
    with pytest.raises(OverflowError):
        perf_ours.data(path, fd=2**40)
    with pytest.raises(TypeError):
        perf_ours.data(path, nosuch=1)
    with pytest.raises(ValueError, match="embedded null"):
        perf_ours.data("a\0b")
    # fd: pipes only, with path "-" (or none), as upstream.
    with open(path, "rb") as f:
        with pytest.raises(ValueError, match="^fd argument is only supported for pipes$"):
            perf_ours.data(fd=f.fileno())
    r, w = os.pipe()
    os.close(w)
    with pytest.raises(ValueError, match="^path must be '-' when fd is provided$"):
        perf_ours.data(path, fd=r)
    assert str(perf_ours.data("-", fd=r)) == "-"
    assert str(perf_ours.data(fd=r)) == "-"
    os.close(r)
    with pytest.raises(ValueError, match="only supported for pipes"):
        perf_ours.data(fd=r)  # closed


def test_missing_file_is_oserror_with_errno(perf_ours, tmp_path):
    missing = str(tmp_path / "nosuch.data")
    with pytest.raises(FileNotFoundError) as e:
        perf_ours.data(missing)
    assert e.value.errno == 2 and e.value.filename == missing
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(FileNotFoundError) as e:
            perf_ours.data()
        assert e.value.filename == "perf.data"
    finally:
        os.chdir(old)


def test_unreadable_file_is_permission_error(record, tmp_path):
    """As an unprivileged user (root reads anything), importing our module
    from the staged root's world-readable copy (harness.readable_root: the
    clone may be private)."""
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv")
    if harness.oracle_self_check():
        pytest.skip("PERF_TEST_OURS=c: the C module has no perf.data API")
    # A directory every user may enter (pytest's tmp_path sits in a 0700
    # one), holding a file only root may read: the file's mode refuses.
    top = Path(tempfile.mkdtemp(prefix="perf-test-unreadable-"))
    try:
        os.chmod(top, 0o755)
        private = top / "private.data"
        shutil.copy(record("sw"), private)
        os.chmod(private, 0o600)
        got = harness.run_python("ours", f"""
try:
    perf.data({str(private)!r})
    result("opened")
except PermissionError as e:
    result(["PermissionError", e.errno, e.filename])
""", user=65534, python=harness.SYSTEM_PYTHON).check()
    finally:
        shutil.rmtree(top, ignore_errors=True)
    assert got == ["PermissionError", 13, str(private)]


def corrupt(src, dst, edit):
    data = bytearray(open(src, "rb").read())
    edit(data)
    open(dst, "wb").write(data)
    return str(dst)


def test_format_errors_are_oserror_naming_problem_and_offset(perf_ours, record, tmp_path):
    """What the core reports (docs/design.md, Errors) as OSError: EINVAL for
    contents perf calls an incompatible file format, with the file as
    filename and the offset in the text."""
    src = record("sw")
    size = os.path.getsize(src)
    cases = {
        "bad magic": lambda d: d.__setitem__(slice(0, 8), b"NOTPERF!"),
        "header size": lambda d: d.__setitem__(slice(8, 16), (7).to_bytes(8, "little")),
        "truncated": lambda d: d.__delitem__(slice(size // 2, None)),
        "data past the end": lambda d: d.__setitem__(slice(48, 56), (2**40).to_bytes(8, "little")),
    }
    for what, edit in cases.items():
        path = corrupt(src, tmp_path / f"{what}.data", edit)
        with pytest.raises(OSError) as e:
            perf_ours.session(perf_ours.data(path)).process_events()
        assert type(e.value) is OSError, what
        assert e.value.errno == 22 and e.value.filename == path, what
        assert "at file offset 0x" in e.value.strerror, (what, e.value.strerror)
    # A record whose size runs past the data (the last one's, made 0xfff8:
    # the first's would land in the middle of later records, which may make
    # records again): the samples before it are read, then the error.
    bad = bytearray(open(src, "rb").read())
    data_offset, data_size = struct.unpack_from("<QQ", bad, 40)
    last = data_offset
    while last + bad[last + 6] + 256 * bad[last + 7] < data_offset + data_size:
        last += bad[last + 6] + 256 * bad[last + 7]
    assert data_offset + data_size - last < 0xfff8
    bad[last + 6:last + 8] = (0xfff8).to_bytes(2, "little")
    path = str(tmp_path / "record.data")
    open(path, "wb").write(bad)
    whole, got = [], []
    perf_ours.session(perf_ours.data(str(src)), sample=whole.append).process_events()
    with pytest.raises(OSError) as e:
        perf_ours.session(perf_ours.data(path), sample=got.append).process_events()
    assert e.value.errno == 22 and "the last record: needs 65528 bytes" in str(e.value), str(e.value)
    assert len(whole) - 1 <= len(got) <= len(whole)


def test_stdin_file_and_pipe(ours_env, record):
    """perf.data("-") reads stdin: a file redirected there, or a pipe of
    `perf record -o -` data."""
    code = textwrap.dedent("""\
        import perf
        n = []
        perf.session(perf.data("-"), sample=n.append).process_events()
        print(len(n))
        """)
    counts = []
    for name in ("sw", "pipe"):
        with open(record(name), "rb") as f:
            p = subprocess.run([sys.executable, "-c", code], stdin=f, env=ours_env, capture_output=True,
                               text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        counts.append(int(p.stdout))
    with open(record("pipe"), "rb") as f:
        p = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE)
        q = subprocess.run([sys.executable, "-c", code], stdin=p.stdout, env=ours_env,
                           capture_output=True, text=True, timeout=60)
        p.wait()
    assert q.returncode == 0, q.stderr
    assert int(q.stdout) == counts[1] > 0 and counts[0] > 0


def test_a_file_is_read_by_every_session(perf_ours, record):
    d = perf_ours.data(str(record("sw")))
    counts = []
    for _ in range(2):
        n = []
        perf_ours.session(d, sample=n.append).process_events()
        counts.append(len(n))
    assert counts[0] == counts[1] > 0


# -- perf.session -------------------------------------------------------------

def test_session_arguments(perf_ours, record):
    d = perf_ours.data(str(record("sw")))
    with pytest.raises(TypeError, match="^argument 1 must be perf.data, not str$"):
        perf_ours.session("perf.data")
    with pytest.raises(TypeError):
        perf_ours.session()
    for name in ("sample", "stat", "context_switch"):
        with pytest.raises(TypeError, match=f"^{name} must be callable$"):
            perf_ours.session(d, **{name: 3})
    with pytest.raises(TypeError):
        perf_ours.session(d, nosuch=print)
    s = perf_ours.session(d, sample=None, stat=None, context_switch=None)
    s.process_events()
    s.process_events()  # read once: nothing more
    with pytest.raises(TypeError):
        perf_ours.thread()
    with pytest.raises(TypeError):
        perf_ours.session.__new__(perf_ours.session)


def test_e_machine_and_is_64_bit(perf_ours, record):
    s = perf_ours.session(perf_ours.data(str(record("sw"))))
    if os.uname().machine != "x86_64":
        pytest.skip("values checked for x86_64")
    assert (s.e_machine, s.is_64_bit) == (62, True)
    assert perf_ours.syscall_name(0, s.e_machine) == "read"


def test_callback_exception_stops_and_propagates(perf_ours, record):
    class Stop(Exception):
        pass
    seen = []

    def sample(s):
        seen.append(s.sample_time)
        if len(seen) == 5:
            raise Stop("fifth")
    s = perf_ours.session(perf_ours.data(str(record("sw"))), sample=sample)
    with pytest.raises(Stop, match="fifth"):
        s.process_events()
    assert len(seen) == 5
    stats = []
    st = perf_ours.session(perf_ours.data(str(record("stat"))),
                           stat=lambda e, n: stats.append(n) or 1 / 0)
    with pytest.raises(ZeroDivisionError):
        st.process_events()
    assert stats == ["task-clock"]


def test_reentry_and_calls_from_callbacks(perf_ours, record):
    s = None
    seen = []

    def sample(ev):
        if not seen:
            with pytest.raises(ValueError, match="already running"):
                s.process_events()
        t = s.find_thread(ev.sample_pid, ev.sample_tid)
        seen.append((t.tid, t.comm(), s.e_machine))
    d = perf_ours.data(str(record("sw")))
    s = perf_ours.session(d, sample=sample)
    s.process_events()
    assert seen and all(tid > 0 and comm for tid, comm, _ in seen)


def test_find_thread(perf_ours, record):
    """find_thread(pid, tid=-1): tid -1 means pid's main thread; unknown
    threads are None (upstream 7.3-rc1 raised TypeError; the series after
    it returns None); threads are copies of what the session knew then."""
    comms, found, sess = {}, [], None

    def sample(s):
        t = sess.find_thread(s.sample_pid, s.sample_tid)
        # An unchanged thread is found as the same object.
        assert sess.find_thread(s.sample_pid, s.sample_tid) is t
        found.append((t, t.comm()))
        comms.setdefault(s.sample_tid, []).append(t.comm())
        assert (t.pid, t.tid, t.cpu) == (s.sample_pid, s.sample_tid, -1)
        main = sess.find_thread(s.sample_pid)
        assert main.tid == s.sample_pid
    sess = perf_ours.session(perf_ours.data(str(record("comm"))), sample=sample)
    sess.process_events()
    main_tid = min(comms)
    # The comm changed in the middle of the run (prctl), and perf's view of
    # each sample agrees (tests/perfdata/test_samples.py[comm]).
    assert comms[main_tid][0] == "workload" and comms[main_tid][-1] == "second-name"
    # Copies: a thread found before its comm changed keeps the old one.
    assert all(t.comm() == c for t, c in found)
    assert any(c == "workload" for t, c in found if t.tid == main_tid)
    worker = [tid for tid, c in comms.items() if "worker-thread" in c]
    assert worker, comms.keys()
    t = sess.find_thread(main_tid, worker[0])
    assert (t.pid, t.ppid, t.comm()) == (main_tid, main_tid, "worker-thread")
    assert sess.find_thread(main_tid).comm() == "second-name"
    assert sess.find_thread(2**31 - 1) is None
    assert sess.find_thread(2**31 - 1, 2**31 - 2) is None
    with pytest.raises(TypeError):
        sess.find_thread("1")
    with pytest.raises(TypeError):
        sess.find_thread(pid=1)


def test_sample_evsel_and_members(perf_ours, record):
    samples, times = [], []
    sess = perf_ours.session(perf_ours.data(str(record("rw"))),
                             sample=lambda s: samples.append(s) or times.append(s.sample_time))
    sess.process_events()
    names = {str(s.evsel) for s in samples}
    assert names == {"evsel(syscalls:sys_enter_read)", "evsel(syscalls:sys_exit_read)",
                     "evsel(syscalls:sys_enter_write)", "evsel(syscalls:sys_exit_write)"}
    by_name = {}
    for s in samples:
        by_name.setdefault(str(s.evsel), set()).add(id(s.evsel))
    assert all(len(ids) == 1 for ids in by_name.values()), "one evsel object per event"
    s = samples[0]
    assert type(s).__name__ == "sample_event" and isinstance(s, perf_ours.tracepoint_sample_event)
    assert repr(s) == "{ type: sample }"
    assert s.evsel.type == perf_ours.TYPE_TRACEPOINT
    assert s.evsel.sample_type & perf_ours.SAMPLE_RAW
    assert isinstance(s.raw_buf, bytes) and len(s.raw_buf) > 8
    assert s.sample_insn_count == s.sample_cyc_count == s.sample_weight == s.sample_phys_addr == 0
    assert s.sample_data_src == 0x5080021  # perf's PERF_MEM_DATA_SRC_NONE
    assert getattr(s, "no_such_field", "default") == "default"
    with pytest.raises(AttributeError):
        s.no_such_field
    # Kept objects keep their values (they are not refilled): each still
    # has the time it had in its callback. (Not "all times differ": the two
    # processes' samples, on two CPUs, may share a nanosecond.)
    assert [s.sample_time for s in samples] == times and len(set(times)) > 1
    plain = []
    perf_ours.session(perf_ours.data(str(record("sw"))), sample=plain.append).process_events()
    assert type(plain[0]) is perf_ours.sample_event and plain[0].raw_buf == b""
    assert getattr(plain[0], "prev_pid", None) is None


def test_context_switch_callback(perf_ours, record):
    """context_switch(event) for every SWITCH/SWITCH_CPU_WIDE record (the
    series after 7.3-rc1), as many as perf script -D shows."""
    path = record("comm")
    events = []
    perf_ours.session(perf_ours.data(str(path)), context_switch=events.append).process_events()
    dump = oracle.perf_script(path, "-D")
    expected = dump.count(": PERF_RECORD_SWITCH")
    assert len(events) == expected > 0
    for e in events:
        assert type(e) is perf_ours.switch_event
        assert e.type in (perf_ours.RECORD_SWITCH, perf_ours.RECORD_SWITCH_CPU_WIDE)
        out = 1 if e.misc & perf_ours.RECORD_MISC_SWITCH_OUT else 0
        assert repr(e).endswith(f"switch_out: {out} }}")
    assert {e.misc & perf_ours.RECORD_MISC_SWITCH_OUT for e in events} == {0, 8192}


def test_tracepoint_fields_come_from_the_files_tracing_data(perf_ours, record, tmp_path):
    """A field renamed in the file's tracing data (same length, so nothing
    moves) is read under its new name: the format is the file's, not the
    running system's tracefs."""
    data = open(record("rw"), "rb").read()
    assert data.count(b"field:size_t count;") >= 2  # sys_enter_read and _write
    renamed = tmp_path / "renamed.data"
    renamed.write_bytes(data.replace(b"field:size_t count;", b"field:size_t cOunt;"))

    def counts(path, field):
        out = []

        def sample(s):
            if str(s.evsel) == "evsel(syscalls:sys_enter_write)":
                out.append(getattr(s, field, None))
        perf_ours.session(perf_ours.data(str(path)), sample=sample).process_events()
        return out
    original = counts(record("rw"), "count")
    assert original and all(isinstance(c, int) and c > 0 for c in original)
    assert counts(renamed, "cOunt") == original
    assert set(counts(renamed, "count")) == {None}


# -- perf.mmap2_event (live) ------------------------------------------------------

def mmap2_events(perf, mapping, **attr):
    """The mmap2 events of this process while mapping() maps something."""
    cpus, threads = perf.cpu_map(), perf.thread_map(os.getpid())
    evsel = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, mmap=1, mmap2=1,
                       sample_id_all=1, sample_type=perf.SAMPLE_TID, **attr)
    evsel.open(cpus=cpus, threads=threads)
    evlist = perf.evlist(cpus, threads)
    evlist.add(evsel)
    evlist.mmap()
    kept = mapping()
    events = []
    for cpu in cpus:
        while (e := evlist.read_on_cpu(cpu)) is not None:
            if type(e) is perf.mmap2_event:
                events.append(e)
    evlist.close()
    return events, kept


def test_mmap2_event_live(perf_ours, tmp_path):
    """MMAP2 records of a live evsel against /proc/self/maps and stat():
    the inode form, and with attr.build_id the ELF's build id."""
    import mmap
    path = tmp_path / "mapped"
    path.write_bytes(b"x" * 3 * mmap.PAGESIZE)

    def map_data():
        with open(path, "rb") as f:
            return mmap.mmap(f.fileno(), mmap.PAGESIZE, prot=mmap.PROT_READ,
                             flags=mmap.MAP_SHARED, offset=mmap.PAGESIZE)
    events, kept = mmap2_events(perf_ours, map_data, mmap_data=1)
    mine = [e for e in events if e.filename == os.path.realpath(path)]
    assert len(mine) == 1, events
    e = mine[0]
    line = next(ln for ln in open("/proc/self/maps") if ln.rstrip().endswith(os.path.realpath(path)))
    span, perms, offset, dev, inode = line.split()[:5]
    start, end = (int(x, 16) for x in span.split("-"))
    st = os.stat(path)
    assert (e.type, e.pid, e.tid) == (perf_ours.RECORD_MMAP2, os.getpid(), threading.get_native_id())
    assert (e.start, e.len, e.pgoff) == (start, end - start, int(offset, 16))
    assert (e.maj, e.min, e.ino) == (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino) == \
        tuple(int(x, 16) for x in dev.split(":")) + (int(inode),)
    assert (e.prot, e.flags, perms) == (mmap.PROT_READ, mmap.MAP_SHARED, "r--s")
    assert e.build_id is None and e.misc & 0x4000 == 0  # PERF_RECORD_MISC_MMAP_BUILD_ID
    assert repr(e) == (f"{{ type: mmap2, pid: {os.getpid()}, tid: {e.tid}, start: {start:#x}, "
                       f"length: {end - start:#x}, offset: {int(offset, 16):#x}, flags: 0x1, "
                       f"prot: 0x1, filename: {os.path.realpath(path)} }}")
    kept.close()

    elf = os.path.realpath(shutil.which("true"))
    readelf = subprocess.run(["readelf", "-n", elf], capture_output=True, text=True).stdout
    build_id = next((ln.split()[-1] for ln in readelf.splitlines() if "Build ID" in ln), None)
    if build_id is None:
        pytest.skip(f"{elf} has no build id")

    def map_elf():
        with open(elf, "rb") as f:
            return mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC,
                             flags=mmap.MAP_PRIVATE)
    try:
        events, kept = mmap2_events(perf_ours, map_elf, build_id=1)
    except OSError as err:  # attr.build_id: Linux 5.12
        pytest.skip(f"attr.build_id: {err}")
    mine = [e for e in events if e.filename == elf]
    assert len(mine) == 1, events
    e = mine[0]
    assert e.misc & 0x4000 and e.build_id.hex() == build_id
    assert (e.maj, e.min, e.ino, e.ino_generation) == (None, None, None, None)
    kept.close()


# -- garbage collection ----------------------------------------------------------

def test_session_callback_cycle_is_collected(perf_ours, record):
    """session -> bound method -> object -> session: upstream's scripts break
    it by hand (session = None); here the collector does."""
    path = str(record("sw"))

    class Analyzer:
        def __init__(self):
            self.session = perf_ours.session(perf_ours.data(path), sample=self.sample,
                                             stat=self.stat, context_switch=self.sample)
            self.kept = None
            self.n = 0

        def sample(self, s):
            self.n += 1
            self.kept = s  # a sample (with its evsel) in the cycle too

        def stat(self, e, name):
            pass

    gc.collect()
    a = Analyzer()
    a.session.process_events()
    assert a.n > 0
    refs = [weakref.ref(a), weakref.ref(a.session)]
    del a
    gc.collect()
    assert [r() for r in refs] == [None, None]


# -- signals -------------------------------------------------------------------

def test_signals_are_checked_while_processing(perf_ours, record):
    """With no callback, process_events checks for signals as it reads: a
    1 ms interval timer's handler runs several times during one call (were
    signals checked only when it returns, it would run once)."""
    path = str(record("big"))
    runs = []
    inside = [False]
    old = signal.signal(signal.SIGALRM, lambda *a: runs.append(inside[0]))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
        inside[0] = True
        perf_ours.session(perf_ours.data(path)).process_events()
        inside[0] = False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert runs.count(True) >= 2, runs

    def interrupt(*a):
        raise KeyboardInterrupt
    n = []
    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        session = perf_ours.session(perf_ours.data(path), sample=lambda s: n.append(1))
        signal.setitimer(signal.ITIMER_REAL, 0.005)
        with pytest.raises(KeyboardInterrupt):
            session.process_events()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert len(n) < 200_000, "stopped before the end"


def start(ours_env, code):
    """A child running `code` under our module; returns once it printed "ready"."""
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=ours_env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready", p.stderr.read()
    return p


def blocked_in_read(pid, read_nr, limit=30):
    """Waits until thread `pid` sits in read(2) (its /proc syscall line)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/syscall") as f:
                if f.read().split()[0] == str(read_nr):
                    return True
        except OSError:
            pass
        time.sleep(0.01)
    return False


def interrupted(p, limit=30):
    """stderr after SIGINT, which must end the child with KeyboardInterrupt
    (Python >= 3.8 exits by SIGINT then, so that its parent sees it)."""
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        p.kill()  # not left behind, blocked for ever
        p.communicate()
        raise
    assert p.returncode in (1, -signal.SIGINT), (p.returncode, err)
    assert err.rstrip().endswith("KeyboardInterrupt"), err
    return err


def test_ctrl_c_while_a_file_is_processed(ours_env, record):
    p = start(ours_env, f"""
        import perf
        print("ready", flush=True)
        while True:
            perf.session(perf.data({str(record("big"))!r})).process_events()
        """)
    time.sleep(0.2)
    interrupted(p)


HEADER_RECORDS = (64, 65, 66, 67, 80)  # ATTR, EVENT_TYPE, TRACING_DATA, BUILD_ID, FEATURE


def through_first_kernel_record(data):
    """The bytes of a pipe-mode file up to and including its first kernel
    record (after the header's records: with these, perf.session() returns
    and process_events() reads on)."""
    pos = 16
    while pos + 8 <= len(data):
        rtype = int.from_bytes(data[pos:pos + 4], "little")
        size = int.from_bytes(data[pos + 6:pos + 8], "little")
        end = pos + size
        if rtype == 66:  # the tracing data follows the record
            end += (int.from_bytes(data[pos + 8:pos + 12], "little") + 7) // 8 * 8
        if rtype not in HEADER_RECORDS:
            return data[:end]
        pos = end
    raise AssertionError("no kernel record")


@pytest.mark.parametrize("where", ["session", "process_events"])
def test_ctrl_c_on_a_pipe_without_data(perf_ours, ours_env, record, where):
    """A pipe that stays open with no data: blocked in read(2), SIGINT
    raises KeyboardInterrupt, in perf.session() (no data at all) or in
    process_events() (the header and a first record, then nothing)."""
    prefix = b""
    if where == "process_events":
        prefix = through_first_kernel_record(open(record("pipe"), "rb").read())
    p = start(ours_env, f"""
        import os, perf
        r, w = os.pipe()
        os.write(w, {prefix!r})
        d = perf.data(fd=r)
        print("ready", flush=True)
        s = perf.session(d)
        s.process_events()
        """)
    assert blocked_in_read(p.pid, perf_ours.syscall_id("read"))
    err = interrupted(p)
    # Line 7 of the child's code is perf.session(d), line 8 process_events().
    assert f'File "<string>", line {7 if where == "session" else 8}, in <module>' in err, err


def test_other_signals_do_not_stop_a_pipe_read(ours_env, perf_ours, record):
    """A signal whose handler returns lets the blocked read go on (EINTR:
    the handler runs, the read is retried); the GIL is released while the
    read blocks, so the thread that feeds the pipe runs."""
    pipe_file = str(record("pipe"))
    expected = []
    perf_ours.session(perf_ours.data(pipe_file), sample=expected.append).process_events()
    p = start(ours_env, f"""
        import os, signal, threading, perf
        r, w = os.pipe()
        go = threading.Event()
        def usr1(*a):
            print("usr1", flush=True)
            go.set()
        signal.signal(signal.SIGUSR1, usr1)
        def feed():
            go.wait()
            with open({pipe_file!r}, "rb") as f:
                os.write(w, f.read())
            os.close(w)
        threading.Thread(target=feed).start()
        n = []
        print("ready", flush=True)
        s = perf.session(perf.data(fd=r), sample=n.append)
        s.process_events()
        print("samples", len(n), flush=True)
        """)
    assert blocked_in_read(p.pid, perf_ours.syscall_id("read"))
    p.send_signal(signal.SIGUSR1)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert out.split() == ["usr1", "samples", str(len(expected))]
