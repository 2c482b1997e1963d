"""Pinned corpora, downloaded from the package registries at run time and
cached under bench/.cache/corpora. Third-party code is never committed.

A code corpus holds only the sources, laid out as the package imports them
(`flask/app.py`, `src/Observable.ts`, `src/lib.rs`). A tree corpus (`tree`)
keeps the whole sdist or crate, README, docs/, changelog and config files
with the code, for the docs set: its answers live outside the code."""

import json
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .paths import CACHE

ROOT = CACHE / "corpora"


@dataclass(frozen=True)
class Corpus:
    name: str
    language: str  # python, typescript, rust
    registry: str  # pypi (wheel), pypi-sdist, npm, crates
    package: str
    version: str
    keep: tuple = ()  # sub-directories of the package to keep (npm, crates); empty = all
    note: str = ""
    tree: bool = False  # the whole source tree, docs and config included (the docs set)

    @property
    def dir(self) -> Path:
        return ROOT / f"{self.name}-{self.version}"

    @property
    def pin(self) -> str:
        return f"{self.package}=={self.version}" if self.registry.startswith("pypi") else f"{self.package}@{self.version}"


CORPORA = {c.name: c for c in [
    Corpus("requests", "python", "pypi", "requests", "2.32.3"),
    Corpus("flask", "python", "pypi", "flask", "3.0.3"),
    Corpus("click", "python", "pypi", "click", "8.1.7"),
    Corpus("rich", "python", "pypi", "rich", "13.9.4"),
    Corpus("httpx", "python", "pypi", "httpx", "0.27.2"),
    Corpus("django", "python", "pypi", "django", "5.1.4"),
    Corpus("langchain-core", "python", "pypi", "langchain-core", "0.3.29"),
    # 0.3.14 still has the classes the RepoGPT blog (seed 001) asks about:
    # AlephAlphaAsymmetricSemanticEmbedding, KNNRetriever, BaseOpenAI.
    Corpus("langchain-community", "python", "pypi", "langchain-community", "0.3.14",
           note="RepoGPT blog classes"),
    Corpus("rxjs", "typescript", "npm", "rxjs", "7.8.1", keep=("src",)),
    Corpus("tokio", "rust", "crates", "tokio", "1.41.1", keep=("src",)),
    # A crate with no dependencies, whole: `cargo check --all-targets` runs
    # offline-free of registries (plan-and-execute's Rust oracle).
    Corpus("semver", "rust", "crates", "semver", "1.0.23", tree=True, note="whole crate: cargo check"),
    # Whole trees for the docs set. attrs' sdist ships docs/ (Markdown and
    # reST), CHANGELOG.md, tox.ini, pyproject.toml and .github/ (CI,
    # CONTRIBUTING.md); ripgrep's crate ships GUIDE.md, FAQ.md, CHANGELOG.md
    # and its Cargo, rustfmt and release files with the code.
    Corpus("attrs", "python", "pypi-sdist", "attrs", "24.2.0", tree=True, note="sdist: docs and config"),
    Corpus("ripgrep", "rust", "crates", "ripgrep", "14.1.1", tree=True, note="crate: guide, FAQ and config"),
]}

# The graph oracles (bench/graph_eval.py) cover these five.
GRAPH_CORPORA = ["requests", "flask", "click", "rich", "httpx"]


class CorpusUnavailable(Exception):
    pass


def fetch(name: str) -> Path:
    """The corpus directory, downloading it on first use."""
    if name not in CORPORA:
        raise CorpusUnavailable(f"unknown corpus {name!r}; choose from {', '.join(CORPORA)}")
    corpus = CORPORA[name]
    stamp = corpus.dir / ".complete"
    if stamp.is_file():
        return corpus.dir
    shutil.rmtree(corpus.dir, ignore_errors=True)
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    tmp = corpus.dir.with_name(corpus.dir.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        if corpus.registry == "pypi":
            _fetch_wheel(corpus, downloads, tmp)
        elif corpus.registry == "pypi-sdist":
            _fetch_sdist(corpus, downloads, tmp)
        elif corpus.registry == "npm":
            _fetch_npm(corpus, downloads, tmp)
        else:
            _fetch_crate(corpus, downloads, tmp)
    except CorpusUnavailable:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    (tmp / ".complete").write_text(corpus.pin + "\n")
    tmp.rename(corpus.dir)
    return corpus.dir


def fetch_package(registry: str, package: str, version: str, dst: Path) -> Path:
    """One published archive, whole (code, tests, docs, config), extracted
    into dst without its top directory (`pytest-8.1.1/`, `package/`), once:
    a `.complete` stamp marks it done. registry: pypi-sdist, npm or crates."""
    stamp = dst / ".complete"
    if stamp.is_file():
        return dst
    if registry not in ("pypi-sdist", "npm", "crates"):
        raise CorpusUnavailable(f"fetch_package: unknown registry {registry!r}")
    corpus = Corpus(package, "", registry, package, version, tree=True)
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(dst.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        {"pypi-sdist": _fetch_sdist, "npm": _fetch_npm, "crates": _fetch_crate}[registry](corpus, downloads, tmp)
    except CorpusUnavailable:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    (tmp / ".complete").write_text(corpus.pin + "\n")
    shutil.rmtree(dst, ignore_errors=True)
    tmp.rename(dst)
    return dst


def _fetch_wheel(corpus, downloads, dst):
    wheel_prefix = corpus.package.replace("-", "_").lower() + "-" + corpus.version + "-"
    wheels = [p for p in downloads.glob("*.whl") if p.name.lower().startswith(wheel_prefix)]
    if not wheels:
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                            "--disable-pip-version-check", "-d", str(downloads), corpus.pin],
                           capture_output=True, text=True)
        wheels = [p for p in downloads.glob("*.whl") if p.name.lower().startswith(wheel_prefix)]
        if r.returncode != 0 or not wheels:
            raise CorpusUnavailable(f"cannot download {corpus.pin} from PyPI ({_last_line(r.stderr)}); "
                                    "check that PyPI is reachable (pip config, proxy) and retry")
    with zipfile.ZipFile(wheels[0]) as z:
        for member in z.namelist():
            top = member.split("/", 1)[0]
            if top.endswith((".dist-info", ".data")) or "__pycache__" in member:
                continue
            z.extract(member, dst)


def _fetch_sdist(corpus, downloads, dst):
    """The sdist as published, found through PyPI's JSON simple index (PEP
    691): `pip download` would build its metadata first, which needs the
    package's build backend."""
    norm = re.sub(r"[-_.]+", "-", corpus.package).lower()
    archive = downloads / f"{norm}-{corpus.version}.tar.gz"
    if not archive.is_file():
        try:
            req = urllib.request.Request(f"https://pypi.org/simple/{norm}/",
                                         headers={"Accept": "application/vnd.pypi.simple.v1+json"})
            with urllib.request.urlopen(req, timeout=120) as r:
                files = json.load(r)["files"]
            pattern = re.compile(r"(.+)-" + re.escape(corpus.version) + r"\.tar\.gz")
            urls = [f["url"] for f in files if (m := pattern.fullmatch(f["filename"]))
                    and re.sub(r"[-_.]+", "-", m.group(1)).lower() == norm]
            if not urls:
                raise CorpusUnavailable(f"PyPI has no .tar.gz sdist for {corpus.pin}")
            _download(urls[0], archive)
        except OSError as e:
            raise CorpusUnavailable(f"cannot download the sdist of {corpus.pin} from PyPI ({e}); "
                                    "check that pypi.org and files.pythonhosted.org are reachable") from e
    _extract_tar(archive, dst, corpus.keep)


def _download(url, dst):
    with urllib.request.urlopen(url, timeout=120) as r, open(str(dst) + ".tmp", "wb") as f:
        shutil.copyfileobj(r, f)
    Path(str(dst) + ".tmp").rename(dst)


def _fetch_npm(corpus, downloads, dst):
    tgz = downloads / f"{corpus.package}-{corpus.version}.tgz"
    if not tgz.is_file():
        r = subprocess.run(["npm", "pack", "--silent", corpus.pin], cwd=downloads, capture_output=True, text=True)
        if r.returncode != 0 or not tgz.is_file():
            raise CorpusUnavailable(f"cannot download {corpus.pin} from npm ({_last_line(r.stderr)}); "
                                    "install npm and check that registry.npmjs.org is reachable")
    _extract_tar(tgz, dst, corpus.keep)


def _fetch_crate(corpus, downloads, dst):
    crate = downloads / f"{corpus.package}-{corpus.version}.crate"
    if not crate.is_file():
        url = f"https://static.crates.io/crates/{corpus.package}/{corpus.package}-{corpus.version}.crate"
        try:
            _download(url, crate)
        except OSError as e:
            raise CorpusUnavailable(f"cannot download {corpus.pin} from crates.io ({e}); "
                                    "check that static.crates.io is reachable") from e
    # A tree corpus keeps everything; a code corpus its keep list and the manifest.
    _extract_tar(crate, dst, () if corpus.tree else corpus.keep + ("Cargo.toml",))


def _extract_tar(archive, dst, keep):
    """Extracts the archive's single top directory's contents, keeping only
    the listed entries (all when empty)."""
    with tarfile.open(archive) as t:
        for m in t.getmembers():
            parts = m.name.split("/", 1)
            if len(parts) < 2 or not parts[1]:
                continue
            rel = parts[1]
            if keep and not any(rel == k or rel.startswith(k + "/") for k in keep):
                continue
            if not (m.isfile() or m.isdir()):
                continue
            m.name = rel
            t.extract(m, dst, filter="data")


def _last_line(text):
    lines = [l for l in (text or "").strip().splitlines() if l.strip()]
    return lines[-1] if lines else "no output"
