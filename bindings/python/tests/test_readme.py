"""The Python examples of the package README and of the section for the main README run
as written (with each database put in a temporary directory) and print what they show; the
main README's Python section is readme-section.md, word for word."""

import pathlib
import re

import pytest

HERE = pathlib.Path(__file__).parent.parent
MAIN_README = HERE.parent.parent / "README.md"


@pytest.mark.parametrize(
    "doc, printed",
    [("README.md", "b'banana' b'yellow'"), ("readme-section.md", "b'banana' b'yellow'")],
)
def test_the_python_examples_run(doc, printed, tmp_path, capsys):
    """Each example in a database of its own; the first prints `printed` first."""
    text = (HERE / doc).read_text()
    examples = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    for i, code in enumerate(examples):
        exec(code.replace("/tmp/my-db", str(tmp_path / f"db{i}")), {})  # noqa: S102 - our docs
        if i == 0:
            assert capsys.readouterr().out.splitlines()[0] == printed


@pytest.mark.skipif(not MAIN_README.is_file(), reason="run outside the repository")
def test_the_main_readme_has_the_section_as_written():
    section = (HERE / "readme-section.md").read_text()
    main = MAIN_README.read_text()
    start = main.index("\n## Python\n") + 1
    end = main.index("\n## ", start + 1) + 1
    assert main[start:end].rstrip("\n") == section.rstrip("\n")
