"""The repositories the bug-localization set draws from, and how each maps
onto the registry package that ships its code.

A repository has one or more packages. Each package is a directory of the
repository (`prefix`, "" for the root) that is published to a registry as one
archive (PyPI sdist, npm tarball or .crate), with the git tags that mark its
releases (`tag`: a regular expression whose group 1 is the registry version).
A repository path `prefix + p` is `p` inside that package's archive."""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Package:
    registry: str  # pypi-sdist, npm, crates
    name: str
    prefix: str  # the package's directory in the repository ("" = root, else ends with "/")
    tag: str  # regex over tag names; group 1 = the registry version


@dataclass(frozen=True)
class Repo:
    name: str  # owner/repo
    language: str  # python, javascript, rust
    packages: tuple  # most specific prefix first

    @property
    def mirror(self) -> str:
        return "/work/.mirror/" + self.name.replace("/", "+") + "/repo"

    def package_of(self, path: str):
        for p in self.packages:
            if path.startswith(p.prefix):
                return p
        return None


SEMVER = r"(\d+\.\d+\.\d+)"

REPOS = {r.name: r for r in [
    Repo("pytest-dev/pytest", "python", (Package("pypi-sdist", "pytest", "", "^" + SEMVER + "$"),)),
    Repo("sphinx-doc/sphinx", "python", (Package("pypi-sdist", "sphinx", "", "^v" + SEMVER + "$"),)),
    Repo("psf/black", "python", (Package("pypi-sdist", "black", "", "^" + SEMVER + "$"),)),
    Repo("pydantic/pydantic", "python", (Package("pypi-sdist", "pydantic", "", "^v" + SEMVER + "$"),)),
    # Added for more Python: each sdist ships its package's sources (src/ or
    # the package directory) under the repository's own paths.
    Repo("pallets/flask", "python", (Package("pypi-sdist", "flask", "", "^" + SEMVER + "$"),)),
    Repo("pallets/click", "python", (Package("pypi-sdist", "click", "", "^" + SEMVER + "$"),)),
    Repo("pallets/jinja", "python", (Package("pypi-sdist", "jinja2", "", "^" + SEMVER + "$"),)),
    Repo("psf/requests", "python", (Package("pypi-sdist", "requests", "", "^v" + SEMVER + "$"),)),
    Repo("encode/httpx", "python", (Package("pypi-sdist", "httpx", "", "^" + SEMVER + "$"),)),
    Repo("pylint-dev/pylint", "python", (Package("pypi-sdist", "pylint", "", "^v" + SEMVER + "$"),)),
    # SymPy's releases are X.Y or X.Y.Z (1.12, 1.12.1), tagged sympy-X.Y
    # (and X.Y.Z too since 1.12.1).
    Repo("sympy/sympy", "python", (Package("pypi-sdist", "sympy", "", r"^sympy-(\d+\.\d+(?:\.\d+)?)$"),)),
    # pip's releases are X.Y or X.Y.Z.
    Repo("pypa/pip", "python", (Package("pypi-sdist", "pip", "", r"^(\d+\.\d+(?:\.\d+)?)$"),)),
    # Fourth pass: large scientific projects. Each sdist ships its package
    # directory (xarray/, astropy/, seaborn/, sympy/) under the repository's
    # paths. xarray's calendar tags are zero-padded (v2025.07.0), PyPI's
    # versions are not (2025.7.0): build_set.py normalises the version.
    Repo("pydata/xarray", "python", (Package("pypi-sdist", "xarray", "", "^v" + SEMVER + "$"),)),
    Repo("astropy/astropy", "python", (Package("pypi-sdist", "astropy", "", "^v" + SEMVER + "$"),)),
    Repo("mwaskom/seaborn", "python", (Package("pypi-sdist", "seaborn", "", "^v" + SEMVER + "$"),)),
    # mypy's sdist ships mypy/ and mypyc/ (releases are tagged on release
    # branches; build_set.py drops a release that already has the fix).
    Repo("python/mypy", "python", (Package("pypi-sdist", "mypy", "", "^v" + SEMVER + "$"),)),
    Repo("marshmallow-code/marshmallow", "python", (Package("pypi-sdist", "marshmallow", "", "^" + SEMVER + "$"),)),
    Repo("eslint/eslint", "javascript", (Package("npm", "eslint", "", "^v" + SEMVER + "$"),)),
    Repo("webpack/webpack", "javascript", (Package("npm", "webpack", "", "^v" + SEMVER + "$"),)),
    # svelte's npm package ships its JavaScript sources (src/) as written.
    Repo("sveltejs/svelte", "javascript", (Package("npm", "svelte", "packages/svelte/", "^svelte@" + SEMVER + "$"),)),
    Repo("nodejs/undici", "javascript", (Package("npm", "undici", "", "^v" + SEMVER + "$"),)),
    # Each crate of ripgrep's workspace is published on its own (the ripgrep
    # crate has only crates/core), under its own tags.
    Repo("BurntSushi/ripgrep", "rust", tuple(
        Package("crates", crate, f"crates/{d}/", f"^{crate}-" + SEMVER + "$") for d, crate in [
            ("globset", "globset"), ("ignore", "ignore"), ("cli", "grep-cli"), ("matcher", "grep-matcher"),
            ("pcre2", "grep-pcre2"), ("printer", "grep-printer"), ("regex", "grep-regex"),
            ("searcher", "grep-searcher"), ("grep", "grep")]
    ) + (Package("crates", "ripgrep", "", "^" + SEMVER + "$"),)),
    # clap, clap_builder and clap_derive are released together under vX.Y.Z
    # (a crate's version is read from its Cargo.toml at the tag: clap_builder
    # is not bumped by every clap release).
    Repo("clap-rs/clap", "rust", (
        Package("crates", "clap_builder", "clap_builder/", "^v" + SEMVER + "$"),
        Package("crates", "clap_derive", "clap_derive/", "^v" + SEMVER + "$"),
        Package("crates", "clap_complete", "clap_complete/", "^clap_complete-v" + SEMVER + "$"),
        Package("crates", "clap_lex", "clap_lex/", "^clap_lex-v" + SEMVER + "$"),
        Package("crates", "clap_mangen", "clap_mangen/", "^clap_mangen-v" + SEMVER + "$"),
        Package("crates", "clap_complete_nushell", "clap_complete_nushell/", "^clap_complete_nushell-v" + SEMVER + "$"),
        Package("crates", "clap", "", "^v" + SEMVER + "$"),
    )),
    Repo("tokio-rs/tokio", "rust", (
        Package("crates", "tokio-util", "tokio-util/", "^tokio-util-" + SEMVER + "$"),
        Package("crates", "tokio-stream", "tokio-stream/", "^tokio-stream-" + SEMVER + "$"),
        Package("crates", "tokio-macros", "tokio-macros/", "^tokio-macros-" + SEMVER + "$"),
        Package("crates", "tokio-test", "tokio-test/", "^tokio-test-" + SEMVER + "$"),
        Package("crates", "tokio", "tokio/", "^tokio-" + SEMVER + "$"),
    )),
]}

CODE_EXTENSIONS = (".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".rs")

# Directory components and names that are never gold (and are removed from
# every system's ranking before scoring).
# "test-data" is mypy's tree of test cases and their stub fixtures
# (test-data/unit/fixtures/*.pyi); no earlier repository has one.
TEST_DIRS = {"test", "tests", "testing", "__tests__", "spec", "test-data"}
DOC_DIRS = {"docs", "doc"}
EXAMPLE_DIRS = {"example", "examples"}
# Not part of the code a fix localizes to: CI, release tooling, benchmarks.
TOOLING_DIRS = {".github", ".ci", "ci", "scripts", "tools", "benches", "benchmarks", "bench", "changelog",
                "changes", "fuzz", "tasks"}
_TEST_FILE = re.compile(r"(^test_.*\.py$|.*_test\.py$|^conftest\.py$|.*\.(test|spec)\.[cm]?[jt]sx?$|.*_test\.rs$)")


def is_test(path: str) -> bool:
    parts = path.split("/")
    return any(p in TEST_DIRS for p in parts[:-1]) or bool(_TEST_FILE.match(parts[-1]))


def is_doc(path: str) -> bool:
    parts = path.split("/")
    return any(p in DOC_DIRS for p in parts[:-1]) or parts[-1].lower().endswith((".md", ".rst", ".txt"))


def is_example(path: str) -> bool:
    return any(p in EXAMPLE_DIRS for p in path.split("/")[:-1])


def is_excluded(path: str) -> bool:
    """Tests, docs and examples: removed from every ranking before scoring."""
    return is_test(path) or is_doc(path) or is_example(path)


# Root-level configuration that happens to be code (eslint.config.js).
_CONFIG_FILE = re.compile(r"^[^/]*\.(config|conf)\.[cm]?[jt]s$|^(Gruntfile|Makefile)\.[cm]?js$|^setup\.py$|^build\.rs$|^noxfile\.py$")


def is_gold_candidate(path: str) -> bool:
    """A changed file that counts as gold: code, outside tests, docs,
    examples, changelogs, tooling, configuration and generated declarations."""
    if not path.endswith(CODE_EXTENSIONS) or is_excluded(path) or _CONFIG_FILE.match(path):
        return False
    if path.startswith("declarations/"):  # webpack's generated option types
        return False
    return not any(p in TOOLING_DIRS or p.startswith(".") for p in path.split("/")[:-1])
