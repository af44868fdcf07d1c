"""The project a sheet belongs to (format 10.2) and the libraries it may name (10.1).

A sheet's *project root* is the nearest folder at or above it that holds a
`supersheet.toml`; without one, the git work tree it is in; without one, the
current directory if the sheet lies inside it; otherwise the sheet's own
folder. Imports may read files under the root and in the libraries (the
confinement of sheetroot.py).

A path in `use:`, `extends:`, an import axis or a command line may start with
a library name and a colon: `supersheet:hardware/h100-sxm.yaml` is that file
of the library bundled with supersheet, found through `importlib.resources`
(an editable install, a wheel, a zip), never by arithmetic on `__file__`. A
project's `supersheet.toml` adds names:

    allow = ["../reference"]          # more folders imports may read
    max-cells = 50000                 # defaults for the --max-... load limits
    [libraries]
    team = "../capacity-sheets"       # team:models/x.yaml, relative to this file

The file is read with `tomllib` (no code runs); what it says wrong is a
`ProjectProblem` located in it, reported by the loader like any diagnostic.
"""
from __future__ import annotations

import os
import re
import stat
import threading
import importlib.util
from importlib.machinery import SourceFileLoader, SourcelessFileLoader
from dataclasses import dataclass, field, fields
from pathlib import Path

from supersheet.engine.base.limits import Limits

CONFIG = "supersheet.toml"
BUNDLED = "supersheet"             # the name of the library bundled with supersheet
# Two or more characters, so a Windows drive (`C:`) is never a library name.
_NAMED = re.compile(r"(?P<name>[a-z][a-z0-9_-]+):(?P<rest>(?!//).*)\Z", re.DOTALL)
_CONFIG_LIMIT = 100_000            # bytes of a supersheet.toml
LIMIT_KEYS = {f.name.replace("_", "-"): f.name for f in fields(Limits)}

_lock = threading.Lock()
_bundled: Path | None = None
_configs: dict[Path, tuple[tuple[int, int], "Config"]] = {}   # supersheet.toml -> (its stat, what it says)
# A revision or a bundle materialised in a temporary folder -> the work tree it copies, and the
# libraries its sheets name when they are given (a Ray worker's copy of the driver's files).
_trees: dict[Path, tuple[Path, dict[str, Path] | None]] = {}


@dataclass(frozen=True)
class ProjectProblem:
    """Something wrong in a supersheet.toml, at a 1-based line (0: the whole file)."""
    file: Path
    line: int
    message: str
    hint: str | None = None


@dataclass(frozen=True)
class Config:
    """What a supersheet.toml says, its relative folders resolved against its own folder."""
    libraries: dict[str, Path] = field(default_factory=dict)
    allow: tuple[Path, ...] = ()
    limits: dict[str, int] = field(default_factory=dict)
    problems: tuple[ProjectProblem, ...] = ()


@dataclass(frozen=True)
class Project:
    """The project of a sheet: its root, its supersheet.toml (if any) and the libraries it may name."""
    root: Path
    config_file: Path | None
    libraries: dict[str, Path]        # name -> folder, the bundled library first
    allow: tuple[Path, ...] = ()
    limits: dict[str, int] = field(default_factory=dict)
    problems: tuple[ProjectProblem, ...] = ()

    def locate(self, written: str, base_dir: Path) -> Path:
        """The file an import path names: a library file for `name:PATH`, else `written`
        relative to `base_dir` (the folder of the file that writes it). UnknownLibrary
        for a name no library has."""
        named = library_name(written)
        if named is None:
            return Path(written) if Path(written).is_absolute() else base_dir / written
        name, rest = named
        folder = self.libraries.get(name)
        if folder is None:
            raise UnknownLibrary(name, sorted(self.libraries))
        return folder / rest


class UnknownLibrary(ValueError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"no library is named {name!r}")
        self.name, self.known = name, known

    @property
    def hint(self) -> str:
        return (f"the libraries known here are {', '.join(k + ':' for k in self.known)}; "
                f"a project names more in its {CONFIG} ([libraries] {self.name} = \"FOLDER\")")


def library_name(written: str) -> tuple[str, str] | None:
    """(name, path within the library) when `written` starts with a library name, else None."""
    match = _NAMED.match(written)
    return (match["name"], match["rest"]) if match else None


def bundled_library() -> Path:
    """The folder of the library bundled with supersheet (`supersheet:`), found through
    importlib.resources; a library inside a zip is copied out once per process."""
    global _bundled
    with _lock:
        if _bundled is None:
            _bundled = _files_folder(LIBRARY_PACKAGE)
            if _bundled is None:
                from importlib.resources import files   # deferred: importlib.resources, tempfile, zipfile
                library = files(LIBRARY_PACKAGE)
                _bundled = Path(os.path.realpath(library)) if isinstance(library, Path) else _materialised(library)
        return _bundled


def in_installed_library(path: str | Path) -> bool:
    """Whether `path` is a file of the bundled library as installed with the package (a wheel's
    files in site-packages, read by every project of this Python), not of a checkout's `sheets/`
    (which its developers edit). Its project root may still be a user's: a virtual environment
    inside a project with a supersheet.toml puts the library under that project's root."""
    import site   # deferred: site's user folder, only asked to refuse a save
    import sysconfig   # deferred: sysconfig (~1 ms), only asked to refuse a save
    library = bundled_library()
    installed = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), site.getusersitepackages()}
    if not any(library.is_relative_to(os.path.realpath(folder)) for folder in installed if folder):
        return False
    return Path(os.path.realpath(path)).is_relative_to(library)


LIBRARY_PACKAGE = "supersheet.sheets"


def _files_folder(package: str) -> Path | None:
    """What `importlib.resources.files(package)` gives (real) for a package of plain files, which
    every install but a zipped one is: the folder its importer read it from (FileReader's). None
    for any other importer. Importing importlib.resources (with tempfile and zipfile) was ~5 ms
    CPU of every command's start."""
    spec = importlib.util.find_spec(package)
    loader = spec.loader if spec is not None else None
    if not isinstance(loader, (SourceFileLoader, SourcelessFileLoader)):
        return None
    return Path(os.path.realpath(Path(loader.path).parent))


def _materialised(library) -> Path:
    """A copy on disk of a library that is not a folder (a zipped install): imports and
    diagnostics work on files. Removed when the process ends."""
    import atexit, shutil, tempfile   # deferred: tempfile, shutil (~3 ms at every start): a zipped install only
    folder = Path(tempfile.mkdtemp(prefix="supersheet-library-"))
    atexit.register(shutil.rmtree, folder, True)

    def copy(node, into: Path) -> None:
        for child in node.iterdir():
            if child.is_dir():
                (into / child.name).mkdir()
                copy(child, into / child.name)
            elif child.name.endswith((".yaml", ".yml", ".md")):
                (into / child.name).write_bytes(child.read_bytes())

    copy(library, folder)
    return Path(os.path.realpath(folder))


def register_tree(folder: Path, origin: Path | None = None, libraries: dict[str, Path] | None = None) -> None:
    """A revision materialised under `folder` (diff --rev, textconv): its sheets are rooted
    there, and a library its supersheet.toml names outside it is read from `origin`'s.
    `libraries` (a worker's copy of the driver's files) replace the libraries found here."""
    with _lock:
        _trees[_real(folder)] = (_real(origin) if origin is not None else _real(folder),
                                 {name: _real(path) for name, path in libraries.items()} if libraries else None)


def unregister_tree(folder: Path) -> None:
    with _lock:
        _trees.pop(_real(folder), None)


def project_for(sheet: Path, cwd: Path | None = None) -> Project:
    """The project of `sheet` (the sheet named on the command line or opened in the editor)."""
    sheet = _real(sheet)
    folder = sheet.parent
    with _lock:
        found = next(((t, o) for t, o in sorted(_trees.items()) if sheet.is_relative_to(t)), None)
    tree = (found[0], found[1][0]) if found else None
    given = found[1][1] if found else None
    top = tree[0] if tree else None
    config_file, work_tree = _walk_up(folder, top)
    if config_file is not None:
        root = config_file.parent
    elif top is not None:
        root = top
    else:
        here = _real(cwd or Path.cwd()) if work_tree is None else None
        root = work_tree or (here if here is not None and sheet.is_relative_to(here) else folder)
    config = _config(config_file, tree) if config_file is not None else Config()
    libraries = dict(given) if given is not None else {BUNDLED: bundled_library(), **config.libraries}
    return Project(root, config_file, libraries, config.allow, config.limits, config.problems)


def shown_path(path: str | Path) -> str:
    """How outputs name a file: a file of the bundled library by its library name
    (`supersheet:hardware/h100-sxm.yaml`), never by where it is installed, unless it is
    written relative to the current folder and inside it (the library of a checkout, as
    its developer names it); anything else as given."""
    text = str(path)
    if not text or library_name(text) is not None:
        return text
    if not os.path.isabs(text) and not os.path.normpath(text).startswith(".."):
        return text
    library = bundled_library()
    real = _real(Path(text))
    if not real.is_relative_to(library):
        return text
    return f"{BUNDLED}:{real.relative_to(library).as_posix()}"


def _walk_up(folder: Path, top: Path | None) -> tuple[Path | None, Path | None]:
    """The nearest supersheet.toml at or above `folder` (not above `top`), and the nearest git
    work tree, in one walk of plain stats (this runs on every load)."""
    config = work_tree = None
    for candidate in (folder, *folder.parents):
        text = str(candidate)
        try:
            if stat.S_ISREG(os.stat(os.path.join(text, CONFIG)).st_mode):
                config = candidate / CONFIG
                break
        except OSError:
            pass
        if work_tree is None and os.path.lexists(os.path.join(text, ".git")):
            work_tree = candidate
        if top is not None and candidate == top:
            break
    return config, work_tree


def _config(path: Path, tree: tuple[Path, Path] | None) -> Config:
    try:
        st = os.stat(path)
    except OSError as e:
        return Config(problems=(ProjectProblem(path, 0, f"cannot read {path}: {e.strerror or e}"),))
    stamp = (st.st_mtime_ns, st.st_size)
    with _lock:
        cached = _configs.get(path)
    if cached is not None and cached[0] == stamp and tree is None:
        return cached[1]
    config = read_config(path, tree)
    if tree is None:
        with _lock:
            _configs[path] = (stamp, config)
    return config


def read_config(path: Path, tree: tuple[Path, Path] | None = None) -> Config:
    """What the supersheet.toml at `path` says. In a materialised revision (`tree`: its
    folder and the work tree it copies) a folder outside the copy is the work tree's."""
    import tomllib    # deferred: tomllib: only a project with a supersheet.toml reads one
    try:
        if not path.is_file() or path.stat().st_size > _CONFIG_LIMIT:
            raise ValueError(f"{path} is not a regular file of at most {_CONFIG_LIMIT:,} bytes")
        text = path.read_bytes().decode("utf-8")
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        line = re.search(r"at line (\d+)", str(e))
        return Config(problems=(ProjectProblem(path, int(line[1]) if line else 0, f"not valid TOML: {e}"),))
    except UnicodeDecodeError:
        return Config(problems=(ProjectProblem(path, 0, f"{path} is not UTF-8 text"),))
    except (OSError, ValueError) as e:
        return Config(problems=(ProjectProblem(path, 0, str(e)),))
    lines = text.splitlines()
    problems: list[ProjectProblem] = []

    def line_of(key: str) -> int:
        pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
        return next((i + 1 for i, t in enumerate(lines) if pattern.match(t)), 0)

    def folder(value: str) -> Path:
        resolved = _real(path.parent / value)
        if tree is not None and not resolved.is_relative_to(tree[0]):
            resolved = _real(tree[1] / path.parent.relative_to(tree[0]) / value)
        return resolved

    libraries: dict[str, Path] = {}
    allow: list[Path] = []
    limits: dict[str, int] = {}
    known = ["libraries", "allow", *LIMIT_KEYS]
    for key, value in document.items():
        if key == "libraries" and isinstance(value, dict):
            for name, where in value.items():
                if not re.fullmatch(r"[a-z][a-z0-9_-]+", name):
                    problems.append(ProjectProblem(path, line_of(name), f"{name!r} is not a library name",
                                                   "a library name is two or more of a-z 0-9 _ - "
                                                   "starting with a letter"))
                elif name == BUNDLED:
                    problems.append(ProjectProblem(path, line_of(name), f"{BUNDLED!r} names the bundled library "
                                                   "and cannot be given another folder", "choose another name"))
                elif not isinstance(where, str):
                    problems.append(ProjectProblem(path, line_of(name), f"library {name} must be a folder "
                                                   f"(a string), not {where!r}"))
                else:
                    libraries[name] = folder(where)
                    if not libraries[name].is_dir():
                        problems.append(ProjectProblem(path, line_of(name), f"library {name}: {where} is not "
                                                       f"a folder (looked for {libraries[name]})"))
        elif key == "allow" and isinstance(value, list) and all(isinstance(v, str) for v in value):
            allow.extend(folder(v) for v in value)
        elif key in LIMIT_KEYS and isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            limits[LIMIT_KEYS[key]] = value
        elif key in known:
            shape = ("a table of NAME = \"FOLDER\"" if key == "libraries" else "a list of folders"
                     if key == "allow" else "a whole number of at least 1")
            problems.append(ProjectProblem(path, line_of(key), f"{key} must be {shape}, not {value!r}"))
        else:
            import difflib   # deferred: difflib (~1 ms at every start): only a misspelt key needs it
            close = difflib.get_close_matches(key, known, n=1)
            problems.append(ProjectProblem(path, line_of(key), f"unknown key {key!r} in {CONFIG}",
                                           f"did you mean {close[0]}?" if close else f"the keys are {', '.join(known)}"))
    return Config(libraries, tuple(allow), limits, tuple(problems))


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(os.path.abspath(path))
