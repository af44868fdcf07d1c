"""The one-time move of `engine/` into stage folders (issue 17), kept as a tool
so that a branch started before the move can be brought across it.

    python tools/restructure.py            # rewrite old-style imports in every .py file
    python tools/restructure.py FILE ...   # only these files
    python tools/restructure.py --move     # the move itself (done once, on main)

Rewriting is idempotent: after the move, every import of the old flat layout
(`from .sweep import …` inside engine/, `from engine.sweep import …`,
`from units import …`, `"engine.cli"` in a string) is spelled with the new
absolute name (`supersheet.engine.scenarios.sweep`, `supersheet.units`,
`supersheet.cli.main`). Files already in the new spelling are left alone.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# old module (flat engine/) -> new module, folder by folder, lowest stage first.
STAGES: dict[str, list[str]] = {
    "supersheet.engine.base": ["span", "diagnostics", "limits", "gcpause", "sheetroot", "types"],
    "supersheet.engine.formula": ["ast", "lexer", "parser", "functions", "distributions"],
    "supersheet.engine.load": ["sheet", "model", "fastyaml", "yamlguard", "yamltags"],
    "supersheet.engine.check": ["check", "check_calls", "graph", "display_family", "reductions"],
    "supersheet.engine.compile": ["compile", "compile_calls", "values", "evaluate", "scalar"],
    "supersheet.engine": ["workbook"],
    "supersheet.engine.present": ["present", "report"],
    "supersheet.engine.expect": ["expect", "assume"],
    "supersheet.engine.scenarios": ["axes", "grid", "sweep", "sweep_parts", "solve", "choice_tally", "uncertainty",
                                    "expression", "output", "sheetbundle", "on_ray", "sweep_ray", "sample_ray",
                                    "choice_ray"],
    "supersheet.engine.verify": ["testing", "blocks", "failing"],
    "supersheet.engine.diff": ["diff", "diffview", "compare", "gitrev"],
}
# Modules that leave the engine, some under a shorter name in their new package.
RENAMED: dict[str, str] = {
    "cli": "supersheet.cli.main",
    "cli_batch": "supersheet.cli.batch",
    "cli_compare": "supersheet.cli.versions",
    "cli_support": "supersheet.cli.support",
    "calc": "supersheet.calc",
    "edit": "supersheet.editor.document",
    "editcells": "supersheet.editor.cells",
    "editdiff": "supersheet.editor.baselines",
    "editmerge": "supersheet.editor.merge",
    "editrename": "supersheet.editor.rename",
    "editsample": "supersheet.editor.sample",
    "editsweep": "supersheet.editor.sweep",
    "history": "supersheet.editor.history",
    "sections": "supersheet.editor.sections",
    "cellwrite": "supersheet.editor.cellwrite",
    "roundtrip": "supersheet.editor.roundtrip",
    "safesave": "supersheet.editor.safesave",
}
# Modules of the flat layout deleted since the move: an import of one is left as it is
# and reported with what replaced it (mapping it to a module that does not exist
# would turn a clear ImportError into a confusing one).
GONE: dict[str, str] = {
    "rawtext": "raw_text(sheet, node, key) is Positions(sheet.file, lines).written(node, key) in "
               "supersheet.engine.load.positions; sweeps/solve/choose/expect are typed specs "
               "(supersheet.engine.load.specs) that keep their text as written",
}
NEW: dict[str, str] = {old: f"{package}.{old}" for package, olds in STAGES.items() for old in olds} | RENAMED
# The folders of the new packages in the repository (pyproject.toml maps them).
FOLDERS = {"supersheet.engine": "engine", "supersheet.cli": "cli", "supersheet.editor": "editor",
           "supersheet.units": "units", "supersheet.tui": "tui",
           "supersheet": "supersheet"}   # the Python API's own modules (calc), last: the others are inside it


def path_of(module: str) -> Path:
    for package, folder in FOLDERS.items():
        if module.startswith(package + "."):
            return Path(folder, *module[len(package) + 1:].split(".")).with_suffix(".py")
    raise ValueError(module)


def new_name(old: str) -> str | None:
    """`engine.sweep` / `units.parse` / `tui.app` -> the new absolute name."""
    head, _, rest = old.partition(".")
    if head == "engine" and rest:
        base, _, attr = rest.partition(".")
        return NEW[base] + (f".{attr}" if attr else "") if base in NEW else None
    if head in ("units", "tui"):
        return f"supersheet.{old}"
    return None


FROM = re.compile(r"^(?P<indent>\s*)from (?P<module>\.+[\w.]*|(?:engine|units|tui)\b[\w.]*) import (?P<names>.*)$")
IMPORT = re.compile(r"^(?P<indent>\s*)import (?P<module>(?:engine|units|tui)\b[\w.]*)(?P<alias> as \w+)?\s*$")
STRING = re.compile(r"""(?P<quote>["'])(?P<module>(?:engine|units|tui)\.[a-z_][\w.]*)(?P=quote)""")


def rewrite_line(line: str, flat: bool) -> str:
    match = FROM.match(line)
    if match:
        indent, module, names = match["indent"], match["module"], match["names"]
        if module.startswith("."):
            if not flat or module.startswith(".."):
                return line
            module = "engine" + module if module != "." else "engine"
        if module == "engine":               # from . import a as A, b
            if names.startswith("("):
                return line
            parts = []
            for item in (n.strip() for n in names.split(",")):
                name, _, alias = item.partition(" as ")
                new = NEW.get(name.strip())
                if new is None:
                    return line
                package, _, base = new.rpartition(".")
                local = alias.strip() or name.strip()
                parts.append(f"{indent}from {package} import {base}" + (f" as {local}" if local != base else ""))
            return "\n".join(parts)
        new = new_name(module)
        return f"{indent}from {new} import {names}" if new else line
    match = IMPORT.match(line)
    if match:
        new = new_name(match["module"])
        if new:
            return f"{match['indent']}import {new}{match['alias'] or ''}"
        return line

    def string(m: re.Match) -> str:
        module = m["module"]
        for cut in range(module.count(".") + 1, 0, -1):      # longest module prefix that maps
            head = ".".join(module.split(".")[:cut])
            new = new_name(head)
            if new:
                tail = module[len(head):]
                return f"{m['quote']}{new}{tail}{m['quote']}"
        return m.group(0)
    return STRING.sub(string, line)


def gone_import(line: str, flat: bool) -> str | None:
    """The deleted module (in GONE) that `line` imports, if any."""
    match = FROM.match(line) or IMPORT.match(line)
    if match is None:
        return None
    module = match["module"]
    if module.startswith("."):
        if not flat or module.startswith(".."):
            return None
        module = "engine." + module[1:] if module != "." else "engine"
    if module == "engine" and "names" in match.groupdict():     # from engine import rawtext
        module = match["names"].split(",")[0].strip().split(" ")[0]
    elif module.startswith("engine."):
        module = module[len("engine."):]
    return module.split(".")[0] if module.split(".")[0] in GONE else None


def rewrite(path: Path) -> bool:
    text = path.read_text()
    relative = path.resolve().relative_to(REPO)
    flat = relative.parts[0] in ("engine", "cli", "editor")
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        gone = gone_import(line, flat)
        if gone is not None:
            print(f"{relative}:{number}: engine.{gone} no longer exists: {GONE[gone]}", file=sys.stderr)
    new = "\n".join(rewrite_line(line, flat) for line in lines)
    if new != text:
        path.write_text(new)
        return True
    return False


def python_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [REPO / p for p in out.split() if p != "tools/restructure.py" and (REPO / p).exists()]


def move() -> None:
    for old, new in NEW.items():
        source, target = REPO / "engine" / f"{old}.py", REPO / path_of(new)
        if source.exists() and source != target:
            target.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "mv", str(source), str(target)], cwd=REPO, check=True)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--move"]:
        move()
        argv = []
    files = [Path(a).resolve() for a in argv] or python_files()
    changed = [f for f in files if rewrite(f)]
    for f in changed:
        print(f.relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
