"""contactcp.sweep: grids, chunked parallel sweeps, tables.

Functions that cross into worker processes are the module's own test helpers
(``demo_point``/``demo_batch``), which every worker can import whatever
pytest's import mode; functions defined here are only run in-process.
"""

import threading
from concurrent.futures import Future

import numpy as np
import pytest

from contactcp.errors import ContactCPError, InvalidOptionError, InvalidProblemError
from contactcp.sweep import Points, SweepError, Table, grid, points, sweep
from contactcp.sweep.demo import demo_batch, demo_point


def assert_tables_equal(t1, t2):
    assert t1.columns == t2.columns
    assert t1.coords == t2.coords and t1.shape == t2.shape
    for name in t1.columns:
        assert t1[name].dtype == t2[name].dtype, name
        np.testing.assert_array_equal(t1[name], t2[name], err_msg=name)


@pytest.fixture(scope="module")
def pts():
    return grid(tau1=np.linspace(-1, 1, 23), tau2=np.linspace(-2, 0.5, 17))


class ReverseExecutor:
    """An executor that holds every chunk until ``n`` are submitted, then runs them last-first on a thread."""

    def __init__(self, n):
        self.n, self.jobs, self.order = n, [], []

    def submit(self, fn, *args, **kwargs):
        fut = Future()
        self.jobs.append((fut, fn, args, kwargs))
        if len(self.jobs) == self.n:
            threading.Thread(target=self._run, daemon=True).start()
        return fut

    def _run(self):
        for k in reversed(range(len(self.jobs))):
            fut, fn, args, kwargs = self.jobs[k]
            self.order.append(k)
            fut.set_result(fn(*args, **kwargs))


# --------------------------------------------------------------------------- points


def test_grid_is_c_order_product(pts):
    assert len(pts) == 23 * 17 and pts.shape == (23, 17) and pts.columns == ("tau1", "tau2")
    a, b = np.meshgrid(np.linspace(-1, 1, 23), np.linspace(-2, 0.5, 17), indexing="ij")
    np.testing.assert_array_equal(pts["tau1"], a.ravel())
    np.testing.assert_array_equal(pts["tau2"], b.ravel())
    assert pts[1] == {"tau1": -1.0, "tau2": pts["tau2"][1]}  # last axis fastest
    chunk = pts[17:40]
    assert isinstance(chunk, Points) and len(chunk) == 23 and chunk.shape == (23,)
    np.testing.assert_array_equal(chunk["tau1"], pts["tau1"][17:40])
    with pytest.raises(ValueError):
        pts["tau1"][0] = 5.0  # coordinates are read-only


def test_points_explicit():
    p = points(x=[1.0, 2.0, 3.0], k=[1, 2, 3])
    assert len(p) == 3 and p.shape == (3,) and p[2] == {"x": 3.0, "k": 3}


@pytest.mark.parametrize(
    "make",
    [
        lambda: points(x=[1.0, 2.0], y=[1.0, 2.0, 3.0]),  # mismatched lengths
        lambda: points(x=[[1.0, 2.0]]),  # not 1-D
        lambda: points(),
        lambda: grid(x=np.zeros((2, 2))),  # not 1-D
        lambda: grid(x=3.0),  # 0-D
        lambda: grid(x=[]),  # empty
        lambda: grid(),
    ],
)
def test_invalid_points(make):
    with pytest.raises(InvalidProblemError):
        make()


def test_invalid_options(pts):
    for bad in (0, -3, 1.5, True):
        with pytest.raises(InvalidOptionError, match="chunk_size"):
            sweep(demo_point, pts, workers=1, chunk_size=bad)
    with pytest.raises(InvalidOptionError, match="workers"):
        sweep(demo_point, pts, workers=0)
    with pytest.raises(InvalidOptionError, match="fn"):  # a lambda cannot reach worker processes
        sweep(lambda **kw: {}, pts, executor="processes", workers=2, progress=False)
    with pytest.raises(InvalidOptionError, match="executor"):
        sweep(demo_point, pts, executor="cluster")
    with pytest.raises(InvalidOptionError, match="resume"):
        sweep(demo_point, pts, resume=True)
    with pytest.raises(InvalidProblemError, match="pts"):
        sweep(demo_point, {"tau1": [1.0]}, workers=1)


# --------------------------------------------------------------------------- sweep


def test_serial_and_pool_agree(pts):
    serial = sweep(demo_point, pts, workers=1, progress=False)
    pooled = sweep(demo_point, pts, executor="processes", workers=2, chunk_size=50, progress=False)
    assert_tables_equal(serial, pooled)
    assert serial.columns == ("tau1", "tau2", "s", "p", "v", "big")
    np.testing.assert_array_equal(serial["s"], [x + y for x, y in zip(pts["tau1"], pts["tau2"])])
    assert serial["v"].shape == (len(pts), 2) and serial["big"].dtype == bool
    assert pooled.meta["workers"] == 2 and pooled.meta["chunk_size"] == 50
    assert pooled.meta["n_chunks"] == 8 and pooled.meta["n_points"] == len(pts)
    assert pooled.meta["start_method"] in ("forkserver", "spawn") and pooled.meta["elapsed"] > 0
    pooled_b = sweep(demo_batch, pts, batched=True, executor="processes", workers=2, progress=False)
    assert_tables_equal(serial, pooled_b)


def test_batched_and_per_point_agree(pts):
    per_point = sweep(demo_point, pts, workers=1, chunk_size=37, progress=False)
    batched = sweep(demo_batch, pts, batched=True, workers=1, chunk_size=37, progress=False)
    assert_tables_equal(per_point, batched)


def test_order_kept_when_chunks_finish_in_reverse(pts):
    ex = ReverseExecutor(n=-(-len(pts) // 10))
    table = sweep(demo_point, pts, executor=ex, chunk_size=10, progress=False)
    assert ex.order[:3] == [len(ex.jobs) - 1, len(ex.jobs) - 2, len(ex.jobs) - 3]
    assert_tables_equal(table, sweep(demo_point, pts, workers=1, progress=False))
    assert table.meta["executor"] == "ReverseExecutor"


def test_default_chunk_size():
    big = grid(a=np.arange(300.0), b=np.arange(200.0))
    t = sweep(demo_batch, big, batched=True, workers=1, progress=False)
    assert t.meta["chunk_size"] == 4096  # ceil(60000 / 8) bounded to 4096
    t = sweep(demo_batch, grid(a=np.arange(5.0)), batched=True, workers=1, progress=False)
    assert t.meta["chunk_size"] == 1 and t.meta["n_chunks"] == 5


def test_grid_reshape_round_trip(pts):
    t = sweep(demo_batch, pts, batched=True, workers=1, progress=False)
    assert t.shape == (23, 17)
    np.testing.assert_array_equal(t.grid("tau1")[:, 0], np.linspace(-1, 1, 23))
    np.testing.assert_array_equal(t.grid("tau2")[0], np.linspace(-2, 0.5, 17))
    assert t.grid("v").shape == (23, 17, 2)
    np.testing.assert_array_equal(t.grid("s").ravel(), t["s"])


def _mixed(x, k):
    return {
        "y": x * 0.1,
        "n": k * 2,
        "ok": x > 1,
        "mode": "stick" if k % 2 else "slip",
        "w": np.array([x / 3.0, np.nan, -np.inf]),
    }


@pytest.mark.parametrize("suffix", [".csv", ".npz"])
def test_save_load_round_trip(tmp_path, suffix):
    t = sweep(_mixed, points(x=[0.5, 1.0 / 3.0, 2.0, 1e-300], k=[1, 2, 3, 4]), workers=1, progress=False)
    path = t.save(tmp_path / f"table{suffix}")
    back = Table.load(path)
    assert_tables_equal(t, back)
    assert back.meta["n_points"] == 4 and back.meta["workers"] == 1

    g = sweep(demo_batch, grid(a=[1.0, 2.0, 3.0], b=[0.25, 0.5]), batched=True, workers=1, progress=False)
    back = Table.load(g.save(tmp_path / f"grid{suffix}"))
    assert back.shape == (3, 2)
    np.testing.assert_array_equal(back.grid("v"), g.grid("v"))


def test_save_rejects_unknown_suffix(tmp_path, pts):
    t = sweep(demo_batch, pts, batched=True, workers=1, progress=False)
    with pytest.raises(InvalidOptionError):
        t.save(tmp_path / "table.json")


def test_records_and_pandas(pts):
    t = sweep(demo_point, pts[:5], workers=1, progress=False)
    rec = t.to_records()
    assert rec.dtype.names == t.columns and rec["v"].shape == (5, 2)
    np.testing.assert_array_equal(rec["s"], t["s"])
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            t.to_pandas()
    else:
        df = t.to_pandas()
        assert list(df.columns) == ["tau1", "tau2", "s", "p", "v[0]", "v[1]", "big"]


def _fails_at_half(x):
    if x == 0.5:
        raise KeyError("no contact")
    return {"y": x}


def test_exception_names_the_point():
    p = points(x=np.linspace(0, 1, 5))
    with pytest.raises(SweepError, match=r"point 2 \(x=0\.5\).*KeyError") as info:
        sweep(_fails_at_half, p, workers=1, chunk_size=2, progress=False)
    assert isinstance(info.value, ContactCPError)
    assert info.value.index == 2 and info.value.point == {"x": 0.5}
    assert isinstance(info.value.__cause__, KeyError)


def test_exception_in_worker_names_the_point():
    p = points(a=[1.0, 2.0, np.nan, 4.0], b=[0.0, 0.0, 1.0, 0.0])
    with pytest.raises(SweepError, match=r"point 2 \(a=nan, b=1\.0\).*NaN coordinate") as info:
        sweep(demo_point, p, executor="processes", workers=2, chunk_size=1, progress=False)
    assert isinstance(info.value.__cause__, ValueError)
    assert "demo_point" in str(info.value.__cause__.__cause__)  # the worker's traceback
    with pytest.raises(SweepError, match=r"chunk 1 \(points 2\.\.3, first a=nan, b=1\.0\)"):
        sweep(demo_batch, p, batched=True, executor=ReverseExecutor(2), chunk_size=2, progress=False)


def _bad_length(x):
    return {"y": x[:-1]}


def _not_a_dict(x):
    return x


def _echo(x):
    return {"x": x}


def test_bad_return_values():
    p = points(x=[1.0, 2.0, 3.0])
    with pytest.raises(SweepError, match="one row per point"):
        sweep(_bad_length, p, batched=True, workers=1, progress=False)
    with pytest.raises(SweepError, match="must return a dict"):
        sweep(_not_a_dict, p, workers=1, progress=False)
    with pytest.raises(SweepError, match="also a coordinate"):
        sweep(_echo, p, batched=True, workers=1, progress=False)


def test_progress_false_is_silent(capsys, pts):
    sweep(demo_point, pts, workers=1, progress=False)
    sweep(demo_point, pts, workers=2, progress=False)
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_progress_off_a_terminal_prints_one_line(capsys, pts):
    sweep(demo_point, pts, workers=1, desc="map")
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("map: 391 points in ")


def test_script_read_from_stdin_runs_in_process():
    """python - < script: workers could not re-import __main__, so sweep computes in-process."""
    import subprocess
    import sys

    script = (
        "import numpy as np\n"
        "from contactcp.sweep import grid, sweep\n"
        "from contactcp.sweep.demo import demo_batch\n"
        "t = sweep(demo_batch, grid(x=np.arange(6.0), y=np.arange(2.0)), batched=True, progress=False)\n"
        "print(len(t), t.meta['plan'])\n"
    )
    out = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["12", "serial"]


def _run_script(path, body):
    """Run a script (the sweep imports, then ``body``) as ``python path``; it must exit 0."""
    import subprocess
    import sys

    head = (
        "import functools\n"
        "import numpy as np\n"
        "from contactcp.sweep import grid, sweep\n"
        "from contactcp.sweep.demo import demo_slow\n"
    )
    path.write_text(head + body)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, cwd=path.parent)
    assert out.returncode == 0, out.stderr
    return out


def test_script_without_a_main_guard_works(tmp_path):
    """A script that calls sweep at its top level, unguarded, on work that pays for workers: the
    sweep runs once (threads, not processes that would run the script again) and prints once."""
    out = _run_script(
        tmp_path / "unguarded.py",
        "print('start')\n"
        "fn = functools.partial(demo_slow, 0.4)\n"
        "pts = grid(x=np.arange(8.0), y=np.arange(2.0))\n"
        "t = sweep(fn, pts, batched=True, chunk_size=2, workers=2, progress=False)\n"
        "print(len(t), t.meta['plan'], float(t['s'].sum()))\n",
    )
    assert out.stdout.split() == ["start", "16", "threads", "64.0"]


def test_guarded_script_gets_worker_processes(tmp_path):
    out = _run_script(
        tmp_path / "guarded.py",
        "if __name__ == '__main__':\n"
        "    fn = functools.partial(demo_slow, 0.4)\n"
        "    t = sweep(fn, grid(x=np.arange(8.0), y=np.arange(2.0)), batched=True, chunk_size=2, workers=2,\n"
        "              progress=False)\n"
        "    print(len(t), t.meta['plan'])\n",
    )
    assert out.stdout.split() == ["16", "processes"]
