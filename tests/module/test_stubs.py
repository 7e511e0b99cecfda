"""python/xferlab/_core.pyi against the module it describes: the same names, Engine's options in
the table's order with the table's defaults, and every enum option's Literal the values Engine()
accepts. The stub ships beside the module (py.typed), so a stub that drifts misleads a type
checker: these tests fail first."""
import ast
import pathlib
import re

import pytest

import xferlab
from xferlab import _core

STUB = pathlib.Path(xferlab.__file__).with_name("_core.pyi")
# The test build's module has a submodule the installed one never has (module/testing).
TESTING_ONLY = {"_testing"}


@pytest.fixture(autouse=True)
def fake_device():
    _core._testing.use_fake_device(True)
    yield
    _core._testing.use_fake_device(False)


def stub_tree():
    assert STUB.is_file(), f"{STUB} is not beside the module (cmake/python_module.cmake)"
    return ast.parse(STUB.read_text())


def engine_init(tree):
    engine = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine")
    return next(n for n in engine.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")


def literal_strings(annotation):
    """The strings of every Literal[...] in an annotation."""
    out = []
    for node in ast.walk(annotation):
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id == "Literal"):
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            out += [e.value for e in elts]
    return out


def test_the_stub_names_what_the_module_has():
    tree = stub_tree()
    named = {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    named |= {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    public = {k for k in dir(_core) if not k.startswith("__") or k == "__version__"}
    public -= TESTING_ONLY
    # OptionDefault is the stub's own (the shape of Engine.defaults()'s values).
    assert named - {"OptionDefault"} == public
    engine = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine")
    members = {n.name for n in engine.body if isinstance(n, ast.FunctionDef)}
    # pybind11's own members start with "_" (_pybind11_conduit_v1_): not the API.
    assert members == {k for k in dir(_core.Engine) if not k.startswith("_")} | {
        "__init__", "__enter__", "__exit__"}


def test_engine_options_and_defaults_are_the_tables():
    init = engine_init(stub_tree())
    assert [a.arg for a in init.args.args] == ["self", "device"]
    options = [a.arg for a in init.args.kwonlyargs]
    defaults = xferlab.Engine.defaults()
    assert options == list(defaults)  # the table's order
    for arg, default in zip(init.args.kwonlyargs, init.args.kw_defaults):
        assert ast.literal_eval(default) == defaults[arg.arg]["default"], arg.arg


def test_an_enum_options_literal_is_what_engine_accepts():
    init = engine_init(stub_tree())
    enums = {a.arg: literal_strings(a.annotation) for a in init.args.kwonlyargs
             if isinstance(a.annotation, ast.Subscript) and a.annotation.value.id == "Literal"}
    assert set(enums) == {"streams", "wait", "mapped_files", "start", "lock", "pageable",
                          "wake"}
    for name, values in enums.items():
        with pytest.raises(ValueError) as raised:
            xferlab.Engine(**{name: "no-such-value"})
        accepted = re.findall(r'"([^"]+)"', str(raised.value).split("; got")[0])
        assert values == accepted, name
