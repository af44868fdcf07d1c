"""Library sheets away from the book's point: each case runs a sheet at inputs a
user would try (issue 15's table) and compares with a calculation written
here, independently of the sheet's formulas."""
from __future__ import annotations

import itertools
import math

import pytest

from supersheet.engine.base.diagnostics import render_all
from supersheet.engine.workbook import open_workbook
from supersheet.units.display import convert
from repo_paths import SHEETS



def evaluate(sheet: str, **inputs: str) -> dict:
    """Every cell of `sheet` with `inputs` replacing its cells (text as in YAML)."""
    workbook = open_workbook(SHEETS / sheet, cell_overrides=inputs)
    assert not workbook.diagnostics, render_all(workbook.diagnostics)
    return workbook.evaluate().values


def value(values: dict, key: str, unit: str | None = None) -> float:
    magnitude = values[key]
    assert isinstance(magnitude, (int, float)), f"{key} = {magnitude!r}"
    return convert(magnitude, unit) if unit else magnitude


# -- 6.5.2: the installation's power includes the fixed power -----------------

def test_power_budget_counts_fixed_power() -> None:
    v = evaluate("supernodes/6.5.2-power-cooling.yaml", budget="200 kW", fixed_power="15 kW", cards="152")
    servers = math.ceil(152 / 8)
    power_kw = 15 + servers * 10.2
    assert value(v, "power", "kW") == pytest.approx(power_kw)          # 208.8 kW
    assert v["within_budget"] is (power_kw <= 200)                      # false
    assert value(v, "max_cards") == 8 * math.floor((200 - 15) / 10.2)   # 144
    assert value(v, "max_cards") < 152


# -- 6.5.1 torus vs switched: any side k ---------------------------------------

def torus_average_hops(k: int, dims: int = 3) -> float:
    """Mean shortest-path hops over all (source, destination) pairs, the source itself included."""
    ring = [min(d, k - d) for d in range(k)]
    return sum(sum(ring[d] for d in offset) for offset in itertools.product(range(k), repeat=dims)) / k ** dims


def switched_network(cards: int, ports: int = 6, radix: int = 64) -> tuple[int, int]:
    """(switch chips, cables) of a non-blocking network, one plane per card port:
    one chip per plane up to `radix` cards, else whole leaves (half the ports down)
    and whole spines, with one leaf-spine cable per card port."""
    if cards <= radix:
        return ports * math.ceil(cards / radix), cards * ports
    leaves = math.ceil(cards / (radix // 2))
    spines = math.ceil(cards / radix)
    return ports * (leaves + spines), 2 * cards * ports


@pytest.mark.parametrize("k", [3, 4, 5, 6, 7, 8])
def test_torus_vs_switched_at_any_side(k: int) -> None:
    v = evaluate("supernodes/6.5.1-torus-vs-switched.yaml", k=str(k))
    cards = k ** 3
    hops = torus_average_hops(k)
    assert value(v, "torus_avg_hops") == pytest.approx(hops)
    # all-to-all: every card sends 32 MiB spread evenly; the torus carries hops x that over 6 x cards links
    assert value(v, "torus_link_load", "MiB") == pytest.approx(hops * cards * 32 / (6 * cards))
    assert value(v, "a2a_ratio") == pytest.approx(hops)      # vs 32/6 MiB per switched port
    chips, cables = switched_network(cards)
    assert value(v, "switch_chips") == chips
    assert value(v, "switched_cables") == cables
    assert value(v, "torus_max_hops") == 3 * (k // 2)


def test_torus_odd_side_is_not_the_even_formula() -> None:
    v = evaluate("supernodes/6.5.1-torus-vs-switched.yaml", k="5")
    assert value(v, "torus_avg_hops") == pytest.approx(3.6)   # not 3 x 5/4 = 3.75
    assert value(v, "switch_chips") == 36                       # whole chips, not 35.16


# -- the lesson and q10: TP1 runs no collectives ------------------------------

@pytest.mark.parametrize("sheet", ["lessons/tp-allreduce-nvlink-vs-pcie.yaml",
                                   "questions/q10-tp-allreduce-rule-of-thumb.yaml"])
def test_single_gpu_has_no_allreduce_term(sheet: str) -> None:
    v = evaluate(sheet, tp="1")
    weights_gb, bandwidth_gb_s = 54.0, 3350.0        # Qwen3.8-27B bf16, H100 SXM
    assert value(v, "latency_term", "ms") == 0
    assert value(v, "wire_per_token", "MiB/token") == 0
    assert value(v, "decode_step", "ms") == pytest.approx(weights_gb / bandwidth_gb_s * 1e3, rel=1e-3)
    two = evaluate(sheet, tp="2")
    assert value(two, "latency_term", "ms") == pytest.approx(128 * 10e-3)   # 128 all-reduces of 10 us


def test_q10_single_gpu_is_fully_efficient() -> None:
    v = evaluate("questions/q10-tp-allreduce-rule-of-thumb.yaml", tp="1")
    assert value(v, "efficiency", "%") == pytest.approx(100)


# -- 6.2.5: any list of stages --------------------------------------------------

def pipeline_finish(stages: list[float], micro_batches: int) -> float:
    """Finish time of the last micro-batch: micro-batch i leaves stage j when it
    has left stage j-1 and micro-batch i-1 has left stage j."""
    done = [0.0] * len(stages)
    for _ in range(micro_batches):
        previous = 0.0
        for j, t in enumerate(stages):
            done[j] = max(done[j], previous) + t
            previous = done[j]
    return done[-1]


@pytest.mark.parametrize("stages,micro_batches", [([1, 1, 2, 1, 3], 4), ([1, 1, 2, 1, 3], 9),
                                                  ([2, 1], 3), ([1, 3, 1, 1, 1, 1], 16)])
def test_pipeline_takes_any_stage_list(stages: list[float], micro_batches: int) -> None:
    text = "[" + ", ".join(f"{t} ms" for t in stages) + "]"
    v = evaluate("supernodes/6.2.5-pipeline-utilisation.yaml", stages=text, micro_batches=str(micro_batches))
    finish = pipeline_finish(stages, micro_batches)
    assert value(v, "stage_count") == len(stages)
    assert value(v, "pipeline_done", "ms") == pytest.approx(finish)
    assert value(v, "utilisation") == pytest.approx(micro_batches * sum(stages) / (len(stages) * finish))
    assert value(v, "slowest_stage") == stages.index(max(stages))


# -- q6 and q7: what was typed into formulas is an input ------------------------

@pytest.mark.parametrize("nodes,nics_per_node", [(8, 8), (8, 4), (1024, 8), (3, 2)])
def test_q6_bisection_counts_every_nic(nodes: int, nics_per_node: int) -> None:
    v = evaluate("questions/q6-straggler-nic.yaml", cluster_nodes=str(nodes), nics_per_node=str(nics_per_node))
    nics = nodes * nics_per_node
    rounds, suspects = 0, nics
    while suspects > 1:                   # keep the slower half, the larger half when odd
        suspects, rounds = math.ceil(suspects / 2), rounds + 1
    assert value(v, "nics") == nics
    assert value(v, "rounds") == rounds


@pytest.mark.parametrize("batch", [64, 128, 256])
def test_q7_deepep_comparison_follows_its_batch(batch: int) -> None:
    v = evaluate("questions/q7-two-batch-overlap.yaml", deepep_batch=f"{batch} token")
    per_token_us = 8 * 31 / 32 * (7392 + 14336) / 50e9 * 1e6      # 8 copies, remote share, one 50 GB/s NIC
    modelled = 2 * 10 + batch * per_token_us
    assert value(v, "per_token_comm", "us") == pytest.approx(per_token_us)
    assert value(v, "comm_vs_deepep") == pytest.approx(modelled / (155 + 273))


# -- the same classes elsewhere ------------------------------------------------

@pytest.mark.parametrize("positions", [8, 12, 16, 64, 5, 9, 10, 11])
def test_causal_split_at_any_position_count(positions: int) -> None:
    """Contiguous halves at any count (the smaller half first when odd); the zigzag's
    outer quarters floor(n / 4) each, balanced exactly at multiples of four."""
    v = evaluate("supernodes/6.2.4-causal-balance.yaml", positions=str(positions))
    total = positions * (positions + 1) // 2
    first_half = sum(range(1, positions // 2 + 1))
    assert value(v, "contiguous_card0") == first_half
    assert value(v, "imbalance") == pytest.approx((total - first_half) / first_half)
    quarter = positions // 4
    card0 = [p for p in range(1, positions + 1) if p <= quarter or p > positions - quarter]
    assert value(v, "paired_card0") == sum(card0)
    assert value(v, "paired_card1") == total - sum(card0)
    assert v["paired_is_balanced"] is (positions % 4 == 0)


@pytest.mark.parametrize("k,dims", [(4, 3), (6, 3), (8, 2), (4, 4), (3, 3), (5, 3), (7, 2)])
def test_torus_bisection_in_any_dimension(k: int, dims: int) -> None:
    v = evaluate("supernodes/6.5.4-torus-cut-sets.yaml", k=str(k), dims=str(dims))
    # cut along axis 0 between k//2-1 | k//2 and through the wraparound k-1 | 0: count the crossing links
    nodes = list(itertools.product(range(k), repeat=dims))
    crossing = sum(1 for node in nodes if node[0] in (k // 2 - 1, k - 1))
    larger = max(sum(1 for n in nodes if n[0] < k // 2), sum(1 for n in nodes if n[0] >= k // 2))
    assert value(v, "chips") == k ** dims
    assert value(v, "bisection_links") == crossing
    link_gb_s = 50.0                                   # TPU v4 ICI, per link per direction
    assert value(v, "per_chip_cut_bandwidth", "GB/s") == pytest.approx(crossing * link_gb_s / larger)


@pytest.mark.parametrize("tp", [2, 3, 5, 6, 8])
def test_binomial_tree_rounds_are_whole(tp: int) -> None:
    v = evaluate("supernodes/6.4.2-ring-vs-tree.yaml", tp=str(tp))
    rounds, reached = 0, 1
    while reached < tp:                  # each round doubles the cards holding the data
        reached, rounds = reached * 2, rounds + 1
    assert value(v, "tree_rounds") == 2 * rounds


def test_ffn_slice_is_the_share_of_all_three_matrices() -> None:
    v = evaluate("supernodes/6.2.2-ffn-four-way-split.yaml", cards="5")
    hidden, ffn = 5120, 25600
    assert value(v, "card_bytes", "MiB") == pytest.approx(3 * hidden * ffn * 2 / 5 / 2 ** 20)


# -- comparators follow the sheet's inputs (format 9.1) --------------------------

QWEN3_32B_WEIGHT_READ = 64 * (2 * 5120 * 8192 + 2 * 5120 * 1024 + 3 * 5120 * 25600) * 2 + 151936 * 5120 * 2   # B
QWEN3_32B_KV_PER_TOKEN = 2 * 64 * 8 * 128 * 2                                                             # B
QWEN3_32B_KV_PROJ = 64 * 2 * 5120 * 8 * 128 * 2           # B: the K and V projections, split by KV head (8) only


def tp8_step_ms(context: int, ring_us: float) -> float:
    """Eq. (6-5) at TP8: weights and the old KV plus one token, split 8 ways, plus 128 ring AllReduces."""
    local_s = (QWEN3_32B_WEIGHT_READ + QWEN3_32B_KV_PER_TOKEN * (context + 1)) / 3350e9 / 8
    return local_s * 1e3 + 128 * ring_us * 1e-3


@pytest.mark.parametrize("sheet", ["supernodes/6.5.1-tp16-two-servers.yaml", "supernodes/6.5.3-tp16-nvlink-domain.yaml"])
@pytest.mark.parametrize("context", [8192, 65536, 131064])
def test_tp16_compares_with_tp8_at_the_same_context(sheet: str, context: int) -> None:
    v = evaluate(sheet, context=f"{context} token")
    ring_us = value(v, "tp8.ring", "us")              # one 10 KiB AllReduce: does not depend on the context
    tp8 = tp8_step_ms(context, ring_us)
    assert value(v, "tp8_step", "ms") == pytest.approx(tp8, rel=1e-9)
    tp16_local_s = ((QWEN3_32B_WEIGHT_READ - QWEN3_32B_KV_PROJ) / 16
                    + (QWEN3_32B_KV_PROJ + QWEN3_32B_KV_PER_TOKEN * (context + 1)) / 8) / 3350e9
    tp16 = tp16_local_s * 1e3 + 128 * value(v, "allreduce", "us") * 1e-3
    assert value(v, "step", "ms") == pytest.approx(tp16, rel=1e-9)
    assert v["faster_than_tp8"] is (tp16 < tp8)


def test_tp_doubling_passes_its_context_to_all_three() -> None:
    v = evaluate("supernodes/6.4.2-tp-doubling.yaml", context="32768 token")
    local_s = (QWEN3_32B_WEIGHT_READ + QWEN3_32B_KV_PER_TOKEN * 32769) / 3350e9
    assert value(v, "local_saved_2_to_4", "ms") == pytest.approx(local_s * 1e3 / 4)
    assert value(v, "local_saved_4_to_8", "ms") == pytest.approx(local_s * 1e3 / 8)


def test_q8_instances_size_their_kv_for_the_load_requests() -> None:
    v = evaluate("questions/q8-b200-vs-h100-roles.yaml", prompt="8192 token/request", output="2048 token/request")
    assert value(v, "h100.context", "token") == 10240
    assert value(v, "b200.context", "token") == 10240


def test_q4_monte_carlo_compares_with_the_closed_form_at_its_own_batch() -> None:
    workbook = open_workbook(SHEETS / "questions/q4-ep-skew-monte-carlo.yaml",
                             cell_overrides={"batch": "1024 token", "drift": "0.25"})
    assert not workbook.diagnostics, render_all(workbook.diagnostics)
    v = workbook.evaluate().values
    assert value(v, "closed.batch", "token") == 1024
    assert value(v, "closed.drift") == 0.25


# -- limits that were prose are assumptions (format 9.2) ------------------------

@pytest.mark.parametrize("sheet,inputs,violated", [
    ("supernodes/6.4.2-ring-vs-tree.yaml", {"tp": "16"}, {"within_one_server"}),
    ("supernodes/6.2.2-qwen3-32b-decode-step.yaml", {"tp": "16"}, {"within_one_server"}),
    ("supernodes/6.5.1-tp16-two-servers.yaml", {"tp": "32"}, {"measured_setup"}),
    ("supernodes/6.5.1-torus-vs-switched.yaml", {"k": "13"}, {"two_levels_suffice"}),
    ("supernodes/6.5.4-torus-cut-sets.yaml", {"k": "2"}, {"rings"}),
    ("supernodes/6.7.4-supernode-throughput.yaml", {"s8.workspace": "8 GiB"}, {"above_one_session_step"}),
    ("questions/q6-straggler-nic.yaml", {"nodes": "16"}, {"ep.groups_per_node_whole"}),
    ("questions/q9-rank-completion-times.yaml", {"loads": "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]"},
     {"one_server"}),
    ("supernodes/6.5.2-power-cooling.yaml", {"budget": "10 kW", "fixed_power": "15 kW"}, {"budget_covers_fixed"}),
    ("lessons/tp-allreduce-nvlink-vs-pcie.yaml", {"tp": "16"}, {"within_one_node"}),
    ("supernodes/6.3.1-tp2-ep4-placement.yaml", {"tp": "3"}, {"whole_heads"}),
    ("supernodes/6.3.1-tp2-ep4-placement.yaml", {"tp": "6"}, {"whole_heads"}),
    ("supernodes/6.2.2-qwen3-32b-decode-step.yaml", {"tp": "6"}, {"whole_heads"}),
    ("supernodes/6.2.2-long-context-capacity.yaml", {"tp": "3"}, {"whole_heads"}),
    ("supernodes/6.4.2-ring-vs-tree.yaml", {"tp": "3"}, {"whole_heads"}),
    ("supernodes/6.5.1-tp16-two-servers.yaml", {"tp": "12"}, {"whole_heads"}),
    ("supernodes/6.7.1-instances-vs-tp.yaml", {"tp": "3"}, {"whole_heads"}),
    ("supernodes/6.2.2-qwen3-32b-decode-step.yaml", {"tp": "8", "model.kv_heads": "3"}, {"whole_heads"}),
    *[("supernodes/6.1.2-running-example.yaml", {"cards": str(cards)}, {"whole_heads"}) for cards in (3, 5, 6, 7)],
    ("supernodes/6.1.2-running-example-32k.yaml", {"cards": "3"}, {"whole_heads"}),
])
def test_leaving_the_model_is_reported(sheet: str, inputs: dict[str, str], violated: set[str]) -> None:
    from supersheet.engine.expect.assume import violations
    workbook = open_workbook(SHEETS / sheet, cell_overrides=inputs)
    assert not workbook.diagnostics, render_all(workbook.diagnostics)
    assert {v.key for v in violations(workbook, workbook.evaluate())} == violated
    assert violations(open_workbook(SHEETS / sheet), open_workbook(SHEETS / sheet).evaluate()) == []


# -- issue 27: formulas where there were fences --------------------------------

def qwen3_32b_step_bytes(kv_heads: int, context: int) -> tuple[float, float, float]:
    """(weights split over every card, K/V projections, KV read) of one Qwen3-32B decode
    step, Eq. (6-4), with `kv_heads` KV heads, in bytes."""
    layers, hidden, heads, head_dim, ffn, vocab = 64, 5120, 64, 128, 25600, 151936
    kv_proj = layers * 2 * hidden * kv_heads * head_dim * 2
    rest = layers * (2 * hidden * heads * head_dim + 3 * hidden * ffn) * 2 + vocab * hidden * 2
    kv = 2 * layers * kv_heads * head_dim * 2 * (context + 1)
    return rest, kv_proj, kv


@pytest.mark.parametrize("sheet,context_cell", [("supernodes/6.4.2-ring-vs-tree.yaml", "context"),
                                                ("supernodes/6.2.2-qwen3-32b-decode-step.yaml", "s")])
@pytest.mark.parametrize("tp,kv_heads", [(8, 4), (8, 2), (4, 8), (2, 1), (4, 2), (8, 8)])
def test_tp_past_the_kv_heads_replicates_them(sheet: str, context_cell: str, tp: int, kv_heads: int) -> None:
    """TP8 with 4 KV heads is a normal server: each KV head (its cache and its K/V
    projections) sits on tp / kv_heads cards, the rest of the weights split tp ways."""
    v = evaluate(sheet, tp=str(tp), **{"model.kv_heads": str(kv_heads)})
    rest, kv_proj, kv = qwen3_32b_step_bytes(kv_heads, 131064)
    per_card = rest / tp + (kv_proj + kv) / min(tp, kv_heads)
    assert value(v, "local_per_card", "ms") == pytest.approx(per_card / 3350e9 * 1e3, rel=1e-9)
    if "decode-step" in sheet:
        doubled = rest / (2 * tp) + (kv_proj + kv) / min(2 * tp, kv_heads)
        assert value(v, "saved_local", "ms") == pytest.approx((per_card - doubled) / 3350e9 * 1e3, rel=1e-9)


def test_running_example_flags_a_card_count_that_splits_attention_heads() -> None:
    """At 3 cards the sheet's kv_per_card is the mean card's (4 KV heads / 3), while the
    busiest card holds 2 whole heads: the row is outside the model, never a silent number."""
    import supersheet as ss
    frame = ss.load(SHEETS / "supernodes/6.1.2-running-example.yaml").sweep(cards=[3, 4, 8], show=["kv_per_card"]).frame
    assert frame["cards"].to_list() == [3.0, 4.0, 8.0]
    assert frame["outside [assumptions]"].to_list() == ["whole_heads", None, None]


@pytest.mark.parametrize("cards", [1, 2, 4, 8, 16])
def test_running_example_kv_per_card_is_the_busiest_cards_whole_heads(cards: int) -> None:
    """Qwen3-235B-A22B: 94 layers, 4 KV heads of 128 in BF16. Inside whole_heads a card
    holds ceil(4 / cards) KV heads (one, shared, past four cards) for the 8192 tokens."""
    from supersheet.engine.expect.assume import violations
    workbook = open_workbook(SHEETS / "supernodes/6.1.2-running-example.yaml", cell_overrides={"cards": str(cards)})
    assert not workbook.diagnostics, render_all(workbook.diagnostics)
    v = workbook.evaluate()
    assert violations(workbook, v) == []
    heads_on_busiest_card = math.ceil(4 / cards)
    kv_bytes = heads_on_busiest_card * 2 * 94 * 128 * 2 * 8192
    assert value(v.values, "kv_per_card", "B") == pytest.approx(kv_bytes, rel=1e-12)


@pytest.mark.parametrize("tp", [1, 2, 4, 8, 16, 32])
def test_long_context_capacity_replicates_the_kv_projections_past_the_kv_heads(tp: int) -> None:
    v = evaluate("supernodes/6.2.2-long-context-capacity.yaml", tp=str(tp))
    layers, hidden, kv_heads, head_dim = 64, 5120, 8, 128
    weights = 65.52e9                                   # resident BF16 weights, 32.76 B parameters
    kv_proj = layers * 2 * hidden * kv_heads * head_dim * 2
    per_card = (weights - kv_proj) / tp + kv_proj / min(tp, kv_heads)
    assert value(v, "weights_per_card", "GB") == pytest.approx(per_card / 1e9, rel=1e-3)
    kv_per_card = 2 * layers * kv_heads * head_dim * 2 * 131072 / min(tp, kv_heads)
    sessions = max(0, math.floor((80e9 - per_card - 2 * 2 ** 30) / kv_per_card))
    assert value(v, "sessions_per_instance") == sessions


@pytest.mark.parametrize("local,remote,cores", [(1024, 1024, 32), (20, 20, 32), (1, 1, 32), (100, 7, 8), (33, 65, 32)])
def test_connection_setup_is_never_below_one_setup(local: int, remote: int, cores: int) -> None:
    """Each core sets up whole objects (an equal share of each kind): the busiest core's time."""
    v = evaluate("supernodes/6.5.5-ub-connection-setup.yaml", local_endpoints=str(local),
                 remote_endpoints=str(remote), cores=str(cores))
    syscall_us, oob_us = 5, 500
    per_pair_us = 4 * syscall_us + oob_us
    assert value(v, "pair_parallel", "us") == pytest.approx(math.ceil(local * remote / cores) * per_pair_us)
    assert value(v, "pair_parallel", "us") >= per_pair_us
    ub_us = math.ceil(local / cores) * syscall_us + math.ceil(remote / cores) * (syscall_us + oob_us)
    assert value(v, "ub_parallel", "us") == pytest.approx(ub_us)


@pytest.mark.parametrize("task_0,placed", [(100, (20, 0, 0)), (130, (20, 30, 0)), (170, (20, 40, 30)),
                                           (200, (20, 40, 40)), (80, (0, 0, 0))])
def test_memory_borrowing_uses_every_lender(task_0: int, placed: tuple[int, int, int]) -> None:
    v = evaluate("supernodes/6.6.1-memory-borrowing.yaml", task_0=f"{task_0} GB")
    idle = [80 - 60, 80 - 40, 80 - 40]
    short = max(0, task_0 - 80)
    borrowed = []
    for room in idle:                        # node 1 first, as the chapter does, then the next
        take = min(short - sum(borrowed), room)
        borrowed.append(take)
    assert tuple(borrowed) == placed
    assert [value(v, f"borrowed_{i}", "GB") for i in (1, 2, 3)] == pytest.approx(borrowed)
    assert value(v, "unplaced", "GB") == pytest.approx(short - sum(borrowed))
    assert v["borrowed_in_full"] is (short == sum(borrowed))
    assert value(v, "occupancy_node_2", "GB") == pytest.approx(40 + borrowed[1])
    assert v["every_node_within_capacity"] is True


@pytest.mark.parametrize("nodes", [1, 2, 4, 8])
def test_q6_nodes_size_the_expert_parallel_instance(nodes: int) -> None:
    """EP = 8 x nodes GPUs share DeepSeek-V3's 256 routed experts: each GPU reads its
    256 / (8 nodes) experts of each of the 58 MoE layers (3 x 7168 x 2048 FP8 bytes each,
    plus one FP32 scale per 128 x 128 block)."""
    v = evaluate("questions/q6-straggler-nic.yaml", nodes=str(nodes))
    at_8 = evaluate("questions/q6-straggler-nic.yaml")
    expert_bytes = 3 * 7168 * 2048 + 3 * (7168 // 128) * (2048 // 128) * 4
    extra = 58 * (256 / (8 * nodes) - 256 / 64) * expert_bytes
    assert value(v, "weights_per_gpu", "B") - value(at_8, "weights_per_gpu", "B") == pytest.approx(extra, rel=1e-9)
    rounds = math.ceil(math.log2(nodes * 8))
    assert value(v, "rounds") == rounds


def test_supernode_throughput_steps_follow_the_sessions() -> None:
    """Sessions per card over the scripted per-card throughput (2,632 token/s at 8 cards)."""
    v = evaluate("supernodes/6.7.4-supernode-throughput.yaml", **{"s8.workspace": "4 GiB"})
    free = 80e9 - (9.5e9 + (288.8e9 + 203.1e9) / 8) - 4 * 2 ** 30
    sessions = math.floor(free / 180.7e6)
    assert value(v, "s8.sessions_per_card") == sessions
    assert value(v, "step_8", "ms") == pytest.approx(sessions / 2632 * 1e3, rel=1e-3)
    assert value(v, "one_session_step", "ms") == pytest.approx(2.689 + 0.076)


def test_supernode_size_has_no_negative_sessions() -> None:
    v = evaluate("supernodes/6.7.4-supernode-size.yaml", supernode="4")
    assert 9.5 + 491.9 / 4 + 2 * 2 ** 30 / 1e9 > 80          # the weights alone overfill the card
    assert value(v, "sessions_per_card") == 0 and v["weights_fit"] is False


def test_decode_step_is_the_longer_of_reads_and_matrix_work() -> None:
    """Eq. (6-2) per card: on a chip 200x slower at matrix work the step is compute-bound."""
    v = evaluate("supernodes/6.2.2-qwen3-32b-decode-step.yaml", tp="4", **{"hgx.bf16_flops": "5 TFLOP/s"})
    rest, kv_proj, kv = qwen3_32b_step_bytes(8, 131064)
    flops = 2 * (rest + kv_proj) / 2 + 4 * 64 * 128 * 64 * (131064 + 1)   # 2 per weight, QK^T and PV
    read_s = (rest / 4 + (kv_proj + kv) / 4) / 3350e9
    assert flops / 5e12 / 4 > read_s
    assert value(v, "local_per_card", "ms") == pytest.approx(flops / 5e12 / 4 * 1e3, rel=1e-6)
    assert v["memory_bound"] is False


@pytest.mark.parametrize("cards", [1, 3, 4, 7, 6])
def test_uneven_splits_are_the_busiest_cards(cards: int) -> None:
    ffn = evaluate("supernodes/6.2.2-ffn-four-way-split.yaml", cards=str(cards))
    columns = -(-25600 // cards)
    assert value(ffn, "slice") == columns
    assert value(ffn, "card_bytes", "B") == pytest.approx(3 * 5120 * columns * 2)
    seq = evaluate("supernodes/6.2.3-sequence-parallel-activation.yaml", cards=str(cards), seq="8191")
    rows = -(-8191 // cards)
    assert value(seq, "shard_rows") == rows
    assert value(seq, "per_card_sharded", "B") == pytest.approx(rows * 4096 * 2)
    assert value(seq, "total_sharded", "B") == pytest.approx(8191 * 4096 * 2)


def test_zero_tokens_and_zero_in_flight_are_zeros() -> None:
    prefill = evaluate("supernodes/6.1.3-prefill-vs-decode.yaml", tokens="0")
    for cell in ("selected_experts", "expert_read", "read_time", "expert_flops", "call_time", "hidden_bytes"):
        assert value(prefill, cell) == 0, cell
    window = evaluate("supernodes/6.6.2-in-flight-bandwidth.yaml", in_flight="0")
    assert value(window, "window_bandwidth", "GB/s") == 0 and value(window, "usable_bandwidth", "GB/s") == 0
    from supersheet.engine.expect.assume import violations
    for sheet, inputs in (("supernodes/6.1.3-prefill-vs-decode.yaml", {"tokens": "0"}),
                          ("supernodes/6.6.2-in-flight-bandwidth.yaml", {"in_flight": "0"})):
        workbook = open_workbook(SHEETS / sheet, cell_overrides=inputs)
        assert violations(workbook, workbook.evaluate()) == []


@pytest.mark.parametrize("cards,ep_cards", [(4, 8), (3, 6), (5, 7), (8, 16)])
def test_expert_blocks_on_cards_that_do_not_divide_the_experts(cards: int, ep_cards: int) -> None:
    v = evaluate("supernodes/6.2.6-expert-parallelism.yaml", cards=str(cards), ep_cards=str(ep_cards))
    block = -(-8 // cards)                          # 8 experts in blocks of whole experts
    assert value(v, "experts_per_card") == block
    assert value(v, "card_a") == 1 // block and value(v, "card_b") == 6 // block
    expert_bytes = 3 * 4096 * 1536 * 2
    fullest = -(-128 // ep_cards) * 94 * expert_bytes   # Qwen3-235B-A22B: 128 experts in each of 94 layers
    assert value(v, "experts_per_ep_card", "B") == pytest.approx(fullest)


@pytest.mark.parametrize("loads", [[30000, 20000, 16000, 12000], [16384, 16384], [9000, 26400, 11200, 15040, 16480, 13152],
                                   [500, 400, 300, 200, 100], [100, 100, 100], [100] * 7])
def test_q9_takes_any_number_of_ranks(loads: list[int]) -> None:
    """One MoE layer over EP = len(loads) inside one HGX H100, from Q9's timeline: dispatch
    (alpha + remote share x 7,392 B per assignment over 450 GB/s NVLink), the experts'
    roofline, the combine (14,336 B per assignment) sent after; the layer ends with the last send."""
    text = "[" + ", ".join(str(n) for n in loads) + "]"
    v = evaluate("questions/q9-rank-completion-times.yaml", loads=text)
    ranks, alpha = len(loads), 10e-6
    remote = (ranks - 1) / ranks
    expert_params = 3 * 7168 * 2048
    expert_bytes = expert_params + 3 * (7168 // 128) * (2048 // 128) * 4
    ends = []
    for rank, load in enumerate(loads):
        experts = 256 // ranks + (1 if rank < 256 % ranks else 0)     # 256 over 6: 43, 43, 43, 43, 42, 42
        weight_read = experts * expert_bytes / 3350e9
        dispatch = alpha + load * remote * 7392 / 450e9
        compute = max(weight_read, load * 2 * expert_params / 1978.9e12)
        ends.append(dispatch + compute + alpha + load * remote * 14336 / 450e9)
    assert value(v, "ranks") == ranks
    assert value(v, "completion", "us") == pytest.approx(max(ends) * 1e6, rel=1e-9)


# -- equal groups were an assumption; the busiest group is a formula -----------

@pytest.mark.parametrize("tp,ep", [(2, 4), (8, 1), (2, 3), (1, 5), (8, 7), (4, 6), (16, 3)])
def test_tp_ep_placement_at_uneven_expert_groups(tp: int, ep: int) -> None:
    """Qwen3-235B-A22B (94 layers, hidden 4096, 64/4 heads of 128, 128 experts of width 1536,
    vocabulary 151936, BF16) on TP x EP: the busiest card holds ceil(128 / ep) experts and
    ceil(1536 / tp) columns of each; every parameter is counted once per copy in the total."""
    layers, hidden, heads, kv_heads, head_dim, experts, width, vocab = 94, 4096, 64, 4, 128, 128, 1536, 151936
    v = evaluate("supernodes/6.3.1-tp2-ep4-placement.yaml", tp=str(tp), ep=str(ep))
    expert = 3 * hidden * width
    q_o, kv_proj, embed = 2 * hidden * heads * head_dim, 2 * hidden * kv_heads * head_dim, vocab * hidden
    everywhere = layers * (2 * hidden + 2 * head_dim + hidden * experts) + hidden      # norms, router, final norm
    kv_shards = min(tp, kv_heads)
    busiest = (layers * math.ceil(experts / ep) * expert * math.ceil(width / tp) / width
               + layers * q_o / tp + 2 * hidden * math.ceil(vocab / tp)
               + layers * kv_proj / kv_shards + everywhere)
    assert value(v, "experts_per_group") == math.ceil(experts / ep)
    assert value(v, "per_card_weights", "GB") == pytest.approx(busiest * 2 / 1e9, rel=1e-12)
    copies = max(tp, kv_heads) / kv_heads                                                 # of each KV head in a group
    total = layers * experts * expert + ep * (layers * q_o + 2 * embed) + ep * copies * layers * kv_proj \
        + tp * ep * everywhere
    assert value(v, "total_weights", "GB") == pytest.approx(total * 2 / 1e9, rel=1e-12)
    kv = 2 * layers * kv_heads * head_dim * 2 * 8192                                     # one 8192-token session
    assert value(v, "kv_per_card", "B") == pytest.approx(kv / kv_shards, rel=1e-12)
    assert value(v, "kv_total", "B") == pytest.approx(ep * copies * kv, rel=1e-12)
    if experts % ep:
        assert value(v, "per_card_weights", "GB") * tp * ep > value(v, "total_weights", "GB") - 1e-9


@pytest.mark.parametrize("ep,hot_groups,batch", [(4, 1, 64), (4, 4, 64), (3, 3, 64), (5, 2, 64), (6, 4, 20),
                                                  (3, 1, 3), (7, 8, 1000)])
def test_batch_reuse_busiest_group_at_uneven_groups(ep: int, hot_groups: int, batch: int) -> None:
    """128 experts, top-8: evenly covered, the group with the most active experts
    (ceil(active / ep)) is the busiest; 8 hot experts over `hot_groups` groups put
    ceil(8 / hot_groups) of them in one."""
    hot_groups = min(hot_groups, ep)
    v = evaluate("supernodes/6.3.2-batch-reuse.yaml", ep=str(ep), hot_groups=str(hot_groups), batch=f"{batch} token")
    assignments = batch * 8
    active = min(128, assignments)
    assert value(v, "uniform_busiest_group") == pytest.approx(math.ceil(active / ep) * assignments / active)
    assert value(v, "concentrated_busiest_group") == pytest.approx(math.ceil(8 / hot_groups) * assignments / 8)


@pytest.mark.parametrize("ranks", [32, 24, 48, 60, 7])
@pytest.mark.parametrize("batch", [512, 16384])
def test_ep_skew_closed_forms_at_uneven_ranks(ranks: int, batch: int) -> None:
    """DeepSeek-V3 (256 experts, top-8), 16 hot experts taking 30 %: the busiest rank is a
    fullest one, ceil(256 / G) experts; perfect balance is the mean, 256 / G experts."""
    v = evaluate("questions/q4-ep-skew.yaml", ep_ranks=str(ranks), batch=f"{batch} token", placement="1")
    experts, hot, fullest = 256, 16, math.ceil(256 / ranks)
    n, z = batch * 8, math.sqrt(2 * math.log(ranks))
    p_hot, p_cold = 0.30 / hot, 0.70 / (experts - hot)

    def skew(share: float) -> float:
        return (n * share + z * math.sqrt(n * share * (1 - share))) / (n / ranks)
    clustered = min(hot, fullest) * p_hot + (fullest - min(hot, fullest)) * p_cold
    spread = math.ceil(hot / ranks) * p_hot + (fullest - math.ceil(hot / ranks)) * p_cold
    assert value(v, "experts_per_rank") == fullest
    assert value(v, "skew_uniform") == pytest.approx(skew(fullest / experts), rel=1e-12)
    assert value(v, "skew_clustered") == pytest.approx(skew(clustered), rel=1e-12)
    assert value(v, "skew_spread") == pytest.approx(skew(spread), rel=1e-12)
    expert_bytes, flops = value(v, "model.expert_bytes", "B"), value(v, "expert_flops", "FLOP")
    hbm, peak = value(v, "gpu.hbm_bandwidth", "B/s"), value(v, "gpu.fp8_flops", "FLOP/s")
    busiest = n * clustered + z * math.sqrt(n * clustered * (1 - clustered))
    rank = max(fullest * expert_bytes / hbm, busiest * flops / peak)
    ideal = max(experts / ranks * expert_bytes / hbm, n / ranks * flops / peak)
    assert value(v, "skew_cost") == pytest.approx(rank / ideal - 1, rel=1e-9)


@pytest.mark.parametrize("ranks", [32, 24, 48, 60, 7])
@pytest.mark.parametrize("batch", [32, 128])
def test_two_batch_overlap_at_uneven_ranks(ranks: int, batch: int) -> None:
    """DeepSeek-V3 on EP G: the layer waits for a fullest rank, c = ceil(256 / G) experts;
    its NIC sends its own tokens' remote dispatches (1 - c/E of 8 copies, 7,392 B) and the
    combines (14,336 B) of the copies it serves for the other G - 1 ranks ((G - 1) c/E)."""
    v = evaluate("questions/q7-two-batch-overlap.yaml", ep_ranks=str(ranks), batch_per_rank=f"{batch} token")
    experts, top_k, alpha, nic, hbm = 256, 8, 10e-6, 50e9, 3350e9
    c = math.ceil(experts / ranks)
    per_token = top_k * ((1 - c / experts) * 7392 + (ranks - 1) * c / experts * 14336) / nic
    fixed = value(v, "fixed_read", "B")
    expert, kv = value(v, "model.expert_bytes", "B"), value(v, "kv_per_session_layer", "B")

    def compute(tokens: float) -> float:
        touched = c * (1 - (1 - top_k / experts) ** (ranks * tokens))
        return (fixed + touched * expert + tokens * kv) / hbm
    unsplit = compute(batch) + 2 * alpha + batch * per_token
    split = 2 * max(compute(batch / 2), 2 * alpha + batch / 2 * per_token)
    assert value(v, "per_token_comm", "s") == pytest.approx(per_token, rel=1e-12)
    assert value(v, "unsplit", "s") == pytest.approx(unsplit, rel=1e-12)
    assert value(v, "split", "s") == pytest.approx(split, rel=1e-12)
    assert value(v, "break_even_closed", "token") == pytest.approx(((fixed + c * expert) / hbm - 2 * alpha) / per_token,
                                                                    rel=1e-12)
