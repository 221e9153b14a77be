"""The notebooks: paired with their jupytext scripts, stored without outputs, run top to bottom, and every
plotting cell shows its figure (an image or an interactive plot), not only that nothing raised."""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
FIGURE_TYPES = ("image/png", "application/vnd.plotly.v1+json")


def test_there_are_three_notebooks():
    assert {p.stem for p in NOTEBOOKS} == {"success_curves", "combat_lethality", "rule_readings"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_paired_and_stripped(path):
    nb = jupytext.read(path)
    script = jupytext.read(path.with_suffix(".py"))
    assert [(c.cell_type, c.source) for c in nb.cells] == [(c.cell_type, c.source) for c in script.cells]
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


def plotting(cell) -> bool:
    """A cell whose last line draws a figure (``plots.name(...)``)."""
    lines = [line for line in cell.source.strip().splitlines() if line.strip()]
    return cell.cell_type == "code" and bool(lines) and lines[-1].startswith("plots.")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_shows_every_figure(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    figures = [c for c in nb.cells if plotting(c)]
    assert len(figures) >= 2
    for cell in figures:
        shown = [o for o in cell.outputs if o.output_type in ("display_data", "execute_result")
                 and any(t in o.get("data", {}) for t in FIGURE_TYPES)]
        assert shown, cell.source
    readings = [c for c in nb.cells if c.cell_type == "code" and "Markdown(" in c.source]
    assert readings and all(any("text/markdown" in o.get("data", {}) for o in c.outputs) for c in readings)
