"""Shell completion and the man page come from the parser itself (issue 29, item 8)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SUPERSHEET = shutil.which("supersheet", path=str(Path(sys.executable).parent)) or "supersheet"
COMMANDS = ["run", "check", "test", "explain", "calc", "sweep", "solve", "choose", "diff", "edit"]


def complete(words: list[str]) -> list[str]:
    """What bash completes for `words` (the last one being typed) with the generated script."""
    line = " ".join(words)
    script = (f'source <("{SUPERSHEET}" --print-completion bash); COMP_WORDS=({line}); '
              f'COMP_CWORD={len(words) - 1}; COMP_LINE="{line}"; COMP_POINT={len(line)}; '
              '_shtab_supersheet; printf "%s\\n" "${COMPREPLY[@]}"')
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_bash_completes_commands_and_their_options():
    assert complete(["supersheet", "sw"]) == ["sweep"]
    assert complete(["supersheet", "sweep", "--va"]) == ["--vary"]
    assert "--samples" in complete(["supersheet", "run", "--"])


@pytest.mark.parametrize("shell", ["zsh", "tcsh"])
def test_other_shells_get_a_script_naming_every_command(run_cli, shell):
    result = run_cli("--print-completion", shell)
    assert result.code == 0 and all(command in result.out for command in COMMANDS)


def test_the_man_page_lists_every_command_and_its_options(run_cli):
    result = run_cli("--print-manpage")
    assert result.code == 0 and result.out.startswith('.TH SUPERSHEET "1"')
    for command in COMMANDS:
        assert f"supersheet {command}" in result.out.replace("\\-", "-"), command
    assert "--vary AXIS=VALUES" in result.out.replace("\\-", "-")
    if shutil.which("man"):   # it renders
        page = subprocess.run(["man", "-l", "-"], input=result.out, capture_output=True, text=True, timeout=60)
        assert page.returncode == 0 and "SUPERSHEET(1)" in page.stdout
