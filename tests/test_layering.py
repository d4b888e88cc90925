"""How the package hangs together, read from its source: no import circles (function-local
imports count: they hide a circle, they do not remove it) and an engine that knows no HTTP."""

from __future__ import annotations

import ast
from pathlib import Path

API = Path(__file__).resolve().parents[1] / "api"


def module_name(path: Path) -> str:
    parts = path.relative_to(API.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """The api modules ``path`` imports anywhere in its body, except under TYPE_CHECKING."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
               and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            subs = {f"{base}.{a.name}" for a in node.names} & modules
            # ``from . import x``: the submodule x, not the package (unless x is a name in it)
            found |= subs if subs and len(subs) == len(node.names) else subs | {base}
    return {m for m in found if m in modules and m != name}


def files() -> dict[str, Path]:
    return {module_name(p): p for p in API.rglob("*.py")}


def graph() -> dict[str, set[str]]:
    found = files()
    return {name: imports(path, set(found)) for name, path in found.items()}


def test_no_module_of_api_imports_itself_round_a_circle():
    edges = graph()
    circles = []
    for start in edges:
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in edges[node]:
                # a package's own __init__ reached from its submodules is no circle of theirs
                if nxt == start and not start.startswith(node + "."):
                    circles.append(trail + [nxt])
                elif nxt not in seen and not start.startswith(nxt + "."):
                    seen.add(nxt)
                    stack.append((nxt, trail + [nxt]))
    assert not circles, "\n".join(" -> ".join(c) for c in circles[:10])


def test_the_engine_knows_no_http_and_no_prompt():
    """Nothing the engine's modules import, directly or through others, is Flask or the front:
    no prompt builder, service, routes or HTTP errors (the engine takes token ids)."""
    edges, paths = graph(), files()
    engine = [name for name in edges if name == "api.engine" or name.startswith("api.engine.")]
    assert len(engine) > 20 and "api.engine" in engine
    front = {"api.service", "api.prompt", "api.tokenizer", "api.routes", "api.errors",
             "api.memory", "api.chat_request", "api.schemas"}
    reached, todo = set(), list(engine)
    while todo:
        for nxt in edges[todo.pop()] - reached:
            reached.add(nxt)
            todo.append(nxt)
    assert not {m for m in reached if m in front or m.rpartition(".")[0] in front}, reached
    for name in reached | set(engine):
        text = paths[name].read_text(encoding="utf-8")
        assert "import flask" not in text and "from flask" not in text, name


def test_domain_errors_carry_no_http_and_each_has_its_row():
    """``api.exceptions`` names what went wrong; only ``api.errors`` knows statuses, and its
    table has a row for every error class (none answers as a bare 500 by omission)."""
    import inspect

    from api import exceptions
    from api.errors import SHAPES

    tree = ast.parse((API / "exceptions.py").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                and (n.module or "") != "__future__"]
    errors = [c for _n, c in inspect.getmembers(exceptions, inspect.isclass)
              if issubclass(c, exceptions.MnemoError)]
    assert len(errors) > 15 and set(errors) == set(SHAPES)
    error = exceptions.Overloaded("full", retry_after=1)
    assert not {"status", "code", "openai_type", "headers"} & (set(vars(error))
                                                               | set(vars(type(error))))


def test_the_engine_names_no_request_field_in_its_errors():
    """The engine does not know the API's field names: an error it raises names none
    (``param=``); ``errors.SHAPES`` says which field a class of error is about."""
    raised = []
    for path in (API / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(k.arg == "param" for k in node.keywords):
                raised.append(f"{path.name}:{node.lineno}")
    assert not raised, raised
