"""A sheet's `sweeps`, `solve`, `choose`, `expect` and `samples` blocks as typed,
frozen specs, read once while the sheet is loaded.

Every part keeps where it is written (a `Span`, or an `Origin` for a formula),
so a later stage reports a problem at the line it is about — an unknown axis
at the axis, an unknown `show` cell at that cell — and never reads a YAML node
again. What is wrong with a block's shape is found here and kept with the spec
(`problems`, `AxisSpec.problem`): it is reported where the block is used
(`check`, or running the block), as before, not as a problem of the sheet's
cells.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from supersheet.engine.base.diagnostics import Diagnostic, did_you_mean
from supersheet.engine.base.span import Origin, Span
from supersheet.engine.load.literals import Literal, between_end, listed_value, range_part
from supersheet.engine.load.positions import Positions, scalar_text

SWEEP_KEYS = ("vary", "show", "where", "expect", "doc", "plot")
PLOT_KEYS = ("x", "y", "color", "facet", "log_x", "log_y", "title")
RANGE_KEYS = ("from", "to", "times", "step", "count", "scale")
FIT_KEYS = ("table", "inputs", "targets", "vary", "rows", "error", "expect", "doc")
FIT_ERRORS = ("relative", "absolute")


@dataclass(frozen=True)
class Written:
    """One YAML scalar: its value as YAML typed it (str, int, float, bool) and its
    text exactly as written (`61.50` keeps its zero), at `span`. A value that is a
    quantity (an axis's value, a range's part, an end of `between`) is also read
    as one: `literal` (literals.py)."""

    value: Any
    text: str
    span: Span
    literal: Literal | None = None

    @property
    def origin(self) -> Origin:
        return Origin(self.span.file, self.span.line, self.span.col)


@dataclass(frozen=True)
class Expression:
    """A formula outside `cells` (`where`, `goal`, a requirement, an objective), as written."""

    text: str
    origin: Origin


@dataclass(frozen=True)
class RangeSpec:
    """`{from, to}` with `times`, `step` or `count` (and `scale`)."""

    start: Written
    stop: Written
    times: Written | None = None
    step: Written | None = None
    count: int | None = None
    scale: str = "linear"


@dataclass(frozen=True)
class AxisSpec:
    """One axis of a `vary:` mapping: listed values (or import paths), or a range."""

    name: str
    span: Span                          # the axis's name in `vary`
    values: tuple[Written, ...] = ()
    range: RangeSpec | None = None
    problem: Diagnostic | None = None   # the axis's shape is wrong (reported when it is built)

    @property
    def paths(self) -> list[str]:
        """The values as sheet paths, for an axis over an import."""
        return [str(v.value) for v in self.values]


@dataclass(frozen=True)
class RowValue:
    """One axis value of an explicit row of `vary:`."""
    name: str
    span: Span
    value: Written


@dataclass(frozen=True)
class VarySpec:
    """A `vary:` value: a mapping of axes, or explicit rows (each some of the axes' values)."""

    axes: tuple[AxisSpec, ...] = ()
    rows: tuple[tuple[RowValue, ...], ...] | None = None
    span: Span | None = None
    problem: Diagnostic | None = None


@dataclass(frozen=True)
class Expected:
    """A written expectation of `name`: one value, or (`items`) one per element or row."""

    name: str
    span: Span                             # the name, where it is written
    value: Written                         # the value as written (text "" for a list)
    items: tuple[Written, ...] | None = None


@dataclass(frozen=True)
class ExpectMap:
    """A block's `expect:`; `mapped` is False when it is not a mapping (then it holds nothing)."""

    entries: tuple[Expected, ...]
    span: Span
    mapped: bool = True


@dataclass(frozen=True)
class PlotDefaults:
    """A sweep's default chart (`plot: {x: context, y: [step], color: tp}`): names as written."""
    span: Span                              # the `plot` key
    x: Written
    y: tuple[Written, ...]
    color: Written | None = None
    facet: Written | None = None
    log_x: bool = False
    log_y: bool = False
    title: str = ""


@dataclass(frozen=True)
class SweepBlock:
    """A sweep of `sweeps:` as written."""
    name: str
    span: Span
    vary: VarySpec | None
    show: tuple[Written, ...] | None = None
    where: Expression | None = None
    expect: ExpectMap | None = None
    problems: tuple[Diagnostic, ...] = ()   # the block's own shape (missing `vary`, unknown keys)
    plot: PlotDefaults | None = None


@dataclass(frozen=True)
class SolveBlock:
    """A goal seek of `solve:` as written."""
    name: str
    span: Span
    vary: str = ""
    goal: Expression | None = None
    between: tuple[Written, Written] | None = None
    expect: Written | None = None
    problems: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class ChoiceBlock:
    """A choice of `choose:` as written."""
    name: str
    span: Span
    vary: VarySpec | None = None
    require: tuple[Expression, ...] = ()
    objective: Expression | None = None
    minimize: bool = True
    expect: ExpectMap | None = None
    problems: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class TableSpec:
    """A table of `tables:` (`name: path`): a CSV or Parquet file whose columns are array cells `name.column`."""
    name: str
    span: Span                      # the table's name in `tables:`
    path: str | None                # None when it is not written as a path (the problem says so)
    problem: Diagnostic | None = None


@dataclass(frozen=True)
class FitVary:
    """One varied cell of a fit with its bounds `[lo, hi]`, as written."""
    name: str
    span: Span
    bounds: tuple[Written, Written] | None


@dataclass(frozen=True)
class FitBlock:
    """A fit of `fit:` as written: which table's rows set which cells (`inputs`: column -> cell),
    which cells should equal which columns (`targets`), the cells varied between bounds."""
    name: str
    span: Span
    table: Written | None = None
    inputs: tuple[tuple[Written, Written], ...] = ()      # (column, cell)
    targets: tuple[tuple[Written, Written], ...] = ()     # (column, cell)
    vary: tuple[FitVary, ...] = ()
    rows: tuple[FitVary, ...] = ()          # column -> [lo, hi]: only the rows whose value lies between
    error: str = "relative"
    expect: ExpectMap | None = None
    problems: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True)
class SamplesSpec:
    """`samples: N` or `samples: {count: N, seed: S}` (their range is checked when the sheet loads)."""

    count: int | None
    seed: int | None
    span: Span


class SpecReader:
    """Builds the specs of one file's blocks from its YAML nodes."""

    def __init__(self, positions: Positions) -> None:
        self.at = positions

    def written(self, container: Any, key: Any) -> Written:
        value = container[key]
        text, span = self.at.written(container, key)
        return Written(value if scalar_text(value) is not None else None, text, span)

    def expression(self, container: Any, key: Any) -> Expression:
        text = str(container[key])
        return Expression(text, self.at.text_origin(container, key, text))

    def scalar_expression(self, container: Any, key: Any) -> Expression:
        """A requirement: its YAML scalar's text (`true` for a boolean)."""
        text = str(scalar_text(container[key]))
        return Expression(text, self.at.text_origin(container, key, text))

    # -- sweeps ----------------------------------------------------------
    def sweeps(self, node: CommentedMap) -> dict[str, SweepBlock]:
        return {str(k): self.sweep(str(k), node[k], self.at.key_span(node, k)) for k in node}

    def sweep(self, name: str, body: Any, span: Span) -> SweepBlock:
        if not isinstance(body, CommentedMap) or "vary" not in body:
            return SweepBlock(name, span, None, problems=(Diagnostic("E-SHEET", f"sweep {name!r} needs 'vary'", span),))
        problems = tuple(Diagnostic("E-SHEET", f"unknown key {str(k)!r} in sweep {name!r}", self.at.key_span(body, k),
                                    hint=did_you_mean(str(k), SWEEP_KEYS))
                         for k in body if k not in SWEEP_KEYS)
        show = None
        value = body.get("show")
        if isinstance(value, CommentedSeq):
            show = tuple(self.text_item(value, i) for i in range(len(value)))
        elif value:
            show = (self.text_item(body, "show"),)
        where = self.expression(body, "where") if body.get("where") is not None else None
        expect = self.expect_map(body, "expect") if body.get("expect") is not None else None
        plot, plot_problems = self.plot(body) if body.get("plot") is not None else (None, ())
        return SweepBlock(name, span, self.vary(body, "vary"), show, where, expect, problems + plot_problems, plot)

    def plot(self, body: CommentedMap) -> tuple[PlotDefaults | None, tuple[Diagnostic, ...]]:
        """A sweep's `plot:`: `x` and `y` (a name or a list) required; `color`, `facet`, `log_x`, `log_y`, `title`."""
        span = self.at.key_span(body, "plot")
        node = body["plot"]
        if not isinstance(node, CommentedMap) or "x" not in node or "y" not in node:
            return None, (Diagnostic("E-SHEET", "its plot needs x and y (names of the sweep's columns)",
                                     span, hint="plot: {x: context, y: [step], color: tp}"),)
        problems = tuple(Diagnostic("E-SHEET", f"unknown key {str(k)!r} in its plot",
                                    self.at.key_span(node, k), hint=did_you_mean(str(k), PLOT_KEYS))
                         for k in node if k not in PLOT_KEYS)
        for flag in ("log_x", "log_y"):
            if flag in node and not isinstance(node[flag], bool):
                problems += (Diagnostic("E-SHEET", f"{flag} is true or false", self.at.key_span(node, flag)),)
        y = node["y"]
        ys = tuple(self.text_item(y, i) for i in range(len(y))) if isinstance(y, CommentedSeq) \
            else (self.text_item(node, "y"),)
        return PlotDefaults(span, self.text_item(node, "x"), ys,
                            self.text_item(node, "color") if node.get("color") is not None else None,
                            self.text_item(node, "facet") if node.get("facet") is not None else None,
                            node.get("log_x") is True, node.get("log_y") is True,
                            str(node.get("title") or "")), problems

    def text_item(self, container: Any, key: Any) -> Written:
        """A name as written (`show: [a, b]`)."""
        _, span = self.at.written(container, key)
        return Written(str(container[key]), str(container[key]), span)

    def vary(self, container: Any, key: Any) -> VarySpec:
        vary = container[key]
        span = self.at.key_span(container, key)
        if isinstance(vary, CommentedMap):
            return VarySpec(tuple(self.axis(vary, name) for name in vary), span=span)
        if isinstance(vary, CommentedSeq) and vary and all(isinstance(r, CommentedMap) for r in vary):
            rows = []
            for row in vary:
                values = []
                for name in row:
                    if scalar_text(row[name]) is None:
                        return VarySpec(span=span, problem=Diagnostic(
                            "E-SHEET", f"row value of {name} must be a number or quantity", self.at.key_span(row, name)))
                    written = self.written(row, name)
                    values.append(RowValue(str(name), self.at.key_span(row, name),
                                           replace(written, literal=listed_value(scalar_text(written.value)))))
                rows.append(tuple(values))
            return VarySpec(rows=tuple(rows), span=span)
        return VarySpec(span=span, problem=Diagnostic("E-SHEET", "'vary' must be a mapping of axes or a list of rows",
                                                      span))

    def axis(self, vary: CommentedMap, key: Any) -> AxisSpec:
        name, value, span = str(key), vary[key], self.at.key_span(vary, key)
        if isinstance(value, CommentedMap):
            return self.range_axis(name, value, span)
        if isinstance(value, CommentedSeq):
            items = [self.written(value, i) for i in range(len(value))]
        else:
            items = [self.written(vary, key)]
        if not items or any(i.value is None for i in items):
            return AxisSpec(name, span, tuple(i for i in items if i.value is not None), problem=Diagnostic(
                "E-SHEET", f"axis {name} needs a list of values or a range", span))
        return AxisSpec(name, span, tuple(replace(i, literal=listed_value(i.value)) for i in items))

    def range_axis(self, name: str, value: CommentedMap, span: Span) -> AxisSpec:
        keys = set(value)
        if keys - set(RANGE_KEYS) or not {"from", "to"} <= keys:
            return AxisSpec(name, span, problem=Diagnostic(
                "E-SHEET", f"range of {name} is {{from, to}} with times, step or count (and scale)", span))
        count = None
        if "count" in value:
            given = value["count"]
            if isinstance(given, bool) or not isinstance(given, (int, str)) or not str(given).strip().isdecimal():
                return AxisSpec(name, span, problem=Diagnostic(
                    "E-SHEET", f"'count' of {name} must be a whole number, got {given!r}", self.at.key_span(value, "count")))
            count = int(given)

        def part(key: str) -> Written | None:
            if key not in value or scalar_text(value[key]) is None:
                return None
            written = self.written(value, key)
            return replace(written, literal=range_part(written.value))

        start, stop = part("from") or self.written(value, "from"), part("to") or self.written(value, "to")
        return AxisSpec(name, span, range=RangeSpec(start, stop, part("times"), part("step"), count,
                                                     str(value.get("scale", "linear"))))

    # -- expectations ----------------------------------------------------
    def expected(self, container: CommentedMap, key: Any) -> Expected:
        value = container[key]
        items = tuple(self.written(value, i) for i in range(len(value))) if isinstance(value, CommentedSeq) else None
        return Expected(str(key), self.at.key_span(container, key), self.written(container, key), items)

    def expect_map(self, body: CommentedMap, key: str) -> ExpectMap:
        node = body[key]
        span = self.at.key_span(body, key)
        if not isinstance(node, CommentedMap):
            return ExpectMap((), span, mapped=False)
        return ExpectMap(tuple(self.expected(node, k) for k in node), span)

    def expectations(self, node: CommentedMap) -> dict[str, Expected]:
        """The top-level `expect:` block: cell (or `p95(cell)`) -> its expected value."""
        return {str(k): self.expected(node, k) for k in node}

    # -- solve and choose ------------------------------------------------
    def solves(self, node: CommentedMap) -> dict[str, SolveBlock]:
        return {str(k): self.solve(str(k), node[k], self.at.key_span(node, k)) for k in node}

    def solve(self, name: str, body: Any, span: Span) -> SolveBlock:
        if not isinstance(body, CommentedMap):
            return SolveBlock(name, span, problems=(Diagnostic("E-SHEET", f"solve {name!r} needs vary, goal and between",
                                                               span),))
        vary = str(body.get("vary"))
        expect = self.written(body, "expect") if body.get("expect") is not None else None
        if not {"vary", "goal", "between"} <= set(body):
            return SolveBlock(name, span, vary, expect=expect, problems=(
                Diagnostic("E-SHEET", f"solve {name!r} needs vary, goal and between", span),))
        goal = self.expression(body, "goal")
        between = body["between"]
        if not isinstance(between, CommentedSeq) or len(between) != 2:
            return SolveBlock(name, span, vary, goal, expect=expect, problems=(
                Diagnostic("E-SHEET", f"'between' of {name!r} is a list of two values: [lo, hi]",
                           self.at.key_span(body, "between"), hint="e.g. between: [1 GB, 100 GB]"),))
        ends = (self.bound(between, 0), self.bound(between, 1))
        empty = [end for end in ends if end.value is None]
        return SolveBlock(name, span, vary, goal, ends, expect, problems=tuple(
            Diagnostic("E-SHEET", f"an end of 'between' of {name!r} is a number or a quantity, not {end.text}",
                       end.span, hint="e.g. between: [1 GB, 100 GB]") for end in empty))

    def bound(self, between: CommentedSeq, index: int) -> Written:
        """One end of `between`: its YAML scalar's text is what is parsed (`1e-05`, `8`)."""
        _, span = self.at.written(between, index)
        value = between[index]
        text = scalar_text(value)
        if text is None:   # nothing (`~`), a list or a mapping: no end at all (the spec's problem)
            return Written(None, "empty" if value is None else "a list or mapping", span)
        return Written(value, text, span, between_end(value, text))

    def choices(self, node: CommentedMap) -> dict[str, ChoiceBlock]:
        return {str(k): self.choice(str(k), node[k], self.at.key_span(node, k)) for k in node}

    def choice(self, name: str, body: Any, span: Span) -> ChoiceBlock:
        if not isinstance(body, CommentedMap):
            return ChoiceBlock(name, span, problems=(self.choice_shape(name, span),))
        expect = self.expect_map(body, "expect") if body.get("expect") is not None else None
        if "vary" not in body or ("minimize" in body) == ("maximize" in body):
            return ChoiceBlock(name, span, expect=expect, problems=(self.choice_shape(name, span),))
        require = body.get("require")
        if isinstance(require, CommentedSeq):
            requirements = tuple(self.scalar_expression(require, i) for i in range(len(require)))
        else:
            requirements = () if require is None else (self.scalar_expression(body, "require"),)
        key = "minimize" if "minimize" in body else "maximize"
        return ChoiceBlock(name, span, self.vary(body, "vary"), requirements, self.expression(body, key),
                           key == "minimize", expect)

    @staticmethod
    def choice_shape(name: str, span: Span) -> Diagnostic:
        return Diagnostic("E-SHEET", f"choice {name!r} needs 'vary' and exactly one of 'minimize' and 'maximize'", span)

    # -- tables and fits ----------------------------------------------
    def tables(self, node: CommentedMap) -> dict[str, TableSpec]:
        out = {}
        for key in node:
            span, value = self.at.key_span(node, key), node[key]
            problem = None if isinstance(value, str) and value.strip() else Diagnostic(
                "E-SHEET", f"table {str(key)!r} must be the path of a CSV or Parquet file", span,
                hint="tables: {nccl: data/allreduce.csv}")
            out[str(key)] = TableSpec(str(key), span, value.strip() if problem is None else None, problem)
        return out

    def fits(self, node: CommentedMap) -> dict[str, FitBlock]:
        return {str(k): self.fit(str(k), node[k], self.at.key_span(node, k)) for k in node}

    def fit(self, name: str, body: Any, span: Span) -> FitBlock:
        shape = Diagnostic("E-SHEET", f"fit {name!r} needs table, inputs, targets and vary", span,
                           hint="fit: {NAME: {table: T, inputs: {column: cell}, targets: {column: cell}, "
                                "vary: {cell: [lo, hi]}}}")
        if not isinstance(body, CommentedMap):
            return FitBlock(name, span, problems=(shape,))
        problems = [Diagnostic("E-SHEET", f"unknown key {str(k)!r} in fit {name!r}", self.at.key_span(body, k),
                               hint=did_you_mean(str(k), FIT_KEYS)) for k in body if k not in FIT_KEYS]
        if not {"table", "inputs", "targets", "vary"} <= set(body):
            problems.append(shape)
        table = self.text_item(body, "table") if scalar_text(body.get("table")) is not None else None
        pairs = {}
        for key in ("inputs", "targets"):
            node = body.get(key)
            if node is not None and not isinstance(node, CommentedMap):
                problems.append(Diagnostic("E-SHEET", f"{key!r} of fit {name!r} maps a column to a cell",
                                           self.at.key_span(body, key), hint=f"{key}: {{size: message}}"))
                node = None
            pairs[key] = tuple((Written(str(c), str(c), self.at.key_span(node, c)), self.text_item(node, c))
                               for c in node) if node else ()
        ranges: dict[str, list[FitVary]] = {}
        for key, example in (("vary", "vary: {alpha: [0 us, 1 ms]}"), ("rows", "rows: {size: [1 MiB, 1 GiB]}")):
            ranges[key] = []
            node = body.get(key)
            if node is not None and not isinstance(node, CommentedMap):
                problems.append(Diagnostic("E-SHEET", f"{key!r} of fit {name!r} maps a name to [lo, hi]",
                                           self.at.key_span(body, key), hint=example))
            for cell in node if isinstance(node, CommentedMap) else ():
                value, cell_span = node[cell], self.at.key_span(node, cell)
                if not isinstance(value, CommentedSeq) or len(value) != 2:
                    problems.append(Diagnostic("E-SHEET", f"the bounds of {cell} are a list of two values: [lo, hi]",
                                               cell_span, hint=example))
                    ranges[key].append(FitVary(str(cell), cell_span, None))
                    continue
                ends = (self.bound(value, 0), self.bound(value, 1))
                problems.extend(Diagnostic("E-SHEET", f"a bound of {cell} is a number or a quantity, not {end.text}",
                                           end.span) for end in ends if end.value is None)
                ranges[key].append(FitVary(str(cell), cell_span, ends))
        vary = ranges["vary"]
        error = str(body.get("error", "relative"))
        if error not in FIT_ERRORS:
            problems.append(Diagnostic("E-SHEET", f"'error' of fit {name!r} is relative or absolute, not {error!r}",
                                       self.at.key_span(body, "error"), hint=did_you_mean(error, FIT_ERRORS)))
        expect = self.expect_map(body, "expect") if body.get("expect") is not None else None
        return FitBlock(name, span, table, pairs["inputs"], pairs["targets"], tuple(vary), tuple(ranges["rows"]),
                        error, expect, tuple(problems))

    def samples(self, document: CommentedMap) -> SamplesSpec:
        value = document["samples"]
        span = self.at.key_span(document, "samples")
        if isinstance(value, CommentedMap):
            return SamplesSpec(_whole(value.get("count")), _whole(value.get("seed")), span)
        return SamplesSpec(_whole(value), None, span)


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
