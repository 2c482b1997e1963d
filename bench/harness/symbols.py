"""Definitions in a corpus, read with Python's own `ast` (Python) and
tree-sitter grammars from PyPI (TypeScript, Rust): the ground truth the
query sets are built from, independent of Kenning's own miner.

A Sym's `qual` is "Container.name" for methods (class for Python and
TypeScript, the impl's type for Rust) and the bare name otherwise. Its doc
is the first docstring (Python) or the doc comment right above it (`/** */`
in TypeScript, `///` in Rust), with the lines it spans."""

import ast
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

EXTENSIONS = {"python": (".py",), "typescript": (".ts",), "rust": (".rs",)}
SKIP_DIRS = {"tests", "test", "__pycache__", "node_modules", "benches", "examples"}


@dataclass
class Sym:
    path: str
    name: str
    container: str | None
    kind: str  # function, method, class
    start_line: int
    end_line: int
    doc: str | None = None
    doc_lines: tuple | None = None  # (first, last), 1-based, inclusive
    name_line: int = 0
    name_col: int = 0  # 0-based, of the name on name_line
    # Written inside an item-position macro (Rust's `cfg_rt! { … }`): a
    # definition, so a gold answer, but kept out of the samples that make
    # query sets, so the sets stay those of earlier runs.
    in_macro: bool = False

    @property
    def qual(self):
        return f"{self.container}.{self.name}" if self.container else self.name

    def gold(self):
        return {"path": self.path, "start_line": self.start_line, "end_line": self.end_line, "symbol": self.qual}


def source_files(root: Path, language: str):
    exts = EXTENSIONS[language]
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("."))
        for f in sorted(files):
            if f.endswith(exts) and not f.endswith(".d.ts") and not f.endswith((".spec.ts", ".test.ts")):
                yield Path(d) / f


def extract_file(root: Path, rel: str, language: str):
    data = (Path(root) / rel).read_bytes()
    return _python(rel, data) if language == "python" else _tree_sitter(rel, data, language)


def extract(root: Path, language: str):
    """Every definition under root: [Sym], sorted by path and line."""
    out = []
    for path in source_files(root, language):
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        if language == "python":
            out.extend(_python(rel, data))
        else:
            out.extend(_tree_sitter(rel, data, language))
    return out


# ---------------------------------------------------------------- Python

def _python(rel, data):
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return []
    out = []
    lines = data.decode("utf-8", "replace").split("\n")

    def walk(node, container):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc, doc_lines = None, None
                body = child.body
                if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                        and isinstance(body[0].value.value, str):
                    doc, doc_lines = body[0].value.value, (body[0].lineno, body[0].end_lineno)
                is_class = isinstance(child, ast.ClassDef)
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                kind = "class" if is_class else ("method" if container else "function")
                line = lines[child.lineno - 1]
                col = line.find(child.name, child.col_offset)
                out.append(Sym(rel, child.name, container, kind, start, child.end_lineno, doc, doc_lines,
                               child.lineno, max(col, 0)))
                # Methods belong to their class; functions nested in functions are skipped.
                if is_class:
                    walk(child, child.name)
            elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if isinstance(child, (ast.If, ast.Try, ast.With)) or isinstance(node, ast.Module):
                    walk(child, container)
    walk(tree, None)
    return out


# ---------------------------------------------------------------- tree-sitter

_PARSERS = {}


def parser(language):
    if language not in _PARSERS:
        import tree_sitter
        if language == "typescript":
            import tree_sitter_typescript as grammar
            lang = tree_sitter.Language(grammar.language_typescript())
        else:
            import tree_sitter_rust as grammar
            lang = tree_sitter.Language(grammar.language())
        _PARSERS[language] = tree_sitter.Parser(lang)
    return _PARSERS[language]


def parses_cleanly(data: bytes, language: str) -> bool:
    if language == "python":
        try:
            ast.parse(data)
            return True
        except (SyntaxError, ValueError):
            return False
    return not parser(language).parse(data).root_node.has_error


TS_DEFS = {"function_declaration": "function", "class_declaration": "class", "abstract_class_declaration": "class",
           "method_definition": "method", "interface_declaration": "class"}
RS_DEFS = {"function_item": "function", "struct_item": "class", "enum_item": "class", "trait_item": "class"}


RS_ITEM_SCOPES = ("source_file", "declaration_list")
RS_NOT_ITEMS = ("expression_statement", "let_declaration")


def _items_inside(data, tree):
    """The interior of a `{ … }` token tree whose text parses as Rust items."""
    start, close = tree.start_byte, tree.end_byte - 1
    if tree.type != "token_tree" or data[start:start + 1] != b"{" or data[close:close + 1] != b"}" or close <= start:
        return None
    root = parser("rust").parse(data[start + 1:close]).root_node
    if root.named_child_count == 0 or root.has_error or any(c.type in RS_NOT_ITEMS for c in root.named_children):
        return None
    return start + 1, close


def unwrap_rust_macros(data):
    """Rust source with every item-position macro around items (`cfg_rt! {
    pub fn spawn… }`, each branch of `cfg_if!`) blanked to its items, as
    rustc sees them after expansion; and the line ranges of those macros."""
    ranges = []
    for _ in range(4):  # wrappers nest
        tree = parser("rust").parse(data)
        spans, stack = [], [tree.root_node]
        while stack:
            node = stack.pop()
            for child in node.named_children:
                if child.type == "macro_invocation" and node.type in RS_ITEM_SCOPES:
                    body = next((c for c in child.named_children if c.type == "token_tree"), None)
                    macro = child.child_by_field_name("macro")
                    name = (macro.child_by_field_name("name") or macro) if macro is not None else None
                    if body is None:
                        continue
                    if name is not None and data[name.start_byte:name.end_byte] == b"cfg_if":
                        kept = [k for k in (_items_inside(data, b) for b in body.named_children) if k]
                    else:
                        kept = [k for k in [_items_inside(data, body)] if k]
                    if kept:
                        at = child.start_byte
                        for start, end in kept:
                            spans.append((at, start))
                            at = end
                        spans.append((at, child.end_byte))
                        ranges.append((child.start_point[0] + 1, child.end_point[0] + 1))
                elif child.type in ("mod_item", "impl_item", "trait_item", "declaration_list"):
                    stack.append(child)
        if not spans:
            break
        out = bytearray(data)
        for start, end in spans:
            for i in range(start, end):
                if out[i] != ord("\n"):
                    out[i] = ord(" ")
        data = bytes(out)
    return data, ranges


def _tree_sitter(rel, data, language):
    macros = []
    if language == "rust":
        data, macros = unwrap_rust_macros(data)
    tree = parser(language).parse(data)
    out = []
    text = lambda n: data[n.start_byte:n.end_byte].decode("utf-8", "replace")

    def doc_above(node):
        """The doc comment directly above node (or above its export/attributes)."""
        anchor = node
        while anchor.parent is not None and anchor.parent.type in ("export_statement",):
            anchor = anchor.parent
        prev = anchor.prev_sibling
        while language == "rust" and prev is not None and prev.type == "attribute_item":
            prev = prev.prev_sibling
        if language == "typescript":
            while prev is not None and prev.type == "decorator":
                prev = prev.prev_sibling
            if prev is not None and prev.type == "comment" and text(prev).startswith("/**") \
                    and prev.end_point[0] >= anchor.start_point[0] - 1:
                body = re.sub(r"^\s*/\*\*|\*/\s*$", "", text(prev))
                body = "\n".join(re.sub(r"^\s*\* ?", "", l) for l in body.splitlines())
                return body.strip(), (prev.start_point[0] + 1, prev.end_point[0] + 1)
            return None, None
        lines, first, last = [], None, None
        while prev is not None and prev.type == "line_comment" and text(prev).startswith("///") \
                and not text(prev).startswith("////"):
            expected = (first if first is not None else anchor.start_point[0])
            if prev.end_point[0] < expected - 1:
                break
            lines.insert(0, text(prev)[3:].strip())
            first = prev.start_point[0]
            last = last if last is not None else prev.start_point[0]
            prev = prev.prev_sibling
            while prev is not None and prev.type == "attribute_item":
                prev = prev.prev_sibling
        if not lines:
            return None, None
        return "\n".join(lines).strip(), (first + 1, last + 1)

    def visit(node, container):
        for child in node.named_children:
            t = child.type
            defs = TS_DEFS if language == "typescript" else RS_DEFS
            if t in defs:
                name = child.child_by_field_name("name")
                if name is None:
                    continue
                kind = defs[t]
                if kind == "function" and container:
                    kind = "method"
                doc, lines = doc_above(child)
                out.append(Sym(rel, text(name), container if kind == "method" else None, kind,
                               child.start_point[0] + 1, child.end_point[0] + 1, doc, lines, name.start_point[0] + 1,
                               name.start_point[1]))
                # Members: a TypeScript class's methods, a Rust trait's declared methods.
                if t in ("class_declaration", "abstract_class_declaration", "interface_declaration", "trait_item"):
                    visit(child.child_by_field_name("body") or child, text(name))
            elif language == "rust" and t == "impl_item":
                ty = child.child_by_field_name("type")
                tname = re.sub(r"<.*", "", text(ty)) if ty is not None else None
                visit(child.child_by_field_name("body") or child, tname)
            elif t in ("export_statement", "declaration_list", "mod_item", "class_body", "statement_block",
                       "program", "source_file", "ambient_declaration", "internal_module"):
                visit(child, container)
            elif t == "lexical_declaration" and language == "typescript" and container is None:
                # export const name = (...) => {...}: a function in all but syntax.
                for decl in child.named_children:
                    value = decl.child_by_field_name("value")
                    name = decl.child_by_field_name("name")
                    if value is not None and name is not None and value.type in ("arrow_function", "function_expression", "function"):
                        doc, lines = doc_above(child)
                        out.append(Sym(rel, text(name), None, "function", child.start_point[0] + 1,
                                       child.end_point[0] + 1, doc, lines, name.start_point[0] + 1, name.start_point[1]))
    visit(tree.root_node, None)
    for sym in out:
        sym.in_macro = any(first <= sym.start_line <= last for first, last in macros)
    return out


def resolve(syms, ref: str):
    """'path::Qual.name' (or 'path::name') -> the matching Syms."""
    if "::" not in ref:
        raise ValueError(f"gold {ref!r} must be 'path::Qualified.name'")
    path, qual = ref.split("::", 1)
    return [s for s in syms if s.path == path and s.qual == qual]
