"""What the editor and its resample process (sample_worker.py) say to each
other over a pair of pipes: a request is the sheet to sample (its path, which
its imports resolve against, its unsaved text, the texts the editor read of
its imports and the editor's load limits); a reply is what sampling it found
(sample.py's `SampleResult`) or why there is none. Never a workbook: the
editor rebuilds `Samples` around its own, checked from the same texts.

The imports' texts go with the request so that the process samples exactly the
sheet on screen: read from disk again there, an imported file changed since the
editor read it would give the sampled column values of another sheet.

A message is a list of byte strings, each preceded by its length. A request is
one part, JSON; a reply two: its small part (summaries, records, verdicts) as
JSON, and the samples' frame as Arrow IPC, which Polars reads without a copy
per value. Pure: no UI imports.
"""
from __future__ import annotations

import hashlib
import io
import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

import polars as pl

from supersheet.editor.sample import SampleResult
from supersheet.editor.verdicts import Verdict
from supersheet.engine.base.diagnostics import Diagnostic, Label
from supersheet.engine.base.span import Span
from supersheet.engine.scenarios.uncertainty import Summary

LENGTH = struct.Struct(">Q")


class WireClosed(Exception):
    """The other side closed its pipe (or died) before a whole message came."""


def write_message(stream: IO[bytes], *parts: bytes) -> None:
    stream.write(b"".join(LENGTH.pack(len(part)) + part for part in parts))
    stream.flush()


def read_message(stream: IO[bytes], parts: int) -> list[bytes]:
    return [_read_exactly(stream, LENGTH.unpack(_read_exactly(stream, LENGTH.size))[0]) for _ in range(parts)]


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) < size:
        raise WireClosed("the pipe closed in the middle of a message" if data else "the pipe closed")
    return data


def digest(path: str, text: str, imported: Mapping[str, str]) -> str:
    """What a reply names the sheet it sampled by: the editor shows a result only for the texts it sent."""
    return hashlib.sha256(json.dumps([path, text, sorted(imported.items())]).encode()).hexdigest()


@dataclass(frozen=True)
class Request:
    number: int       # the editor's count of its requests: a reply answers the one it names
    path: str
    text: str
    imported: dict[str, str]   # file -> the text the editor read of it
    limits: dict[str, int]     # the editor's load limits (limits.Limits)

    def encode(self) -> bytes:
        return json.dumps({"number": self.number, "path": self.path, "text": self.text,
                           "imported": self.imported, "limits": self.limits}).encode()

    @classmethod
    def decode(cls, data: bytes) -> Request:
        fields = json.loads(data)
        return cls(int(fields["number"]), str(fields["path"]), str(fields["text"]),
                   {str(k): str(v) for k, v in fields["imported"].items()},
                   {str(k): int(v) for k, v in fields["limits"].items()})


@dataclass(frozen=True)
class Reply:
    number: int
    digest: str                       # of the request's path and texts
    found: tuple[SampleResult | None, str] | None   # sample.sampling's answer; None: the sheet has no draws

    def encode(self) -> list[bytes]:
        result, error = self.found if self.found is not None else (None, "")
        small: dict = {"number": self.number, "digest": self.digest, "none": self.found is None, "error": error}
        frame = b""
        if result is not None:
            buffer = io.BytesIO()
            result.frame.write_ipc(buffer)
            frame = buffer.getvalue()
            small["result"] = result_fields(result)
        return [json.dumps(small).encode(), frame]

    @classmethod
    def decode(cls, parts: list[bytes]) -> Reply:
        small = json.loads(parts[0])
        fields = small.get("result")
        result = None if fields is None else result_of(fields, pl.read_ipc(io.BytesIO(parts[1])))
        return cls(int(small["number"]), str(small["digest"]), None if small["none"] else (result, str(small["error"])))


# the small part as JSON: plain data, read back into the classes it came from (never pickle:
# reading a reply builds numbers, strings and these few records, nothing it names)

def result_fields(result: SampleResult) -> dict:
    return {
        "samples": result.samples, "seed": result.seed, "columns": result.columns,
        "summaries": {key: [s.mean, list(s.percentiles.items()), s.errors, s.count]
                      for key, s in result.summaries.items()},
        "shares": result.shares, "records": result.records, "reduced": result.reduced,
        "verdicts": [[v.key, diagnostic_fields(v.diagnostic), v.stale] for v in result.verdicts],
        "uncertain": sorted(result.uncertain),
    }


def result_of(fields: dict, frame: pl.DataFrame) -> SampleResult:
    return SampleResult(
        int(fields["samples"]), int(fields["seed"]), frame, dict(fields["columns"]),
        {key: Summary(mean, dict((q, value) for q, value in percentiles), errors, count)
         for key, (mean, percentiles, errors, count) in fields["summaries"].items()},
        dict(fields["shares"]), dict(fields["records"]), dict(fields["reduced"]),
        [Verdict(key, diagnostic_of(diagnostic), stale) for key, diagnostic, stale in fields["verdicts"]],
        frozenset(fields["uncertain"]))


def diagnostic_fields(d: Diagnostic) -> list:
    return [d.code, d.message, span_fields(d.span), [[span_fields(label.span), label.text] for label in d.labels],
            d.hint, d.quote]


def diagnostic_of(fields: list) -> Diagnostic:
    code, message, span, labels, hint, quote = fields
    return Diagnostic(code, message, span_of(span), tuple(Label(Span(*at), text) for at, text in labels),
                      hint, quote)


def span_fields(span: Span | None) -> list | None:
    return None if span is None else [span.file, span.line, span.col, span.end_col]


def span_of(fields: list | None) -> Span | None:
    return None if fields is None else Span(*fields)
