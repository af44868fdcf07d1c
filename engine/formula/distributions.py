"""Random draws in formulas (uncertainty): `uniform`, `normal`, `lognormal`,
`triangular`, `poisson`, `binomial` and `routing_loads`.

A continuous draw compiles to a transformation of a column of standard
variates (U ~ U(0,1) or Z ~ N(0,1)), so its parameters may be any formulas,
even ones that vary along a sweep. A discrete draw is sampled directly with
numpy, so its parameters must be known before evaluation (literals or cells
that depend on no draw); like the bounds of `range`, sweeping them compiles
the sheet once per value. Without samples (the deterministic view) every draw
is its mean.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from supersheet.engine.formula.functions import Function

if TYPE_CHECKING:   # imported where samples are drawn: checking a sheet needs neither
    import numpy as np
    import polars as pl

    from supersheet.engine.formula.ast import Call

Z_95 = 1.6448536269514722   # the standard normal's 95th percentile: lognormal(lo, hi) is a 90% interval

DISTRIBUTIONS: dict[str, Function] = {f.name: f for f in (
    Function("uniform", 2, 2, "uniform(lo, hi)", "uniformly between lo and hi; same dimension", "draw"),
    Function("normal", 2, 2, "normal(mean, sd)", "normal with mean and standard deviation; same dimension", "draw"),
    Function("lognormal", 2, 2, "lognormal(lo, hi)", "lognormal whose 90% interval is [lo, hi] (lo > 0)", "draw"),
    Function("triangular", 3, 3, "triangular(lo, mode, hi)", "triangular from lo to hi, peaking at mode", "draw"),
    Function("poisson", 1, 1, "poisson(mean)", "a Poisson count with this mean (fixed before evaluation)", "draw"),
    Function("binomial", 2, 2, "binomial(n, p)", "successes in n trials of probability p (fixed)", "draw",
             dimensionless=(1,)),
    Function("routing_loads", 4, 4, "routing_loads(tokens, top_k, experts, ranks)",
             "per-rank expert loads when each token picks top_k of experts at random, experts spread "
             "evenly over ranks: an array of `ranks` counts", "draw", dimensionless=(1, 2, 3)),
)}

CONTINUOUS = {"uniform": "U", "normal": "Z", "lognormal": "Z", "triangular": "U"}
DISCRETE = frozenset({"poisson", "binomial", "routing_loads"})


@dataclass(frozen=True)
class Draw:
    """One random draw in a sheet: which cell, which occurrence in its formula."""

    key: str
    occurrence: int
    node: Call

    @property
    def name(self) -> str:
        return self.node.func

    def column(self, i: int | None = None) -> str:
        base = f"{self.key}~draw{self.occurrence}"
        return base if i is None else f"{base}[{i}]"

    def rng(self, seed: int, block: int = 0) -> np.random.Generator:
        """A stream of its own: adding a draw elsewhere never changes this one's samples. Each
        block of STREAM_BLOCK samples has its own generator (block 0 keeps the key it always had),
        so any range of samples is computed without the ones before it: the samples are the
        same however they are split over workers."""
        import numpy as np   # deferred: numpy
        key = [seed, zlib.crc32(self.key.encode()), self.occurrence]
        return np.random.default_rng(key + [block] if block else key)


STREAM_BLOCK = 65_536


def stream(draw: Draw, seed: int, count: int, start: int, stop: int,
           sample: Callable[[int, np.random.Generator], np.ndarray]) -> np.ndarray:
    """Samples [start, stop) of a draw's `count`: block b is `sample(n, draw.rng(seed, b))`
    with n its size, computed whole and cut to the range."""
    import numpy as np   # deferred: numpy
    if stop <= start:
        return sample(0, draw.rng(seed))
    pieces = []
    for block in range(start // STREAM_BLOCK, (stop - 1) // STREAM_BLOCK + 1):
        low, high = block * STREAM_BLOCK, min((block + 1) * STREAM_BLOCK, count)
        values = sample(high - low, draw.rng(seed, block))
        pieces.append(values[max(start, low) - low:min(stop, high) - low])
    return np.concatenate(pieces)


def transform(name: str, args: list[pl.Expr], variate: pl.Expr) -> tuple[pl.Expr, pl.Expr | None]:
    """A continuous draw from its standard variate; and where it has no value (#NUM)."""
    import polars as pl   # deferred: polars
    if name == "uniform":
        lo, hi = args
        return lo + (hi - lo) * variate, None
    if name == "normal":
        mean, sd = args
        return mean + sd * variate, sd < 0
    if name == "lognormal":
        lo, hi = args
        mu = (lo.log() + hi.log()) / 2
        sigma = (hi.log() - lo.log()) / (2 * Z_95)
        return (mu + sigma * variate).exp(), (lo <= 0) | (hi < lo)
    lo, mode, hi = args
    width = hi - lo
    cut = (mode - lo) / width
    low = lo + (variate * width * (mode - lo)).sqrt()
    high = hi - ((1 - variate) * width * (hi - mode)).sqrt()
    return pl.when(variate < cut).then(low).otherwise(high), (mode < lo) | (mode > hi) | (width <= 0)


def mean_of(name: str, args: list[pl.Expr]) -> pl.Expr:
    """The deterministic view of a draw: its mean."""
    if name == "uniform":
        return (args[0] + args[1]) / 2
    if name in ("normal", "poisson"):
        return args[0]
    if name == "lognormal":
        lo, hi = args
        mu = (lo.log() + hi.log()) / 2
        sigma = (hi.log() - lo.log()) / (2 * Z_95)
        return (mu + sigma * sigma / 2).exp()
    if name == "triangular":
        return (args[0] + args[1] + args[2]) / 3
    if name == "binomial":
        return args[0] * args[1]
    raise AssertionError(name)


def variates(kind: str, count: int, rng: np.random.Generator) -> np.ndarray:
    return rng.random(count) if kind == "U" else rng.standard_normal(count)


class DrawError(Exception):
    pass


COUNT_LIMIT = 2.0 ** 53      # whole numbers a 64-bit float holds exactly; far beyond any count a sheet means
POISSON_LIMIT = 1e15         # numpy's sampler refuses means above about 9e18


def parameter_problem(name: str, params: list[float | None]) -> tuple[int, str] | None:
    """(index of the faulty parameter, why) for parameters a discrete draw cannot sample;
    None when they are fine (or not known yet). `check` and the sampler share these rules."""
    def whole(i: int, low: float) -> bool:
        v = params[i]
        return v is None or (math.isfinite(v) and v == math.floor(v) and low <= v <= COUNT_LIMIT)

    if name == "poisson":
        mean = params[0]
        if mean is not None and not 0 <= mean <= POISSON_LIMIT:
            return 0, f"poisson() needs a mean from 0 to {POISSON_LIMIT:g}, got {mean:g}"
        return None
    if name == "binomial":
        n, p = params
        if not whole(0, 0):
            return 0, f"binomial() needs a whole number of trials from 0 to 2^53, got {n:g}"
        if p is not None and not 0 <= p <= 1:
            return 1, f"binomial() needs a probability from 0 to 1, got {p:g}"
        return None
    words = ("tokens", "top_k", "experts", "ranks")
    for i, word in enumerate(words):
        if not whole(i, 0):
            return i, f"routing_loads() needs a whole number of {word} from 0 to 2^53, got {params[i]:g}"
    tokens, top_k, experts, ranks = params
    if ranks is not None and ranks < 1:
        return 3, "routing_loads() needs at least one rank"
    if experts is not None and ranks is not None and experts % ranks:
        return 2, f"routing_loads() needs experts ({experts:g}) divisible by ranks ({ranks:g})"
    if top_k is not None and experts is not None and top_k > experts:
        return 1, f"routing_loads() needs top_k ({top_k:g}) <= experts ({experts:g})"
    return None


def sample_discrete(name: str, params: list[float], count: int, rng: np.random.Generator,
                    total: int | None = None) -> np.ndarray:
    """Samples of a discrete draw: shape (count,) or, for routing_loads, (count, ranks);
    `count` of the run's `total` (which sets how routing_loads is computed)."""
    problem = parameter_problem(name, list(params))
    if problem is not None:
        raise DrawError(problem[1])
    if name == "poisson":
        return rng.poisson(params[0], count).astype(float)
    if name == "binomial":
        n, p = params
        return rng.binomial(int(n), p, count).astype(float)
    tokens, top_k, experts, ranks = (int(v) for v in params)
    return routing_samples(tokens, top_k, experts, ranks, count, rng, total)


EXACT_LIMIT = 2_000_000     # tokens x samples simulated one by one (about 0.1-0.5 us each)
NORMAL_FROM = 30            # expected load per rank above which the sum is Gaussian to within rounding


def routing_samples(tokens: int, top_k: int, experts: int, ranks: int, count: int,
                    rng: np.random.Generator, total: int | None = None) -> np.ndarray:
    """Each token picks top_k distinct experts uniformly; a rank holds experts/ranks of them.

    A token's picks per rank follow a multivariate hypergeometric law; a rank's
    load is the sum over tokens. Small cases are simulated token by token;
    large ones (many tokens, an expected load per rank of 30 or more) use the
    sum's normal limit with its exact covariance — variance
    m·k·(1/G)(1-1/G)(E-k)/(E-1) per rank, correlation -1/(G-1) between ranks —
    rounded to whole tokens."""
    import numpy as np   # deferred: numpy
    expected = tokens * top_k / ranks
    if tokens * (total or count) > EXACT_LIMIT and expected >= NORMAL_FROM and ranks > 1:
        variance = tokens * top_k * (1 / ranks) * (1 - 1 / ranks) * (experts - top_k) / max(experts - 1, 1)
        z = rng.standard_normal((count, ranks))
        centred = (z - z.mean(axis=1, keepdims=True)) * np.sqrt(ranks / (ranks - 1))
        return np.clip(np.rint(expected + np.sqrt(variance) * centred), 0, tokens * min(top_k, experts // ranks))
    colors = np.full(ranks, experts // ranks, dtype=np.int64)
    out = np.zeros((count, ranks), dtype=float)
    per_block = max(1, 2_000_000 // max(tokens * ranks, 1))
    for start in range(0, count, per_block):
        stop = min(start + per_block, count)
        if tokens == 0 or top_k == 0:
            continue
        picks = rng.multivariate_hypergeometric(colors, top_k, size=(stop - start, tokens), method="count")
        out[start:stop] = picks.sum(axis=1)
    return out
