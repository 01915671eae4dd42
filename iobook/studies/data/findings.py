"""The Data chapter's findings, each with the table that shows it and the censuses it rests on, and the sentence
telling readers how to open the database the chapter read."""
from __future__ import annotations

import re

import pandas as pd

from ...book.report import Finding, Prose
from ...inference import evidence
from ...inference.evidence import plural
from .analysis import IO500

CENSUS = evidence.Replicate.CENSUS
# the setup fields the Data chapter's finding names, as it names them
SETUP_FINDING = {"client_nodes": "their client nodes", "release": "their software release",
                 "protection": "their data protection", "changed_during_run": "what their scripts change while they run"}


def setup_finding(setup_fields: pd.DataFrame, io500_runs: int) -> list[Finding]:
    """How many IO500 runs state the setup fields chapters compare by (a census), or nothing without IO500 runs."""
    if not io500_runs:
        return []
    stated = setup_fields.set_index("field")["IO500 runs stating it"]
    records = {field: evidence.count(k=int(stated[field]), n=io500_runs, quantity=f"IO500 runs stating {what}",
                                     of=CENSUS) for field, what in SETUP_FINDING.items()}
    parts = [f"{records[field].k:,} {what}" for field, what in SETUP_FINDING.items()]
    # where each field comes from (the run's files, a setup.yml, references) is the section's to say
    return [Finding(text=(f"Of the {plural(io500_runs, 'IO500 run')}, {parts[0].replace(' their', ' state their', 1)}, "
                          + ", ".join(parts[1:-1]) + f" and {parts[-1]}."), target="tab-data-setups",
                    evidence=tuple(records.values()))]


def chapter_findings(status: dict[str, int], failed: pd.DataFrame, runs: dict[str, int], views: pd.DataFrame,
                     other: dict[str, int], failed_phases: pd.DataFrame, copies: int,
                     setup_fields: pd.DataFrame) -> list[Finding]:
    """The chapter's findings, each with the table that shows it: the files' outcomes first (the main result),
    then the failures, the runs they describe and the views chapters read them through."""
    files = sum(n for outcome, n in status.items() if outcome != "gone")  # this build's files

    outcome = (f"{status['ok']:,} of the {plural(files, 'file')} ingested were parsed ({status['ok'] / files:.1%}); "
               f"{status['error']:,} failed, {status['skipped']:,} were skipped as not logs iobook reads"
               + (f", {status['gone']:,} are gone from the folders ingested." if status["gone"] else "."))
    failure = (("No file in a format iobook reads failed to parse.", "tab-data-files") if failed.empty else
               (f"{plural(len(failed), 'file')} could not be read; each is listed with the parser's reason and line.",
                "tab-data-failed"))
    phases = [] if failed_phases.empty else [Finding(
        text=(f"{plural(len(failed_phases), 'phase')} ({', '.join(sorted(set(failed_phases['tool'])))}) say they "
              f"failed: parsed, listed with the reason, and never read as a rate."),
        target="tab-data-failed-phases")]
    collector = sum(runs.values()) - runs[IO500]
    per_study = ", ".join(f"{study} {n:,}" for study, n in runs.items() if study != IO500)
    # which chapter reads which of them is the table's caption's to say
    described = (f"They describe {plural(runs[IO500], 'IO500 run')}, {plural(collector, 'collector run')}"
                 + (f" ({per_study})" if per_study else "")
                 + f" and {plural(sum(other.values()), 'fio, IOR or mdtest log')} with results"
                 + (f" ({', '.join(f'{tool} {n:,}' for tool, n in other.items())})" if other else "")
                 + (f"; {copies:,} {'copy' if copies == 1 else 'copies'} of a run or log counted once." if copies
                    else "."))
    parsed = evidence.count(k=status["ok"], n=files, quantity="files parsed", of=CENSUS)
    unread = evidence.count(k=len(failed), n=files, quantity="files that could not be read", of=CENSUS)
    logs = evidence.count(k=sum(other.values()), n=files, quantity="fio, IOR or mdtest logs holding results", of=CENSUS)
    return [Finding(text=outcome, target="tab-data-files", evidence=(parsed,)),
            Finding(text=failure[0], target=failure[1], evidence=(unread,)), *phases,
            Finding(text=described, target="tab-data-runs", evidence=(logs,)), *setup_finding(setup_fields, runs[IO500]),
            Finding(text=f"Chapters read them through {len(views) - 1} public views and the `sources` table.",
                    target="tab-data-views")]


def _code(text: str) -> str:
    """`text` as a Markdown code span, whatever backticks it holds (CommonMark: a fence longer than any run of
    backticks inside, padded with spaces)."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if "`" in text else f"{fence}{text}{fence}"


def open_database(path: str | None) -> Prose:
    """How to open the database this chapter read (`path` as readers see it: analysis.database_path), read-only."""
    if path is None:
        return Prose("This chapter read a database held in memory, which no file keeps.")
    quoted = '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'  # as a Python string literal
    return Prose(f"Open the database yourself, read-only, with {_code(f'duckdb.connect({quoted}, read_only=True)')}; "
                 "only `python -m iobook ingest` (or `python -m iobook book`) writes it.")
