"""Ties the type stubs (twaindb/__init__.pyi) to the module: the same names, classes,
bases, methods and parameters (names, kinds, defaults); the stats TypedDicts (in _stats.py,
which the stub re-exports) to what Db.stats() returns. Other types are not checked here."""

import ast
import inspect
import pathlib

import pytest

import twaindb

if not hasattr(ast, "unparse"):  # Python 3.8; the stubs are the same for every version
    pytest.skip("ast.unparse needs Python 3.9", allow_module_level=True)

PACKAGE = pathlib.Path(twaindb.__file__).parent
STUB = ast.parse((PACKAGE / "__init__.pyi").read_text())
# The stats TypedDicts are defined once, in _stats.py, which the stub re-exports.
STATS = ast.parse((PACKAGE / "_stats.py").read_text())
CLASSES = {
    node.name: node for node in STUB.body + STATS.body if isinstance(node, ast.ClassDef)
}
TYPED_DICTS = {n for n, c in CLASSES.items() if [ast.unparse(b) for b in c.bases] == ["TypedDict"]}
# Dunders that are part of the API (the others are Python's or PyO3's machinery).
PROTOCOL = {
    "__new__",
    "__enter__",
    "__exit__",
    "__iter__",
    "__next__",
    "__len__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__contains__",
}


def stub_members(node):
    """The stub's methods by name; of overloads, the last, which REQUIRES spelling every
    parameter with its run-time default."""
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
    P = inspect.Parameter
    positional = args.posonlyargs + args.args
    kinds = [P.POSITIONAL_ONLY] * len(args.posonlyargs)
    kinds += [P.POSITIONAL_OR_KEYWORD] * len(args.args)
    defaults = [P.empty] * (len(positional) - len(args.defaults))
    defaults += [ast.literal_eval(d) for d in args.defaults]
    params = list(zip([a.arg for a in positional], kinds, defaults))[1:]  # self or cls
    if args.vararg:
        params.append(("*", P.VAR_POSITIONAL, P.empty))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        params.append((a.arg, P.KEYWORD_ONLY, P.empty if d is None else ast.literal_eval(d)))
    if args.kwarg:
        params.append((args.kwarg.arg, P.VAR_KEYWORD, P.empty))
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
    assert stub_all == twaindb.__all__
    assert set(CLASSES) | {"__version__"} == set(twaindb.__all__)
    assert all(hasattr(twaindb, n) for n in twaindb.__all__)


def test_the_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()


def test_no_export_shadows_a_name_of_typing():
    import typing

    assert not set(twaindb.__all__) & set(dir(typing))
    assert "Iterator" not in dir(twaindb)


@pytest.mark.parametrize("name", sorted(set(CLASSES) - TYPED_DICTS))
def test_each_class_has_the_same_bases(name):
    stub_bases = [ast.unparse(b) for b in CLASSES[name].bases] or ["object"]
    assert [b.__name__ for b in getattr(twaindb, name).__bases__] == stub_bases


@pytest.mark.parametrize("name", sorted(set(CLASSES) - TYPED_DICTS))
def test_each_class_has_the_same_members(name):
    assert set(stub_members(CLASSES[name])) == runtime_members(getattr(twaindb, name))


@pytest.mark.parametrize(
    "cls, method",
    [
        (c, m)
        for c in sorted(set(CLASSES) - TYPED_DICTS)
        for m, fn in stub_members(CLASSES[c]).items()
        if not any(ast.unparse(d) == "property" for d in fn.decorator_list)
        and m not in {"__iter__", "__next__", "__len__"}
    ],
)
def test_each_method_has_the_same_parameters(cls, method):
    fn = stub_members(CLASSES[cls])[method]
    assert runtime_params(getattr(twaindb, cls), method) == stub_params(fn)


def stub_fields(name):
    """A stub TypedDict's fields: {name: annotation}."""
    return {
        item.target.id: ast.unparse(item.annotation)
        for item in CLASSES[name].body
        if isinstance(item, ast.AnnAssign)
    }


@pytest.mark.parametrize("name", sorted(TYPED_DICTS))
def test_each_typed_dict_has_the_same_fields_at_run_time(name):
    runtime = getattr(twaindb, name)
    annotations = {k: getattr(a, "__forward_arg__", a) for k, a in runtime.__annotations__.items()}
    assert annotations == stub_fields(name)
    assert list(annotations) == list(stub_fields(name))
    assert runtime.__required_keys__ == set(stub_fields(name))


# Python types a stub annotation allows (a float field may hold an int: json.loads reads
# "0" that way).
ALLOWED = {
    "int": {int},
    "float": {float, int},
    "bool": {bool},
    "str": {str},
    "int | None": {int, type(None)},
    "float | None": {float, int, type(None)},
    "str | None": {str, type(None)},
}


def check_typed(name, value):
    """Asserts `value` has exactly the fields of the stub TypedDict `name`, of its types."""
    fields = stub_fields(name)
    assert set(value) == set(fields), f"{name}: keys differ"
    for key, annotation in fields.items():
        if annotation.startswith("list["):
            assert type(value[key]) is list, key
            for item in value[key]:
                check_typed(annotation[len("list[") : -1], item)
        elif annotation.removesuffix(" | None") in TYPED_DICTS:
            if value[key] is not None or not annotation.endswith(" | None"):
                check_typed(annotation.removesuffix(" | None"), value[key])
        else:
            assert type(value[key]) in ALLOWED[annotation], f"{name}.{key}: {value[key]!r}"


def test_stats_returns_exactly_the_fields_of_the_stats_typed_dict(path):
    with twaindb.Db(path, memtable_size="64K", inline_threshold=16) as db:
        for i in range(500):
            db.put(b"%04d" % i, b"value %d" % i * 10)
        db.flush()
        stats = db.stats()
        assert stats["levels"] and stats["value_files"], "the nested lists are checked"
        assert stats["hash_layout"] is None
        check_typed("Stats", stats)
    with twaindb.Db(
        path.with_name("hash"), memtable_size="64K", value_layout="hash", hash_groups=4
    ) as db:
        for i in range(500):
            db.put(b"%04d" % i, b"value %d" % i * 30)
        db.flush()
        stats = db.stats()
        assert stats["hash_layout"]["groups"] == 4, "the nested dict is checked"
        check_typed("Stats", stats)
