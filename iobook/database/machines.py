"""Which IO500 runs measured one storage system, whatever their labels: the unit of every file-system comparison
(setups' field `machine`), with the compute cluster beside it (field `cluster`).

A cluster may mount several file systems (Queen Mary's Apocrita: Long Term, e8Scratch and scratch; Clemson's
Palmetto: scratch1b and scratch4; DKRZ's Mistral: lustre01 and lustre02), each a storage system of its own, while one
storage system may carry several labels (LRZ's four SuperMUC-NG-Phase2 names, Tucson's Arches under two spellings,
a file-system folder that names its release). A label's file-system name, once the words that name its family,
product, release, institution or cluster are dropped (storage_instance), names the instance; a name that states none
joins the one instance its cluster's other runs name, if they name one.
"""
from __future__ import annotations

import re

from . import families

# what makes one machine of several labels: the same institution, storage installed the same day, same family and
# file-system instance (LRZ's four SuperMUC-NG-Phase2 labels; Apocrita's three file systems share an install date
# but are three instances)
MACHINE_KEY = "storage_install_date"
# Two runs whose Storage Scale listings (mmlscluster) share at least this share of the smaller one's node names
# ran on one machine, whatever its cluster was named or recreated as (651 and 679: the same 15 Arches nodes)
SHARED_NODES = 0.5
# words of a file-system name that name no instance: a release ('5.2.2-0', 'v2.12'), a bracketed remark ('(early
# pre-GA build)'), a product or family ('IBM Storage Scale', 'CephFS', 'BeeGFS'), generic words
_RELEASE = re.compile(r"\(.*?\)|\bv?\d+(?:[.-]\d+)+\w*")
_PRODUCT = re.compile(r"\b(?:ibm|file ?system|fs|" + "|".join(pattern for pattern, _ in families.DECLARED_WORDS)
                      + r")(?:fs)?\b", re.IGNORECASE)
_NOT_A_NAME = re.compile(r"[^0-9a-z]+")


def storage_instance(filesystem: str | None, institution: str, system: str, family: str) -> str | None:
    """The file-system instance a run's label names (casefolded, only letters and digits), or None when its name
    states only a family, product, release, the institution or the cluster ('IBM Storage Scale 5.1.7.1', 'CephFS',
    'Venus2' on Venus2): 'e8Scratch' -> 'e8scratch', 'lustre02' -> '02', 'Nurion Burst Buffer' on NURION ->
    'burstbuffer'."""
    name = _PRODUCT.sub(" ", _RELEASE.sub(" ", filesystem or "")).casefold()
    for words in (institution, system, family):
        for word in re.split(r"[\s,/-]+", (words or "").casefold()):
            if len(word) > 1:
                name = re.sub(rf"\b{re.escape(word)}\b", " ", name)
    return _NOT_A_NAME.sub("", name) or None


def instances(labelled: dict[int, tuple]) -> dict[int, str | None]:
    """run_id -> its storage instance (storage_instance); a run whose label names none takes the one instance the
    other runs of its institution, cluster and family name, when they name exactly one."""
    own = {r: storage_instance(f, i, s, fam) for r, (i, s, f, fam) in labelled.items()}
    cluster = {r: (i, s, fam) for r, (i, s, _, fam) in labelled.items()}
    named: dict[tuple, set[str]] = {}
    for r in labelled:
        if own[r] is not None:
            named.setdefault(cluster[r], set()).add(own[r])
    return {r: own[r] if own[r] is not None or len(named.get(cluster[r], ())) != 1 else next(iter(named[cluster[r]]))
            for r in labelled}


def machines(labelled: dict[int, tuple], installed: dict[int, tuple], nodes: dict[int, frozenset], *,
             by_storage: bool = True) -> dict[int, tuple[str, str]]:
    """run_id -> (machine, source). `labelled`: run_id -> (institution, system, file system, family); `installed`:
    run_id -> (institution, storage install date, family); `nodes`: run_id -> its Storage Scale node names. Runs are
    one machine, transitively (connected components, scipy), when they carry the same labels (institution, system,
    family and, `by_storage`, file-system instance: a folder name's release, as IBM's, is no other machine), state the
    same installation (institution, storage install date and family, and instance, in their system-information: LRZ's
    four SuperMUC-NG-Phase2 labels), or list the same nodes (SHARED_NODES). Without `by_storage`: the cluster, its
    file systems one unit."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    runs = sorted(labelled)
    position = {r: i for i, r in enumerate(runs)}
    instance = instances(labelled) if by_storage else dict.fromkeys(runs)
    # a family nothing states joins nothing: the file system's own name stands for it
    label_of = {r: labelled[r][:2] + (labelled[r][3] if labelled[r][3] not in families.UNSTATED else labelled[r][2],
                                      instance[r]) for r in runs}
    installation = {r: key + (instance[r],) for r, key in installed.items()}
    edges, reasons = [], {}
    for key_of, reason in ((label_of, "same institution, system and family"),
                           (installation, "same institution, storage install date and family in system-information")):
        first: dict[tuple, int] = {}
        for r in runs:
            if r in key_of:
                edges.append((position[r], position[first.setdefault(key_of[r], r)]))
                if first[key_of[r]] != r:
                    reasons[r] = reason
    listed = [r for r in runs if nodes.get(r)]
    for i, a in enumerate(listed):
        for b in listed[i + 1:]:
            if len(nodes[a] & nodes[b]) >= SHARED_NODES * min(len(nodes[a]), len(nodes[b])):
                edges.append((position[a], position[b]))
                reasons[b] = "their Storage Scale listings name the same nodes"
    graph = coo_matrix(([1] * len(edges), ([a for a, _ in edges], [b for _, b in edges])), shape=(len(runs),) * 2)
    _, component = connected_components(graph, directed=False)
    members: dict[int, list[int]] = {}
    for r in runs:
        members.setdefault(component[position[r]], []).append(r)
    out = {}
    for group in members.values():
        names = sorted({labelled[r][:3] for r in group})
        if len(names) == 1:
            machine, source = ", ".join(p for p in names[0] if p), "institution, system and file system"
        else:
            by_institution: dict[str, set[str]] = {}
            for i, s, f in names:
                by_institution.setdefault(i, set()).add(f"{s} ({f})" if f else s)
            machine = "; ".join(f"{i}: {' / '.join(sorted(labels))}" for i, labels in sorted(by_institution.items()))
            why = sorted({reasons[r] for r in group if r in reasons})
            dates = sorted({installed[r][1] for r in group if r in installed})
            source = (f"one machine under {len(names)} labels: " + "; ".join(why)
                      + (f" (storage installed {', '.join(dates)})" if dates else ""))
        out.update({r: (machine, source) for r in group})
    return out
