"""Running a sweep's parts (sweep_parts.py) as Ray tasks.

Ray is optional (`pip install 'supersheet[ray]'`) and imported only here,
only when `--on ray` asks for it. Without an address a local runtime is
started (so the same command works on a laptop); with one (`ray://HOST:PORT`,
`auto`, or `$RAY_ADDRESS`) the driver attaches to that cluster and ships its code. A failed worker is retried by
Ray (`max_retries`); an error in the sheet or the output is reported once,
and Ctrl+C cancels every task still pending.
"""
from __future__ import annotations

import contextlib
import logging
import os
import warnings
from typing import Any, Callable, Iterator, Sequence
import time
import re
import importlib.util
import shutil
from pathlib import Path

MAX_RETRIES = 3
# A task is given one CPU, so its Polars uses one thread: N tasks on N cores, not N x N threads.
ONE_THREAD = {"POLARS_MAX_THREADS": "1"}


class RayUnavailable(Exception):
    pass


CONNECT_TIMEOUT = 10.0          # seconds to wait for a cluster's port to answer (--connect-timeout)
_reached: set[str] = set()      # addresses this process has found answering


def check_address(address: str | None, timeout: float = CONNECT_TIMEOUT) -> None:
    """RayUnavailable unless `address` (or, when None, a RAY_ADDRESS the environment sets)
    names a cluster whose port answers within `timeout` seconds: `ray://HOST:PORT`,
    `HOST:PORT`, or `auto` (the cluster `ray start` started on this machine). Ray itself
    retries an address that does not answer for minutes; this answers in `timeout`."""
    if address is None:
        address = os.environ.get("RAY_ADDRESS") or None
        if address is None:
            return      # a local runtime is started
    text = address.strip()
    if text in _reached:
        return
    if not text:
        raise RayUnavailable("--address is empty: give ray://HOST:PORT, HOST:PORT or auto, or leave it out "
                             "to start a local Ray runtime")
    if not timeout > 0:
        raise RayUnavailable(f"--connect-timeout must be a number of seconds above 0, got {timeout:g}")
    host, port = _endpoint(text)
    import socket   # deferred: socket (slow to import)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except (socket.timeout, TimeoutError):
        raise RayUnavailable(f"cannot reach the Ray cluster at {_shown(text)}: no answer within {timeout:g} s "
                             "(check --address, or raise --connect-timeout SECONDS)") from None
    except (OSError, UnicodeError, ValueError) as e:
        raise RayUnavailable(f"cannot reach the Ray cluster at {_shown(text)}: "
                             f"{getattr(e, 'strerror', None) or e}") from None
    _reached.add(text)


def _endpoint(text: str) -> tuple[str, int]:
    """The host and port to probe for an address as --address takes it."""
    if text == "auto":
        found = _local_cluster()
        if found is None:
            raise RayUnavailable("--address auto: no Ray cluster runs on this machine (start one with "
                                 "`ray start --head`, or give ray://HOST:PORT)")
        text = found
    rest = text[len("ray://"):] if text.startswith("ray://") else text
    host, sep, port = rest.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 or any(c.isspace() for c in host):
        raise RayUnavailable(f"--address {_shown(text)} is not a Ray address: give ray://HOST:PORT, HOST:PORT or auto")
    return host, int(port)


def _local_cluster() -> str | None:
    """The address `auto` means, found as Ray finds it: the cluster `ray start` last started here
    (its address file), else any GCS server running on this machine; None when there is none."""
    try:
        from ray._private import services   # deferred: ray, yaml, jsonschema
        return services.find_bootstrap_address(None) or next(iter(services.find_gcs_addresses()), None)
    except Exception:  # noqa: BLE001 - Ray's private helpers moved: read the file they read
        try:
            with open(os.path.join(os.environ.get("RAY_TMPDIR", "/tmp"), "ray", "ray_current_cluster")) as f:
                return f.read().strip() or None
        except OSError:
            return None


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:60]) + f"… ({len(text):,} characters)"


class TaskFailed(Exception):
    """A task raised: its message, without Ray's wrapping."""


def connect(address: str | None = None, num_cpus: int | None = None) -> float:
    """Attach to a cluster (or start a local runtime); the seconds it took. Reuses a runtime already up."""
    ray = _ray()
    if ray.is_initialized():
        return 0.0
    started = time.perf_counter()
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    check_address(address)
    # Without --address, Ray attaches to $RAY_ADDRESS when it is set: a cluster all the same, which
    # needs this driver's code shipped as much as one named on the command line.
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        # The cluster runs this driver's supersheet code, whatever supersheet version its nodes have
        # (its Python packages - polars, pint, numpy, ruamel.yaml - must be installed there).
        options["runtime_env"] = {"env_vars": dict(ONE_THREAD), "py_modules": [package_folder()]}
        try:
            with warnings.catch_warnings():   # Ray's own timeout warning repeats what we report
                warnings.simplefilter("ignore")
                ray.init(address=address, **options)
        except Exception as e:  # noqa: BLE001 - no cluster there, no client support, a version mismatch ...
            raise RayUnavailable(f"cannot attach to the Ray cluster at {address}: {_reason(e)}") from None
    else:
        # A local runtime's workers inherit this environment: cheaper than a runtime_env (seconds per worker).
        saved = {k: os.environ.get(k) for k in ONE_THREAD}
        os.environ.update(ONE_THREAD)
        try:
            ray.init(num_cpus=num_cpus, **options)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return time.perf_counter() - started


def _reason(error: Exception) -> str:
    """An exception's whole message on one line (Ray's reasons span lines; the first alone was cut
    off mid-sentence), colour codes removed."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))
    return " ".join(text.split()) or type(error).__name__


def _folder_of(package: str) -> Path:
    """The folder of one of our own packages, found without importing it."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None, f"{package} is part of this installation"
    return Path(spec.origin).parent


def package_folder() -> str:
    """A folder holding the `supersheet` package a task needs (its engine and
    units), to ship to a cluster.

    Installed from a wheel, that is the package's own folder. In a source checkout
    (an editable install) the package is assembled from the repository's top-level
    folders that pyproject.toml maps into it, so it is staged in a temporary folder."""
    import tempfile   # deferred: tempfile (slow to import)
    engine = Path(__file__).resolve().parents[1]
    home = _folder_of("supersheet")   # located, not imported from here
    if engine.parent == home:
        return str(home)
    units = _folder_of("supersheet.units")
    staged = Path(tempfile.mkdtemp(prefix="supersheet-ray-")) / "supersheet"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(home, staged, ignore=ignore)
    shutil.copytree(engine, staged / "engine", ignore=ignore)
    shutil.copytree(units, staged / "units", ignore=ignore)
    return str(staged)


def _ray() -> Any:
    try:
        import ray   # deferred: ray, yaml, jsonschema
    except ImportError:
        raise RayUnavailable("--on ray needs Ray: pip install 'supersheet[ray]'") from None
    return ray


@contextlib.contextmanager
def session(address: str | None = None) -> Iterator[None]:
    """A runtime for one command: started (or attached) here and shut down at the end,
    even on Ctrl+C; a runtime already up (a test's) is left as it is."""
    ray = _ray()
    if ray.is_initialized():
        yield
        return
    try:
        connect(address)
        yield
    finally:
        try:
            ray.shutdown()
        except KeyboardInterrupt:   # a second Ctrl+C while the local runtime stops: it is stopping anyway
            pass


def cluster_cpus() -> int:
    import ray   # deferred: ray, yaml, jsonschema
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run(function: Callable[..., Any], shared: Any, items: Sequence[Any], *extra: Any,
        progress: Callable[[Any], None] | None = None) -> list[Any]:
    """`function(shared, item, *extra)` for every item as a Ray task (one CPU each);
    results in the items' order. `progress` sees each result as it completes."""
    import ray   # deferred: ray, yaml, jsonschema
    remote = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(_reporting)
    shared_ref = ray.put(shared)
    refs = [remote.remote(function, shared_ref, item, *extra) for item in items]
    order = {ref: i for i, ref in enumerate(refs)}
    results: list[Any] = [None] * len(refs)
    pending = list(refs)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                results[order[ref]] = _get(ref)
                if progress is not None:
                    progress(results[order[ref]])
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    return results


def call(function: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
    """One small task (on a cluster, file-system work happens where the workers are)."""
    import ray   # deferred: ray, yaml, jsonschema
    return _get(ray.remote(num_cpus=0, max_retries=MAX_RETRIES)(_reporting).remote(function, *args), timeout)


def _reporting(function: Callable[..., Any], *args: Any) -> Any:
    """Run in the task: any exception becomes a TaskFailed with its message (some of
    ours carry extra fields, which Ray could not rebuild on the driver)."""
    try:
        return function(*args)
    except Exception as e:  # noqa: BLE001 - reported to the user as the run's one error
        message = getattr(e, "message", None) or str(e)
        code = getattr(e, "code", None)
        raise TaskFailed(f"{code}: {message}" if code else message) from None


def _get(ref: Any, timeout: float | None = None) -> Any:
    import ray   # deferred: ray, yaml, jsonschema
    try:
        return ray.get(ref, timeout=timeout)
    except ray.exceptions.RayTaskError as e:
        cause = getattr(e, "cause", None)
        raise TaskFailed(str(cause) if isinstance(cause, TaskFailed) else str(e).strip().splitlines()[-1]) from None
    except ray.exceptions.RayError as e:   # a worker or node lost beyond the retries, an object lost ...
        raise TaskFailed(f"{type(e).__name__}: {str(e).strip().splitlines()[0]}") from None
