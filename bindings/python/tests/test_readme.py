"""The Python examples of the package README and of the section for the main README run
as written (with the database put in a temporary directory) and print what they show."""

import pathlib
import re

import pytest

HERE = pathlib.Path(__file__).parent.parent


@pytest.mark.parametrize(
    "doc, printed",
    [("README.md", "b'banana' b'yellow'"), ("readme-section.md", "b'apple' b'red'")],
)
def test_the_python_example_runs(doc, printed, tmp_path, capsys):
    text = (HERE / doc).read_text()
    (code,) = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    exec(code.replace("/tmp/my-db", str(tmp_path / "db")), {})  # noqa: S102 - our own docs
    assert capsys.readouterr().out.splitlines()[0] == printed
