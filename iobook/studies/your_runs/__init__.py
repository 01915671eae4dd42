"""Your runs: every IOR, mdtest and fio run in the database, whatever folders it came from, grouped into run
configurations, with their runs, the sweeps they form and the labels they compare. Layers: queries/*.sql, runs
(reading them), parameters, analysis (configurations, sweeps), compared (labels, tails, curves), tables, charts,
findings; `report` wires them for the notebook. The rules (the chapter's method section says them to readers;
book/methods.md says how the book decides):

- A *configuration* is a label, a tool, a workload (fio's rw, with the direction when rw mixes them; IOR's
  access; mdtest's phase), the parameters the log states (PARAMETERS) and a design. A parameter the log does
  not state is unknown (None), never a default filled in. fio's JSON options not in PARAMETERS (except those
  naming files, logs or output: IGNORED_OPTIONS) and a collector's manifest labels (except those saying how a
  step ran: MANIFEST_CONDITION_KEYS) are parameters too, in `other`.
- A *run* is the unit of replication (evidence.Replicate.RUN): one fio file, one IOR test of one invocation,
  one mdtest SUMMARY. The iterations (-i) of one IOR or mdtest invocation share its placement and caches: they
  are aggregated to the run (IOR: the geometric mean of its iterations; mdtest: the mean its SUMMARY prints),
  never counted as repetitions.
- A *design* (DESIGN_RULE) is what makes runs of equal parameters one experiment: the collector run a file
  belongs to (its manifest: one machine state, one schedule), else the tool and the version its log prints.
  Runs of different designs are never pooled: sweeps and their changes are per design, shown side by side.
- A *ranking* (the largest change, the widest spread) names only rankable configurations (RANK_RULE).
- A run's *label*: the first matching pattern of the nearest `labels.yml` / `labels.csv` above its file
  (path glob: label), else the system of the IO500 run whose phase log it is, else its file's top folder
  under the data's root (the deepest folder holding every file ingested).
- The report decides once: every comparison (sweep lines, labels, tails, curves) in one evidence.decide call.
"""
from __future__ import annotations

import pandas as pd

from ...book.present import md_escape
from ...book.report import Prose, Report, Table
from ...database import source_labels
from ...inference import bounds, evidence
from . import charts, compared, findings, limits, tables
from .analysis import (DESIGN_RULE, RANK_RULE, SWEEP_FAMILY, decide_together, get_configurations, get_sweeps, rankable,
                       sweep_effects, tree_directories)
from .compared import KNEE_SHARE, choose_baseline, label_comparisons, labels_sharing
from .parameters import TAIL_PERCENTILES, TOOL_NAMES, binary_size, size_bytes
from .runs import (MANIFEST_CONDITION_KEYS, STATUS_FILE, UNSTATED_PARAMETERS, get_dlio_logs, get_failed_phases, get_fio,
                   get_ior, get_mdtest, get_runs, get_setups, mdtest_options)
from .tables import configuration_table

__all__ = ["KNEE_SHARE", "MANIFEST_CONDITION_KEYS", "STATUS_FILE", "SWEEP_FAMILY", "TAIL_PERCENTILES",
           "UNSTATED_PARAMETERS", "binary_size", "chart_sweeps", "choose_baseline", "configuration_table",
           "decide_together", "get_configurations", "get_failed_phases", "get_fio", "get_ior", "get_mdtest", "get_runs",
           "get_sweeps", "label_comparisons", "labels_sharing", "mdtest_options", "rankable", "report", "size_bytes",
           "sweep_effects", "tree_directories"]
chart_sweeps = charts.chart_sweeps


def report(con, *, baseline_label: str = "") -> Report:
    """The chapter: every configuration with its runs, the sweeps they form and their changes per design, the
    labels compared with `baseline_label` (empty: the first, A-Z, sharing a configuration: choose_baseline),
    their latency tails and whole curves, every verdict by one evidence.decide call (decide_together)."""
    runs = get_runs(con)
    configs = get_configurations(runs)
    sweeps, points = get_sweeps(configs)
    baseline, baseline_note = choose_baseline(configs, baseline_label)
    setup = get_setups(con, runs["source_id"])
    labels = label_comparisons(runs, configs, baseline)
    labels["setups_differ"] = [compared.setup_differences(runs, setup, a, b) for a, b in
                               zip(labels["config_baseline"], labels["config"])]
    effects, labels, tails, curves, curve_points = decide_together(
        sweep_effects(runs, configs, points), labels, compared.tail_comparisons(runs, labels),
        *compared.curve_comparisons(runs, points, baseline))
    _, label_files, label_notes = source_labels.label_sources(con, runs["source_id"])
    failed = get_failed_phases(con)
    rated = limits.get_limits(con, runs)
    limit_records = limits.records(rated, runs)
    values: dict = {"confidence": evidence.CONFIDENCE, "min-units": evidence.MIN_UNITS,
                    "rank-rule": Prose(md_escape(RANK_RULE)), "design-rule": Prose(md_escape(DESIGN_RULE)),
                    "read": Prose(findings.read_sentence(runs, configs)),
                    "failed": Prose(findings.failed_sentence(failed)), "has-failed": bool(len(failed)),
                    "dlio-logs": Prose(findings.dlio_logs_sentence(get_dlio_logs(con))),
                    "label-notes": Prose(findings.label_notes(label_files, label_notes, baseline_note)),
                    "baseline": Prose(f"**{md_escape(baseline)}**" if baseline else ""),
                    "has-sweeps": bool(len(sweeps)), "has-comparisons": bool(len(labels)),
                    "has-tails": bool(len(tails)), "has-limits": bool(len(rated)),
                    "reaches-limit": f"{bounds.REACHES_LIMIT:.0%}", "has-curves": bool(len(curves)),
                    "knee-share": f"{KNEE_SHARE:.0%}",
                    "tail-percentiles": ", ".join(TAIL_PERCENTILES.values())}
    shown = {}
    for tool in source_labels.TOOLS:
        frame, shared = configuration_table(configs, tool)
        ranked = "configuration" in frame and frame["configuration"].str.endswith(tables.NOT_RANKED).any()
        shown[f"tab-runs-{tool}"] = tables.searchable(Table(frame=frame, note=(
            f"{tables.NOT_RANKED}: {RANK_RULE}." if ranked else "")))
        values[f"shared-{tool}"] = Prose(f"Every {TOOL_NAMES[tool]} configuration here: {md_escape(shared)}." if shared
                                         else "" if len(frame) else f"This database holds no {TOOL_NAMES[tool]} run.")
    values["effects-sizing"] = Prose(findings.sizing_sentence(effects))
    sweeps_frame, sweeps_shared = tables.sweeps_table(sweeps)
    for key, (table, shared) in (("sweeps", (Table(frame=sweeps_frame), sweeps_shared)),
                                 ("effects", tables.effects_table(effects)),
                                 ("comparisons", tables.comparison_table(labels)), ("tails", tables.tails_table(tails)),
                                 ("curves", tables.curves_table(curves)),
                                 ("curve-points", tables.curve_points_table(curve_points))):
        shown[f"tab-runs-{key}"] = tables.searchable(table)
        values[f"shared-{key}"] = Prose(f"Every row here: {md_escape(shared)}." if shared else "")
    shown["tab-runs-labels"] = tables.searchable(Table(frame=tables.labels_table(runs, setup)))
    shown["tab-runs-failed"] = tables.searchable(Table(frame=failed))
    shown["tab-runs-limits"] = tables.searchable(limits.limits_table(rated))
    figures = {}
    if len(sweeps):
        figures["fig-runs-sweeps"] = charts.chart_sweeps(sweeps, points)
    if len(labels):
        figures["fig-runs-comparisons"] = charts.chart_comparisons(labels)
    if len(curves):
        figures["fig-runs-curves"] = charts.chart_curves(curves, curve_points)
    records = [*configs.get("estimate", pd.Series(dtype=object)).dropna(), *effects["record"], *labels["record"],
               *tails["record"], *curves["record"], *curve_points["record"], *limit_records]
    return Report(values=values, tables=shown, figures=figures,
                  findings=findings.findings(configs, effects, labels, tails, curves, failed,
                                             limits.limits_finding(rated, limit_records)), evidence=records)
