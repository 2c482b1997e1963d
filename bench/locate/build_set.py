"""Builds the bug-localization set, bench/locate/reports.jsonl, from
bench/locate/sources.jsonl and the repository mirrors.

The procedure (see bench/locate/README.md for the rules and the counts):

1. `mine.py OWNER/REPO` lists candidate (issue, fix commit) pairs from a
   mirror (`fetch` puts bare git dirs under /work/.mirror/owner+repo/repo).
2. `build_set.py check CANDIDATES.jsonl` keeps the candidates whose release
   and archive checks below pass, so that only those are looked up.
3. Each surviving issue's title and the reporter's description (never the
   comments: they may name the fix) are looked up by hand in GitHub's issue
   threads and written to sources.jsonl with the date it was opened: one
   record {repo, issue, fix_commit, opened, title, body}.
4. `build_set.py build` computes everything else:
   - gold files: the code files the fix commit changed, less tests, docs,
     changelogs, examples, CI and tooling (those go to `other_files`), and
     less files the fix added (absent from the release, nothing to find);
     1 to 6 files, all in one registry package;
   - the release: the newest tag of that package (repos.py) committed before
     the fix, i.e. the last release before the fix; its archive (PyPI sdist,
     npm tarball or .crate) is downloaded into bench/.cache/locate/src and
     each gold file must be in it (repository path = strip_prefix + archive
     path), and must not already be the fixed version (a release cut from a
     branch the fix was backported to);
   - gold functions: the innermost named definitions (functions, methods,
     classes, Rust impls) that enclose the lines the fix changed on the base
     side of the diff (an insertion counts for the definition that encloses
     both lines around it), found by qualified name in the release's copy of
     the file, with their lines there (dropped when not found);
   - the split: "heldout" for a third of the reports, by hash of the id.

   python bench/locate/build_set.py build [--sources S] [--out O]
   python bench/locate/build_set.py check CANDIDATES.jsonl > survivors.jsonl
"""

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from repos import REPOS, is_gold_candidate  # noqa: E402
from harness.corpora import CorpusUnavailable, fetch_package  # noqa: E402
from harness.paths import CACHE  # noqa: E402

SRC = CACHE / "locate" / "src"
SINCE = "2024-01-01"


class Dropped(Exception):
    """A report that does not qualify, with the reason."""


# ---------------------------------------------------------------- git

def git(repo, *args) -> str:
    return subprocess.run(["git", "--git-dir", repo.mirror, *args], capture_output=True, text=True,
                          check=True).stdout


def git_show(repo, rev, path):
    r = subprocess.run(["git", "--git-dir", repo.mirror, "show", f"{rev}:{path}"], capture_output=True)
    return r.stdout.decode("utf-8", "replace") if r.returncode == 0 else None


@lru_cache(maxsize=None)
def release_tags(repo_name, tag_regex):
    """[(commit time, tag, version)] of the tags that mark a package's releases, oldest first."""
    repo = REPOS[repo_name]
    out = git(repo, "for-each-ref", "refs/tags",
              "--format=%(refname:short)\t%(*committerdate:unix)\t%(committerdate:unix)")
    tags = []
    for line in out.splitlines():
        name, peeled, direct = line.split("\t")
        m = re.match(tag_regex, name)
        if m:
            tags.append((int(peeled or direct), name, m.group(1)))
    return sorted(tags)


def commit_time(repo, sha):
    return int(git(repo, "log", "-1", "--format=%ct", sha).strip())


def changed_files(repo, sha):
    """[(status letter, path after, path before)] of a commit."""
    out = git(repo, "diff-tree", "--no-commit-id", "-r", "--name-status", "-M", f"{sha}^", sha)
    rows = []
    for line in out.splitlines():
        status, *paths = line.split("\t")
        rows.append((status[0], paths[-1], paths[0]))
    return rows


def base_side_lines(repo, sha, old_path, new_path):
    """Lines of the base file the fix touched: changed or deleted lines, and
    for a pure insertion after line a, the pair (a, a + 1)."""
    diff = git(repo, "diff", "-U0", f"{sha}^", sha, "--", old_path, new_path)
    touched, insertions = set(), []
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", diff, re.M):
        start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
        if count == 0:
            insertions.append((start, start + 1))
        else:
            touched.update(range(start, start + count))
    return touched, insertions


# ---------------------------------------------------------------- definitions

def definitions(path, text):
    """[(qualified name, start line, end line)] of the named definitions in a
    file, 1-based lines, in source order."""
    if path.endswith((".py", ".pyi")):
        return python_definitions(text)
    lang = "rust" if path.endswith(".rs") else "typescript" if path.endswith((".ts", ".mts", ".cts")) else "javascript"
    return tree_sitter_definitions(lang, text)


def python_definitions(text):
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    defs = []

    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = ".".join(scope + [child.name])
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                defs.append((name, start, child.end_lineno))
                visit(child, scope + [child.name])
            else:
                visit(child, scope)

    visit(tree, [])
    return defs


@lru_cache(maxsize=None)
def ts_parser(lang):
    import tree_sitter
    if lang == "rust":
        import tree_sitter_rust as grammar
        language = tree_sitter.Language(grammar.language())
    elif lang == "typescript":
        import tree_sitter_typescript as grammar
        language = tree_sitter.Language(grammar.language_typescript())
    else:
        import tree_sitter_javascript as grammar
        language = tree_sitter.Language(grammar.language())
    return tree_sitter.Parser(language)


FUNCTION_VALUES = {"function", "function_expression", "arrow_function", "generator_function", "class"}


def ts_name(node):
    """The name a tree-sitter node defines, or None when it defines none."""
    t = node.type
    field = node.child_by_field_name
    if t in ("function_declaration", "generator_function_declaration", "class_declaration", "class",
             "abstract_class_declaration", "interface_declaration", "method_definition",
             "function_item", "trait_item", "struct_item", "enum_item", "mod_item", "union_item",
             "function_signature_item", "macro_definition"):
        n = field("name")
        return n.text.decode() if n is not None else None
    if t == "impl_item":
        n = field("type")
        return re.sub(r"<.*", "", n.text.decode()) if n is not None else None
    if t in ("variable_declarator", "pair", "public_field_definition", "field_definition"):
        value = field("value")
        key = field("name") or field("key") or field("property")
        if value is not None and value.type in FUNCTION_VALUES and key is not None:
            return key.text.decode().strip("'\"")
    if t == "assignment_expression":
        value, left = field("right"), field("left")
        if value is not None and value.type in FUNCTION_VALUES and left is not None:
            return left.text.decode().split(".")[-1]
    return None


def tree_sitter_definitions(lang, text):
    tree = ts_parser(lang).parse(text.encode())
    defs = []

    def visit(node, scope):
        for child in node.named_children:
            name = ts_name(child)
            if name:
                defs.append((".".join(scope + [name]), child.start_point[0] + 1, child.end_point[0] + 1))
                visit(child, scope + [name])
            else:
                visit(child, scope)

    visit(tree.root_node, [])
    return defs


def innermost(defs, lines):
    """The index of the smallest definition containing every line, or None."""
    best = None
    for i, (_, start, end) in enumerate(defs):
        if all(start <= l <= end for l in lines) and (best is None or end - start < defs[best][2] - defs[best][1]):
            best = i
    return best


def occurrence(defs, i):
    """Which occurrence of its name definition i is (0 = first)."""
    return sum(1 for d in defs[:i] if d[0] == defs[i][0])


def changed_definitions(base_defs, touched, insertions):
    """Indexes of the base definitions the fix changed, in source order."""
    hit = {innermost(base_defs, [l]) for l in touched}
    hit |= {innermost(base_defs, list(pair)) for pair in insertions}
    return sorted(i for i in hit if i is not None)


# ---------------------------------------------------------------- one report

def release_before(repo, package, fix_sha):
    """(tag, version) of the package's last release committed before the fix.
    A crate's version is the one its Cargo.toml has at that tag: in a
    workspace released under one tag (clap) not every crate is bumped."""
    t = commit_time(repo, fix_sha)
    earlier = [(tag, version) for when, tag, version in release_tags(repo.name, package.tag) if when < t]
    if not earlier:
        raise Dropped(f"no release of {package.name} before the fix")
    tag, version = earlier[-1]
    if package.registry == "pypi-sdist":
        # PEP 440 drops a release number's leading zeros: xarray's tag
        # v2025.07.0 is 2025.7.0 on PyPI (no other tag has such a zero).
        version = re.sub(r"(?<![\d])0+(\d)", r"\1", version)
    if package.registry == "crates":
        manifest = git_show(repo, tag, package.prefix + "Cargo.toml") or ""
        m = re.search(r'^version\s*=\s*"([^"]+)"', manifest, re.M)
        if m:
            version = m.group(1)
    return tag, version


def gold_of(repo, fix_sha):
    """(gold [(new path, old path)], other files, added files) of a fix."""
    gold, other, added = [], [], []
    for status, new, old in changed_files(repo, fix_sha):
        if not is_gold_candidate(new):
            other.append(new)
        elif status == "A":
            added.append(new)
        else:
            gold.append((new, old))
    return gold, other, added


def locate_report(src):
    """The report record of one sources.jsonl record, or raises Dropped."""
    repo = REPOS[src["repo"]]
    if src.get("opened", SINCE) < SINCE:
        raise Dropped(f"opened {src['opened']}, before {SINCE}")
    sha = src["fix_commit"]
    gold, other, added = gold_of(repo, sha)
    if not gold:
        raise Dropped("no non-test gold file" + (" besides added ones" if added else ""))
    if len(gold) > 6:
        raise Dropped(f"{len(gold)} gold files")
    packages = {repo.package_of(new) for new, _ in gold}
    if len(packages) != 1 or None in packages:
        raise Dropped("gold files span several packages: " + ", ".join(sorted(p.name for p in packages if p)))
    package = packages.pop()
    tag, version = release_before(repo, package, sha)
    try:
        root = fetch_package(package.registry, package.name, version, SRC / f"{package.name}-{version}")
    except CorpusUnavailable as e:
        raise Dropped(f"archive {package.name} {version}: {e}")
    files, functions = [], []
    for new, old in gold:
        rel = new[len(package.prefix):]
        archived = root / rel
        if not archived.is_file():
            raise Dropped(f"{rel} not in {package.name} {version}")
        released = archived.read_text(errors="replace")
        before, after = git_show(repo, f"{sha}^", old), git_show(repo, sha, new)
        if released == after and before != after:
            raise Dropped(f"{rel} in {package.name} {version} already has the fix")
        files.append(rel)
        functions += gold_functions(repo, sha, old, new, rel, before or "", released)
    rid = f"{repo.name}#{src['issue']}"
    return {
        "id": rid, "repo": repo.name, "issue": src["issue"], "opened": src.get("opened"),
        "url": src.get("url") or f"https://github.com/{repo.name}/issues/{src['issue']}",
        "language": repo.language, "title": src["title"], "body": src["body"], "fix_commit": sha,
        "release_tag": tag,
        "package": {"registry": package.registry, "name": package.name, "version": version},
        "strip_prefix": package.prefix, "files": files, "functions": functions,
        "other_files": other + [f"{p} (added by the fix)" for p in added],
        "split": split_of(rid),
    }


def gold_functions(repo, sha, old, new, rel, before, released):
    """Gold functions of one file, with their lines in the released copy."""
    touched, insertions = base_side_lines(repo, sha, old, new)
    base_defs = definitions(new, before)
    rel_defs = definitions(new, released)
    out = []
    for i in changed_definitions(base_defs, touched, insertions):
        name, nth = base_defs[i][0], occurrence(base_defs, i)
        if new.endswith(".rs") and name.split(".")[0] in ("test", "tests"):
            continue  # a Rust file's own #[cfg(test)] module is test code
        
        same = [d for d in rel_defs if d[0] == name]
        if len(same) > nth:
            _, start, end = same[nth]
            out.append({"file": rel, "name": name, "start_line": start, "end_line": end})
    return out


def split_of(rid):
    """A third held out, by a hash of the id, so that adding reports moves none."""
    return "heldout" if hashlib.sha1(rid.encode()).digest()[0] % 3 == 0 else "tune"


# ---------------------------------------------------------------- commands

def build(sources, out, dropped_out):
    reports, dropped = [], []
    for line in Path(sources).read_text().splitlines():
        if not line.strip():
            continue
        src = json.loads(line)
        try:
            reports.append(locate_report(src))
        except Dropped as e:
            dropped.append({"id": f"{src['repo']}#{src['issue']}", "reason": str(e)})
            print(f"dropped {src['repo']}#{src['issue']}: {e}", file=sys.stderr)
    reports.sort(key=lambda r: (r["repo"], r["issue"]))
    Path(out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in reports))
    Path(dropped_out).write_text("".join(json.dumps(d) + "\n" for d in dropped))
    print(f"{len(reports)} reports, {len(dropped)} dropped", file=sys.stderr)


def check(candidates):
    """Prints the candidates (mine.py's records) whose release checks pass."""
    for line in Path(candidates).read_text().splitlines():
        c = json.loads(line)
        try:
            r = locate_report({"repo": c["repo"], "issue": c["issue"], "fix_commit": c["fix_commit"],
                               "title": c["subject"], "body": ""})
        except Dropped as e:
            print(f"drop {c['repo']}#{c['issue']}: {e}", file=sys.stderr)
            continue
        c.update(version=r["package"]["name"] + " " + r["package"]["version"], files=r["files"],
                 functions=len(r["functions"]))
        print(json.dumps(c))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--sources", default=str(HERE / "sources.jsonl"))
    b.add_argument("--out", default=str(HERE / "reports.jsonl"))
    b.add_argument("--dropped", default=str(HERE / "dropped.jsonl"))
    c = sub.add_parser("check")
    c.add_argument("candidates")
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.sources, args.out, args.dropped)
    else:
        check(args.candidates)


if __name__ == "__main__":
    main()
