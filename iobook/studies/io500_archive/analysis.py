"""The IO500 archive as a data set (issue 39, after Kunkel et al., arXiv 2605.02194): its counted runs by the list
they went to, one per machine; score spans; phase-to-phase rank correlations within bandwidth and within metadata;
the bandwidth and metadata sub-scores per client node; each list apart. Every correlation is an evidence record
(evidence.correlate: a percentile bootstrap over machines), all decided once, as one family."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from ...database import published, store
from ...inference import evidence, stats
from ...inference.evidence import Replicate

PACKAGE = __package__
# The paper's figures (data/published/papers/, with their source) and the lists it took
PAPER = "papers/kunkel2026_io500_archive"
PAPER_LISTS = ("ISC21", "SC21", "ISC22", "SC22")
# The IO500 phases whose values the paper correlates, by domain: IOR's four bandwidth phases, and mdtest's seven
# with find (the C app's find; the bash script's is the same phase by name)
DOMAINS = {"bandwidth": ("ior-easy-write", "ior-easy-read", "ior-hard-write", "ior-hard-read"),
           "metadata": ("mdtest-easy-write", "mdtest-easy-stat", "mdtest-easy-delete", "mdtest-hard-write",
                        "mdtest-hard-read", "mdtest-hard-stat", "mdtest-hard-delete", "find")}
# The write phase whose stonewall the findings read: the first phase of every IO500 run
WEAR_PHASE = "ior-easy-write"
# Every correlation of the chapter is one family: the report decides once (issue 36)
FAMILY = "IO500 archive correlations"
PAPER_Q = "BH q"  # the correlation table's column of paper_rule_q (the paper's rule; the caption says so)
SEED = 0
# A question about the lists reads what they published: column -> the run's own column whose list_<own> the
# site's record holds (the list's value where it attaches one to the run, else the run's own)
LISTED = {"listed_score": "score", "listed_bw_gib_s": "bw_gib_s", "listed_md_kiops": "md_kiops"}
LIST_OWN_VALUES = ("AGREES",)  # the list_check whose list values are the run's own (io500_lists.LIST_CHECKS)
# Flags of the validity audit (io500_run_flags) that leave a run's phases no measure of what they mean: values
# beyond what the setup could do, settings changed between phases. UNPROTECTED is a design, kept and stated.
EXCLUDED_FLAGS = ("IMPLAUSIBLE", "CHANGED_DURING_RUN")


def generation(era: str | None) -> str:
    """The benchmark's generation, whose phases mean the same within it: the 2017 script, the bash script of the
    2018-2019 lists, the C app from ISC20 on (its versions add phases but keep these), or a custom one."""
    if era is None or (isinstance(era, float) and math.isnan(era)):
        return "not stated"
    return "C app" if era.startswith("C app") else era


def get_runs(con) -> pd.DataFrame:
    """Every counted run (queries/runs.sql) with its generation, its sub-scores per client node, and its score and
    sub-scores as its list published them (LISTED: the list's value where the site's record attaches one to the run,
    else the run's own; `list_differs`: the list's value is not the run's own, io500_lists.LIST_CHECKS)."""
    runs = store.frame(con, PACKAGE, "runs")
    nodes = runs.client_nodes.astype(float).where(runs.client_nodes > 0)
    listed = {name: runs[f"list_{own}"].astype(float).fillna(runs[own]) for name, own in LISTED.items()}
    return runs.assign(generation=[generation(e) for e in runs.era],
                       bw_per_node=runs.bw_gib_s / nodes, md_per_node=runs.md_kiops / nodes, **listed,
                       list_differs=runs.list_check.notna() & ~runs.list_check.isin(LIST_OWN_VALUES)
                       & runs.list_score.notna())


def get_phases(con) -> pd.DataFrame:
    return store.frame(con, PACKAGE, "phases")


def one_per_machine(runs: pd.DataFrame) -> pd.DataFrame:
    """Each machine's newest run: a machine's repeat submissions are one unit, and the newest is the one chosen
    without looking at its result."""
    return runs.sort_values(["started_at", "run_id"]).drop_duplicates("machine", keep="last").sort_values("run_id")


def flagged(runs: pd.DataFrame) -> pd.Series:
    """The runs the validity audit flags as no measurement of what their phases mean (EXCLUDED_FLAGS)."""
    excluded = set(EXCLUDED_FLAGS)
    return runs.validity_flags.fillna("").map(lambda flags: bool(set(flags.split(", ")) & excluded)).astype(bool)


def select(runs: pd.DataFrame, lists, *, one_each: bool = True) -> tuple[pd.DataFrame, dict[str, int]]:
    """The valid runs of `lists` of one generation (the one most of them ran), one per machine (`one_each`; else
    every run, as the paper counts submissions), and what was left out: runs of the lists marked invalid or flagged
    (EXCLUDED_FLAGS), of another generation, repeat runs of a machine."""
    listed = runs[runs.list.isin(list(lists))]
    valid = listed[listed.valid.fillna(False).astype(bool) & listed.score.notna() & ~flagged(listed)]
    main = valid.generation.mode().iloc[0] if len(valid) else None
    same = valid[valid.generation == main]
    chosen = one_per_machine(same) if one_each else same
    return chosen, {"runs": len(listed), "invalid or flagged": len(listed) - len(valid),
                    "other generation": len(valid) - len(same), "repeat runs of a machine": len(same) - len(chosen),
                    "machines": len(chosen), "generation": main}


def phase_table(chosen: pd.DataFrame, phases: pd.DataFrame) -> pd.DataFrame:
    """run_id x phase: each chosen run's phase values."""
    return phases[phases.run_id.isin(chosen.run_id)].pivot_table(index="run_id", columns="phase", values="value",
                                                                  aggfunc="first")


def phase_correlations(wide: pd.DataFrame, lists: str, domains=tuple(DOMAINS)) -> list[evidence.Correlation]:
    """Spearman's rs of every pair of phases within a domain (of `domains`), over the machines that hold both."""
    records = []
    for domain, names in ((d, DOMAINS[d]) for d in domains):
        for a, b in itertools.combinations([p for p in names if p in wide.columns], 2):
            pair = wide[[a, b]].dropna()
            records.append(evidence.correlate(pair[a], pair[b], quantity=f"{domain} phases, {lists}", x_name=a,
                                              y_name=b, method="Spearman", replicate=Replicate.MACHINE,
                                              family=FAMILY, seed=SEED))
    return records


def subscore_correlations(chosen: pd.DataFrame, lists: str, methods=("Spearman", "Pearson")) -> list[evidence.Correlation]:
    """The bandwidth against the metadata sub-score per client node, over the machines that state their nodes."""
    stated = chosen.dropna(subset=["bw_per_node", "md_per_node"])
    return [evidence.correlate(stated.bw_per_node, stated.md_per_node, quantity=f"sub-scores per client node, {lists}",
                               x_name="bandwidth per node", y_name="metadata per node", method=m,
                               replicate=Replicate.MACHINE, family=FAMILY, seed=SEED) for m in methods]


def orders_of_magnitude(scores: pd.Series) -> float:
    """log10 of the highest score over the lowest: how many orders of magnitude the scores span."""
    return float(np.log10(scores.max() / scores.min())) if len(scores) and scores.min() > 0 else float("nan")


def lists_in_order(runs: pd.DataFrame) -> list[str]:
    """The lists the runs went to, oldest first (ISC before SC in a year)."""
    names = runs.list.dropna().unique()
    return sorted(names, key=lambda n: (int(n[-2:]), not n.startswith("ISC")))


def per_list(runs: pd.DataFrame) -> tuple[pd.DataFrame, list[evidence.Correlation], pd.DataFrame]:
    """Each list apart: its runs, the machines chosen, their generation, score span, flagged runs, and the
    sub-score rank correlation per node (decided only from evidence.MIN_UNITS machines that state their nodes);
    and every list's chosen runs, one list after another."""
    rows, records, chosen_each = [], [], []
    for name in lists_in_order(runs):
        chosen, left = select(runs, [name])
        chosen_each.append(chosen)
        listed = runs[runs.list == name]
        (rs,) = subscore_correlations(chosen, name, methods=("Spearman",))
        records.append(rs)
        rows.append({"list": name, "runs": left["runs"], "machines": left["machines"], "generation": left["generation"],
                     "left out": left["runs"] - left["machines"], "flagged runs": int(flagged(listed).sum()),
                     "lowest score": chosen.listed_score.min(), "highest score": chosen.listed_score.max(),
                     "list values not the run's": int(chosen.list_differs.sum()),
                     "machines with nodes": int(chosen.bw_per_node.notna().sum()), "record": rs})
    return pd.DataFrame(rows), records, pd.concat(chosen_each, ignore_index=True) if chosen_each else runs.iloc[:0]


def paper_figures() -> pd.DataFrame:
    """The paper's figures (long form: figure, printed, value, unit, note, source)."""
    return published.load(PAPER)


def paper_value(figures: pd.DataFrame, name: str) -> float:
    return float(figures.loc[figures.figure == name, "value"].iloc[0])


def paper_rule_q(family: list[evidence.Correlation]) -> np.ndarray:
    """Each record's q under the paper's multiplicity rule (Benjamini-Hochberg's false discovery rate), over the
    family the book's Holm corrects: shown beside the book's verdict, never deciding."""
    return stats.benjamini_hochberg([np.nan if r.p is None else r.p for r in family])


def passes_paper_rule(records: list[evidence.Correlation], q) -> int:
    """How many of the records the paper's rule would report (q below the book's level) among those with units
    enough for any verdict."""
    alpha = 1 - evidence.CONFIDENCE
    return sum(bool(q_ < alpha) and r.verdict in (evidence.Verdict.DECIDED, evidence.Verdict.UNDECIDED)
               for r, q_ in zip(records, q))


def correlation_table(records: list[evidence.Correlation], paper_q) -> pd.DataFrame:
    """One row per correlation as shown: its pair, value with its interval (withheld where too few machines; unrounded:
    the table's format rounds once, as the findings do, where rounding to 3 digits first printed 0.70525 as 0.70),
    machines, Holm p, verdict, the paper's rule's q (`paper_q`: paper_rule_q of the family, in the records' order),
    method and what it correlates (x and y: the pair's two names, for the chart)."""
    shown = [evidence.as_shown(r) for r in records]
    return pd.DataFrame({"pair": [f"{r.x} · {r.y}" for r in shown], "value": [r.value for r in shown],
                         "low": [r.low for r in shown], "high": [r.high for r in shown],
                         "machines": [r.n for r in shown], "Holm p": [r.p_adjusted for r in shown],
                         "verdict": [str(r.verdict) for r in shown], PAPER_Q: list(paper_q),
                         "method": [r.method for r in shown],
                         "what": [r.quantity for r in shown], "x": [r.x for r in shown], "y": [r.y for r in shown]})


def per_machine(logged: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """A log table (logs.close_time, wear_down, pfind_imbalance) as units: the phases IO500 counts valid, of runs the
    audit does not flag (EXCLUDED_FLAGS), each machine's newest run per phase, with its generation and list."""
    kept = runs[~flagged(runs)][["run_id", "machine", "started_at", "generation", "list"]]
    rows = logged[logged.valid.fillna(False).astype(bool)].drop(columns="machine").merge(kept, on="run_id")
    rows = rows.sort_values(["started_at", "run_id"]).drop_duplicates(["machine", "phase"], keep="last")
    return rows.sort_values(["generation", "family", "phase", "machine"]).reset_index(drop=True)


def summarize(units: pd.DataFrame, keys: list[str], measures: dict[str, tuple[str, float]]) -> pd.DataFrame:
    """Per `keys`: the machines, and the median and highest of each measure over them (a description of the
    archive: medians over machines, no interval). `measures`: column -> (name shown, factor)."""
    scaled = units.assign(**{column: units[column] * factor for column, (_, factor) in measures.items()})
    out = scaled.groupby(keys, dropna=False).agg(machines=("machine", "nunique"), **{
        f"{how} {name}": (column, how) for column, (name, _) in measures.items() for how in ("median", "max")})
    return out.reset_index()


def medians(units: pd.DataFrame, column: str, **where) -> tuple[float, int]:
    """The median of `column` over the machines of `units` that match `where` (column = value), and how many."""
    rows = units
    for key, value in where.items():
        rows = rows[rows[key] == value]
    rows = rows.dropna(subset=[column])
    return (float(rows[column].median()) if len(rows) else float("nan")), int(rows.machine.nunique())
