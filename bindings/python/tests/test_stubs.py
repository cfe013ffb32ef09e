"""Ties the type stubs (twain/__init__.pyi) to the module: the same names, classes,
bases, methods and parameters (names, kinds, defaults). Types are not checked here."""

import ast
import inspect
import pathlib

import pytest

import twain

if not hasattr(ast, "unparse"):  # Python 3.8; the stubs are the same for every version
    pytest.skip("ast.unparse needs Python 3.9", allow_module_level=True)

STUB = ast.parse((pathlib.Path(twain.__file__).parent / "__init__.pyi").read_text())
CLASSES = {node.name: node for node in STUB.body if isinstance(node, ast.ClassDef)}
# Dunders that are part of the API (the others are Python's or PyO3's machinery).
PROTOCOL = {"__new__", "__enter__", "__exit__", "__iter__", "__next__", "__len__"}


def stub_members(node):
    return {
        item.name: item
        for item in node.body
        if isinstance(item, ast.FunctionDef)
        and (not item.name.startswith("_") or item.name in PROTOCOL)
    }


def runtime_members(cls):
    names = {n for n in vars(cls) if not n.startswith("_") or n in PROTOCOL}
    if cls.__text_signature__ is None:  # PyO3's __new__ that refuses construction
        names.discard("__new__")
    return names


def stub_params(fn):
    """(name, kind, default) of a stub function's parameters after self."""
    args = fn.args
    positional = args.posonlyargs + args.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(args.defaults))
    defaults += [ast.literal_eval(d) for d in args.defaults]
    params = [
        (a.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD, d) for a, d in zip(positional, defaults)
    ][1:]  # self or cls
    if args.vararg:
        params.append(("*", inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.empty))
    if args.kwarg:
        params.append((args.kwarg.arg, inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty))
    return params


def runtime_params(cls, name):
    if name == "__new__":
        sig = inspect.signature(cls)
        params = list(sig.parameters.values())
    else:
        params = list(inspect.signature(getattr(cls, name)).parameters.values())[1:]
    return [("*" if p.kind == p.VAR_POSITIONAL else p.name, p.kind, p.default) for p in params]


def test_the_stub_names_exactly_the_module_exports():
    (stub_all,) = [
        ast.literal_eval(n.value)
        for n in STUB.body
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "__all__"
    ]
    assert stub_all == twain.__all__
    assert set(CLASSES) | {"__version__"} == set(twain.__all__)
    assert all(hasattr(twain, n) for n in twain.__all__)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_class_has_the_same_bases(name):
    stub_bases = [ast.unparse(b) for b in CLASSES[name].bases] or ["object"]
    assert [b.__name__ for b in getattr(twain, name).__bases__] == stub_bases


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_each_class_has_the_same_members(name):
    assert set(stub_members(CLASSES[name])) == runtime_members(getattr(twain, name))


@pytest.mark.parametrize(
    "cls, method",
    [
        (c, m)
        for c in sorted(CLASSES)
        for m, fn in stub_members(CLASSES[c]).items()
        if not any(ast.unparse(d) == "property" for d in fn.decorator_list)
        and m not in {"__iter__", "__next__", "__len__"}
    ],
)
def test_each_method_has_the_same_parameters(cls, method):
    fn = stub_members(CLASSES[cls])[method]
    assert runtime_params(getattr(twain, cls), method) == stub_params(fn)
