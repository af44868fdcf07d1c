"""Inputs set on an opened sheet (`--set NAME=VALUE`) and its Monte Carlo samples.

`fixed_inputs` makes cells inputs of an opened `Sheet` itself (a sweep, solve
or choice varies other cells under them). For the reports of this package,
`set_inputs` fixes cells of the engine's workbook for one evaluation (`run`,
`explain`) and `sample` evaluates it with random draws over its samples, here
or on Ray. Polars is imported only for a sheet that has draws.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from supersheet.engine.workbook import OverrideError, Workbook, apply_assignments

from .errors import RequestError
from supersheet.engine.present.report import set_overrides

if TYPE_CHECKING:
    from supersheet.engine.scenarios.uncertainty import Sampled

    from .handle import H

__all__ = ["Sampling", "check_ray_address", "fixed_inputs"]   # the rest serves supersheet.reports


@dataclass(frozen=True)
class Sampling:
    """How to evaluate a sheet with random draws: `samples` and `seed` (None: the sheet's
    `samples:`/`seed:`, else 10,000 and 0), a memory bound in bytes (None: half the RAM),
    and where: `on="local"` or `"ray"` (`address` the Ray cluster, None a local runtime)."""

    samples: int | None = None
    seed: int | None = None
    max_memory: int | None = None
    on: str = "local"
    address: str | None = None


def set_inputs(workbook: Workbook, sets: Sequence[str]) -> tuple[Workbook, dict[str, Any]]:
    """Every `NAME=VALUE`: the workbook to evaluate and the values fixed in it (pass both to
    `Workbook.evaluate`). OverrideError (its `assignment` the text) for a value that does not fit."""
    return apply_assignments(workbook, list(sets))


def shown_inputs(workbook: Workbook, sets: Sequence[str]) -> dict[str, Any]:
    """The assignments as the run and explain reports show them (set over what the sheet
    says), by cell; {} when one does not fit (`set_inputs` reports it)."""
    try:
        return set_overrides(workbook, list(sets))
    except OverrideError:
        return {}


def fixed_inputs(sheet: H, sets: Sequence[str]) -> H:
    """The sheet with every `NAME=VALUE` made an input of that value, for sweeps, solves and
    choices (the set cells stay fixed under the varied axes); `sheet` itself when there are
    none. Cells of this sheet only: an imported cell is fixed by varying it over one value
    (RequestError says so); OverrideError for a value that does not fit its cell."""
    if not sets:
        return sheet
    workbook = sheet.written_workbook
    set_inputs(workbook, sets)   # each value checked against its cell, as `run --set` does
    values: dict[str, str] = {}
    for text in sets:
        name, _, value = text.partition("=")
        name = name.strip()
        key = workbook.key_for(name)
        if key is not None and workbook.model.cells[key].scope.prefix:
            raise RequestError(f"--set {text}: sweep, solve and choose set cells of this sheet; "
                               f"to fix an imported cell, vary it over one value: --vary {name}={value.strip()}")
        values[name] = value.strip()
    variant = workbook.variant(cell_overrides={**sheet.inputs, **values})
    if not variant.ok:
        raise RequestError("the sheet does not check with " + " ".join(f"--set {t}" for t in sets),
                           variant.diagnostics)
    return sheet.opened(variant)


@contextmanager
def ray_session(address: str | None) -> Iterator[None]:
    """A Ray runtime for one request (`engine.scenarios.on_ray.session`). What Ray prints
    meanwhile (a dying worker's `(raylet)` lines, with colour codes) goes to stderr: it is for
    the user's eyes, and stdout may be a command's JSON being piped."""
    from supersheet.engine.scenarios.on_ray import session   # deferred: engine.scenarios.on_ray (slow to import)
    with redirect_stdout(sys.stderr), session(address):
        yield


def has_random_draws(workbook: Workbook) -> bool:
    return bool(workbook.checked.distributions)


def check_ray_address(address: str | None, timeout: float = 10.0) -> None:
    """RequestError unless the Ray cluster `address` (`ray://HOST:PORT`, `HOST:PORT`, `auto`;
    None: RAY_ADDRESS, if set) answers within `timeout` seconds. The commands that take
    `--address` check it first (`--connect-timeout`); attaching checks it too, with 10 s."""
    from supersheet.engine.scenarios.on_ray import RayUnavailable, check_address   # deferred: engine.scenarios.on_ray (slow to import)
    try:
        check_address(address, timeout)
    except RayUnavailable as e:
        raise RequestError(str(e)) from None


def sample(workbook: Workbook, sampling: Sampling, fixed: dict[str, Any] | None = None,
           sets: Sequence[str] = ()) -> Sampled | None:
    """The sheet evaluated over its samples (None for a sheet without random draws): means,
    percentiles and the deterministic scenario beside them. RequestError when the samples do
    not fit in memory or Ray is unavailable or a task fails."""
    if not has_random_draws(workbook):
        return None
    from supersheet.engine.scenarios.uncertainty import SamplingError, evaluate_samples   # deferred: numpy
    try:
        if sampling.on == "ray":
            from supersheet.engine.scenarios.on_ray import RayUnavailable, TaskFailed   # deferred: engine.scenarios.on_ray (slow to import)
            from supersheet.engine.scenarios.sample_ray import sample_on_ray   # deferred: polars, numpy
            try:
                with ray_session(sampling.address):
                    return sample_on_ray(workbook, sampling.samples, sampling.seed, fixed or {}, list(sets),
                                         address=sampling.address, max_memory=sampling.max_memory)
            except (RayUnavailable, TaskFailed) as e:
                raise RequestError(str(e)) from None
        return evaluate_samples(workbook, sampling.samples, sampling.seed, fixed, sampling.max_memory)
    except SamplingError as e:
        raise RequestError(str(e)) from None
