"""Fuzz the `supersheet` command: generated, mutated and hostile sheets and
command lines, run in-process, counted by exit code.

The promise under test: whatever the input, the command ends with 0, 1 or 2
and a message, never `internal error` (exit 70) or a traceback, and no output
line shows a Python repr (`{'a': 1}`, `ErrorValue(...)`) or `inf`/`nan` as a value. Every other
outcome is printed with the input that caused it (and saved with --save DIR).

    .venv/bin/python tools/fuzz.py --cases 10000 --seed 1    # the full campaign
    .venv/bin/python tools/fuzz.py --cases 200 --seed 7      # a quick look

Cases are of five kinds, in turn: a sheet generated from the format's grammar
(cells, long forms, units, functions, draws, sweeps, solves, expectations,
samples), a library sheet mutated (characters deleted, duplicated or replaced,
lines swapped, hostile tokens inserted), a hostile sheet (huge and tiny
numbers, odd YAML: anchors, merge keys, tags, bad keys, deep nesting, CRs),
a command line (calc expressions), and a tame generated sheet that checks
(dimensionless arithmetic with a sweep, a solve and a choice), so that
evaluation and outputs are reached.
Each sheet is then put through several commands (check, run, test, explain,
sweep, solve, diff) with generated arguments.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

UNITS = ["", " GB", " GiB", " GB/s", " ms", " us", " s", " token", " B", " %", " W", " TFLOP/s", " KiB",
         " Gbit/s", " USD", " GPU", " 1/s", " m^2", " GB^1000", " foo", " s^-1", " TFLOPs", " degC", " ‰"]
NUMBERS = ["0", "1", "2", "8", "0.5", "-3", "1e3", "1e308", "1e-320", "1e400", "3.14", "1_000", ".5", "1e",
           "9" * 30, "99999999999999999999999999999999999999999999999999999999999999999999999999999999999",
           "1e-300", "-0", "2.5E+2", "007"]
FUNCTIONS = ["min", "max", "sum", "mean", "count", "abs", "sqrt", "ceil", "floor", "round", "ln", "log2", "log10",
             "exp", "clamp", "if", "range", "uniform", "normal", "lognormal", "triangular", "poisson", "binomial",
             "routing_loads", "nosuch"]
OPERATORS = [" + ", " - ", " * ", " / ", " ^ ", " ** ", " < ", " <= ", " == ", " != ", " and ", " or "]
HOSTILE_TOKENS = ["<<: *a", "&a", "*a", "!!python/object:os.system", "{", "}", "[", "]", ": :", "\r", "\t",
                  "\x00", "'", '"', "#", "=", "->", "±", "%", "1e400", "-" * 3, "...", "? x", "|", ">",
                  "true:", "1:", "null:", "~", "\u202e", "é", "μs", "  ", "\n  - ", "!!binary"]


@dataclass
class Outcome:
    codes: Counter = field(default_factory=Counter)
    failures: list[tuple[str, list[str], str]] = field(default_factory=list)  # (sheet text, argv, output)
    commands: int = 0
    slowest: tuple[float, list[str]] = (0.0, [])


# -- generators -----------------------------------------------------------------
def _name(rng: random.Random) -> str:
    return rng.choice(["a", "b", "c", "tp", "n", "bw", "step", "x1", "_y", "s", "B", "e", "true", "1a",
                       "weights", "cards", "a.b"])


def _literal(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return rng.choice(["true", "false"])
    if rng.random() < 0.1:
        items = ", ".join(rng.choice(NUMBERS[:6]) + rng.choice(UNITS[:4]) for _ in range(rng.randint(0, 4)))
        return f"[{items}]"
    if rng.random() < 0.7:  # mostly sane, so that sheets get past `check` and reach evaluation
        return rng.choice(NUMBERS[:7]) + rng.choice(UNITS[:8])
    return rng.choice(NUMBERS) + rng.choice(UNITS)


def _expression(rng: random.Random, names: list[str], depth: int = 0) -> str:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice(names) if names and rng.random() < 0.6 else _literal(rng)
    if roll < 0.6:
        return _expression(rng, names, depth + 1) + rng.choice(OPERATORS) + _expression(rng, names, depth + 1)
    if roll < 0.7:
        return "(" + _expression(rng, names, depth + 1) + ")"
    if roll < 0.75:
        return rng.choice(["-", "not "]) + _expression(rng, names, depth + 1)
    fn = rng.choice(FUNCTIONS)
    args = ", ".join(_expression(rng, names, depth + 1) for _ in range(rng.randint(0, 4)))
    return f"{fn}({args})"


def generated_sheet(rng: random.Random) -> str:
    names: list[str] = []
    lines = ["cells:"]
    for _ in range(rng.randint(1, 8)):
        name = _name(rng) if rng.random() < 0.2 else f"c{len(names)}"
        roll = rng.random()
        if roll < 0.4:
            lines.append(f"  {name}: {_literal(rng)}")
        elif roll < 0.85:
            lines.append(f"  {name}: = {_expression(rng, names)}" + (f" -> {rng.choice(UNITS).strip() or 'ms'}"
                                                                      if rng.random() < 0.15 else ""))
        else:
            key = rng.choice(["value", "formula", "unit", "digits", "doc", "source", "bogus"])
            value = {"value": _literal(rng), "formula": _expression(rng, names), "unit": rng.choice(UNITS).strip()
                     or "s", "digits": rng.choice(["3", "-1", "abc", "1e9"]), "doc": "x", "source": "y",
                     "bogus": "1"}[key]
            extra = f", unit: {rng.choice(UNITS).strip() or 'GB'}" if key in ("value", "formula") and \
                rng.random() < 0.5 else ""
            lines.append(f"  {name}: {{{key}: {value}{extra}}}")
        names.append(name)
    if rng.random() < 0.3:
        lines.append("checks:")
        lines.append(f"  ok: {_expression(rng, names)}")
    if names and rng.random() < 0.3:
        axis = rng.choice(names)
        values = rng.choice(["[1, 2]", "{from: 1, to: 8, times: 2}", "{from: 1, to: 1e400, step: 1}", "[]",
                             "{from: 1 GB, to: 2 GB, count: 3}", "abc", "[1 GB, 2 s]"])
        show = ", ".join(rng.sample(names, min(len(names), rng.randint(0, 3))))
        lines += ["sweeps:", "  s:", f"    vary: {{{axis}: {values}}}", f"    show: [{show}]"]
    if names and rng.random() < 0.2:
        lines += ["solve:", "  g:", f"    vary: {rng.choice(names)}", f"    goal: {rng.choice(names)} == "
                  f"{_literal(rng)}", f"    between: [{_literal(rng)}, {_literal(rng)}]"]
    if names and rng.random() < 0.2:
        lines += ["choose:", "  best:", f"    vary: {{{rng.choice(names)}: [1, 2, 4]}}",
                  f"    require: [{_expression(rng, names)}]", f"    minimize: {rng.choice(names)}"]
    if names and rng.random() < 0.3:
        lines.append("expect:")
        lines.append(f"  {rng.choice(names)}: {rng.choice([_literal(rng), 'abc', '1 GB ± 3%', '#NUM', '1e400'])}")
    if rng.random() < 0.15:
        lines.append("samples: " + rng.choice(["100", "{count: abc}", "{seed: -1}", "{count: 10, seed: 2}", ".inf",
                                                "0", "{count: 1e30}"]))
    if rng.random() < 0.1:
        lines.insert(0, "use: {hw: " + rng.choice(["../nope.yaml", "/etc/passwd", "sheet.yaml", "{}"]) + "}")
    return "\n".join(lines) + "\n"


def tame_sheet(rng: random.Random) -> str:
    """A sheet that mostly checks (dimensionless arithmetic over earlier cells), so that evaluation,
    sweeps, solves and outputs are reached, with the odd extreme number."""
    names: list[str] = []
    lines = ["cells:"]
    for i in range(rng.randint(2, 8)):
        name = f"v{i}"
        if not names or rng.random() < 0.35:
            lines.append(f"  {name}: {rng.choice(['1', '2', '8', '0.5', '3', '0', '1e300', '1e-300', '-2'])}")
        else:
            a, b = rng.choice(names), rng.choice(names)
            formula = rng.choice([f"{a} + {b}", f"{a} * {b}", f"{a} / {b}", f"{a} - {b}", f"{a} ^ {b}",
                                  f"min({a}, {b})", f"sqrt({a})", f"ln({a})", f"ceil({a})", f"{a} * 1 GB",
                                  f"if({a} > {b}, {a}, {b})", f"exp({a})", f"uniform({a}, {b})",
                                  f"poisson({a})", f"sum(range({rng.choice(['3', '1e6', '0', '-1'])}))"])
            lines.append(f"  {name}: = {formula}")
        names.append(name)
    first, last = names[0], names[-1]
    lines += ["sweeps:", "  s:", f"    vary: {{{first}: [1, 2, 4]}}", f"    show: [{last}, {first}]"]
    if rng.random() < 0.3:  # a goal without a root makes the sheet invalid: not every time
        lines += ["solve:", "  g:", f"    vary: {first}", f"    goal: {last} == 4", "    between: [0.1, 100]"]
    lines += ["choose:", "  best:", f"    vary: {{{first}: [1, 2, 4]}}", f"    require: [{last} > 0]",
              f"    minimize: {last}"]
    if rng.random() < 0.5:
        lines += ["expect:", f"  {last}: {rng.choice(['1', '2 ± 1%', '#DIV/0', 'true', '1e400', 'abc'])}"]
    return "\n".join(lines) + "\n"


def mutated_sheet(rng: random.Random, corpus: list[str]) -> str:
    text = rng.choice(corpus)
    for _ in range(rng.randint(1, 6)):
        if not text:
            break
        i = rng.randrange(len(text))
        roll = rng.random()
        if roll < 0.25:
            text = text[:i] + text[i + rng.randint(1, 20):]
        elif roll < 0.45:
            j = min(len(text), i + rng.randint(1, 40))
            text = text[:i] + text[i:j] * rng.randint(2, 3) + text[j:]
        elif roll < 0.7:
            text = text[:i] + rng.choice(HOSTILE_TOKENS + NUMBERS + UNITS) + text[i:]
        elif roll < 0.85:
            lines = text.splitlines()
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines) + "\n"
        else:
            text = text[:i] + chr(rng.choice([0x0d, 0x09, 0x20, 0x3a, 0x2d, 0x3d, 0xa0, 0x2028])) + text[i + 1:]
    return text


def hostile_sheet(rng: random.Random) -> str:
    return rng.choice([
        "cells:\n  a: " + "9" * rng.choice([309, 400, 4301, 5000]) + "\n",
        "cells:\n  base: &x {value: 1 GB}\n  b:\n    <<: *x\n",
        "cells:\n  1: 2\n  true: 3\n",
        "cells:\n  a: !!python/object/apply:os.system [echo hi]\n",
        "cells:\r  a: [1, 2\r",
        "cells:\n  a: " + "[" * 200 + "1" + "]" * 200 + "\n",
        "cells:\n  a: = " + "(" * 300 + "1" + ")" * 300 + "\n",
        "cells:\n  a: = " + " + ".join(["1"] * 3000) + "\n",
        "cells:\n  a: &a [*a]\n",
        "x: &a [" + ", ".join(["*a"] * 50) + "]\n",
        "cells:\n  a: 1\n  a: 2\n",
        "\ufeffcells:\n  a: 1\n",
        "cells: [1, 2]\n",
        "- 1\n- 2\n",
        "",
        "cells:\n  a: = 1e308 * 10\n  b: = a - a\n",
        "cells:\n  a: = poisson(1e30)\n  b: = binomial(1e30, 0.5)\n  c: = routing_loads(1e400, 1, 1, 1)\n",
        "cells:\n  a: = range(1e9)\n",
        "cells:\n  a: 1 GB^1e400\n",
        "cells:\n  a: {value: true, unit: s}\n",
        "samples: {count: .inf}\ncells:\n  a: = uniform(1, 2)\n",
        "cells:\n  a: 1\nexpect: {a: 1e400}\n",
        "\x00\x01\x02",
        "cells:\n  a: \"\\x00\"\n",
    ])


def command_lines(rng: random.Random, path: str, text: str, other: str) -> list[list[str]]:
    """Commands to run on one sheet: always check, then a few others with generated arguments."""
    import re
    names = re.findall(r"^  ([A-Za-z_]\w*):", text, re.M) or ["a"]
    cell = rng.choice(names)
    value = _literal(rng)
    options = [
        ["run", path], ["test", "-q", path], ["run", path, "--format", rng.choice(["json", "csv", "markdown"])],
        ["explain", path, cell], ["run", path, "--set", f"{cell}={value}"],
        ["sweep", path, "--vary", f"{cell}={rng.choice(['1,2', '1..4', '1..8*2', value + ',' + value, ','])}",
         "--format", rng.choice(["csv", "json", "text"]), "--max-rows", "1000"],
        ["sweep", path, "s", "--format", "csv", "--max-rows", "1000"],
        ["sweep", path, "--vary", f"{cell}=1,2", "--show", ",".join(rng.sample(names, min(len(names), 2)) * 2)],
        ["solve", path, "--vary", cell, "--goal", f"{rng.choice(names)} == {value}", "--between",
         f"{_literal(rng)},{_literal(rng)}"],
        ["solve", path, "g"], ["choose", path, "best"], ["diff", other, path, "--format", "json"],
        ["textconv", path], ["run", path, "--samples", rng.choice(["10", "0", "-1"]), "--seed",
                             rng.choice(["0", "-1", "3"])],
    ]
    return [["check", path]] + rng.sample(options, 3)


def calc_lines(rng: random.Random) -> list[list[str]]:
    expression = _expression(rng, [])
    if rng.random() < 0.3:
        expression += f" -> {rng.choice(UNITS).strip() or 'GiB'}"
    return [["calc", expression]]


# -- running ----------------------------------------------------------------------
class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # noqa: ANN001
    raise _Timeout


def run_command(argv: list[str], seconds: int) -> tuple[int | str, str]:
    """Run `supersheet ARGV` in-process: (exit code or 'timeout', stdout + stderr)."""
    from supersheet.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code: int | str = main(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except _Timeout:
        code = "timeout"
    except BaseException as e:  # noqa: BLE001 - an escape from main() is itself a finding
        code = f"raised {type(e).__name__}"
        err.write(f"{type(e).__name__}: {e}")
    finally:
        signal.alarm(0)
    return code, out.getvalue() + err.getvalue()


# What a message or a value must never show: a Python repr (a dict, an internal object) or
# a float that is not a number (overflow and NaN are the error value #NUM).
_INTERNALS = re.compile(r"\{'[^']*': |\b(?:ErrorValue|PosixPath|Decimal)\(|<supersheet\.|\bnan\b|\binf\b"
                        r"|\bInfinity\b|\bNaN\b")
_SOURCE_LINE = re.compile(r"^\s*(?:\d+ )?\|")   # a diagnostic's quoted source line and its caret line


def shows_internals(output: str, text: str) -> bool:
    """A line of output (not a quoted line of the sheet) with a Python repr or inf/nan."""
    for line in output.splitlines():
        if _SOURCE_LINE.match(line) or not _INTERNALS.search(line):
            continue
        found = _INTERNALS.search(line).group(0)   # type: ignore[union-attr]
        if found.strip("{': ") and found in text:   # the sheet's own words (a cell named nan), echoed
            continue
        return True
    return False


def campaign(cases: int, seed: int, seconds: int = 20, save: Path | None = None, quiet: bool = False) -> Outcome:
    os.environ.pop("SUPERSHEET_DEBUG", None)
    rng = random.Random(seed)
    outcome = Outcome()
    with tempfile.TemporaryDirectory(prefix="supersheet-fuzz-") as folder:
        base = Path(folder) / "sheets" / "supernodes"   # beside a copy of the library: imports resolve
        shutil.copytree(ROOT / "sheets", Path(folder) / "sheets")
        corpus = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "sheets").rglob("*.yaml"))
                  if p.parent.name in ("supernodes", "questions")]
        other = base / "other.yaml"
        other.write_text("cells:\n  a: 1\n", encoding="utf-8")
        for i in range(cases):
            kind = i % 5
            if kind == 3:
                runs, text = calc_lines(rng), ""
            else:
                text = (generated_sheet(rng) if kind == 0 else mutated_sheet(rng, corpus) if kind == 1
                        else hostile_sheet(rng) if kind == 2 else tame_sheet(rng))
                path = base / f"case{i}.yaml"
                path.write_text(text, encoding="utf-8", errors="surrogateescape")
                runs = command_lines(rng, str(path), text, str(other))
            for argv in runs:
                started = time.perf_counter()
                code, output = run_command(argv, seconds)
                took = time.perf_counter() - started
                outcome.commands += 1
                outcome.codes[code] += 1
                if took > outcome.slowest[0]:
                    outcome.slowest = (took, argv)
                if code not in (0, 1, 2) or "internal error" in output or "Traceback" in output \
                        or shows_internals(output, text):
                    outcome.failures.append((text, argv, output))
                    if save is not None:
                        save.mkdir(parents=True, exist_ok=True)
                        (save / f"case{i}.yaml").write_text(text, encoding="utf-8", errors="surrogateescape")
                        (save / f"case{i}.txt").write_text(" ".join(argv) + "\n\n" + output, encoding="utf-8")
            if kind != 3:
                (base / f"case{i}.yaml").unlink(missing_ok=True)
            if not quiet and (i + 1) % 500 == 0:
                print(f"  {i + 1:,} cases, {outcome.commands:,} commands, {len(outcome.failures)} findings",
                      file=sys.stderr)
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=20, help="seconds per command before it counts as 'timeout'")
    parser.add_argument("--save", type=Path, help="write each finding's sheet and output to this folder")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    outcome = campaign(args.cases, args.seed, args.timeout, args.save)
    print(f"{args.cases:,} cases, {outcome.commands:,} commands in {time.perf_counter() - started:.0f} s "
          f"(seed {args.seed}); load average {os.getloadavg()[0]:.2f}")
    for code, count in sorted(outcome.codes.items(), key=lambda kv: str(kv[0])):
        print(f"  exit {code}: {count:,}")
    print(f"slowest command: {outcome.slowest[0]:.1f} s: supersheet {' '.join(outcome.slowest[1])}")
    print(f"{len(outcome.failures)} internal errors or exit codes outside 0/1/2")
    for text, argv, output in outcome.failures[:20]:
        print("-" * 60)
        print("supersheet " + " ".join(argv))
        print(text[:400])
        print(output[-600:])
    return 1 if outcome.failures else 0


if __name__ == "__main__":
    sys.exit(main())
