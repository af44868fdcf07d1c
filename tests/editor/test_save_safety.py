"""The editor never loses anyone's work on save (issue 13): a same-size
external rewrite with its modification time restored is seen, a read-only
or hard-linked file is refused with the reason, a deleted file is said to be
deleted and recreated with its mode, temporary files of a killed save are
cleaned up, and one edit changes one line whatever the file's formatting."""
from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from supersheet.editor.document import Document, ExternalChange, FileDeleted, SaveRefused
from supersheet.editor.safesave import STALE_AFTER, remove_stale_temporaries

SHEET = "title: t\ncells:\n  a: 2 GB\n  b: 3 GB\n  total: = a + b\n"


@pytest.fixture
def sheet(tmp_path: Path) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(SHEET, encoding="utf-8")
    return path


def test_a_same_size_rewrite_with_the_mtime_restored_is_not_overwritten(sheet: Path) -> None:
    document = Document(sheet)
    document.apply("a", "5 GB")
    before = sheet.stat()
    theirs = SHEET.replace("b: 3 GB", "b: 4 GB")          # same size
    assert len(theirs) == len(SHEET)
    sheet.write_text(theirs, encoding="utf-8")
    os.utime(sheet, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert sheet.stat().st_size == before.st_size and sheet.stat().st_mtime_ns == before.st_mtime_ns
    with pytest.raises(ExternalChange):
        document.save()
    assert sheet.read_text(encoding="utf-8") == theirs


def test_a_read_only_file_is_refused(sheet: Path) -> None:
    document = Document(sheet)
    document.apply("a", "5 GB")
    sheet.chmod(0o444)
    with pytest.raises(SaveRefused, match="read-only"):
        document.save()
    assert sheet.read_text(encoding="utf-8") == SHEET
    assert stat.S_IMODE(sheet.stat().st_mode) == 0o444


def test_a_hard_linked_file_is_refused_and_the_link_kept(sheet: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-name.yaml"
    os.link(sheet, other)
    document = Document(sheet)
    document.apply("a", "5 GB")
    with pytest.raises(SaveRefused, match="2 hard links"):
        document.save()
    assert sheet.stat().st_ino == other.stat().st_ino and sheet.stat().st_nlink == 2
    assert other.read_text(encoding="utf-8") == SHEET


@pytest.mark.parametrize("installed", [True, False])
def test_a_file_of_the_installed_library_is_refused(tmp_path: Path, monkeypatch, installed: bool) -> None:
    """`supersheet edit` with no sheet opens the running example in the bundled library, which a
    wheel installs in site-packages: Ctrl+S rewrote it there, for every project of that Python
    (`edit supersheet:…` is refused for that reason), and so did an edit of an imported library
    cell when the virtual environment sits inside the project (its supersheet.toml makes the
    library 'the project's own file'). A checkout's library (not installed) is saved as before."""
    import site
    import sysconfig
    from supersheet.engine.base import project
    site_packages = tmp_path / ".venv" / "lib" / "site-packages"
    library = site_packages / "supersheet" / "sheets"
    (library / "supernodes").mkdir(parents=True)
    (tmp_path / "supersheet.toml").write_text("")       # a project with its virtual environment inside it
    example = library / "supernodes" / "example.yaml"
    example.write_text(SHEET, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setattr(project, "_bundled", library)
    monkeypatch.setattr(sysconfig, "get_path", lambda name, *args, **kwargs: str(site_packages if installed
                                                                                 else elsewhere))
    monkeypatch.setattr(site, "getusersitepackages", lambda: str(elsewhere))
    document = Document(example)
    document.apply("a", "5 GB")
    if installed:
        with pytest.raises(SaveRefused, match="bundled with supersheet"):
            document.save()
        assert example.read_text(encoding="utf-8") == SHEET
    else:
        document.save()
        assert "a: 5 GB" in example.read_text(encoding="utf-8")


def test_a_deleted_file_is_reported_as_deleted_and_recreated_with_its_mode(sheet: Path) -> None:
    sheet.chmod(0o640)
    document = Document(sheet)
    document.apply("a", "5 GB")
    sheet.unlink()
    with pytest.raises(FileDeleted, match="deleted"):
        document.save()
    assert not sheet.exists()
    document.save(force=True)          # the user chose "Recreate"
    assert "a: 5 GB" in sheet.read_text(encoding="utf-8")
    assert stat.S_IMODE(sheet.stat().st_mode) == 0o640


def test_stale_temporary_files_of_ours_are_removed_on_open_and_save(sheet: Path, tmp_path: Path) -> None:
    old = time.time() - STALE_AFTER - 10
    stale = tmp_path / ".s.yaml.ab12CD34.tmp"
    fresh = tmp_path / ".s.yaml.zz99YY88.tmp"       # a save in progress elsewhere: too recent to touch
    foreign = tmp_path / ".s.yaml.notours.tmp"      # not our pattern
    other_sheet = tmp_path / ".t.yaml.ab12CD34.tmp"  # another sheet's
    for path in (stale, fresh, foreign, other_sheet):
        path.write_text("partial", encoding="utf-8")
    for path in (stale, foreign, other_sheet):
        os.utime(path, (old, old))
    document = Document(sheet)
    assert not stale.exists() and fresh.exists() and foreign.exists() and other_sheet.exists()
    again = tmp_path / ".s.yaml.QQ11ww22.tmp"
    again.write_text("partial", encoding="utf-8")
    os.utime(again, (old, old))
    document.apply("a", "5 GB")
    document.save()
    assert not again.exists()
    assert remove_stale_temporaries(sheet) == []


def test_one_edit_changes_one_line_with_trailing_spaces_elsewhere(tmp_path: Path) -> None:
    text = ("title: t   \ncells:  \n  a: 2 GB    # the first\n  b: 3 GB \n  c: [1,2,3]\n"
            "  total:   = a + b\n")
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    document = Document(path)
    assert document.apply("b", "4 GB").ok
    document.save()
    after = path.read_text(encoding="utf-8").splitlines()
    before = text.splitlines()
    changed = [(x, y) for x, y in zip(before, after) if x != y]
    assert len(after) == len(before) and changed == [("  b: 3 GB ", "  b: 4 GB")], changed
    assert document.apply("total", "= a * 2").ok       # a formula: the structural path
    document.save()
    final = path.read_text(encoding="utf-8").splitlines()
    assert [(x, y) for x, y in zip(after, final) if x != y] == [("  total:   = a + b", "  total: = a * 2")]


MIXED = b"title: t\r\ncells:\n  a: 2 GB\r\n  b: 3 GB\n  total: = a + b\r\n"


def test_a_file_of_mixed_line_endings_keeps_each_lines_ending(tmp_path: Path) -> None:
    """Issue 28, item 11: a file mixing LF and CRLF had every line rewritten
    by a save without edits (all CRLF), and by one edit."""
    sheet = tmp_path / "mixed.yaml"
    sheet.write_bytes(MIXED)
    inode = sheet.stat().st_ino
    document = Document(sheet)
    assert document.save() is None                  # nothing to write: nothing written
    assert sheet.read_bytes() == MIXED and sheet.stat().st_ino == inode
    document.apply("a", "5 GB")                     # a CRLF line
    document.save()
    assert sheet.read_bytes() == MIXED.replace(b"a: 2 GB\r\n", b"a: 5 GB\r\n")
    document.apply("b", "4 GB")                     # an LF line
    document.save()
    assert sheet.read_bytes() == MIXED.replace(b"a: 2 GB\r\n", b"a: 5 GB\r\n").replace(b"b: 3 GB\n", b"b: 4 GB\n")
    document.apply("total", "= a + b + 1 GB")       # the last line, CRLF
    document.save()
    assert sheet.read_bytes().endswith(b"  total: = a + b + 1 GB\r\n")
    assert sheet.read_bytes().count(b"\r\n") == 3
    inode = sheet.stat().st_ino
    assert Document(sheet).save() is None and sheet.stat().st_ino == inode


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_saving_a_sheet_owned_by_another_user_keeps_its_owner_and_mode(sheet: Path) -> None:
    os.chown(sheet, 4321, 4322)
    os.chmod(sheet, 0o664)
    document = Document(sheet)
    document.apply("a", "5 GB")
    written = document.save()
    st = sheet.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4322, 0o664)
    assert written is not None and written.unkept == () and "a: 5 GB" in sheet.read_text()


def test_saving_keeps_extended_attributes(sheet: Path) -> None:
    try:
        os.setxattr(sheet, "user.origin", b"https://example.com/sheet")
    except OSError as e:
        pytest.skip(f"no user extended attributes here: {e}")
    os.setxattr(sheet, "user.reviewed", b"")
    document = Document(sheet)
    document.apply("a", "5 GB")
    document.save()
    assert "a: 5 GB" in sheet.read_text()
    assert os.getxattr(sheet, "user.origin") == b"https://example.com/sheet"
    assert sorted(n for n in os.listxattr(sheet) if n.startswith("user.")) == ["user.origin", "user.reviewed"]
