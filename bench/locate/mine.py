"""Step 1 of building the set: list candidate (issue, fix commit) pairs from
a repository mirror (`fetch` puts bare git dirs under /work/.mirror).

    python bench/locate/mine.py OWNER/REPO [--since 2024-01-01] > candidates.jsonl

A candidate is a commit since --since whose message says it fixes or closes
an issue ("Fixes #N", "Closes #N", "Fix #N:", ".../issues/N"), or, in
pytest, one that adds a `changelog/N.bugfix.rst` fragment (fragments are
named after the issue), or, in Sphinx, one that adds a `CHANGES` entry
"#N: ..." (Sphinx's entries name the issue); likewise pylint's
`doc/whatsnew/fragments/N.bugfix` (`.false_positive`, `.false_negative`),
pip's `news/N.bugfix.rst`, and the Pallets projects' and marshmallow's
changelog lines ending ":issue:`N`" (xarray's `doc/whats-new.rst` too), SymPy's
"Fixes gh-N", astropy's towncrier fragments `docs/changes/<sub>/<PR>.bugfix.rst`
when their text cites the issue, and astropy pull requests whose own
description links an issue (ASTROPY_PR_ISSUES). A pull request's merge commit
counts when its body (the PR's title and description as GitHub writes it)
says "Fixes/Closes/Resolves #N"; its change is taken against the first
parent. Its non-test gold files must
number 1 to 6. Whether N is an issue (not a pull request) opened on or after
--since is checked afterwards, when its text is looked up.

Issue numbers below the last number used in the year before --since (the
highest "(#N)" in the subjects of commits of the previous December) are
skipped: such issues were opened before --since."""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from repos import REPOS, is_gold_candidate  # noqa: E402

FIX_REF = r"(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?|ref)\s*:?\s+(?:issue\s+)?(?:#|https://github\.com/{repo}/issues/)(\d+)"


def git(repo, *args) -> str:
    return subprocess.run(["git", "--git-dir", repo.mirror, *args], capture_output=True, text=True,
                          check=True).stdout


def commits_since(repo, since):
    """(sha, commit date, subject, body) of every commit on HEAD since the date, oldest first."""
    out = git(repo, "log", "--reverse", f"--since={since}", "--format=%H%x00%cs%x00%s%x00%b%x01")
    for rec in out.split("\x01"):
        rec = rec.strip("\n")
        if rec:
            sha, date, subject, body = rec.split("\x00")
            yield sha, date, subject, body


def changed_files(repo, sha):
    out = git(repo, "diff-tree", "--no-commit-id", "-r", "--name-status", "-M", f"{sha}^", sha)
    files = []
    for line in out.splitlines():
        status, *paths = line.split("\t")
        files.append((status[0], paths[-1], paths[0]))  # status, new path, old path
    return files


def issue_refs(repo, sha, subject, body, files):
    """Issue numbers a commit says it fixes."""
    pattern = re.compile(FIX_REF.format(repo=re.escape(repo.name)), re.I)
    refs = [int(n) for n in pattern.findall(subject + "\n" + body)]
    if repo.name == "pytest-dev/pytest":
        refs += [int(m.group(1)) for s, p, _ in files if s == "A"
                 and (m := re.fullmatch(r"changelog/(\d+)\.bugfix\.rst", p))]
    if repo.name == "sphinx-doc/sphinx":
        refs += sphinx_changes_refs(repo, sha, files)
    if repo.name == "pylint-dev/pylint":
        refs += [int(m.group(1)) for s, p, _ in files if s == "A"
                 and (m := re.fullmatch(r"doc/whatsnew/fragments/(\d+)\.(bugfix|false_positive|false_negative)", p))]
    if repo.name == "pypa/pip":
        refs += [int(m.group(1)) for s, p, _ in files if s == "A"
                 and (m := re.fullmatch(r"news/(\d+)\.bugfix(\.rst)?", p))]
    if repo.name in RST_ISSUE_CHANGELOGS:
        refs += rst_issue_refs(repo, sha, files, RST_ISSUE_CHANGELOGS[repo.name])
    if repo.name in GH_DASH_REPOS:
        refs += [int(n) for n in re.findall(GH_DASH_REF, subject + "\n" + body, re.I)]
    if repo.name == "astropy/astropy":
        refs += astropy_fragment_refs(repo, sha, files)
        pr = re.search(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+) ", subject)
        if pr and int(pr.group(1) or pr.group(2)) in ASTROPY_PR_ISSUES:
            refs.append(ASTROPY_PR_ISSUES[int(pr.group(1) or pr.group(2))])
    return sorted(set(refs))


# astropy's fixes name their pull request, not the issue; these links were
# read from the pull requests' own descriptions ("Fixes #N") in the stored
# GitHub threads during the fourth pass (log.md), PR number -> issue number.
ASTROPY_PR_ISSUES = {19903: 19902, 20008: 20007, 20097: 18910}


# SymPy's messages also write an issue as "gh-N" ("Fixes gh-26888").
GH_DASH_REPOS = {"sympy/sympy"}
GH_DASH_REF = r"(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+(?:issue\s+)?gh-(\d+)"


def says_fix(repo, text):
    """Whether a (merge) message names an issue it fixes."""
    if re.search(FIX_REF.format(repo=re.escape(repo.name)), text, re.I):
        return True
    return repo.name in GH_DASH_REPOS and bool(re.search(GH_DASH_REF, text, re.I))


def astropy_fragment_refs(repo, sha, files):
    """astropy's towncrier fragments `docs/changes/<subpackage>/<PR>.bugfix.rst`
    are named after the pull request; the few whose text cites the issue
    ("#N", ":issue:`N`") link it."""
    frags = [p for s, p, _ in files if s == "A" and re.fullmatch(r"docs/changes/(?:[\w.]+/)*\d+\.bugfix\.rst", p)]
    if not frags:
        return []
    diff = git(repo, "diff", f"{sha}^", sha, "--", *frags)
    added = "\n".join(l for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++"))
    return [int(n) for n in re.findall(r"(?::issue:`|#)(\d+)", added)]


# Changelogs whose entries cite the issue as ":issue:`N`" (Sphinx's
# extlinks role, used by the Pallets projects and marshmallow).
RST_ISSUE_CHANGELOGS = {"pallets/flask": "CHANGES.rst", "pallets/click": "CHANGES.rst",
                        "pallets/jinja": "CHANGES.rst", "marshmallow-code/marshmallow": "CHANGELOG.rst",
                        "pydata/xarray": "doc/whats-new.rst"}


def rst_issue_refs(repo, sha, files, changelog):
    """The ":issue:`N`" of the changelog lines a commit adds."""
    if not any(p == changelog for _, p, _ in files):
        return []
    diff = git(repo, "diff", f"{sha}^", sha, "--", changelog)
    added = "\n".join(l for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++"))
    return [int(n) for n in re.findall(r":issue:`(\d+)`", added)]


def sphinx_changes_refs(repo, sha, files):
    """Sphinx's changelog entries start "* #N: ..." with the issue number."""
    changes = [p for _, p, _ in files if p == "CHANGES.rst" or p.startswith("doc/changes/")]
    if not changes:
        return []
    diff = git(repo, "diff", f"{sha}^", sha, "--", *changes)
    return [int(n) for n in re.findall(r"^\+\* #(\d+):", diff, re.M)]


def last_number_before(repo, since):
    """The highest "(#N)" in the subjects of the month before `since`."""
    year, month, _ = (int(x) for x in since.split("-"))
    prev = f"{year - 1}-12-01" if month == 1 else f"{year}-{month - 1:02d}-01"
    out = git(repo, "log", f"--since={prev}", f"--until={since}", "--format=%s")
    numbers = [int(n) for n in re.findall(r"\(#(\d+)\)", out)]
    return max(numbers, default=0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("--since", default="2024-01-01")
    args = ap.parse_args()
    repo = REPOS[args.repo]
    floor = last_number_before(repo, args.since)
    seen = set()
    for sha, date, subject, body in commits_since(repo, args.since):
        parents = len(git(repo, "rev-list", "--parents", "-n1", sha).split()) - 1
        if parents != 1 and not (parents == 2 and says_fix(repo, body)):
            continue  # merges: their fix is in the merged commits, unless the merge body names the issue
        files = changed_files(repo, sha)  # a merge: its change against the first parent, the whole PR
        refs = [n for n in issue_refs(repo, sha, subject, body, files) if n > floor and n not in seen]
        if len(refs) != 1:
            continue  # none, or several issues in one fix: which report goes with which file is unclear
        gold = [p for s, p, _ in files if is_gold_candidate(p)]
        if not 1 <= len(gold) <= 6:
            continue
        seen.add(refs[0])
        print(json.dumps({"repo": repo.name, "issue": refs[0], "fix_commit": sha, "date": date,
                          "subject": subject, "gold": gold}))


if __name__ == "__main__":
    main()
