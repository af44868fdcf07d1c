"""Comparison sheets follow every hardware override (format 10.3, issues 26 and 27).

A comparison sheet imports another scenario sheet as its comparator (TP16
against `tp8`, a variant against its `base`, TP2/TP4/TP8 side by side) and
both read the same hardware files. Each case overrides a hardware cell the
way `supersheet run --set` does and compares the sheet's results — its own
side and the comparator's — with the chapter's equations written out here,
independently of the sheets' formulas. Before one instance per shared import,
the override reached only the importing sheet's copy and the comparator kept
the file's value (`faster_than_tp8` flipped to the wrong answer, silently).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from supersheet.cli.main import main
from supersheet.engine.base.diagnostics import render_all
from supersheet.engine.workbook import apply_assignments, open_workbook
from supersheet.units.display import convert
from repo_paths import REPO

SHEETS = REPO / "sheets" / "supernodes"
US, GB = 1e-6, 1e9


def run(sheet: str, *sets: str) -> dict:
    """Every cell of `sheet` with `--set` values, as `supersheet run --set` evaluates them."""
    workbook = open_workbook(SHEETS / sheet)
    assert not workbook.diagnostics, render_all(workbook.diagnostics)
    variant, fixed = apply_assignments(workbook, list(sets))
    return variant.evaluate(fixed).values


def ms(values: dict, key: str) -> float:
    return convert(values[key], "ms")


# -- the chapter's equations, for Qwen3-32B on an HGX H100 ----------------------------------

@dataclass(frozen=True)
class Hardware:
    """The inputs the override moves: HBM bandwidth and NVLink bandwidth per card and
    direction (B/s), the one-way NVLink latency alpha and the measured two-server
    AllReduce (s), the per-pass switch latency (s)."""
    hbm: float = 3350 * GB
    nvlink: float = 450 * GB
    alpha: float = 0.822 * US
    allreduce_16: float = 32.74 * US
    switch_hop: float = 0.2 * US


# Qwen3-32B (Qwen3 report, config.json): layers, hidden, heads, KV heads, head dim, FFN, vocabulary; BF16
L, H, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB, BYTES = 64, 5120, 64, 8, 128, 25600, 151936, 2
CONTEXT = 131064                                            # tokens before the step (Sec. 6.2.2)
LAYER_BYTES = (2 * H * HEADS * HEAD_DIM + 2 * H * KV_HEADS * HEAD_DIM + 3 * H * FFN) * BYTES
WEIGHTS = L * LAYER_BYTES + VOCAB * H * BYTES               # Eq. (6-4): every layer plus the output head
KV = 2 * L * KV_HEADS * HEAD_DIM * BYTES * (CONTEXT + 1)   # the old KV plus the new token
KV_PROJ = L * 2 * H * KV_HEADS * HEAD_DIM * BYTES          # K and V projections: split by KV head only
MESSAGE = H * BYTES                                         # one token's hidden vector, 10 KiB
REDUCTIONS = 2 * L                                          # two AllReduces per layer


def local_per_card(p: int, hw: Hardware) -> float:
    """Eq. (6-4) over p cards: the weights split p ways, the KV and K/V projections by KV head."""
    kv_split = min(p, KV_HEADS)
    return ((WEIGHTS - KV_PROJ) / p + (KV_PROJ + KV) / kv_split) / hw.hbm


def ring(p: int, hw: Hardware, alpha: float | None = None, link: float | None = None) -> float:
    """Eq. (6-9): 2(p-1) rounds of alpha plus 2(p-1) M / p bytes at B."""
    rounds = 2 * (p - 1)
    return rounds * (hw.alpha if alpha is None else alpha) + rounds * MESSAGE / (p * (link or hw.nvlink))


def tp_step(p: int, hw: Hardware) -> float:
    """Eq. (6-5): the local time over p cards plus 128 ring AllReduces (6.4.2-ring-vs-tree)."""
    return local_per_card(p, hw) + REDUCTIONS * ring(p, hw)


def tp16_local(hw: Hardware) -> float:
    """6.5.1's TP16 local time: the weights 16 ways, the KV and the K/V projections 8 ways."""
    return local_per_card(16, hw)


def tp16_local_as_printed(hw: Hardware) -> float:
    """The same as the chapter writes Eq. (6-4) at TP16: every weight 16 ways, the KV 8 ways
    (the replicated K/V projection read left out, 0.025 ms)."""
    return (WEIGHTS / 16 + KV / KV_HEADS) / hw.hbm


OVERRIDES = {   # --set text -> the same change to the independent calculation
    "lat.nvlink_latency=0.65us": Hardware(alpha=0.65 * US),
    "lat.nvlink_latency=0.3us": Hardware(alpha=0.3 * US),
    "lat.nvlink_latency=2us": Hardware(alpha=2 * US),
    "lat.nvlink_latency=5us": Hardware(alpha=5 * US),
    "hgx.hbm_bandwidth=4800GB/s": Hardware(hbm=4800 * GB),
    "hgx.hbm_bandwidth=1675GB/s": Hardware(hbm=1675 * GB),
    "hgx.nvlink_bandwidth=900GB/s": Hardware(nvlink=900 * GB),
    "hgx.nvlink_bandwidth=50GB/s": Hardware(nvlink=50 * GB),
    "hgx.nvlink_bandwidth=4500GB/s": Hardware(nvlink=4500 * GB),
}


def test_the_independent_calculation_is_the_book_at_its_inputs() -> None:
    hw = Hardware()
    assert tp_step(8, hw) / 1e-3 == pytest.approx(5.15, abs=0.005)                         # Sec. 6.4.2
    assert (tp16_local_as_printed(hw) + REDUCTIONS * hw.allreduce_16) / 1e-3 == pytest.approx(6.67, abs=0.005)  # 6.5.1
    assert (tp16_local_as_printed(hw) + REDUCTIONS * ring(16, hw)) / 1e-3 == pytest.approx(5.64, abs=0.005)     # 6.5.3
    assert (tp16_local(hw) - tp16_local_as_printed(hw)) / 1e-3 == pytest.approx(0.025, abs=0.0005)


# -- 6.5.1 and 6.5.3: TP16 against TP8 ---------------------------------------------------

@pytest.mark.parametrize("override", list(OVERRIDES))
def test_tp16_two_servers_against_tp8(override: str) -> None:
    hw = OVERRIDES[override]
    v = run("6.5.1-tp16-two-servers.yaml", override)
    tp8, tp16 = tp_step(8, hw), tp16_local(hw) + REDUCTIONS * hw.allreduce_16   # the measured AllReduce
    assert ms(v, "tp8_step") == pytest.approx(tp8 / 1e-3, rel=1e-9)
    assert ms(v, "step") == pytest.approx(tp16 / 1e-3, rel=1e-9)
    assert v["faster_than_tp8"] is (tp16 < tp8)


@pytest.mark.parametrize("override", list(OVERRIDES))
def test_tp16_in_one_nvlink_domain_against_tp8(override: str) -> None:
    hw = OVERRIDES[override]
    v = run("6.5.3-tp16-nvlink-domain.yaml", override)
    tp8, tp16 = tp_step(8, hw), tp16_local(hw) + REDUCTIONS * ring(16, hw)      # a 16-card NVLink ring
    assert ms(v, "tp8_step") == pytest.approx(tp8 / 1e-3, rel=1e-9)
    assert ms(v, "step") == pytest.approx(tp16 / 1e-3, rel=1e-9)
    assert v["faster_than_tp8"] is (tp16 < tp8)


def test_both_answers_occur_among_the_overrides() -> None:
    # the cases above would prove little if every override gave the book's answer
    answers = {tp16_local(hw) + REDUCTIONS * ring(16, hw) < tp_step(8, hw) for hw in OVERRIDES.values()}
    assert answers == {True, False}


def test_the_issue_case_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    """`supersheet run 6.5.3 --set lat.nvlink_latency=0.65us`: TP8 follows the latency, and
    TP16 (5.00 ms) stays slower than TP8 (4.84 ms); TP8 left at 0.822 us would have said faster."""
    import json
    code = main(["run", str(SHEETS / "6.5.3-tp16-nvlink-domain.yaml"), "--set", "lat.nvlink_latency=0.65us",
                 "--format", "json"])
    assert code == 0
    cells = {c["name"]: c for c in json.loads(capsys.readouterr().out)["cells"]}
    hw = OVERRIDES["lat.nvlink_latency=0.65us"]
    assert cells["tp8_step"]["value"] == pytest.approx(tp_step(8, hw) / 1e-3, rel=1e-6)
    assert cells["faster_than_tp8"]["value"] is False
    assert tp16_local(hw) + REDUCTIONS * ring(16, hw) < tp_step(8, Hardware())   # the old, wrong comparison
    assert not any(name.startswith("tp8.lat.") for name in cells)               # listed once, as lat.*


# -- 6.4.2: a variant against its base, TP2/TP4/TP8 side by side --------------------------

@pytest.mark.parametrize("override", list(OVERRIDES))
def test_alpha_halved_against_its_base(override: str) -> None:
    hw = OVERRIDES[override]
    v = run("6.4.2-ring-vs-tree-alpha-halved.yaml", override)
    halved = local_per_card(8, hw) + REDUCTIONS * ring(8, hw, alpha=hw.alpha / 2)
    assert ms(v, "base.step") == pytest.approx(tp_step(8, hw) / 1e-3, rel=1e-9)
    assert ms(v, "step") == pytest.approx(halved / 1e-3, rel=1e-9)
    # the saving is half the startup term of 128 rings: it moves with alpha only
    assert ms(v, "saving_per_step") == pytest.approx(REDUCTIONS * 14 * hw.alpha / 2 / 1e-3, rel=1e-9)


@pytest.mark.parametrize("override", list(OVERRIDES))
def test_bandwidth_doubled_against_its_base(override: str) -> None:
    hw = OVERRIDES[override]
    v = run("6.4.2-ring-vs-tree-bandwidth-doubled.yaml", override)
    doubled = local_per_card(8, hw) + REDUCTIONS * ring(8, hw, link=2 * hw.nvlink)
    assert ms(v, "base.step") == pytest.approx(tp_step(8, hw) / 1e-3, rel=1e-9)
    assert ms(v, "step") == pytest.approx(doubled / 1e-3, rel=1e-9)
    transfer = 14 * MESSAGE / (8 * hw.nvlink)             # the bandwidth term of one ring
    assert ms(v, "saving_per_step") == pytest.approx(REDUCTIONS * transfer / 2 / 1e-3, rel=1e-9)


@pytest.mark.parametrize("override", list(OVERRIDES))
def test_tp_doubling_compares_three_tp_sizes_on_one_server(override: str) -> None:
    # the root imports no hardware: the override is spelled through one comparator and reaches all three
    hw = OVERRIDES[override]
    v = run("6.4.2-tp-doubling.yaml", "tp8." + override)
    for small, large in ((2, 4), (4, 8)):
        saved = local_per_card(small, hw) - local_per_card(large, hw)
        added = REDUCTIONS * (ring(large, hw) - ring(small, hw))
        assert ms(v, f"local_saved_{small}_to_{large}") == pytest.approx(saved / 1e-3, rel=1e-9)
        assert ms(v, f"reduction_added_{small}_to_{large}") == pytest.approx(added / 1e-3, rel=1e-9)
        assert ms(v, f"net_saving_{small}_to_{large}") == pytest.approx((saved - added) / 1e-3, rel=1e-9)
        # Eq. (6-6): doubling pays when the added reductions cost less than T_local / 2p
        local = (WEIGHTS + KV) / hw.hbm
        assert v[f"doubling_pays_{small}_to_{large}"] is (added < local / (2 * small))


def test_tp_doubling_reaches_the_answer_no_at_a_slow_link() -> None:
    hw = OVERRIDES["lat.nvlink_latency=5us"]
    added = REDUCTIONS * (ring(8, hw) - ring(4, hw))
    assert added > (WEIGHTS + KV) / hw.hbm / 8          # the case above where Eq. (6-6) fails at 4 -> 8


# -- TP8's reductions as the yardstick: fusion, torus vs switched -------------------------

@pytest.mark.parametrize("override", ["lat.nvlink_latency=0.3us", "lat.nvlink_latency=2us",
                                      "lat.nvlink_latency=5us", "hgx.nvlink_bandwidth=50GB/s"])
def test_fusion_startup_follows_tp8s_link(override: str) -> None:
    hw = OVERRIDES[override]
    v = run("6.4.4-fusion-and-small-reductions.yaml", "tp8." + override)
    assert ms(v, "startup_per_step") == pytest.approx(REDUCTIONS * 14 * hw.alpha / 1e-3, rel=1e-9)
    assert ms(v, "tp8.reductions") == pytest.approx(REDUCTIONS * ring(8, hw) / 1e-3, rel=1e-9)


TORUS = {   # --set text -> the hardware it describes
    "lat.switch_hop_latency=0.1us": Hardware(switch_hop=0.1 * US),
    "lat.switch_hop_latency=0.5us": Hardware(switch_hop=0.5 * US),
    "lat.nvlink_latency=0.3us": Hardware(alpha=0.3 * US),
    "lat.nvlink_latency=2us": Hardware(alpha=2 * US),
    "tp8.hgx.nvlink_bandwidth=50GB/s": Hardware(nvlink=50 * GB),
}


@pytest.mark.parametrize("override", list(TORUS))
@pytest.mark.parametrize("k", [4, 8])
def test_torus_extra_latency_against_tp8s_reductions(override: str, k: int) -> None:
    hw = TORUS[override]
    v = run("6.5.1-torus-vs-switched.yaml", override, f"k={k}")
    relays_torus = 3 * (k // 2) - 1                      # the farthest card: 3 floor(k/2) hops, one chip fewer
    relays_switched = 1 if k ** 3 <= 64 else 3           # one switch chip, or leaf-spine-leaf
    extra = REDUCTIONS * (relays_torus - relays_switched) * hw.switch_hop
    assert ms(v, "torus_extra_per_step") == pytest.approx(extra / 1e-3, rel=1e-9)
    assert v["extra_vs_tp8_reductions"] == pytest.approx(extra / (REDUCTIONS * ring(8, hw)), rel=1e-9)


# -- 6.6.3: remote reads through two imports of the in-flight sheet ------------------------

@pytest.mark.parametrize("override, nic, ib, hbm", [
    ("gpu.nic_bandwidth=25GB/s", 25 * GB, 3.76 * US, 3350 * GB),
    ("gpu.nic_bandwidth=100GB/s", 100 * GB, 3.76 * US, 3350 * GB),
    ("deep.lat.ib_latency=1us", 50 * GB, 1 * US, 3350 * GB),
    ("deep.lat.ib_latency=20us", 50 * GB, 20 * US, 3350 * GB),
    ("gpu.hbm_bandwidth=1675GB/s", 50 * GB, 3.76 * US, 1675 * GB),
])
def test_remote_reads_follow_the_nic_and_the_latency(override: str, nic: float, ib: float, hbm: float) -> None:
    v = run("6.6.3-remote-vs-local-reads.yaml", override)
    data = 20 * GB                                        # task 0's borrowed 20 GB (6.6.1), unchanged here
    assert convert(v["remote_data"], "GB") == pytest.approx(20)

    def usable(in_flight: int) -> float:                 # Eq. (6-12): the path or the window, 256 B reads
        return min(nic, in_flight * 128 * 2 / (2 * ib))
    full, full_128 = data / usable(4096), data / usable(128)
    local_scans = 10 * data / hbm
    assert convert(v["full_read_time"], "s") == pytest.approx(full, rel=1e-9)
    assert convert(v["full_read_time_128"], "s") == pytest.approx(full_128, rel=1e-9)
    assert v["keeps_up"] is (full <= 1) and v["keeps_up_128"] is (full_128 <= 1)
    assert convert(v["saving"], "s") == pytest.approx(10 * full - (full + local_scans), rel=1e-9)


# -- 6.7.4: supernodes of several sizes on one card ------------------------------------------

REPLICATED, ROUTED, ENGRAM, SESSION = 9.5 * GB, 288.8 * GB, 203.1 * GB, 180.7e6   # DeepSeek V4.1 Flash, Sec. 6.7.4
WORKSPACE = 2 * 2 ** 30


def sessions_per_card(cards: int, capacity: float, engram_in_hbm: bool = True) -> int:
    """Eq. (6-14): what a card's HBM holds after its weights and workspace, in whole sessions."""
    weights = REPLICATED + (ROUTED + (ENGRAM if engram_in_hbm else 0)) / cards
    return max(0, math.floor((capacity - weights - WORKSPACE) / SESSION))   # full weights leave none


CAPACITIES = [96, 120, 141]   # GB: H100 NVL-, H200- and in-between-class cards


@pytest.mark.parametrize("capacity", CAPACITIES)
def test_supernode_throughput_sizes_share_one_card(capacity: int) -> None:
    v = run("6.7.4-supernode-throughput.yaml", f"s64.gpu.hbm_capacity={capacity}GB")
    throughputs = {8: 2632, 64: 19420, 128: 19392, 256: 19378}       # the book's per-card token/s
    for cards, rate in throughputs.items():
        sessions = sessions_per_card(cards, capacity * GB)
        assert v[f"s{cards}.sessions_per_card"] == sessions
        assert ms(v, f"step_{cards}") == pytest.approx(sessions / rate / 1e-3, rel=1e-9)
    assert v["sessions_gain_64_vs_8"] == pytest.approx(
        sessions_per_card(64, capacity * GB) / sessions_per_card(8, capacity * GB), rel=1e-9)


@pytest.mark.parametrize("capacity", CAPACITIES)
def test_engram_placement_compares_supernodes_on_one_card(capacity: int) -> None:
    v = run("6.7.4-engram-and-kv-placement.yaml", f"in_host_8.gpu.hbm_capacity={capacity}GB")
    hbm_8, hbm_64 = sessions_per_card(8, capacity * GB), sessions_per_card(64, capacity * GB)
    host_8, host_64 = sessions_per_card(8, capacity * GB, False), sessions_per_card(64, capacity * GB, False)
    assert (v["sessions_8_in_hbm"], v["sessions_64_in_hbm"]) == (hbm_8, hbm_64)
    assert (v["sessions_8_in_host"], v["sessions_64_in_host"]) == (host_8, host_64)
    assert v["loss_64_in_hbm"] == pytest.approx(1 - hbm_64 / host_64, rel=1e-9)
    assert v["capacity_gain_64_vs_8"] == pytest.approx(hbm_64 / hbm_8, rel=1e-9)
    assert v["gap_64_vs_8_in_host"] == pytest.approx(hbm_64 / host_8, rel=1e-9)


# -- lessons: three configurations of one TP lesson on one card ------------------------------

@pytest.mark.parametrize("hbm", [1675, 4800, 8000])
def test_three_tp_lines_share_one_card(hbm: int) -> None:
    v = run("../lessons/tp-allreduce-three-lines.yaml", f"four_slow.gpu.hbm_bandwidth={hbm}GB/s")
    weights, allreduces = 54 * GB, 2 * 64            # qwen3.8-27b: 54 GB of BF16 weights, 64 layers

    def decode_step(tp: int, latency: float) -> float:   # the weights split tp ways, then 128 small all-reduces
        return weights / tp / (hbm * GB) + allreduces * latency
    two_fast, four_fast, four_slow = decode_step(2, 10 * US), decode_step(4, 10 * US), decode_step(4, 50 * US)
    assert ms(v, "two_gpus_fast") == pytest.approx(two_fast / 1e-3, rel=1e-9)
    assert ms(v, "four_gpus_fast") == pytest.approx(four_fast / 1e-3, rel=1e-9)
    assert ms(v, "four_gpus_slow") == pytest.approx(four_slow / 1e-3, rel=1e-9)
    assert v["speedup_from_doubling"] == pytest.approx(two_fast / four_fast, rel=1e-9)
    assert v["slow_four_loses_to_fast_two"] is (four_slow > two_fast)


# -- Q5 and Q6: expert parallelism over HGX H100 nodes (q2) beside the sheet's own hardware -----

@dataclass(frozen=True)
class EpBytes:
    """q2's bytes per token and step at EP64 (8 nodes): hardware-independent counts, read from the
    sheet as written; what a hardware override moves is computed here from them."""
    nic_step: float
    nvlink_step: float


def ep64_bytes() -> EpBytes:
    v = run("../questions/q2-dispatch-combine-bytes.yaml", "nodes=8")
    return EpBytes(convert(v["limited_nic_step"], "B"), convert(v["nvlink_step"], "B"))


NIC_NVLINK = [(25, 450), (100, 450), (50, 900), (50, 160)]   # GB/s per GPU: NIC, NVLink per direction
BATCH = 128                                                   # tokens per GPU in one decode step (DeepEP)


@pytest.mark.parametrize("nic, nvlink", NIC_NVLINK)
def test_nvl72_domain_against_ep64_on_hgx(nic: int, nvlink: int) -> None:
    v = run("../questions/q5-nvl72-domain.yaml", f"hgx.nic_bandwidth={nic}GB/s", f"hgx.nvlink_bandwidth={nvlink}GB/s")
    ep = ep64_bytes()
    nic_time, nvlink_time = BATCH * ep.nic_step / (nic * GB), BATCH * ep.nvlink_step / (nvlink * GB)
    assert ms(v, "hgx_nic_time") == pytest.approx(nic_time / 1e-3, rel=1e-9)
    assert ms(v, "hgx_nvlink_time") == pytest.approx(nvlink_time / 1e-3, rel=1e-9)
    assert ms(v, "hgx_a2a_time") == pytest.approx(max(nic_time, nvlink_time) / 1e-3, rel=1e-9)
    assert v["a2a_speedup"] == pytest.approx(max(nic_time, nvlink_time) / (ms(v, "rack_a2a_time") * 1e-3), rel=1e-9)
    assert ms(v, "kv_over_hgx_nic") == pytest.approx(convert(v["kv_handoff"], "B") / (nic * GB) / 1e-3, rel=1e-9)


@pytest.mark.parametrize("nic, nvlink", NIC_NVLINK)
@pytest.mark.parametrize("hbm", [3350, 4800])
def test_straggler_nic_on_the_cards_of_the_ep_model(nic: int, nvlink: int, hbm: int) -> None:
    # the sheet's gpu is h100-sxm, and so is the card inside q2's HGX node: one instance
    v = run("../questions/q6-straggler-nic.yaml", f"gpu.nic_bandwidth={nic}GB/s",
            f"gpu.nvlink_bandwidth={nvlink}GB/s", f"gpu.hbm_bandwidth={hbm}GB/s")
    ep = ep64_bytes()
    nic_time, nvlink_time = BATCH * ep.nic_step / (nic * GB), BATCH * ep.nvlink_step / (nvlink * GB)
    compute = (convert(v["weights_per_gpu"], "B") + convert(v["kv_per_gpu"], "B")) / (hbm * GB)
    healthy = compute + max(nic_time, nvlink_time)
    straggler = compute + max(nic_time / 0.25, nvlink_time)      # one NIC at 25 % of its rate
    assert ms(v, "nic_time") == pytest.approx(nic_time / 1e-3, rel=1e-9)
    assert ms(v, "nvlink_time") == pytest.approx(nvlink_time / 1e-3, rel=1e-9)
    assert ms(v, "healthy_step") == pytest.approx(healthy / 1e-3, rel=1e-9)
    assert v["slowdown"] == pytest.approx(straggler / healthy, rel=1e-9)


# -- the command line: a sweep and a goal seek over the shared latency ------------------------

def test_a_sweep_of_the_shared_latency_moves_both_sides(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "latency.csv"
    result = run_cli("sweep", str(SHEETS / "6.5.3-tp16-nvlink-domain.yaml"),
                     "--vary", "lat.nvlink_latency=0.3us,0.5us,0.65us,1us", "--show", "step,tp8_step,faster_than_tp8",
                     "-o", str(out))
    assert result.code == 0, result.output
    import csv
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 4
    for row in rows:
        hw = Hardware(alpha=float(row["lat.nvlink_latency [μs]"]) * US)
        tp16 = tp16_local(hw) + REDUCTIONS * ring(16, hw)
        assert float(row["tp8_step [ms]"]) == pytest.approx(tp_step(8, hw) / 1e-3, rel=1e-9)
        assert float(row["step [ms]"]) == pytest.approx(tp16 / 1e-3, rel=1e-9)
        assert row["faster_than_tp8"] == str(tp16 < tp_step(8, hw)).lower()
    assert {row["faster_than_tp8"] for row in rows} == {"true", "false"}


def test_a_goal_seek_over_the_shared_latency_finds_the_tie(run_cli) -> None:
    """The NVLink latency at which TP16 in one domain ties TP8: the local time TP16 saves
    equals the 16 extra rounds of alpha per reduction it pays (Eq. 6-5, 6-9 on both sides)."""
    import json
    result = run_cli("solve", str(SHEETS / "6.5.3-tp16-nvlink-domain.yaml"), "--vary", "lat.nvlink_latency",
                     "--goal", "step == tp8_step", "--between", "0.01us,5us", "--format", "json")
    assert result.code == 0, result.output
    hw = Hardware()
    transfer8, transfer16 = 14 * MESSAGE / (8 * hw.nvlink), 30 * MESSAGE / (16 * hw.nvlink)
    tie = (local_per_card(8, hw) - tp16_local(hw) + REDUCTIONS * (transfer8 - transfer16)) / (REDUCTIONS * (30 - 14))
    assert json.loads(result.output)["solution"]["value"] == pytest.approx(tie / US, rel=1e-6)   # 0.570 us


def test_an_h100_override_does_not_reach_the_b200_side() -> None:
    # Q8 compares an H100 and a B200 instance: different card files, so an H100 figure stays on its side
    base = run("../questions/q8-b200-vs-h100-roles.yaml")
    for bw in ("2000GB/s", "4800GB/s", "6000GB/s"):
        v = run("../questions/q8-b200-vs-h100-roles.yaml", f"h100.gpu.hbm_bandwidth={bw}")
        assert v["b200.decode_rate"] == base["b200.decode_rate"]
        assert v["h100.decode_memory"] != base["h100.decode_memory"]


def test_a_users_sheet_shares_the_librarys_hardware_with_a_library_comparator(tmp_path: Path) -> None:
    # the user names the library's file by its library name, the comparator by its relative path:
    # the same file, so one instance, and the user's override reaches TP8 inside the library
    sheet = tmp_path / "plans" / "mine.yaml"
    sheet.parent.mkdir()
    sheet.write_text("use:\n  hgx: supersheet:hardware/hgx-h100.yaml\n"
                     "  tp8: supersheet:supernodes/6.4.2-ring-vs-tree.yaml\n"
                     "cells:\n  tp8_step: = tp8.step -> ms\n  per_card_read: = hgx.hbm_bandwidth * tp8_step -> GB\n",
                     encoding="utf-8")
    workbook = open_workbook(sheet)
    assert not workbook.diagnostics, render_all(workbook.diagnostics)
    assert workbook.model.shared.get("tp8.hgx") == "hgx"
    for bw in (1675, 4800, 8000):
        variant, fixed = apply_assignments(workbook, [f"hgx.hbm_bandwidth={bw}GB/s"])
        values = variant.evaluate(fixed).values
        assert ms(values, "tp8_step") == pytest.approx(tp_step(8, Hardware(hbm=bw * GB)) / 1e-3, rel=1e-9)
