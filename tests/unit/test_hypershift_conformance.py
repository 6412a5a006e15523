# -*- coding: utf-8 -*-
"""plugins/ against the conformance table of tests/sandbox/spec/hypershift.md ("Conformance: every HyperShift name
the collection uses"), pinned to openshift/hypershift@3ee9615.

* every HyperShift name in plugins/ (a string constant with hypershift.openshift.io, hypershift.io/ or
  openshift.io/..., docstrings and module docs included) and every IAM role suffix of aws/inventory.py has a row;
* where plugins/ names a finalizer's owner, it is the table's owner for that finalizer on that kind (the same
  hypershift.openshift.io/finalizer is HO's on a HostedCluster and CPO's on a HostedControlPlane);
* each row's upstream cell is a path:line. CI has no HyperShift mirror, so only the form is checked here; the lines
  were read at 3ee9615 when the rows were written.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import pathlib
import re

import pytest

from ansible_collections.teardown.gates.plugins.module_utils.aws import inventory
from ansible_collections.teardown.gates.plugins.module_utils.k8s import deletion_diagnosis, diagnosis
from ansible_collections.teardown.gates.plugins.module_utils.kinds import registry
from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift as H
from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift_hcp_owners as hcp_owners
from ansible_collections.teardown.gates.plugins.module_utils.owners import hypershift_take_over as take_over

REPO = pathlib.Path(__file__).resolve().parents[2]
SPEC = REPO / "tests/sandbox/spec/hypershift.md"
PLUGINS = REPO / "plugins"
SECTION = "## Conformance: every HyperShift name the collection uses"

# a HyperShift name inside any text: the API group alone, or a key under hypershift.openshift.io/, hypershift.io/ or
# openshift.io/ (the CLI's finalizer); not the tail of another domain (route.openshift.io/...), not a trailing dot
NAME = re.compile(r"(?<![\w.-])(hypershift\.openshift\.io(?:/[\w.-]*\w)?|(?:hypershift\.)?openshift\.io/[\w.-]*\w"
                  r"|hypershift\.io/[\w.-]*\w)")
CLUSTER_TAG = re.compile(r"(?<![\w.-])kubernetes\.io/cluster/")
UPSTREAM = re.compile(r"^`[\w.-]+(/[\w.-]+)*\.(go|yaml):\d+`$")

# the bold owner word of the table -> the words a plugins/ owner text uses for it
OWNER_WORDS = {
    "HO": ("hypershift operator", "hypershift-operator"),
    "CPO": ("control-plane operator", "control-plane-operator", "cpo"),
    "CLI": ("cli",),
}


def conformance_rows(text):
    """The table's rows: ``{"row", "kind", "names" (the name column's backticked strings), "owner" (its bold first
    word), "upstream"}``."""
    if SECTION not in text:
        return []
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| HC-"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 5, line
        owner = re.match(r"\*\*([^*]+)\*\*", cells[3])
        rows.append({"row": cells[0], "kind": cells[1], "names": re.findall(r"`([^`]+)`", cells[2]),
                     "owner": owner.group(1) if owner else None, "upstream": cells[4]})
    return rows


ROWS = conformance_rows(SPEC.read_text())
NAMES = set(n for r in ROWS for n in r["names"])


def names_in_source(source):
    """The HyperShift names (and ``kubernetes.io/cluster/<infraID>`` for the cluster tag) in a Python source's string
    constants, each with the line it is on."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out += [(m, node.lineno) for m in NAME.findall(node.value)]
            if CLUSTER_TAG.search(node.value):
                out.append(("kubernetes.io/cluster/<infraID>", node.lineno))
    return out


def covered(name, names):
    """A name has a row; ``group/Kind`` (a kind keyed by its group, as k8s/stuck.py does) is covered by its group's
    row and its kind's."""
    if name in names:
        return True
    group, dummy, kind = name.partition("/")
    return bool(kind) and group in names and kind in names


def plugin_names():
    """(name, "file:line") of every HyperShift name in plugins/."""
    out = []
    for path in sorted(PLUGINS.rglob("*.py")):
        for name, line in names_in_source(path.read_text()):
            out.append((name, "%s:%d" % (path.relative_to(REPO), line)))
    return out


def role_names():
    """``<infraID>-<suffix>`` for each IAM name suffix aws/inventory.py holds (every module-level ``*ROLE_SUFFIXES``
    tuple, and ``PROFILE_SUFFIX`` when it has one)."""
    out = []
    for attr in sorted(dir(inventory)):
        if attr.endswith("ROLE_SUFFIXES"):
            out += ["<infraID>-%s" % s for s in getattr(inventory, attr)]
    if getattr(inventory, "PROFILE_SUFFIX", None):
        out.append("<infraID>-%s" % inventory.PROFILE_SUFFIX)
    return out


def finalizer_rows():
    """(finalizer, kind, owner) of each finalizer row ("finalizer on <Kind>")."""
    return [(r["names"][0], r["kind"][len("finalizer on "):], r["owner"]) for r in ROWS
            if r["kind"].startswith("finalizer on ")]


def owner_disagrees(tag, text):
    """Why ``text`` (an owner as plugins/ words it) is not the table's ``tag``; None when it is."""
    low = (text or "").lower()
    if not any(w in low for w in OWNER_WORDS[tag]):
        return "%r does not name %s" % (text, tag)
    others = [t for t, words in OWNER_WORDS.items() if t != tag and any(w in low for w in words)]
    if others:
        return "%r names %s, not only %s" % (text, "/".join(others), tag)
    return None


def test_the_table_is_there_and_numbered():
    assert len(ROWS) >= 40, "no conformance table in %s" % SPEC
    assert [r["row"] for r in ROWS] == ["HC-%d" % i for i in range(1, len(ROWS) + 1)]
    assert all(r["owner"] for r in ROWS), [r["row"] for r in ROWS if not r["owner"]]
    # a rule row (what makes an AWS resource the cluster's) may name no exact string; every other row names one
    unnamed = [r["row"] for r in ROWS if not r["names"] and not r["kind"].endswith("rule")]
    assert not unnamed, unnamed


def test_every_upstream_cell_is_a_path_and_line():
    bad = [(r["row"], r["upstream"]) for r in ROWS if not UPSTREAM.match(r["upstream"])]
    assert not bad, bad


def test_the_name_walk_finds_names_and_a_misspelling():
    found = dict(names_in_source('X = "hypershift.openshift.io/finaliser"\n"""the CLI\'s openshift.io/destroy-cluster."""\n'
                                 'Y = "route.openshift.io/x"\nZ = "kubernetes.io/cluster/%s" % i\n'))
    assert set(found) == {"hypershift.openshift.io/finaliser", "openshift.io/destroy-cluster",
                          "kubernetes.io/cluster/<infraID>"}
    assert not covered("hypershift.openshift.io/finaliser", NAMES)
    assert covered("hypershift.openshift.io/HostedCluster", NAMES)
    assert "hypershift.openshift.io/finalizer" in set(n for n, dummy in plugin_names())


def test_every_hypershift_name_in_plugins_has_a_row():
    missing = sorted(set("%s (%s)" % (n, where) for n, where in plugin_names() if not covered(n, NAMES)))
    assert not missing, "HyperShift names in plugins/ with no row in %s:\n%s" % (
        SPEC.relative_to(REPO), "\n".join(missing))


def test_every_iam_role_suffix_of_the_inventory_has_a_row():
    names = role_names()
    assert "<infraID>-openshift-ingress" in names
    missing = [n for n in names if n not in NAMES]
    assert not missing, "IAM names in aws/inventory.py with no row: %s" % ", ".join(missing)


def test_the_constants_are_the_rows_names():
    consts = [getattr(H, n) for n in dir(H) if n.isupper()]
    missing = [c for c in consts if not covered(c, NAMES) and not c.startswith(("cluster.x-k8s.io", "infrastructure."))]
    assert not missing, missing


@pytest.mark.parametrize("finalizer, kind, owner", finalizer_rows())
def test_the_registry_names_each_finalizer_s_owner_on_its_kind(finalizer, kind, owner):
    # diagnosis (and every report built on it) and deletion_diagnosis read the kind registry
    got = diagnosis.finalizer_owner(finalizer, H.HYPERSHIFT_API, kind)["owner"]
    obj = {"apiVersion": H.HYPERSHIFT_API, "kind": kind, "metadata": {"finalizers": [finalizer]}}
    got_dd = deletion_diagnosis.finalizers(obj)[0]["owner"]
    if got == "unknown":
        pytest.skip("plugins/ names no owner for %s" % finalizer)
    why = owner_disagrees(owner, got) or owner_disagrees(owner, got_dd)
    assert not why, "%s on %s: the table says %s; plugins/ %s" % (finalizer, kind, owner, why)


def test_the_controllers_list_only_the_finalizers_their_owner_has():
    # CONTROLLERS has no kind: a controller listing a finalizer must own it on at least one kind
    by_name = {}
    for finalizer, kind, owner in finalizer_rows():
        by_name.setdefault(finalizer, set()).add(owner)
    wrong = []
    for kind in registry.KINDS:
        for c in kind.CONTROLLERS:
            for f in c.get("finalizers", ()):
                if f in by_name and all(owner_disagrees(o, c["what"]) for o in by_name[f]):
                    wrong.append("%s lists %s, whose owners are %s" % (c["what"], f, sorted(by_name[f])))
    assert not wrong, wrong


# the owner texts the take-over writes beside what it releases, with the finalizer and kind each is for
TAKE_OVER_OWNERS = (
    (take_over.OWNER, H.HO_FINALIZER, "HostedCluster"),
    (take_over.OWNER, H.HO_FINALIZER, "NodePool"),
    (hcp_owners.OWNERS, H.HO_FINALIZER, "HostedControlPlane"),
    (hcp_owners.ENDPOINT_OWNER, H.ENDPOINT_FINALIZER, "AWSEndpointService"),
)


@pytest.mark.parametrize("text, finalizer, kind", TAKE_OVER_OWNERS)
def test_the_take_over_names_the_owner_it_takes_over_from(text, finalizer, kind):
    owner = dict(((f, k), o) for f, k, o in finalizer_rows())[(finalizer, kind)]
    assert not owner_disagrees(owner, text), (finalizer, kind, owner, text)
