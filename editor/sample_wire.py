"""What the editor and its resample process (sample_worker.py) say to each
other over a pair of pipes: a request is the sheet to sample (its path, which
its imports resolve against, and its unsaved text); a reply is what sampling
it found (sample.py's `SampleResult`) or why there is none. Never a workbook:
the editor rebuilds `Samples` around its own, checked from the same text.

A message is a list of byte strings, each preceded by its length. A request is
one part, JSON; a reply two: its small part (summaries, records, verdicts:
pickled, and unpickled only into the classes listed below) and the samples'
frame as Arrow IPC, which Polars reads without a copy per value. Pure: no UI
imports.
"""
from __future__ import annotations

import hashlib
import io
import json
import pickle
import struct
from dataclasses import dataclass
from typing import BinaryIO

import polars as pl

from supersheet.editor.sample import SampleResult

LENGTH = struct.Struct(">Q")


class WireClosed(Exception):
    """The other side closed its pipe (or died) before a whole message came."""


def write_message(stream: BinaryIO, *parts: bytes) -> None:
    stream.write(b"".join(LENGTH.pack(len(part)) + part for part in parts))
    stream.flush()


def read_message(stream: BinaryIO, parts: int) -> list[bytes]:
    return [_read_exactly(stream, LENGTH.unpack(_read_exactly(stream, LENGTH.size))[0]) for _ in range(parts)]


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) < size:
        raise WireClosed("the pipe closed in the middle of a message" if data else "the pipe closed")
    return data


def digest(path: str, text: str) -> str:
    """What a reply names the sheet it sampled by: the editor shows a result only for the text it sent."""
    return hashlib.sha256(f"{path}\0{text}".encode()).hexdigest()


@dataclass(frozen=True)
class Request:
    number: int       # the editor's count of its requests: a reply answers the one it names
    path: str
    text: str

    def encode(self) -> bytes:
        return json.dumps({"number": self.number, "path": self.path, "text": self.text}).encode()

    @classmethod
    def decode(cls, data: bytes) -> Request:
        fields = json.loads(data)
        return cls(int(fields["number"]), str(fields["path"]), str(fields["text"]))


@dataclass(frozen=True)
class Reply:
    number: int
    digest: str                       # of the request's path and text
    found: tuple[SampleResult | None, str] | None   # sample.sampling's answer; None: the sheet has no draws

    def encode(self) -> list[bytes]:
        result, error = self.found if self.found is not None else (None, "")
        frame = b""
        small: dict = {"number": self.number, "digest": self.digest, "none": self.found is None, "error": error}
        if result is not None:
            buffer = io.BytesIO()
            result.frame.write_ipc(buffer)
            frame = buffer.getvalue()
            small["result"] = {name: getattr(result, name) for name in RESULT_FIELDS}
        return [pickle.dumps(small, protocol=pickle.HIGHEST_PROTOCOL), frame]

    @classmethod
    def decode(cls, parts: list[bytes]) -> Reply:
        small = Trusted(io.BytesIO(parts[0])).load()
        fields = small.get("result")
        result = None if fields is None else SampleResult(frame=pl.read_ipc(io.BytesIO(parts[1])), **fields)
        return cls(small["number"], small["digest"], None if small["none"] else (result, small["error"]))


RESULT_FIELDS = ("samples", "seed", "columns", "summaries", "shares", "records", "reduced", "verdicts", "uncertain")

# what a reply's small part may hold: plain data and the few classes of a result
ALLOWED = {
    ("builtins", "frozenset"), ("builtins", "set"), ("builtins", "slice"),
    ("supersheet.engine.scenarios.uncertainty", "Summary"),
    ("supersheet.editor.verdicts", "Verdict"),
    ("supersheet.engine.base.diagnostics", "Diagnostic"),
    ("supersheet.engine.base.diagnostics", "Label"),
    ("supersheet.engine.base.span", "Span"),
}


class Trusted(pickle.Unpickler):
    """Unpickles only plain data and the classes in ALLOWED: a reply cannot name any other
    callable, so reading one never runs code it chose."""

    def find_class(self, module: str, name: str):
        if (module, name) not in ALLOWED:
            raise pickle.UnpicklingError(f"a resample reply may not hold {module}.{name}")
        return super().find_class(module, name)
