"""Sweeps on Ray (`--on ray`): the same rows as the local path, bit for bit,
written as a Parquet dataset; atomic parts under a killed worker; errors
reported before any task. One local Ray runtime (2 CPUs) serves every test."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from repo_paths import REPO

ray = pytest.importorskip("ray")

DECODE_STEP = REPO / "sheets" / "supernodes" / "6.2.2-qwen3-32b-decode-step.yaml"


@pytest.fixture(scope="session")
def ray_runtime():
    from supersheet.engine.scenarios import on_ray
    on_ray.connect(num_cpus=2)
    yield
    ray.shutdown()


def assert_bit_identical(local: pl.DataFrame, remote: pl.DataFrame) -> None:
    assert local.columns == remote.columns
    assert local.schema == remote.schema
    assert local.height == remote.height
    for name in local.columns:
        a, b = local[name], remote[name]
        assert a.is_null().to_list() == b.is_null().to_list(), name
        if a.dtype == pl.Float64:
            bits_a = a.fill_null(0.0).to_numpy().view(np.uint64)
            bits_b = b.fill_null(0.0).to_numpy().view(np.uint64)
            assert np.array_equal(bits_a, bits_b), name
        else:
            assert a.to_list() == b.to_list(), name


def read_dataset(directory: Path) -> pl.DataFrame:
    parts = sorted(directory.iterdir())
    assert parts and all(p.name.startswith("part-") and p.suffix == ".parquet" for p in parts), parts
    return pl.concat([pl.read_parquet(p) for p in parts])


IMPORTING = """
        use:
          gpu: small.yaml
        cells:
          tp: 1
          bytes: 10 GB
          per_card: = bytes / tp -> GB
          time: = per_card / gpu.bandwidth + gpu.latency -> ms
          overhead: = 1 / (tp - 2)"""


@pytest.fixture
def import_axis_sheet(write_sheet):
    write_sheet("""
        cells:
          bandwidth: 3000 GB/s
          latency: 2 us
        """, "small.yaml")
    write_sheet("""
        cells:
          bandwidth: 8000 GB/s
          latency: 1 us
        """, "large.yaml")
    return write_sheet(IMPORTING + """
          share: = sqrt(tp - 3) -> %
        """)


def test_sweep_with_import_axes_and_errors_is_bit_identical(run_cli, ray_runtime, import_axis_sheet, tmp_path):
    sheet, axes = str(import_axis_sheet), ["--vary", f"gpu={tmp_path / 'small.yaml'},{tmp_path / 'large.yaml'}",
                                           "--vary", "tp=1..8", "--vary", "bytes=1GB..100GB:250"]
    local = run_cli("sweep", sheet, *axes, "-o", str(tmp_path / "local.parquet"))
    assert local.code == 0, local.output
    remote = run_cli("sweep", sheet, *axes, "--on", "ray", "-o", str(tmp_path / "out") + "/", "--rows-per-task", "300")
    assert remote.code == 0, remote.output
    assert "4,000 rows written" in remote.err and "(14 Parquet parts)" in remote.err
    expected = pl.read_parquet(tmp_path / "local.parquet")
    assert expected["overhead [error]"].to_list().count("#DIV/0") == 500   # the error values travel too
    assert expected["share [error]"].null_count() < expected.height
    assert_bit_identical(expected, read_dataset(tmp_path / "out"))
    units = pl.read_parquet_metadata(tmp_path / "local.parquet")["supersheet.units"]
    for part in (tmp_path / "out").iterdir():
        assert pl.read_parquet_metadata(part)["supersheet.units"] == units
    pq = pytest.importorskip("pyarrow.parquet")   # Arrow readers see the units of a dataset too
    schema = pq.read_table(next((tmp_path / "out").iterdir())).schema
    assert schema.metadata[b"supersheet.units"].decode() == units
    assert all(schema.field(name).metadata == {b"unit": unit.encode()} for name, unit in json.loads(units).items())


def test_named_sweep_of_a_library_sheet_on_ray(run_cli, ray_runtime, tmp_path):
    # the sheet's tp_table sweep, with one more axis from the command line
    args = ["sweep", str(DECODE_STEP), "tp_table", "--vary", "s=1024token..131072token:750"]
    assert run_cli(*args, "-o", str(tmp_path / "local.parquet")).code == 0
    result = run_cli(*args, "--on", "ray", "-o", str(tmp_path / "out.parquet") + "/", "--rows-per-task", "1000")
    assert result.code == 0, result.output
    assert len(list((tmp_path / "out.parquet").iterdir())) == 3
    assert_bit_identical(pl.read_parquet(tmp_path / "local.parquet"), read_dataset(tmp_path / "out.parquet"))
    # a second run replaces the dataset it wrote (no part of the first run is left)
    again = run_cli(*args, "--on", "ray", "-o", str(tmp_path / "out.parquet") + "/", "--rows-per-task", "1500")
    assert again.code == 0, again.output
    assert len(list((tmp_path / "out.parquet").iterdir())) == 2
    assert_bit_identical(pl.read_parquet(tmp_path / "local.parquet"), read_dataset(tmp_path / "out.parquet"))


def _job(sheet: Path, tmp_path: Path, fault=None, progress=None):
    from supersheet.engine.scenarios.axes import cli_axis
    from supersheet.engine.scenarios.grid import Grid
    from supersheet.engine.scenarios.sweep import plans_for
    from supersheet.engine.scenarios.sweep_ray import sweep_to_dataset
    from supersheet.engine.workbook import open_workbook
    workbook = open_workbook(sheet)
    grid = Grid([cli_axis(workbook, "tp=1..8"), cli_axis(workbook, "bytes=1GB..100GB:500")])
    units: dict = {}
    plans = plans_for(workbook, grid, None, None, None, (None, None), units)
    return lambda target: sweep_to_dataset(plans, grid, None, None, None, (None, None), units, str(target),
                                           part_rows=1000, chunk_rows=250, fault=fault, progress=progress)


def test_a_worker_killed_mid_write_is_retried_and_leaves_no_partial_part(run_cli, ray_runtime, import_axis_sheet,
                                                                        tmp_path):
    marker = tmp_path / "killed-once"

    def crash_once(part: int, chunk: int) -> None:
        # the worker dies after the first chunk of part 2 reached its temp file; Ray retries the task
        if part == 2 and chunk == 0 and not marker.exists():
            marker.write_text("x")
            os._exit(1)

    seen = []
    written = _job(import_axis_sheet, tmp_path, crash_once, lambda done, total: seen.append((done, total)))(
        tmp_path / "out")
    assert marker.exists()
    assert seen == [(1000, 4000), (2000, 4000), (3000, 4000), (4000, 4000)]   # progress over completed ranges
    assert written.rows == 4000 and len(written.parts) == 4
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [f"part-0000{i}.parquet" for i in range(4)]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no staging or temp file left
    local = run_cli("sweep", str(import_axis_sheet), "--vary", "tp=1..8", "--vary", "bytes=1GB..100GB:500",
                    "-o", str(tmp_path / "local.parquet"))
    assert local.code == 0, local.output
    assert_bit_identical(pl.read_parquet(tmp_path / "local.parquet"), read_dataset(tmp_path / "out"))


def test_a_failing_task_leaves_no_dataset(ray_runtime, import_axis_sheet, tmp_path):
    from supersheet.engine.scenarios.on_ray import TaskFailed

    def disk_full(part: int, chunk: int) -> None:
        if part == 1:
            raise OSError("No space left on device")

    with pytest.raises(TaskFailed, match="No space left on device"):
        _job(import_axis_sheet, tmp_path, disk_full)(tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_sheet_errors_are_reported_once_before_any_task(run_cli, write_sheet, import_axis_sheet, tmp_path,
                                                         monkeypatch):
    from supersheet.engine.scenarios import on_ray

    def no_ray(*args, **kwargs):
        raise AssertionError("Ray was started for an invalid sweep")

    monkeypatch.setattr(on_ray, "connect", no_ray)
    monkeypatch.setattr(on_ray, "run", no_ray)
    broken = write_sheet("""
        cells:
          tp: 1
          time: = 10 GB / tp + 1 s
        """, "broken.yaml")
    result = run_cli("sweep", str(broken), "--vary", "tp=1..4", "--on", "ray", "-o", str(tmp_path / "out") + "/")
    assert result.code == 2
    assert result.err.count("E-UNIT") == 1 and "broken.yaml:3" in result.err
    unknown = run_cli("sweep", str(import_axis_sheet), "--vary", "tpp=1..4", "--on", "ray", "-o", str(tmp_path) + "/o/")
    assert unknown.code == 2 and "unknown cell 'tpp'" in unknown.err
    assert not (tmp_path / "out").exists() and not (tmp_path / "o").exists()


def test_ray_needs_a_dataset_directory(run_cli, import_axis_sheet, tmp_path):
    result = run_cli("sweep", str(import_axis_sheet), "--vary", "tp=1..4", "--on", "ray", "-o", str(tmp_path / "o.csv"))
    assert result.code == 2 and "-o DIR/" in result.err
    result = run_cli("sweep", str(import_axis_sheet), "--vary", "tp=1..4", "--address", "auto")
    assert result.code == 2 and "needs --on ray" in result.err


MONTE_CARLO = """
    samples: {count: 150000, seed: 7}
    cells:
      tokens: 64
      efficiency: = uniform(70 %, 90 %)
      latency: = lognormal(10 us, 50 us)
      arrivals: = poisson(12)
      loads: = routing_loads(tokens, 8, 128, 8)
      skew: = max(loads) / mean(loads)
      step: = 20 ms / efficiency + 128 * latency * skew + arrivals * 0.1 ms -> ms
    """


def test_monte_carlo_on_ray_gives_the_same_samples_for_any_number_of_workers(ray_runtime, write_sheet):
    from supersheet.engine.scenarios.sample_ray import sample_on_ray, spans
    from supersheet.engine.scenarios.uncertainty import evaluate_samples
    from supersheet.engine.workbook import open_workbook
    workbook = open_workbook(write_sheet(MONTE_CARLO))
    assert spans(150_000, 2) == [(0, 131072), (131072, 150000)]   # whole stream blocks per task
    local = evaluate_samples(workbook, fixed={})
    one = sample_on_ray(workbook, None, None, {}, [], tasks=1)
    two = sample_on_ray(workbook, None, None, {}, [], tasks=2)
    three = sample_on_ray(workbook, None, None, {}, [], tasks=3)
    assert set(local.summaries) >= {"efficiency", "latency", "arrivals", "skew", "step"}
    for run in (one, two, three):
        assert run.summaries == local.summaries
        assert_bit_identical(local.frame, run.frame)
    # independent blocks: the second block is not the first one again
    step = local.frame[local.program.sources["step"].columns]
    assert not np.array_equal(step[:1000].to_numpy(), step[65536:66536].to_numpy())


def test_run_on_ray_prints_what_run_prints(run_cli, ray_runtime, write_sheet):
    sheet = str(write_sheet(MONTE_CARLO))
    local = run_cli("run", sheet, "--format", "json", "--set", "tokens=128")
    remote = run_cli("run", sheet, "--format", "json", "--set", "tokens=128", "--on", "ray")
    assert local.code == remote.code == 0, remote.output
    assert remote.out == local.out and '"p95"' in local.out
    bad = run_cli("run", str(write_sheet("cells:\n  n: -1\n  k: = poisson(n)\n", "bad.yaml")), "--on", "ray")
    assert bad.code == 2 and bad.err.count("poisson() needs a mean") == 1 and "bad.yaml:3" in bad.err


def test_sweep_of_a_sheet_with_draws_is_bit_identical(run_cli, ray_runtime, write_sheet, tmp_path):
    sheet = str(write_sheet(MONTE_CARLO.replace("count: 150000", "count: 500")))
    args = ["sweep", sheet, "--vary", "tokens=8..64+8", "--vary", "arrivals=1..30", "--show", "step,skew"]
    assert run_cli(*args, "-o", str(tmp_path / "local.parquet")).code == 0
    result = run_cli(*args, "--on", "ray", "-o", str(tmp_path / "out") + "/", "--rows-per-task", "70")
    assert result.code == 0, result.output
    expected = pl.read_parquet(tmp_path / "local.parquet")
    assert "step p95 [ms]" in expected.columns and expected.height == 240
    assert_bit_identical(expected, read_dataset(tmp_path / "out"))


CHOICE = IMPORTING + """
          cost: = ceil(time / 1 ms) * tp
        assume:
          one_server: tp <= 7
        choose:
          cheapest:
            vary:
              gpu: [small.yaml, large.yaml]
              tp: [1, 2, 3, 4, 5, 6, 7, 8]
              bytes: {from: 1 GB, to: 100 GB, count: 400}
            require: [per_card <= 40 GB, overhead < 1]
            minimize: cost
        """


def test_choose_on_ray_ranks_as_the_local_path(run_cli, ray_runtime, import_axis_sheet, write_sheet):
    from supersheet.engine.scenarios.choice_ray import choose_on_ray
    from supersheet.engine.scenarios.choice import choice_entry
    from supersheet.engine.workbook import open_workbook
    sheet = write_sheet(CHOICE, "choice.yaml")
    workbook = open_workbook(sheet)
    everything, _ = choice_entry(workbook, "cheapest")
    assert len(everything.ranked) + len(everything.excluded) == 6400
    assert {r.values["excluded because"] for r in everything.excluded} == {
        "fails per_card <= 40 GB", "overhead < 1 is an error value", "fails overhead < 1",
        "fails per_card <= 40 GB; overhead < 1 is an error value",    # every failed requirement is listed
        "outside the model: one_server"}
    assert len({r.values["cost"] for r in everything.ranked}) < len(everything.ranked) / 10   # many ties
    # every row, reduced over 22 ranges: the same ranking, ties in grid order, and the same exclusions
    remote = choose_on_ray(workbook, "cheapest", None, part_rows=300)
    assert remote.ranked == everything.ranked and remote.excluded == everything.excluded
    # the best 7 only: each range sends 7 rows and counts
    best, _ = choice_entry(workbook, "cheapest", 7)
    remote = choose_on_ray(workbook, "cheapest", 7, part_rows=300)
    assert best.ranked == everything.ranked[:7] == remote.ranked
    assert remote.excluded == [] and remote.reasons == best.reasons and remote.feasible == len(everything.ranked)
    assert sum(best.reasons.values()) == len(everything.excluded)
    local = run_cli("choose", str(sheet), "cheapest", "--top", "10")
    on_ray = run_cli("choose", str(sheet), "cheapest", "--on", "ray")
    assert local.code == on_ray.code == 0 and on_ray.out == local.out
    assert "the best 10 of" in local.out and "fails per_card <= 40 GB" in local.out


def test_ctrl_c_cancels_the_tasks_and_leaves_nothing(ray_runtime, import_axis_sheet, tmp_path):
    def interrupted(done: int, total: int) -> None:
        raise KeyboardInterrupt   # the user presses Ctrl+C once the first range is done

    with pytest.raises(KeyboardInterrupt):
        _job(import_axis_sheet, tmp_path, progress=interrupted)(tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_choose_on_ray_shows_the_cells_asked_for(run_cli, ray_runtime, import_axis_sheet, write_sheet):
    """`choose --on ray --show` keeps the shown columns, as the local path does (issue 29)."""
    sheet = write_sheet(CHOICE, "choice.yaml")
    local = run_cli("choose", str(sheet), "cheapest", "--top", "10", "--show", "per_card,time", "--format", "json")
    on_ray = run_cli("choose", str(sheet), "cheapest", "--on", "ray", "--show", "per_card,time", "--format", "json")
    assert local.code == on_ray.code == 0, on_ray.err
    assert on_ray.out == local.out and "per_card [GB]" in local.out and "time [ms]" in local.out
    import supersheet as ss
    choice = ss.load(sheet).choose("cheapest", 5, show=["per_card"], on="ray")
    assert "per_card" in choice.ranked.columns and choice.ranked.units["per_card"] == "GB"
    assert choice.ranked.height == 5


def test_the_api_sweeps_on_ray_as_it_does_locally(ray_runtime, import_axis_sheet):
    import supersheet as ss
    sheet = ss.load(import_axis_sheet)
    local = sheet.sweep(tp=[1, 2, 3, 4], bytes=ss.range("1 GB", "4 GB", count=4))
    remote = sheet.sweep(tp=[1, 2, 3, 4], bytes=ss.range("1 GB", "4 GB", count=4), on="ray")
    assert remote.units == local.units and remote.headers == local.headers
    assert_bit_identical(local.frame, remote.frame)


class _FakeRay:
    """Ray as `connect` sees it, not started: records what `init` was given, or raises `error`."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error, self.options = error, None

    def is_initialized(self) -> bool:
        return False

    def init(self, **options):
        self.options = options
        if self.error is not None:
            raise self.error


def test_ray_address_from_the_environment_ships_the_code_as_address_does(monkeypatch):
    from supersheet.engine.scenarios import on_ray
    fake = _FakeRay()
    monkeypatch.setattr(on_ray, "_ray", lambda: fake)
    monkeypatch.setattr(on_ray, "check_address", lambda *args: None)   # no head.example to answer the probe
    monkeypatch.setenv("RAY_ADDRESS", "ray://head.example:10001")
    on_ray.connect()
    assert fake.options["address"] == "ray://head.example:10001"
    shipped = fake.options["runtime_env"]["py_modules"]
    assert len(shipped) == 1 and (Path(shipped[0]) / "engine" / "scenarios" / "sweep_parts.py").is_file()


def test_a_failed_attach_says_its_whole_reason(monkeypatch):
    from supersheet.engine.scenarios import on_ray
    reason = ("Failed to connect to the Ray cluster at head:10001\n  because the client server did not answer\n"
              "\x1b[31m  within 30 seconds\x1b[0m")
    monkeypatch.setattr(on_ray, "_ray", lambda: _FakeRay(ConnectionError(reason)))
    monkeypatch.setattr(on_ray, "check_address", lambda *args: None)   # the port answered; Ray's attach failed
    with pytest.raises(on_ray.RayUnavailable) as caught:
        on_ray.connect("ray://head:10001")
    assert str(caught.value) == ("cannot attach to the Ray cluster at ray://head:10001: Failed to connect to the Ray "
                                 "cluster at head:10001 because the client server did not answer within 30 seconds")


def test_what_ray_prints_during_a_command_goes_to_stderr_not_into_its_output(ray_runtime, capsys):
    from supersheet.inputs import ray_session
    with ray_session(None):
        print("(raylet) A worker died or was killed while executing a task")
    out, err = capsys.readouterr()
    assert out == "" and "(raylet)" in err


def test_ctrl_c_leaves_no_staging_folder_even_when_the_abort_task_cannot_run(ray_runtime, import_axis_sheet, tmp_path,
                                                                            monkeypatch):
    from supersheet.engine.scenarios import on_ray, sweep_parts

    def interrupted(done: int, total: int) -> None:
        raise KeyboardInterrupt

    real_call = on_ray.call

    def call(function, *args, **kwargs):   # the runtime stopping under a second Ctrl+C: abort never runs
        if function is sweep_parts.abort:
            raise KeyboardInterrupt
        return real_call(function, *args, **kwargs)

    monkeypatch.setattr(on_ray, "call", call)
    with pytest.raises(KeyboardInterrupt):
        _job(import_axis_sheet, tmp_path, progress=interrupted)(tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
