"""Sweeps streamed into a store: Parquet parts, resume, interrupts, SIGKILL, a Dask LocalCluster."""

import functools
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from contactcp.errors import InvalidOptionError, SweepError, SweepInterrupted
from contactcp.sweep import grid, load, sweep
from contactcp.sweep.demo import demo_batch, demo_interrupt_after, demo_point


@pytest.fixture
def pts():
    return grid(x=np.linspace(-1, 1, 23), y=np.linspace(0, 2, 17))


def _same(a, b):
    assert a.columns == b.columns and a.shape == b.shape and a.coords == b.coords
    for c in a.columns:
        np.testing.assert_array_equal(a[c], b[c])


def test_store_holds_the_table_and_pandas_reads_it(tmp_path, pts):
    ref = sweep(demo_batch, pts, batched=True, workers=1, progress=False)
    t = sweep(demo_batch, pts, batched=True, workers=1, chunk_size=50, progress=False, store=tmp_path / "s")
    _same(ref, t)
    _same(ref, load(tmp_path / "s"))
    assert t.meta["store"] == str(tmp_path / "s") and t.meta["resumed_chunks"] == 0
    pd = pytest.importorskip("pandas")
    df = pd.read_parquet(tmp_path / "s")
    assert len(df) == len(pts) and sorted(df["_index"]) == list(range(len(pts)))
    row = df[df["_index"] == 40].iloc[0]
    assert (row["_i_x"], row["_i_y"]) == np.unravel_index(40, pts.shape)
    assert row["s"] == ref["s"][40] and list(row["v"]) == list(ref["v"][40])


def test_grid_of_a_loaded_store(tmp_path, pts):
    sweep(demo_point, pts, workers=1, progress=False, store=tmp_path / "s")
    t = load(tmp_path / "s")
    assert t.grid("s").shape == (23, 17) and t.grid("v").shape == (23, 17, 2)
    np.testing.assert_allclose(t.grid("s"), pts["x"].reshape(23, 17) + pts["y"].reshape(23, 17))


def test_interrupt_keeps_finished_chunks_and_resume_completes(tmp_path, pts):
    store = tmp_path / "s"
    fn = functools.partial(demo_interrupt_after, [], 4)
    with pytest.raises(SweepInterrupted, match="kept 3 of 8 chunks") as e:
        sweep(fn, pts, batched=True, workers=1, chunk_size=50, progress=False, store=store)
    assert isinstance(e.value, KeyboardInterrupt) and "resume=True" in str(e.value)
    with pytest.raises(SweepError, match="holds 3 of 8 chunks"):
        load(store)
    t = sweep(demo_batch, pts, batched=True, workers=1, chunk_size=50, progress=False, store=store, resume=True)
    assert t.meta["resumed_chunks"] == 3
    _same(t, sweep(demo_batch, pts, batched=True, workers=1, progress=False))
    _same(t, load(store))


def test_a_store_is_not_overwritten_nor_resumed_with_another_sweep(tmp_path, pts):
    store = tmp_path / "s"
    sweep(demo_batch, pts, batched=True, workers=1, chunk_size=50, progress=False, store=store)
    with pytest.raises(InvalidOptionError, match="already holds a sweep"):
        sweep(demo_batch, pts, batched=True, workers=1, chunk_size=50, progress=False, store=store)
    other = grid(x=np.linspace(-1, 1, 23), y=np.linspace(0, 3, 17))
    with pytest.raises(InvalidOptionError, match="fingerprint differs"):
        sweep(demo_batch, other, batched=True, workers=1, chunk_size=50, progress=False, store=store, resume=True)
    t = sweep(demo_batch, pts, batched=True, workers=2, chunk_size=60, progress=False, store=store, resume=True)
    assert t.meta["chunk_size"] == 50 and t.meta["resumed_chunks"] == 8  # the store's chunks, all done
    (tmp_path / "f").write_text("x")
    with pytest.raises(InvalidOptionError, match="not a folder"):
        sweep(demo_batch, pts, batched=True, workers=1, progress=False, store=tmp_path / "f")
    with pytest.raises(InvalidOptionError, match="not a sweep store"):
        load(tmp_path)
    import json

    m = json.loads((store / "_manifest.json").read_text())
    m["bounds"][3][0] += 1  # a crafted manifest: a gap between chunks
    (store / "_manifest.json").write_text(json.dumps(m))
    with pytest.raises(InvalidOptionError, match="not a valid sweep manifest"):
        load(store)
    with pytest.raises(InvalidOptionError, match="not a valid sweep manifest"):
        sweep(demo_batch, pts, batched=True, workers=1, progress=False, store=store, resume=True)


_KILLED = """
import sys
import numpy as np
from contactcp.sweep import grid, sweep
from contactcp.sweep.demo import demo_slow
import functools
if __name__ == "__main__":
    pts = grid(x=np.linspace(-1, 1, 40), y=np.linspace(0, 2, 30))
    sweep(functools.partial(demo_slow, 0.02), pts, batched=True, workers=1, chunk_size=20, progress=False,
          store=sys.argv[1], resume=len(sys.argv) > 2)
"""


def test_sigkill_at_any_moment_loses_and_duplicates_nothing(tmp_path):
    """SIGKILL the sweep three times at random moments, resume each time: the parts on disk are always
    whole, and the completed store equals an uninterrupted sweep."""
    script = tmp_path / "killed.py"
    script.write_text(_KILLED)
    store = tmp_path / "s"
    rng = np.random.default_rng(7)
    for attempt in range(3):
        args = [sys.executable, str(script), str(store)] + (["resume"] if attempt else [])
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(1.0 + rng.uniform(0.0, 1.0))
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
        for part in store.glob("part-*.parquet"):  # whole parts only: each one reads
            import pyarrow.parquet as pq

            assert pq.read_table(part).num_rows == 20
    done = subprocess.run([sys.executable, str(script), str(store), "resume"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    t = load(store)
    ref = sweep(
        demo_batch, grid(x=np.linspace(-1, 1, 40), y=np.linspace(0, 2, 30)), batched=True, workers=1, progress=False
    )
    _same(t, ref)


def test_dask_local_cluster_on_loopback_gives_the_same_table(tmp_path, pts):
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        by_client = sweep(demo_batch, pts, batched=True, scheduler=client, chunk_size=40, progress=False)
        by_address = sweep(
            demo_point, pts, scheduler=cluster.scheduler_address, chunk_size=40, progress=False, store=tmp_path / "s"
        )
    assert by_client.meta["plan"] == "dask" and by_client.meta["workers"] == 2
    ref_b = sweep(demo_batch, pts, batched=True, workers=1, progress=False)
    ref_p = sweep(demo_point, pts, workers=1, progress=False)
    _same(by_client, ref_b)
    _same(by_address, ref_p)
    _same(load(tmp_path / "s"), ref_p)


def test_unreachable_scheduler_is_a_clear_error(pts):
    pytest.importorskip("distributed")
    with pytest.raises(InvalidOptionError, match="cannot reach the Dask scheduler"):
        sweep(demo_batch, pts, batched=True, scheduler="tcp://127.0.0.1:9", progress=False)
    with pytest.raises(InvalidOptionError, match="scheduler"):
        sweep(demo_batch, pts, batched=True, scheduler=42, progress=False)


def test_ctrl_c_inside_compiled_code_is_an_interrupt_not_a_failure(tmp_path, pts):
    """numba hands a Ctrl-C that arrived inside a kernel back as a SystemError chained to the
    KeyboardInterrupt: the sweep treats it as the interrupt it is (finished chunks kept)."""
    from contactcp.sweep.workers import interrupted

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("returned a result with an exception set") from exc
    except SystemError as wrapped:
        assert interrupted(wrapped)
    assert not interrupted(ValueError("x")) and not interrupted(None)
    fn = functools.partial(_wrapped_interrupt_after, [], 3)
    with pytest.raises(SweepInterrupted, match="kept 2 of 8 chunks"):
        sweep(fn, pts, batched=True, workers=1, chunk_size=50, progress=False, store=tmp_path / "s")


def _wrapped_interrupt_after(calls, limit, **columns):
    calls.append(1)
    if len(calls) >= limit:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("CPUDispatcher returned a result with an exception set") from exc
    return demo_batch(**columns)
