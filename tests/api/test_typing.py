"""mypy sees the package and its types after an editable install (issue 29, item 6).

setuptools installs this repository editable through an import hook (its package
folders map onto `supersheet.*` names: engine/ is supersheet.engine), which only
the interpreter follows: mypy finds no `supersheet` there. Installed editable in
strict mode (`--config-settings editable_mode=strict`, as README.md says for
type checking) the package is a tree of links on a plain path, which mypy reads,
with `py.typed`. The test makes that install into a fresh venv and runs mypy on
a user's script: it passes, and a wrong use of the API is an error mypy reports."""
from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from repo_paths import REPO

USER_SCRIPT = '''
import pint
import supersheet as ss

sheet = ss.load("sheet.yaml")
total: pint.Quantity = sheet.quantity("weights") + ss.registry().Quantity(10, "GB")
result = sheet.sweep(tp=[1, 2])
units: dict[str, str] = dict(result.units)
reveal_type(sheet.quantity("weights"))
reveal_type(result.frame)
'''


@pytest.fixture(scope="module")
def strict_editable_install(tmp_path_factory) -> Path:
    """A venv with this repository installed editable in strict mode (its dependencies from ours)."""
    venv = tmp_path_factory.mktemp("typed") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                              "-e", str(REPO), "--config-settings", "editable_mode=strict"],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr
    return python


def mypy(python: Path, folder: Path, script: str) -> subprocess.CompletedProcess:
    (folder / "user.py").write_text(script, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "mypy", "--python-executable", str(python), "--cache-dir",
                           str(folder / ".mypy_cache"), "user.py"], cwd=folder, capture_output=True, text=True,
                          timeout=600)


def test_mypy_reads_the_types_of_a_strict_editable_install(strict_editable_install, tmp_path):
    assert (REPO / "supersheet" / "py.typed").is_file()
    checked = mypy(strict_editable_install, tmp_path, USER_SCRIPT)
    assert checked.returncode == 0, checked.stdout
    assert 'Revealed type is "pint' in checked.stdout and "Quantity" in checked.stdout
    assert 'Revealed type is "polars.dataframe.frame.DataFrame"' in checked.stdout
    wrong = mypy(strict_editable_install, tmp_path, USER_SCRIPT + 'sheet.quantity(3)\nresult.frame.no_such\n')
    assert wrong.returncode == 1
    assert 'Argument 1 to "quantity" of "Sheet" has incompatible type "int"' in wrong.stdout
    assert '"DataFrame" has no attribute "no_such"' in wrong.stdout
