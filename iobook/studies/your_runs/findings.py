"""The chapter's sentences from its decided records: the findings (the first the largest decided difference, the
current design's, with its interval), and the page's sentences on what was read, the labels and the failed
phases. Every name from the data escaped (present.md_escape)."""
from __future__ import annotations

import math

import pandas as pd

from ...book import comparison
from ...book.present import md_escape
from ...book.report import Finding
from ...database import source_labels
from ...inference import evidence
from .analysis import MAX_SWEEP_PARAMETERS, rankable
from .compared import KNEE_SHARE
from .parameters import MAIN_MEASURE, MEASURES, TAIL_PERCENTILES, TOOL_NAMES, distinguishing, what

HOW_TO_ADD = ("Build the book on folders of fio (JSON or text), IOR or mdtest output: "
              "`make book DATA=\"results/system-a results/system-b\"`. Each file's top folder names its label; "
              "a `labels.yml` beside the data (path glob: label) names them otherwise.")
LABELS_NAMED = 8  # labels the page's first sentence names; the labels table has every one


def _log_size(ratio: float) -> float:
    return abs(math.log(ratio)) if ratio > 0 else 0.0


def _times(ratio: float) -> str:
    """A ratio to 3 significant digits, never in exponent notation: 0.0181, 1.3, 5,010."""
    return f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.3g}"


def _largest(frame: pd.DataFrame):
    """The row with the largest ratio (either way) of the first tool, in TOOLS' order, that has one: bandwidth
    before metadata rates."""
    order = frame["tool"].map(source_labels.TOOLS.index)
    first = frame[order == order.min()]
    return first.loc[first["ratio"].map(_log_size).idxmax()]


def _design_name(design: str) -> str:
    return md_escape(design.removeprefix(source_labels.COLLECTOR_RUN))


def same_line(effects: pd.DataFrame, e) -> pd.DataFrame:
    """The changes of sweep line `e` in every design of its label and workload (its own among them)."""
    label = effects["sweep"].str.split(" · ").str[0]
    return effects[(effects["tool"] == e["tool"]) & (effects["workload"] == e["workload"])
                   & (effects["line"] == e["line"]) & (effects["x_name"] == e["x_name"])
                   & (label == e["sweep"].split(" · ")[0])]


def current_of(effects: pd.DataFrame, e) -> pd.Series:
    """The same sweep line's change in the newest design of its label and workload (collector runs are named by
    when they started, so the greatest name is the newest), where the line was swept in several: the current
    result leads, superseded ones beside it."""
    same = same_line(effects, e)
    collector = same[same["design"].str.startswith(source_labels.COLLECTOR_RUN)]
    return collector.sort_values("design").iloc[-1] if len(collector) > 1 else e


def sweep_finding(effects: pd.DataFrame, e) -> str:
    """A sweep line's change (MyST), in its design where the line was swept in several."""
    label = md_escape(e["sweep"].split(" · ", 1)[0])
    line = f" ({md_escape(e['line'])})" if e["line"] != "all" else ""
    others = same_line(effects, e)
    where = f" in {_design_name(e['design'])}" if (others["design"] != e["design"]).any() else ""
    return (f"**{label}** {e['tool']} {md_escape(e['workload'])} {what(e['measure'])[0]}, {md_escape(e['x_name'])} "
            f"{md_escape(e['x_from'])} → {md_escape(e['x_to'])}{line}{where}: {evidence.phrase(e['record'])}")


def other_designs_finding(effects: pd.DataFrame, e) -> Finding | None:
    """The same sweep line's change in every other design of its label and workload, each with its interval and
    verdict (issue 46: 'superseded ... 1.85x' stood without them), never pooled with the current one: superseded
    collector runs where the current design is the newest collector run, else the other designs."""
    others = same_line(effects, e)
    others = others[others["design"] != e["design"]]
    if others.empty:
        return None
    kind = "superseded collector run" if e["design"].startswith(source_labels.COLLECTOR_RUN) else "other design"
    if len(others) == 1:
        o = others.iloc[0]
        text = f"The same change in the {kind} {_design_name(o['design'])}, never pooled with it: {evidence.phrase(o['record'])}"
    else:
        said = evidence.phrases([(_design_name(o["design"]) + ":", o["record"]) for _, o in others.iterrows()])
        text = f"The same change in the {kind}s, never pooled with it: {said}"
    return Finding(text=text, target="tab-runs-effects", evidence=tuple(others["record"]))


def _headline_pool(frame: pd.DataFrame, ranked: set) -> tuple[int, pd.DataFrame]:
    """The comparisons a finding may name (of rankable configurations), best first: (0, the decided), else (1,
    those with an interval), else (2, all); (3, none) when there are none."""
    rows = frame[frame["config_baseline"].isin(ranked)] if len(frame) else frame
    pools = [rows[rows["decided"]], rows[rows["low"].notna()], rows] if len(rows) else []
    return next(((tier, pool) for tier, pool in enumerate(pools) if len(pool)), (3, rows))


def tail_finding(tails: pd.DataFrame) -> Finding | None:
    """The largest clat p99 ratio between labels (decided ones first), its configuration by what tells it apart
    (distinguishing), and every percentile compared as one span (comparison.range_sentence)."""
    p99 = tails[tails["percentile"] == TAIL_PERCENTILES["p99_ms"]] if len(tails) else tails
    if p99.empty:
        return None
    pool = p99[p99["decided"]] if p99["decided"].any() else p99
    t = pool.loc[pool["ratio"].map(_log_size).idxmax()]
    parameters = distinguishing(tails["config_baseline"])[tails.index.get_loc(t.name)]
    return Finding(
        text=f"Tail latency: **{md_escape(t['label'])}** over **{md_escape(t['baseline'])}** in {t['tool']} "
             f"{md_escape(t['workload'])} ({md_escape(parameters)}), {t['percentile']}: "
             f"{evidence.phrase(t['record'])}; every percentile compared ({', '.join(TAIL_PERCENTILES.values())}) "
             f"with the runs to decide: {comparison.range_sentence(comparable(tails['record']), 'percentiles')}",
        target="tab-runs-tails", evidence=tuple(tails["record"]))


def curve_finding(curves: pd.DataFrame) -> Finding | None:
    """The whole curve whose summary ratio is largest (decided ones first), with where each side's knee is."""
    if curves.empty:
        return None
    pool = curves[curves["decided"]] if curves["decided"].any() else curves
    c = pool.loc[pool["ratio"].map(_log_size).idxmax()]
    moved = "moved" if c["knee_moved"] else "did not move"
    return Finding(
        text=f"Whole curve: **{md_escape(c['label'])}** over **{md_escape(c['baseline'])}**, {md_escape(c['curve'])} "
             f"over {md_escape(c['x_name'])}: {evidence.phrase(c['record'])}; the knee ({KNEE_SHARE:.0%} of the "
             f"largest) {moved}: {md_escape(c['knee_baseline'])} → {md_escape(c['knee'])}",
        target="fig-runs-curves", evidence=(c["record"],))


def comparable(records) -> list:
    """The records with the units a side to be decided (evidence.MIN_UNITS): the span a family's sentence gives is
    theirs (a ratio of one run over one, 5,010x in the sweep example, is no result to span)."""
    return [r for r in records if r.verdict is not evidence.Verdict.TOO_FEW]


def labels_finding(comparisons: pd.DataFrame) -> Finding:
    """The labels compared with the units to decide, as one family (comparison.range_sentence: the span of their
    ratios, how many decided), how many ran too few times, and the runs that would decide the undecided; where
    none has the units to decide, what the labels allow (never "0 of n decided (n too few units)": issue 36)."""
    base = md_escape(comparisons["baseline"].iloc[0])
    records = tuple(comparisons["record"])
    if (comparisons["verdict"].astype(str) == str(evidence.Verdict.TOO_FEW)).all():
        most = int(comparisons[["n", "n_baseline"]].min(axis=1).max())
        return Finding(text=f"**{base}** shares {evidence.plural(len(comparisons), 'configuration')} with other "
                            f"labels, run at most {most:,} time{'' if most == 1 else 's'} a side: no label can be "
                            f"compared with it yet (the least is {evidence.MIN_UNITS} a side)",
                       target="tab-runs-comparisons", evidence=records)
    enough = comparable(records)
    needs = comparisons["n_to_decide"].dropna()
    return Finding(text=f"Other labels over **{base}**, {evidence.MIN_UNITS} runs a side or more: "
                        f"{comparison.range_sentence(enough, 'configurations')}"
                        + (f"; {len(records) - len(enough):,} more ran too few times to compare"
                           if len(enough) < len(records) else "")
                        + (f"; {len(needs):,} undecided would be decided by {int(needs.min()):,} to "
                           f"{int(needs.max()):,} runs a side at the ratio and spread seen" if len(needs) else ""),
                   target="tab-runs-comparisons", evidence=records)


def spread_finding(configs: pd.DataFrame, ranked: set) -> Finding | None:
    """The run-to-run spread of the main measure over the rankable configurations run at least twice, and the
    widest."""
    repeated = configs[(configs["runs"] >= 2) & configs["config"].isin(ranked)]
    if repeated.empty:
        return None
    cv = pd.Series([r[f"{MAIN_MEASURE[r['tool']]}_spread"] for _, r in repeated.iterrows()], index=repeated.index)
    worst = repeated.loc[cv.idxmax()]
    return Finding(
        text=f"Run to run, the main measure of the {len(repeated):,} configurations run at least twice varies by a "
             f"median {cv.median():.0%} of its mean (sd / mean); most, {cv.max():.0%}, in "
             f"**{md_escape(worst['label'])}** "
             f"{worst['tool']} {md_escape(worst['workload'])} ({worst['runs']:,} runs)",
        target=f"tab-runs-{worst['tool']}", evidence=(
            evidence.described(cv.median(), quantity="median run-to-run sd / mean over the configurations run "
                               "at least twice", unit="share", n=len(repeated), replicate=evidence.Replicate.RUN,
                               how="a median over configurations, each its runs' spread"),))


def failures_finding(failed: pd.DataFrame) -> Finding | None:
    if failed.empty:
        return None
    counted = evidence.count(len(failed), len(failed), of=evidence.Replicate.CENSUS,
                             quantity="phases whose log says they failed, listed and never read as a rate")
    return Finding(text=f"{evidence.plural(counted.k, 'phase')} ({', '.join(sorted(set(failed['tool'])))}) in "
                        f"{evidence.plural(failed['file'].nunique(), 'file')} say they failed: each listed with its "
                        "reason, none read as a rate", target="tab-runs-failed", evidence=(counted,))


def findings(configs: pd.DataFrame, effects: pd.DataFrame, comparisons: pd.DataFrame, tails: pd.DataFrame,
             curves: pd.DataFrame, failed: pd.DataFrame, limits: Finding | None = None) -> list[Finding]:
    """The chapter's findings. The first, at most 30 words: the largest difference between labels or change
    along a sweep (the current design's; the superseded ones in a finding of their own), decided ones before those with an
    interval before the rest (labels before sweeps at each step), else the best-repeated configuration's
    estimate; rankings never name what `rankable` leaves out. Then, where the data holds them: the sweep, the
    labels compared, what the runs' setups allow (`limits`: limits.limits_finding), the whole curves, the tails, the
    run-to-run spread, the phases whose logs say they failed."""
    if configs.empty:
        return [Finding(text="This database holds no fio, IOR, mdtest or DLIO run, so there is nothing to find yet "
                             "(what to add: below)", target=None)]
    ranked = set(configs.loc[rankable(configs), "config"])
    sweep = superseded = comparison = summary = None
    sweep_tier, pool = _headline_pool(effects, ranked)
    if len(pool):
        e = current_of(effects, _largest(pool))
        sweep = Finding(text=sweep_finding(effects, e), target="fig-runs-sweeps", evidence=(e["record"],))
        superseded = other_designs_finding(effects, e)
    comparison_tier, pool = _headline_pool(comparisons, ranked)
    if len(pool):
        d = _largest(pool)
        comparison = Finding(
            text=f"**{md_escape(d['label'])}** over **{md_escape(d['baseline'])}** in {d['tool']} "
                 f"{md_escape(d['workload'])} {what(d['measure'])[0]}: {evidence.phrase(d['record'])}",
            target="tab-runs-comparisons", evidence=(d["record"],))
        summary = labels_finding(comparisons)
    if comparison and comparison_tier <= sweep_tier:
        out = [comparison]
    elif sweep:
        out = [sweep]
    else:
        best = configs[configs["config"].isin(ranked)].sort_values("runs", ascending=False, kind="stable").iloc[0]
        e = best["estimate"]
        out = [Finding(text=f"**{md_escape(best['label'])}** {best['tool']} {md_escape(best['workload'])} "
                            f"{what(MEASURES[best['tool']][MAIN_MEASURE[best['tool']]])[0]}: {evidence.phrase(e)}",
                       target=f"tab-runs-{best['tool']}", evidence=(e,))]
    later = (sweep, superseded, summary, limits, curve_finding(curves), tail_finding(tails),
             spread_finding(configs, ranked), failures_finding(failed))
    out += [f for f in later if f and f not in out]
    if sweep is None:
        out.append(Finding(text=f"No sweep: no label, workload and design has configurations differing in 1 to "
                                f"{MAX_SWEEP_PARAMETERS} parameters, one of them numeric, on lines of 2 points "
                                "or more on average"))  # the sweeps section shows only with sweeps
    if not len(comparisons):
        out.append(Finding(text="No configuration was run under two labels, so no label is compared with "
                                "another"))  # no table to link: its section shows only with comparisons
    return out


def sizing_sentence(effects: pd.DataFrame) -> str:
    """Why the runs a side that would decide an undecided sweep change depend on the family it is tested in (issue 46:
    the same two configurations, 5 runs a side, read '64 a side' here and '69' in Page cache, whose family is larger):
    the level each test gets is the family's 5 % shared among its tests (MyST)."""
    tested = [r for r in effects["record"] if r.p is not None] if len(effects) else []
    if not tested:
        return ""
    alpha = 1 - evidence.CONFIDENCE
    size = tested[0].family_size
    return (f"The runs a side that would decide an undecided change are sized at the {alpha:.0%} level shared among "
            f"the {size:,} changes tested together here ({alpha / size:.2%} each): the same two configurations "
            "compared among more comparisons, as another chapter may compare them, need more runs a side to be "
            "decided, and among fewer, fewer.")


def read_sentence(runs: pd.DataFrame, configs: pd.DataFrame) -> str:
    """What the chapter read, for the page (MyST): files per tool, runs, designs, configurations, labels."""
    if runs.empty:
        return "This database holds no fio, IOR, mdtest or DLIO result. " + HOW_TO_ADD
    files = runs.groupby("tool")["source_id"].nunique()
    per_tool = ", ".join(f"{files[t]:,} {TOOL_NAMES[t]}" for t in source_labels.TOOLS if t in files)
    labels = sorted(set(runs["label"]))
    shown = ", ".join(f"**{md_escape(x)}**" for x in labels[:LABELS_NAMED]) + (
        f" and {len(labels) - LABELS_NAMED:,} more" if len(labels) > LABELS_NAMED else "")
    return (f"{runs['source_id'].nunique():,} files hold fio, IOR, mdtest or DLIO results ({per_tool}): "
            f"{len(runs):,} runs of {len(configs):,} configurations in {runs['design'].nunique():,} designs under "
            f"{len(labels):,} label(s): {shown}.")


def label_notes(label_files: pd.DataFrame, notes: list[str], baseline_note: str | None) -> str:
    """Which labels files were read and what could not be applied, and the baseline label's note, for the page
    (MyST)."""
    lines = []
    if len(label_files):
        lines.append("Labels files read: " + "; ".join(
            f"{md_escape(r['labels file'])} ({r['patterns']:,} pattern(s), {r['files labelled']:,} file(s) labelled)"
            for _, r in label_files.iterrows()) + ".")
    else:
        lines.append("No `labels.yml` or `labels.csv` was found among the files read: labels come from IO500 runs "
                     "and folders.")
    lines += [f"- {md_escape(n)}" for n in notes] + ([f"- {baseline_note}"] if baseline_note else [])
    return "\n".join(lines)


def failed_sentence(failed: pd.DataFrame) -> str:
    """How many phases are no run because their log printed a failure, for the page (MyST)."""
    if failed.empty:
        return "No phase read here says it failed."
    n, files = len(failed), failed["file"].nunique()
    return (f"{n:,} {'/'.join(sorted(set(failed['tool'])))} phase{'' if n == 1 else 's'} in {files:,} "
            f"file{'' if files == 1 else 's'} say they failed (mdtest: a warning or error naming the operation; "
            "fio: the error its output states for the job; dlio: a run's log with no summary.json beside it, which "
            "DLIO writes last): a failed phase is no run and its printed rate is not read; each is listed below with "
            "its file, the line and the message.")


def dlio_logs_sentence(logs: dict) -> str:
    """What DLIO's own logs add to the DLIO runs' summary.json, for the page (MyST): whether the metrics they print
    agree with it, and rank 0's AU per block, which it does not hold."""
    if not logs["runs"]:
        return ""
    if not logs["logged"]:
        return "No DLIO run here has DLIO's log (`dlio.log`) with its averaged metrics beside its summary.json."
    agree, logged = logs["agree"], logs["logged"]
    runs = evidence.plural(logs["runs"], "DLIO run")
    text = ((f"All {runs}" if logged == logs["runs"] else f"{logged:,} of the {runs}")
            + " here have DLIO's log (`dlio.log`) beside their summary.json; in "
            + f"{'all ' if agree == logged else ''}{agree:,} the averaged metrics it prints "
            "(AU, samples/s, MB/s and their stdevs, the accelerators and DLIO's AU verdict) agree with the summary to "
            "the four decimals printed" + ("" if agree == logged else
                                          " (the others: view `dlio_logs`, column `disagreements`)") + ".")
    if logs["blocks"]:
        text += (f" A block's AU in the log is rank 0's alone (view `dlio_log_blocks`), which summary.json does not "
                 f"hold: over the {evidence.plural(logs['blocks'], 'block')} it lies up to "
                 f"{evidence.number(logs['max_au_gap'])} points from summary.json's AU of its epoch, the mean over "
                 "every rank.")
    return text
