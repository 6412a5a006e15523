"""The partner certification rules that tests can hold (README.md, "Publishing"): every link in the READMEs
Automation Hub renders is a full URL, requirements.txt neither pins nor caps, the sanity ignore files hold
only entries of the allow-list that ansible-lint's `sanity` rule carries, and the lint configuration keeps
the production profile without skipping a rule that certification enforces. galaxy-importer itself runs on
the tarball in tests/galaxy_importer.sh."""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pathlib
import re

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
GALAXY = yaml.safe_load((REPO / "galaxy.yml").read_text())
READMES = [REPO / "README.md"] + sorted(REPO.glob("roles/*/README.md"))

# [text](target), ![alt](target), [label]: target, <a href="target">, <img src="target">
LINK_PATTERNS = (
    re.compile(r"\]\(\s*<?([^)\s>]+)"),
    re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M),
    re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.I),
)


def _without_code(text):
    """Markdown outside fenced and inline code: a link-like string inside code is not a link."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def links(text):
    body = _without_code(text)
    return [m.group(1) for pattern in LINK_PATTERNS for m in pattern.finditer(body)]


@pytest.mark.parametrize("readme", READMES, ids=lambda p: str(p.relative_to(REPO)))
def test_readme_links_are_full_urls(readme):
    found = links(readme.read_text())
    relative = [target for target in found if not re.match(r"(https?://|mailto:)", target)]
    assert not relative, "%s: Automation Hub renders the README outside the repository, so these links break " \
                         "there; write them as full URLs (%s/blob/main/<path>): %s" % (
                             readme.relative_to(REPO), GALAXY["repository"], relative)


@pytest.mark.parametrize("readme", READMES, ids=lambda p: str(p.relative_to(REPO)))
def test_links_into_this_repository_name_an_existing_file(readme):
    prefix = GALAXY["repository"].rstrip("/") + "/blob/main/"
    missing = [target for target in links(readme.read_text()) if target.startswith(prefix)
               and not (REPO / target[len(prefix):].split("#", 1)[0]).exists()]
    assert not missing, "%s links to files this repository does not have: %s" % (readme.relative_to(REPO), missing)


def test_link_finder_sees_each_form():
    text = "a [x](docs/a.md) b ![i](img.png)\n[ref]: ../c.md\n<a href=\"d.html\">d</a> `[no](code.md)`\n" \
           "```\n[no](fenced.md)\n```\n[ok](https://example.org/x)\n"
    assert links(text) == ["docs/a.md", "img.png", "https://example.org/x", "../c.md", "d.html"]


def _requirements(path):
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            yield line


def test_requirements_txt_neither_pins_nor_caps():
    reqs = list(_requirements(REPO / "requirements.txt"))
    assert reqs, "requirements.txt lists nothing"
    bad = []
    for req in reqs:
        spec = req.split(";", 1)[0]
        operators = re.findall(r"(===|==|~=|!=|<=|>=|<|>)", spec)
        # only lower bounds: a pin (==, ===), a cap (<, <=) or a compatible release (~=, a cap in disguise) is refused
        if any(op not in (">=", ">") for op in operators):
            bad.append(req)
    assert not bad, "certification: requirements.txt uses >= or no version at all, never a pin or a cap: %s" % bad


def test_requirements_txt_names_neither_ansible_nor_ansible_core():
    names = [re.split(r"[\s\[<>=!~;]", req, 1)[0].lower() for req in _requirements(REPO / "requirements.txt")]
    assert not {"ansible", "ansible-core", "ansible-base"} & set(names), \
        "an execution environment brings ansible-core; requirements.txt must not list it: %s" % names


def test_sanity_ignores_are_allow_listed_only():
    rule = pytest.importorskip("ansiblelint.rules.sanity")
    allowed = set(rule.CheckSanityIgnoreFiles.allowed_ignores)
    bad = []
    for ignore_file in sorted((REPO / "tests" / "sanity").glob("ignore-*.txt")):
        for number, raw in enumerate(ignore_file.read_text().splitlines(), 1):
            entry = raw.split("#", 1)[0].strip()
            if not entry:
                continue
            parts = entry.split()
            # every entry, not only those under plugins/ and roles/ that ansible-lint looks at
            if len(parts) != 2 or parts[1] not in allowed:
                bad.append("%s:%d %s" % (ignore_file.name, number, entry))
    assert not bad, "sanity ignores that certification does not allow (fix the code instead): %s" % bad


# Certification enforces these; they must not be skipped in .ansible-lint or .ansible-lint-ignore.
ENFORCED = {"risky-shell-pipe", "command-instead-of-shell", "meta-no-info", "package-latest", "no-handler",
            "no-log-password", "meta-runtime[unsupported-version]", "no-changed-when", "risky-file-permissions",
            "command-instead-of-module", "unnamed-task"}


def test_ansible_lint_is_production_and_skips_nothing_enforced():
    config = yaml.safe_load((REPO / ".ansible-lint").read_text())
    assert config.get("profile", "production") == "production"
    skipped = set(config.get("skip_list", [])) | set(config.get("warn_list", []))
    ignore = REPO / ".ansible-lint-ignore"
    if ignore.exists():
        for raw in ignore.read_text().splitlines():
            parts = raw.split("#", 1)[0].split()
            if len(parts) >= 2:
                skipped.add(parts[1])

    def base(rule):
        return rule.split("[", 1)[0]

    # a rule skipped whole skips its enforced sub-rules, and a sub-rule of a rule enforced whole is enforced too
    bad = sorted(rule for rule in skipped for enforced in ENFORCED
                 if base(rule) == base(enforced) and (rule == enforced or "[" not in rule or "[" not in enforced))
    assert not bad, "certification enforces these rules; they cannot be skipped: %s" % bad
    content = ("plugins", "roles", "playbooks", "meta", "extensions")
    excluded = [p for p in config.get("exclude_paths", []) if p.strip("/") in content]
    assert not excluded, "content directories must be linted: %s" % excluded
