"""Fuzz the `supersheet` command: generated, mutated and hostile sheets and
command lines, run in-process, counted by exit code.

The promise under test: whatever the input, the command ends with 0, 1 or 2
and a message, never `internal error` (exit 70) or a traceback, and no output
line shows a Python repr (`{'a': 1}`, `ErrorValue(...)`) or `inf`/`nan` as a value. Every other
outcome is printed with the input that caused it (and saved with --save DIR).

    .venv/bin/python tools/fuzz.py --cases 10000 --seed 1    # the full campaign
    .venv/bin/python tools/fuzz.py --cases 200 --seed 7      # a quick look
    .venv/bin/python tools/fuzz.py --cases 14000 --seed 28 --only safety   # issue 28's classes alone

`kill -USR1 PID` ends a long campaign after the case at hand and prints its figures so far.

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

A sixth kind, *safety* (issue 28), attacks what the commands do to the files
around them, in turn over ten classes: output targets (`-o` onto a device, a
FIFO, a socket, a folder, a read-only file, a link to a device), long names,
huge integers (axes, solves, choices, `expect`, `--set`, `--vary`),
`--allow-path` (empty, blank), textconv of files that are not sheets (with a
secret in them), sheets named like options through the git drivers' `--`,
`diff --rev` of a repository with blobs around `--max-file-size`, Ray
addresses (empty, malformed, closed ports, `auto` with no cluster), and
message lengths (names and values of thousands of characters). Besides the
exit code, each run is checked for what it must not do: no special file
replaced or written (0 non-regular files written), a read-only file replaced
only with --force, no temporary file left behind, no secret of a non-sheet
printed, no blob over the limit read, no Ray address taking longer than
its --connect-timeout, no message over 4,000 characters.
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
    safety: Counter = field(default_factory=Counter)    # safety runs per class
    nonregular: int = 0                                 # special files replaced or written: must stay 0
    cases: int = 0                                      # cases run (fewer than asked when stopped by SIGUSR1)


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


# -- safety (issue 28) -------------------------------------------------------------
SAFETY_CLASSES = ["outputs", "long names", "huge integers", "allow-path", "textconv", "git names", "diff --rev",
                  "ray addresses", "message lengths", "outputs"]
SECRET = "SECRET-d41d8cd98f"
MESSAGE_BOUND = 4_000
SMALL_SWEEP = ("cells:\n  a: 1\n  b: = a * 2\nsweeps:\n  s:\n    vary: {a: [1, 2]}\nsolve:\n  g:\n    vary: a\n"
               "    goal: b == 4\n    between: [0.1, 100]\nchoose:\n  c:\n    vary: {a: [1, 2, 4]}\n    minimize: b\n")


@dataclass
class SafetyRun:
    """One command of a safety case, what it must not do (a check returning the violation, or
    None), and whether its exit must be 2 (a refusal)."""
    argv: list[str]
    check: object = None
    refused: bool = False
    text: str = ""


class Sandbox:
    """The files the safety cases attack: special files beside ordinary ones, a git repository."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True)
        self.sheet = folder / "s.yaml"
        self.sheet.write_text(SMALL_SWEEP, encoding="utf-8")
        self.specials: dict[str, Path] = {}
        self.repo = folder / "repo"
        self._make_specials()
        self._make_repo()

    def _make_specials(self) -> None:
        import socket
        import stat
        os.mkfifo(self.folder / "fifo.csv")
        self.specials["fifo"] = self.folder / "fifo.csv"
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(self.folder / "sock.csv"))
        server.close()
        self.specials["socket"] = self.folder / "sock.csv"
        (self.folder / "dir.csv").mkdir()
        self.specials["directory"] = self.folder / "dir.csv"
        if os.geteuid() == 0:
            os.mknod(self.folder / "dev.csv", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            self.specials["device"] = self.folder / "dev.csv"
            (self.folder / "to-dev.csv").symlink_to(self.folder / "dev.csv")
        self.specials["/dev/null"] = Path("/dev/null")
        self.identity = {name: self._identity(path) for name, path in self.specials.items()}

    @staticmethod
    def _identity(path: Path) -> tuple[int, int, int]:
        st = os.lstat(path)
        return st.st_ino, st.st_mode, st.st_rdev

    def specials_intact(self) -> str | None:
        for name, path in self.specials.items():
            try:
                now = self._identity(path)
            except OSError:
                return f"the {name} {path} is gone"
            if now != self.identity[name]:
                return f"the {name} {path} was replaced"
        return None

    def leftovers(self) -> list[str]:
        return [str(p) for p in self.folder.rglob("*") if re.search(r"\.tmp$|\.partial$|\.old$", p.name)
                and ".git" not in p.parts]

    def _make_repo(self) -> None:
        import subprocess
        repo = self.repo
        repo.mkdir()
        for args in (["init", "-q"], ["config", "user.email", "f@example.com"], ["config", "user.name", "f"]):
            subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True)
        (repo / "--help.yaml").write_text("cells:\n  a: 1\n  b: = a * 2\n", encoding="utf-8")
        (repo / "-o.yaml").write_text("cells:\n  x: 3\n", encoding="utf-8")
        (repo / "base.yaml").write_text("cells:\n  a: 1\n", encoding="utf-8")
        for size in (20_000, 120_000, 400_000):
            (repo / f"blob{size}.yaml").write_text("cells:\n  a: 1\n" + "# pad\n" * (size // 6), encoding="utf-8")
        subprocess.run(["git", "add", "-A"], cwd=repo, capture_output=True, check=True)
        subprocess.run(["git", "commit", "-qm", "one"], cwd=repo, capture_output=True, check=True)
        (repo / "--help.yaml").write_text("cells:\n  a: 2\n  b: = a * 2\n", encoding="utf-8")
        self.blob_sizes = {f"blob{size}.yaml": (repo / f"blob{size}.yaml").stat().st_size
                           for size in (20_000, 120_000, 400_000)}


def _huge(rng: random.Random) -> str:
    return rng.choice(["", "-"]) + "9" * rng.choice([309, 310, 320, 400, 1000, 4299, 4301])


def safety_case(rng: random.Random, box: Sandbox, number: int) -> tuple[str, list[SafetyRun]]:
    """The runs of one safety case of class SAFETY_CLASSES[number % 10] (its name, its runs)."""
    kind = SAFETY_CLASSES[number % len(SAFETY_CLASSES)]
    sheet = str(box.sheet)
    out = box.folder
    if kind == "outputs":
        name = rng.choice(list(box.specials) + ["read-only", "read-only", "link", "new"])
        fmt = rng.choice(["csv", "parquet", "json", "text", "markdown"])
        force = rng.random() < 0.3
        if name == "read-only":
            target = out / f"ro.{fmt}"
            target.unlink(missing_ok=True)
            target.write_text("precious\n", encoding="utf-8")
            target.chmod(0o444)

            def kept(output: str, code: object, target: Path = target, force: bool = force) -> str | None:
                replaced = target.read_text(encoding="utf-8", errors="replace") != "precious\n"
                if replaced != force or oct(target.stat().st_mode & 0o777) != oct(0o444):
                    return f"read-only {target.name}: replaced={replaced} with force={force}"
                return None
            check, refused = kept, not force
        elif name == "link":
            target, check, refused = out / "to-dev.csv", None, (out / "to-dev.csv").is_symlink()
            if not refused:
                target, check = out / "new.csv", None
        elif name == "new":
            target, check, refused = out / f"new.{fmt}", None, False
        else:
            target, check, refused = box.specials[name], None, True
        command = rng.choice([["sweep", sheet, "s"], ["sweep", sheet, "--vary", "a=1..8*2"]])
        return kind, [SafetyRun(command + ["-o", str(target), "--format", fmt] + (["--force"] if force else []),
                                check, refused)]
    if kind == "long names":
        length = rng.choice([200, 250, 255, 256, 300, 1000, 5000])
        stem = rng.choice(["x", "é", "-", "a b", "\u202e"]) * length
        target = out / (stem[:length] + ".csv")
        shown_ok = len(os.fsencode(target.name)) <= 255
        runs = [SafetyRun(["sweep", sheet, "s", "-o", str(target)], None, not shown_ok)]
        runs.append(SafetyRun([rng.choice(["run", "check", "test"]), rng.choice([str(out), "supersheet:hardware"])
                               + "/" + stem[:length] + ".yaml"], None, True))
        return kind, runs
    if kind == "huge integers":
        big = _huge(rng)
        where = rng.choice(["sweep", "solve", "choose", "expect", "set", "vary", "cell", "between"])
        text = SMALL_SWEEP
        argv = ["test", "{path}"]
        if where == "sweep":
            text = text.replace("vary: {a: [1, 2]}", f"vary: {{a: [1, {big}]}}")
            argv = ["sweep", "{path}", "s"]
        elif where == "solve":
            text = text.replace("between: [0.1, 100]", f"between: [0.1, {big}]")
            argv = ["solve", "{path}", "g"]
        elif where == "choose":
            text = text.replace("vary: {a: [1, 2, 4]}", f"vary: {{a: [1, {big}, 4]}}")
            argv = ["choose", "{path}", "c"]
        elif where == "expect":
            text = text.replace("    vary: {a: [1, 2]}\n", f"    vary: {{a: [1, 2]}}\n    expect:\n      b: [2, {big}]\n")
        elif where == "cell":
            text = text.replace("a: 1\n", f"a: {big}\n", 1)
            argv = [rng.choice(["run", "sweep", "check"]), "{path}"] + (["s"] if argv[0] == "sweep" else [])
        elif where == "set":
            argv = ["run", "{path}", "--set", f"a={big}"]
        elif where == "vary":
            argv = ["sweep", "{path}", "--vary", f"a=1,{big}"]
        else:
            argv = ["solve", "{path}", "--vary", "a", "--goal", "b == 4", "--between", f"1,{big}"]
        return kind, [SafetyRun(argv, None, where not in ("expect",), text)]
    if kind == "allow-path":
        value = rng.choice(["", " ", "  ", "\t"])
        command = rng.choice([["check", sheet], ["run", sheet], ["test", sheet], ["sweep", sheet, "s"],
                              ["textconv", sheet], ["explain", sheet, "b"]])
        return kind, [SafetyRun(command + ["--allow-path", value], None, True)]
    if kind == "textconv":
        target = out / rng.choice(["creds.yaml", "notes.yml", "secret.json", "blob.bin"])
        content = rng.choice([
            f"password: {SECRET}\n", f"- {SECRET}\n- two\n", f"{SECRET}\n", f"token: [{SECRET}\n",
            f"a:\n  b: {SECRET}\n", "\x00\x01" + SECRET, f"{SECRET}: {{\n", f"title: [{SECRET}\n", "",
            f"---\n{SECRET}\n...\n",
        ])
        target.write_bytes(content.encode("utf-8", "surrogateescape"))

        def hidden(output: str, code: object, content: str = content) -> str | None:
            lines = [line for line in output.splitlines() if line.strip()]
            if SECRET in output:
                return "the secret of a file that is not a sheet was printed"
            if code == 0 and len(lines) != 1:
                return f"{len(lines)} lines for a file that is not a sheet"
            return None
        return kind, [SafetyRun(["textconv", str(target)], hidden, False)]
    if kind == "git names":
        name = rng.choice(["--help.yaml", "-o.yaml"])
        runs = [SafetyRun(["textconv", "--", str(box.repo / name)]),
                SafetyRun(["diff", "--", str(box.repo / "base.yaml"), str(box.repo / name)])]
        return kind, runs
    if kind == "diff --rev":
        limit = rng.choice([10_000, 50_000, 150_000, 1_000_000])
        return kind, [SafetyRun(["diff", "--rev", "--max-file-size", str(limit), "--format",
                                 rng.choice(["text", "json"])], ("blobs", limit), False)]
    if kind == "ray addresses":
        address = rng.choice(["", " ", "auto", "127.0.0.1:1", "ray://127.0.0.1:1", "[::1]:1", "localhost:9",
                              "host:", ":1", "ray://", "ray://x:99999", "x" * 3000, "127.0.0.1:abc", "a b:1",
                              "ray://127.0.0.1:0", "-1"])
        command = rng.choice([["run", sheet], ["sweep", sheet, "s", "-o", str(out / "ray-out") + "/"],
                              ["choose", sheet, "c"]])
        timeout = rng.choice(["0.5", "2", "10"])
        return kind, [SafetyRun(command + ["--on", "ray", "--address", address, "--connect-timeout", timeout],
                                ("seconds", float(timeout) + 5), True)]
    # message lengths
    long = rng.choice(["n", "é", "\x1b[31m", "'"]) * rng.choice([1000, 5000, 20000])
    command = rng.choice([["run", sheet, "--set", f"{long}=1"], ["run", sheet, "--set", f"a={long}"],
                          ["sweep", sheet, "--vary", f"{long}=1,2"], ["sweep", sheet, long],
                          ["sweep", sheet, "s", "--show", long], ["explain", sheet, long], ["choose", sheet, long],
                          ["solve", sheet, long], ["calc", long], ["diff", "--rev", long],
                          ["solve", sheet, "--vary", "a", "--goal", f"{long} == 1", "--between", "1,2"],
                          ["run", sheet, "--format", long], ["sweep", sheet, "--vary", f"a={long}"]])
    return kind, [SafetyRun(command, None, False)]


def _blob_reads() -> tuple[list[str], object]:
    """Record the blobs `git cat-file blob` reads (restore with the returned original)."""
    from supersheet.engine.diff import gitrev
    read: list[str] = []
    original = gitrev._git

    def recording(args: list[str], cwd: Path) -> bytes:
        if args[:2] == ["cat-file", "blob"]:
            read.append(args[2].partition(":")[2])
        return original(args, cwd)
    gitrev._git = recording
    return read, original


def run_safety(box: Sandbox, run: SafetyRun, seconds: int, outcome: Outcome) -> str | None:
    """Run one safety command; the violation found, or None."""
    from supersheet.engine.diff import gitrev
    from supersheet.engine.scenarios import on_ray
    argv = [a.replace("{path}", str(box.folder / "case.yaml")) for a in run.argv]
    if run.text:
        (box.folder / "case.yaml").write_text(run.text, encoding="utf-8")
    read, original = _blob_reads() if isinstance(run.check, tuple) and run.check[0] == "blobs" else ([], None)
    found_cluster = on_ray._local_cluster
    on_ray._local_cluster = lambda: None      # `auto` finds no cluster (not another process's runtime)
    cwd = os.getcwd()
    if argv[0] == "diff" and "--rev" in argv:
        os.chdir(box.repo)
    started = time.perf_counter()
    try:
        code, output = run_command(argv, seconds)
    finally:
        took = time.perf_counter() - started
        os.chdir(cwd)
        on_ray._local_cluster = found_cluster
        if original is not None:
            gitrev._git = original
    outcome.commands += 1
    outcome.codes[code] += 1
    if took > outcome.slowest[0]:
        outcome.slowest = (took, argv)
    intact = box.specials_intact()
    if intact:
        outcome.nonregular += 1
        return intact
    if code not in (0, 1, 2) or "internal error" in output or "Traceback" in output:
        return f"exit {code}"
    if run.refused and code != 2:
        return f"exit {code} where a refusal (2) was due"
    if len(output) > MESSAGE_BOUND and code == 2:
        return f"a message of {len(output):,} characters"
    left = box.leftovers()
    if left:
        for name in left:
            Path(name).unlink() if Path(name).is_file() else shutil.rmtree(name, ignore_errors=True)
        return f"temporary files left behind: {left}"
    if isinstance(run.check, tuple) and run.check[0] == "blobs":
        over = [b for b in read if box.blob_sizes.get(b, 0) > run.check[1]]
        if over:
            return f"read blobs over --max-file-size {run.check[1]}: {over}"
    elif isinstance(run.check, tuple) and run.check[0] == "seconds":
        if took > run.check[1]:
            return f"took {took:.1f} s"
    elif callable(run.check):
        return run.check(output, code)
    return None


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


KINDS = 6       # generated, mutated, hostile, calc, tame, safety


def campaign(cases: int, seed: int, seconds: int = 20, save: Path | None = None, quiet: bool = False,
             only: str | None = None) -> Outcome:
    """`cases` cases in turn over the kinds (`only="safety"`: the safety classes alone)."""
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
        box = Sandbox(Path(folder) / "safety")   # beside the library's copy, with a git repository of its own
        safety_cases = 0
        stop = []
        if hasattr(signal, "SIGUSR1"):   # `kill -USR1 PID`: finish the case at hand, then report what ran
            signal.signal(signal.SIGUSR1, lambda number, frame: stop.append(number))
        for i in range(cases):
            if stop:
                break
            outcome.cases = i + 1
            kind = 5 if only == "safety" else i % KINDS
            if kind == 5:
                name, runs = safety_case(rng, box, safety_cases)
                safety_cases += 1
                for run in runs:
                    outcome.safety[name] += 1
                    found = run_safety(box, run, seconds, outcome)
                    if found:
                        outcome.failures.append((run.text, run.argv, found))
                        if save is not None:
                            save.mkdir(parents=True, exist_ok=True)
                            (save / f"case{i}.txt").write_text(" ".join(run.argv)[:2000] + "\n\n" + found + "\n\n"
                                                               + run.text, encoding="utf-8", errors="replace")
                if not quiet and (i + 1) % 500 == 0:
                    print(f"  {i + 1:,} cases, {outcome.commands:,} commands, {len(outcome.failures)} findings",
                          file=sys.stderr)
                continue
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
    parser.add_argument("--only", choices=("safety",), help="run only the safety classes (issue 28)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    load = os.getloadavg()[0]
    outcome = campaign(args.cases, args.seed, args.timeout, args.save, only=args.only)
    stopped = f" (stopped by SIGUSR1 after {outcome.cases:,} of {args.cases:,})" if outcome.cases < args.cases else ""
    print(f"{outcome.cases:,} cases{stopped}, {outcome.commands:,} commands in {time.perf_counter() - started:.0f} s "
          f"(seed {args.seed}); load average {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    for code, count in sorted(outcome.codes.items(), key=lambda kv: str(kv[0])):
        print(f"  exit {code}: {count:,}")
    if outcome.safety:
        print("safety runs: " + ", ".join(f"{name} {count:,}" for name, count in sorted(outcome.safety.items())))
    print(f"slowest command: {outcome.slowest[0]:.1f} s: supersheet {' '.join(outcome.slowest[1])[:200]}")
    hangs = outcome.codes.get("timeout", 0)
    print(f"{len(outcome.failures)} findings (internal errors, exit codes outside 0/1/2, safety violations); "
          f"{hangs} hangs; {outcome.nonregular} non-regular files written")
    for text, argv, output in outcome.failures[:20]:
        print("-" * 60)
        print("supersheet " + " ".join(argv)[:400])
        print(text[:400])
        print(output[-600:])
    return 1 if outcome.failures else 0


if __name__ == "__main__":
    sys.exit(main())
