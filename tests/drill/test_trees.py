"""The shipped Intel, AMD and Arm stall trees (data/presets/*.tree) against
Linux perf's metric expressions: for each tree a few sets of counts, each
node's value from hpcshim-drilldown equals the perf MetricExpr evaluated on
the same counts.  The expressions are carried here as perf has them
(tools/perf/pmu-events/arch/..., file and MetricName cited per node) and
evaluated by a small evaluator of perf's expression syntax (+ - * /,
min, max, d_ratio, 'A if C else B', comparisons, #literals, cpu@...@ terms,
references to other metrics), so the reference is computed, not copied.
Literals: #SMT_on = 0, #core_wide = 1 (one thread per core, counted per
thread), #has_pmem = 0, #slots = 8 (Neoverse V1).  perf's Arm metrics are
percentages (x 100); the trees keep fractions, the test divides by 100."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import SRC, Tap, BUILD

t = Tap()
DATA = os.path.join(SRC, "data", "presets")
TOOL = os.path.join(BUILD, "hpcshim-drilldown")
TMP = tempfile.mkdtemp(prefix="hs_trees_")
LITERALS = {"#SMT_on": 0.0, "#core_wide": 1.0, "#has_pmem": 0.0, "#slots": 8.0}


# ---- a small evaluator of perf's metric expressions --------------------------
TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:e[+-]?\d+)?)"
                   r"|(?P<pmu>cpu@(?:\\.|[^@])*@)"
                   r"|(?P<name>#?[A-Za-z_](?:\\.|[A-Za-z0-9_.])*)"
                   r"|(?P<op><=|>=|[-+*/(),<>]))")


def tokens(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError("bad expression at %r" % text[pos:])
        kind = m.lastgroup
        val = m.group(kind)
        if kind == "name" and val in ("if", "else"):
            kind = val
        out.append((kind, val))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    out.append(("end", None))
    return out


class PerfExpr:
    """Evaluates one expression; names resolve through lookup(name)."""

    def __init__(self, text, lookup):
        self.toks = tokens(text)
        self.i = 0
        self.lookup = lookup

    def peek(self):
        return self.toks[self.i]

    def take(self, want=None):
        tok = self.toks[self.i]
        if want and tok[1] != want and tok[0] != want:
            raise ValueError("expected %s, got %r" % (want, tok))
        self.i += 1
        return tok

    def value(self):
        v = self.cond()
        self.take("end")
        return v

    def cond(self):  # A if C else B, lowest precedence, right-associative
        a = self.cmp()
        if self.peek()[0] == "if":
            self.take()
            c = self.cmp()
            self.take("else")
            b = self.cond()
            return a if c else b
        return a

    def cmp(self):
        a = self.add()
        while self.peek()[1] in ("<", ">", "<=", ">="):
            op = self.take()[1]
            b = self.add()
            a = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
            a = 1.0 if a else 0.0
        return a

    def add(self):
        a = self.mul()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            b = self.mul()
            a = a + b if op == "+" else a - b
        return a

    def mul(self):
        a = self.unary()
        while self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            b = self.unary()
            a = a * b if op == "*" else (a / b if b else float("inf") * (a or float("nan")))
        return a

    def unary(self):
        if self.peek()[1] == "-":
            self.take()
            return -self.unary()
        return self.primary()

    def primary(self):
        kind, val = self.take()
        if kind == "num":
            return float(val)
        if val == "(":
            v = self.cond()
            self.take(")")
            return v
        if kind == "name" and self.peek()[1] == "(" and val in ("min", "max", "d_ratio"):
            self.take("(")
            a = self.cond()
            self.take(",")
            b = self.cond()
            self.take(")")
            if val == "min":
                return min(a, b)
            if val == "max":
                return max(a, b)
            return 0.0 if b == 0 else a / b  # perf's d_ratio
        if kind in ("name", "pmu"):
            if val.startswith("#"):
                return LITERALS[val]
            return float(self.lookup(val.replace("\\", "")))
        raise ValueError("unexpected %r" % val)


def perf_eval(metrics, events, name):
    """Value of metric name: metrics maps metric names to expressions,
    events maps perf event names to counts."""
    def lookup(n):
        if n in events:
            return events[n]
        if n in metrics:
            return perf_eval(metrics, events, n)
        # An event only on the branch of an 'if' not taken (the SMT forms):
        # NaN, which would show in any value that used it.
        return float("nan")
    return PerfExpr(metrics[name], lookup).value()


# The evaluator itself, on perf constructs whose value is known.
for text, want in (("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("10 - 4 - 3", 3),
                   ("24 / 4 / 2", 3), ("max(1 - 3, 0)", 0), ("min(2, 5) * 2", 4),
                   ("d_ratio(3, 0)", 0), ("d_ratio(3, 4)", 0.75),
                   ("(2 if #SMT_on else 5) * 2", 10), ("1 if 3 > 2 else 0", 1),
                   ("1e3 * 2", 2000), ("4 * ( 2 ) - -1", 9)):
    got = PerfExpr(text, lambda n: 0).value()
    t.ok(abs(got - want) < 1e-12, "perf expression evaluator: %s = %s (got %s)" % (text, want, got))
got = PerfExpr(r"cpu@X\,cmask\=1@ + topdown\-fe\-bound", {"cpu@X,cmask=1@": 2, "topdown-fe-bound": 3}.get).value()
t.ok(got == 5, "evaluator: cpu@...@ terms and escaped names (got %s)" % got)


def drill(model, counts):
    f = os.path.join(TMP, "counts.json")
    with open(f, "w") as fh:
        json.dump(counts, fh)
    env = dict(os.environ, HPCSHIM_PRESET_PATH=DATA)
    p = subprocess.run([TOOL, "--json", "--model", model, "--counts", f],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        t.diag(p.stderr)
        return {}
    return {n["id"]: n for n in json.loads(p.stdout)["scopes"][0]["nodes"]}


def check(model, source, metrics, nodes, alias, counts, scale=1.0, label=""):
    """nodes: tree node id -> perf metric name.  alias: perf event name ->
    tree event alias.  counts: alias -> count."""
    got = drill(model, counts)
    events = {perf: counts[a] for perf, a in alias.items()}
    for node, metric in nodes.items():
        want = perf_eval(metrics, events, metric) / scale
        v = got.get(node, {}).get("value")
        ok = isinstance(v, (int, float)) and abs(v - want) <= 1e-9 * max(1.0, abs(want))
        t.ok(ok, "%s%s: %s = %s %s = %.9g (tree %s)" % (model, label, node, source, metric, want, v))


# ---- Skylake-SP / Cascade Lake-SP --------------------------------------------
SKX = "tools/perf/pmu-events/arch/x86/skylakex/skx-metrics.json"
SKX_M = {
    "tma_info_thread_clks": "CPU_CLK_UNHALTED.THREAD",
    "tma_info_core_core_clks": "(CPU_CLK_UNHALTED.THREAD / 2 * (1 + CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE / CPU_CLK_UNHALTED.REF_XCLK) if #core_wide < 1 else (CPU_CLK_UNHALTED.THREAD_ANY / 2 if #SMT_on else tma_info_thread_clks))",
    "tma_info_thread_slots": "4 * tma_info_core_core_clks",
    "tma_frontend_bound": "IDQ_UOPS_NOT_DELIVERED.CORE / tma_info_thread_slots",
    "tma_fetch_latency": "4 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE / tma_info_thread_slots",
    "tma_fetch_bandwidth": "tma_frontend_bound - tma_fetch_latency",
    "tma_bad_speculation": "(UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS + 4 * (INT_MISC.RECOVERY_CYCLES_ANY / 2 if #SMT_on else INT_MISC.RECOVERY_CYCLES)) / tma_info_thread_slots",
    "tma_branch_mispredicts": "BR_MISP_RETIRED.ALL_BRANCHES / (BR_MISP_RETIRED.ALL_BRANCHES + MACHINE_CLEARS.COUNT) * tma_bad_speculation",
    "tma_machine_clears": "tma_bad_speculation - tma_branch_mispredicts",
    "tma_backend_bound": "1 - tma_frontend_bound - (UOPS_ISSUED.ANY + 4 * (INT_MISC.RECOVERY_CYCLES_ANY / 2 if #SMT_on else INT_MISC.RECOVERY_CYCLES)) / tma_info_thread_slots",
    "tma_memory_bound": "(CYCLE_ACTIVITY.STALLS_MEM_ANY + EXE_ACTIVITY.BOUND_ON_STORES) / (CYCLE_ACTIVITY.STALLS_TOTAL + (EXE_ACTIVITY.1_PORTS_UTIL + tma_retiring * EXE_ACTIVITY.2_PORTS_UTIL) + EXE_ACTIVITY.BOUND_ON_STORES) * tma_backend_bound",
    "tma_core_bound": "tma_backend_bound - tma_memory_bound",
    "tma_retiring": "UOPS_RETIRED.RETIRE_SLOTS / tma_info_thread_slots",
    "tma_heavy_operations": "(UOPS_RETIRED.RETIRE_SLOTS + UOPS_RETIRED.MACRO_FUSED - INST_RETIRED.ANY) / tma_info_thread_slots",
    "tma_light_operations": "tma_retiring - tma_heavy_operations",
}
SKX_A = {"CPU_CLK_UNHALTED.THREAD": "clks", "IDQ_UOPS_NOT_DELIVERED.CORE": "fe_undeliv",
         "UOPS_ISSUED.ANY": "issued", "UOPS_RETIRED.RETIRE_SLOTS": "ret_slots",
         "INT_MISC.RECOVERY_CYCLES": "recovery",
         "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE": "fe_0uops",
         "BR_MISP_RETIRED.ALL_BRANCHES": "br_misp", "MACHINE_CLEARS.COUNT": "clears",
         "CYCLE_ACTIVITY.STALLS_MEM_ANY": "stalls_mem", "CYCLE_ACTIVITY.STALLS_TOTAL": "stalls_total",
         "EXE_ACTIVITY.BOUND_ON_STORES": "bound_stores", "EXE_ACTIVITY.1_PORTS_UTIL": "ports1",
         "EXE_ACTIVITY.2_PORTS_UTIL": "ports2", "UOPS_RETIRED.MACRO_FUSED": "macro_fused",
         "INST_RETIRED.ANY": "inst"}
SKX_N = {n: "tma_" + n for n in ("frontend_bound", "fetch_latency", "fetch_bandwidth",
                                  "bad_speculation", "branch_mispredicts", "machine_clears",
                                  "backend_bound", "memory_bound", "core_bound", "retiring",
                                  "heavy_operations", "light_operations")}
SKX_N["slots"] = "tma_info_thread_slots"
SKX_C1 = {"clks": 1.0e9, "fe_undeliv": 6.2e8, "issued": 2.9e9, "ret_slots": 2.5e9,
          "recovery": 3.0e7, "fe_0uops": 9.0e7, "br_misp": 4.0e6, "clears": 1.0e6,
          "stalls_mem": 2.1e8, "stalls_total": 3.3e8, "bound_stores": 2.0e7,
          "ports1": 1.2e8, "ports2": 1.5e8, "macro_fused": 2.0e8, "inst": 2.4e9}
SKX_C2 = {"clks": 7.5e8, "fe_undeliv": 1.1e8, "issued": 1.0e9, "ret_slots": 0.8e9,
          "recovery": 6.0e7, "fe_0uops": 2.0e7, "br_misp": 9.0e6, "clears": 3.0e6,
          "stalls_mem": 4.0e8, "stalls_total": 4.5e8, "bound_stores": 5.0e7,
          "ports1": 3.0e7, "ports2": 2.0e7, "macro_fused": 5.0e7, "inst": 7.0e8}
for model in ("skx", "clx"):
    check(model, SKX, SKX_M, SKX_N, SKX_A, SKX_C1, label=" (set 1)")
check("skx", SKX, SKX_M, SKX_N, SKX_A, SKX_C2, label=" (set 2, memory bound)")

# ---- Ice Lake-SP (PERF_METRICS) ----------------------------------------------
ICX = "tools/perf/pmu-events/arch/x86/icelakex/icx-metrics.json"
ICX_M = {
    "tma_info_thread_slots": "TOPDOWN.SLOTS",
    "tma_frontend_bound": r"topdown\-fe\-bound / (topdown\-fe\-bound + topdown\-bad\-spec + topdown\-retiring + topdown\-be\-bound) - INT_MISC.UOP_DROPPING / tma_info_thread_slots",
    "tma_backend_bound": r"topdown\-be\-bound / (topdown\-fe\-bound + topdown\-bad\-spec + topdown\-retiring + topdown\-be\-bound) + 5 * cpu@INT_MISC.RECOVERY_CYCLES\,cmask\=1\,edge@ / tma_info_thread_slots",
    "tma_retiring": r"topdown\-retiring / (topdown\-fe\-bound + topdown\-bad\-spec + topdown\-retiring + topdown\-be\-bound) + 0 * tma_info_thread_slots",
    "tma_bad_speculation": "max(1 - (tma_frontend_bound + tma_backend_bound + tma_retiring), 0)",
    "tma_fetch_latency": "(5 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE - INT_MISC.UOP_DROPPING) / tma_info_thread_slots",
    "tma_fetch_bandwidth": "max(0, tma_frontend_bound - tma_fetch_latency)",
    "tma_branch_mispredicts": "BR_MISP_RETIRED.ALL_BRANCHES / (BR_MISP_RETIRED.ALL_BRANCHES + MACHINE_CLEARS.COUNT) * tma_bad_speculation",
    "tma_machine_clears": "max(0, tma_bad_speculation - tma_branch_mispredicts)",
    "tma_memory_bound": "(CYCLE_ACTIVITY.STALLS_MEM_ANY + EXE_ACTIVITY.BOUND_ON_STORES) / (CYCLE_ACTIVITY.STALLS_TOTAL + (EXE_ACTIVITY.1_PORTS_UTIL + tma_retiring * EXE_ACTIVITY.2_PORTS_UTIL) + EXE_ACTIVITY.BOUND_ON_STORES) * tma_backend_bound",
    "tma_core_bound": "max(0, tma_backend_bound - tma_memory_bound)",
    "tma_microcode_sequencer": "tma_retiring * tma_info_thread_slots / UOPS_ISSUED.ANY * IDQ.MS_UOPS / tma_info_thread_slots",
    "tma_heavy_operations": r"tma_microcode_sequencer + tma_retiring * (UOPS_DECODED.DEC0 - cpu@UOPS_DECODED.DEC0\,cmask\=1@) / IDQ.MITE_UOPS",
    "tma_light_operations": "max(0, tma_retiring - tma_heavy_operations)",
}
ICX_A = {"TOPDOWN.SLOTS": "slots_ev", "topdown-retiring": "m_ret", "topdown-bad-spec": "m_bad",
         "topdown-fe-bound": "m_fe", "topdown-be-bound": "m_be",
         "INT_MISC.UOP_DROPPING": "uop_drop",
         "cpu@INT_MISC.RECOVERY_CYCLES,cmask=1,edge@": "clears_count",
         "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE": "fe_0uops",
         "BR_MISP_RETIRED.ALL_BRANCHES": "br_misp", "MACHINE_CLEARS.COUNT": "clears",
         "CYCLE_ACTIVITY.STALLS_MEM_ANY": "stalls_mem", "CYCLE_ACTIVITY.STALLS_TOTAL": "stalls_total",
         "EXE_ACTIVITY.BOUND_ON_STORES": "bound_stores", "EXE_ACTIVITY.1_PORTS_UTIL": "ports1",
         "EXE_ACTIVITY.2_PORTS_UTIL": "ports2", "UOPS_ISSUED.ANY": "issued",
         "IDQ.MS_UOPS": "ms_uops", "UOPS_DECODED.DEC0": "dec0",
         "cpu@UOPS_DECODED.DEC0,cmask=1@": "dec0_c1", "IDQ.MITE_UOPS": "mite_uops"}
ICX_N = {n: "tma_" + n for n in ("frontend_bound", "fetch_latency", "fetch_bandwidth",
                                  "bad_speculation", "branch_mispredicts", "machine_clears",
                                  "backend_bound", "memory_bound", "core_bound", "retiring",
                                  "heavy_operations", "light_operations")}
ICX_N["slots"] = "tma_info_thread_slots"
# Metric events read as slots x fraction (8-bit): their sum is near slots.
ICX_C1 = {"slots_ev": 5.0e9, "m_ret": 2.2e9, "m_bad": 0.4e9, "m_fe": 1.0e9, "m_be": 1.4e9,
          "uop_drop": 2.0e7, "clears_count": 1.0e6, "fe_0uops": 1.2e8, "br_misp": 5.0e6,
          "clears": 1.0e6, "stalls_mem": 1.5e8, "stalls_total": 3.0e8, "bound_stores": 1.0e7,
          "ports1": 1.0e8, "ports2": 1.2e8, "issued": 2.6e9, "ms_uops": 1.0e8,
          "dec0": 4.0e8, "dec0_c1": 3.0e8, "mite_uops": 6.0e8}
# Clamped: fe + be + retiring > 1 (bad speculation max(.., 0) = 0), fetch
# latency above frontend bound (fetch bandwidth 0).
ICX_C2 = dict(ICX_C1, m_bad=0.0, clears_count=3.0e7, fe_0uops=2.5e8)
check("icx", ICX, ICX_M, ICX_N, ICX_A, ICX_C1, label=" (set 1)")
check("icx", ICX, ICX_M, ICX_N, ICX_A, ICX_C2, label=" (set 2, clamped)")

# ---- Sapphire Rapids (PERF_METRICS with the level-2 metrics) ----------------
# Every level-1 and level-2 MetricExpr and the own term of each
# MetricThreshold as spr-metrics.json has them at commit 26f4b26f76bd
# (read in full; tma_info_thread_slots = TOPDOWN.SLOTS there too).  The
# level-2 metric events are the kernel's INTEL_TD_METRIC_HEAVY_OPS,
# _BR_MISPREDICT, _FETCH_LAT, _MEM_BOUND = 0x8400 .. 0x8700
# (arch/x86/include/asm/perf_event.h).
SPR = "tools/perf/pmu-events/arch/x86/sapphirerapids/spr-metrics.json"
SPR_SUM = r"(topdown\-fe\-bound + topdown\-bad\-spec + topdown\-retiring + topdown\-be\-bound)"
SPR_M = {
    "tma_info_thread_slots": "TOPDOWN.SLOTS",
    "tma_frontend_bound": r"topdown\-fe\-bound / " + SPR_SUM + " - INT_MISC.UOP_DROPPING / tma_info_thread_slots",
    "tma_fetch_latency": r"topdown\-fetch\-lat / " + SPR_SUM + " - INT_MISC.UOP_DROPPING / tma_info_thread_slots",
    "tma_fetch_bandwidth": "max(0, tma_frontend_bound - tma_fetch_latency)",
    "tma_bad_speculation": "max(1 - (tma_frontend_bound + tma_backend_bound + tma_retiring), 0)",
    "tma_branch_mispredicts": r"topdown\-br\-mispredict / " + SPR_SUM,
    "tma_machine_clears": "max(0, tma_bad_speculation - tma_branch_mispredicts)",
    "tma_backend_bound": r"topdown\-be\-bound / " + SPR_SUM,
    "tma_memory_bound": r"topdown\-mem\-bound / " + SPR_SUM,
    "tma_core_bound": "max(0, tma_backend_bound - tma_memory_bound)",
    "tma_retiring": r"topdown\-retiring / " + SPR_SUM,
    "tma_heavy_operations": r"topdown\-heavy\-ops / " + SPR_SUM,
    "tma_light_operations": "max(0, tma_retiring - tma_heavy_operations)",
}
# perf's MetricThreshold of each; the tree keeps the first term (the node's
# own), the '& tma_parent > T' chain is the evaluator's bottleneck rule.
SPR_T = {
    "tma_frontend_bound": "tma_frontend_bound > 0.15",
    "tma_fetch_latency": "tma_fetch_latency > 0.1 & tma_frontend_bound > 0.15",
    "tma_fetch_bandwidth": "tma_fetch_bandwidth > 0.2",
    "tma_bad_speculation": "tma_bad_speculation > 0.15",
    "tma_branch_mispredicts": "tma_branch_mispredicts > 0.1 & tma_bad_speculation > 0.15",
    "tma_machine_clears": "tma_machine_clears > 0.1 & tma_bad_speculation > 0.15",
    "tma_backend_bound": "tma_backend_bound > 0.2",
    "tma_memory_bound": "tma_memory_bound > 0.2 & tma_backend_bound > 0.2",
    "tma_core_bound": "tma_core_bound > 0.1 & tma_backend_bound > 0.2",
    "tma_retiring": "tma_retiring > 0.7 | tma_heavy_operations > 0.1",
    "tma_heavy_operations": "tma_heavy_operations > 0.1",
    "tma_light_operations": "tma_light_operations > 0.6",
}
SPR_A = {"TOPDOWN.SLOTS": "slots_ev", "topdown-retiring": "m_ret", "topdown-bad-spec": "m_bad",
         "topdown-fe-bound": "m_fe", "topdown-be-bound": "m_be", "topdown-heavy-ops": "m_heavy",
         "topdown-br-mispredict": "m_br", "topdown-fetch-lat": "m_fetch_lat",
         "topdown-mem-bound": "m_mem", "INT_MISC.UOP_DROPPING": "uop_drop"}
SPR_N = {n: "tma_" + n for n in ("frontend_bound", "fetch_latency", "fetch_bandwidth",
                                  "bad_speculation", "branch_mispredicts", "machine_clears",
                                  "backend_bound", "memory_bound", "core_bound", "retiring",
                                  "heavy_operations", "light_operations")}
SPR_N["slots"] = "tma_info_thread_slots"
# Set 1: the four metrics sum to 6.02e9, not slots (8-bit fractions);
# fetch bandwidth 0.15 lies between 0.1 and perf's 0.2, heavy operations
# and memory bound are over their thresholds.
SPR_C1 = {"slots_ev": 6.0e9, "m_ret": 2.4e9, "m_bad": 0.62e9, "m_fe": 1.2e9, "m_be": 1.8e9,
          "uop_drop": 1.0e7, "m_heavy": 0.9e9, "m_br": 0.5e9, "m_fetch_lat": 0.3e9, "m_mem": 1.3e9}
# Set 2: each level-2 metric above its parent's (possible with the 8-bit
# rounding of each fraction): every sibling by subtraction clamps at 0.
SPR_C2 = dict(SPR_C1, m_fetch_lat=1.3e9, m_heavy=2.5e9, m_mem=1.9e9, m_br=0.7e9)
for label, counts in ((" (set 1)", SPR_C1), (" (set 2, clamped)", SPR_C2)):
    check("spr", SPR, SPR_M, SPR_N, SPR_A, counts, label=label)
    got = drill("spr", counts)
    events = {perf: counts[a] for perf, a in SPR_A.items()}
    for node, metric in SPR_N.items():
        if metric not in SPR_T:
            continue
        own = re.split(r" [&|] ", SPR_T[metric])[0]
        want = bool(PerfExpr(own, lambda n: perf_eval(SPR_M, events, n)).value())
        over = got.get(node, {}).get("over")
        t.ok(over is want, "spr%s: %s over its threshold = %s MetricThreshold '%s' = %s (tree %s)"
             % (label, node, metric, own, want, over))

# ---- AMD Zen 4 ----------------------------------------------------------------
ZEN4 = "tools/perf/pmu-events/arch/x86/amdzen4/pipeline.json"
ZEN4_M = {
    "total_dispatch_slots": "6 * ls_not_halted_cyc",
    "frontend_bound": "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend, total_dispatch_slots)",
    "bad_speculation": "d_ratio(de_src_op_disp.all - ex_ret_ops, total_dispatch_slots)",
    "backend_bound": "d_ratio(de_no_dispatch_per_slot.backend_stalls, total_dispatch_slots)",
    "smt_contention": "d_ratio(de_no_dispatch_per_slot.smt_contention, total_dispatch_slots)",
    "retiring": "d_ratio(ex_ret_ops, total_dispatch_slots)",
    "frontend_bound_latency": r"d_ratio((6 * cpu@de_no_dispatch_per_slot.no_ops_from_frontend\,cmask\=0x6@), total_dispatch_slots)",
    "frontend_bound_bandwidth": r"d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend - (6 * cpu@de_no_dispatch_per_slot.no_ops_from_frontend\,cmask\=0x6@), total_dispatch_slots)",
    "bad_speculation_mispredicts": "d_ratio(bad_speculation * ex_ret_brn_misp, ex_ret_brn_misp + resyncs_or_nc_redirects)",
    "bad_speculation_pipeline_restarts": "d_ratio(bad_speculation * resyncs_or_nc_redirects, ex_ret_brn_misp + resyncs_or_nc_redirects)",
    "backend_bound_memory": "backend_bound * d_ratio(ex_no_retire.load_not_complete, ex_no_retire.not_complete)",
    "backend_bound_cpu": "backend_bound * (1 - d_ratio(ex_no_retire.load_not_complete, ex_no_retire.not_complete))",
    "retiring_fastpath": "retiring * (1 - d_ratio(ex_ret_ucode_ops, ex_ret_ops))",
    "retiring_microcode": "retiring * d_ratio(ex_ret_ucode_ops, ex_ret_ops)",
}
ZEN4_A = {"ls_not_halted_cyc": "cyc", "de_no_dispatch_per_slot.no_ops_from_frontend": "fe",
          "de_no_dispatch_per_slot.backend_stalls": "be", "de_no_dispatch_per_slot.smt_contention": "smt",
          "de_src_op_disp.all": "disp", "ex_ret_ops": "ret_ops",
          "cpu@de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6@": "fe_c6",
          "ex_ret_brn_misp": "br_misp", "resyncs_or_nc_redirects": "resyncs",
          "ex_no_retire.load_not_complete": "nr_load", "ex_no_retire.not_complete": "nr_all",
          "ex_ret_ucode_ops": "ucode"}
ZEN4_N = {n: n for n in ZEN4_M if n != "total_dispatch_slots"}
ZEN4_N["slots"] = "total_dispatch_slots"
ZEN4_C1 = {"cyc": 1.0e9, "fe": 1.3e9, "be": 2.2e9, "smt": 0.1e9, "disp": 2.6e9, "ret_ops": 2.3e9,
           "fe_c6": 0.12e9, "br_misp": 6.0e6, "resyncs": 2.0e6, "nr_load": 2.5e8, "nr_all": 4.0e8,
           "ucode": 1.5e8}
ZEN4_C2 = dict(ZEN4_C1, be=4.1e9, fe=0.5e9, fe_c6=0.02e9, disp=1.3e9, ret_ops=1.2e9, nr_load=3.8e8)
check("amd64_fam19h_zen4", ZEN4, ZEN4_M, ZEN4_N, ZEN4_A, ZEN4_C1, label=" (set 1)")
check("amd64_fam19h_zen4", ZEN4, ZEN4_M, ZEN4_N, ZEN4_A, ZEN4_C2, label=" (set 2, backend)")

# ---- Arm Neoverse V1 and N1 ---------------------------------------------------
V1 = "tools/perf/pmu-events/arch/arm64/arm/neoverse-v1/metrics.json + arm64/sbsa.json"
V1_M = {
    "frontend_bound": "(100 * ((STALL_SLOT_FRONTEND / (CPU_CYCLES * 8)) - ((BR_MIS_PRED * 4) / CPU_CYCLES)))",
    "bad_speculation": "(100 * (((1 - (OP_RETIRED / OP_SPEC)) * (1 - (STALL_SLOT / (CPU_CYCLES * 8)))) + ((BR_MIS_PRED * 4) / CPU_CYCLES)))",
    # sbsa.json, with #slots; x 100 like the V1 file's own
    "retiring": "100 * ((op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles)))",
    "backend_bound": "100 * (stall_slot_backend / (#slots * cpu_cycles))",
    "frontend_stalled_cycles": "((STALL_FRONTEND / CPU_CYCLES) * 100)",
    "backend_stalled_cycles": "((STALL_BACKEND / CPU_CYCLES) * 100)",
}
V1_A = {"CPU_CYCLES": "cycles", "cpu_cycles": "cycles", "INST_RETIRED": "inst",
        "STALL_SLOT_FRONTEND": "ss_fe", "stall_slot_backend": "ss_be", "STALL_SLOT": "ss",
        "stall_slot": "ss", "OP_RETIRED": "op_ret", "op_retired": "op_ret", "OP_SPEC": "op_spec",
        "op_spec": "op_spec", "BR_MIS_PRED": "br_mis", "STALL_FRONTEND": "st_fe",
        "STALL_BACKEND": "st_be"}
V1_C = {"cycles": 1.0e9, "inst": 2.1e9, "ss_fe": 1.6e9, "ss_be": 3.0e9, "ss": 4.6e9,
        "op_ret": 2.8e9, "op_spec": 3.2e9, "br_mis": 5.0e6, "st_fe": 1.5e8, "st_be": 3.5e8}
check("arm_v1", V1, V1_M, {n: n for n in V1_M}, V1_A, V1_C, scale=100.0)
check("arm_v1", V1, {"ipc": "(INST_RETIRED / CPU_CYCLES)"}, {"ipc": "ipc"}, V1_A, V1_C)

N1 = "tools/perf/pmu-events/arch/arm64/arm/neoverse-n1/metrics.json"
N1_M = {
    "frontend_stalled_cycles": "((STALL_FRONTEND / CPU_CYCLES) * 100)",
    "backend_stalled_cycles": "((STALL_BACKEND / CPU_CYCLES) * 100)",
    "ipc": "(INST_RETIRED / CPU_CYCLES)",
}
N1_A = {"CPU_CYCLES": "cycles", "INST_RETIRED": "inst", "STALL_FRONTEND": "st_fe", "STALL_BACKEND": "st_be"}
N1_C = {"cycles": 1.0e9, "inst": 1.4e9, "st_fe": 1.8e8, "st_be": 4.2e8}
got = drill("arm_n1", N1_C)
ev = {k: N1_C[v] for k, v in N1_A.items()}
for node, scale_by in (("frontend_stalled_cycles", "cycles_total"), ("backend_stalled_cycles", "cycles_total")):
    want = perf_eval(N1_M, ev, node) / 100
    share = got.get(node, {}).get("share")
    t.ok(isinstance(share, float) and abs(share - want) < 1e-12,
         "arm_n1: %s share of the cycles = %s %s = %.9g (tree %s)" % (node, N1, node, want, share))
want = perf_eval(N1_M, ev, "ipc")
t.ok(abs(got.get("ipc", {}).get("value", -1) - want) < 1e-12, "arm_n1: ipc = %s ipc = %s" % (N1, want))

# ---- no node is 0 for want of counts: null with the reason -------------------
for model in ("skx", "icx", "spr", "amd64_fam19h_zen4", "arm_v1", "arm_n1"):
    nodes = drill(model, {})
    bad = [k for k, n in nodes.items() if n.get("value") is not None or not n.get("reason")]
    t.ok(nodes and not bad, "%s: without counts every node is null with a reason (%d nodes; bad: %s)"
         % (model, len(nodes), bad))
t.done()
