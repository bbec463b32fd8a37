"""The headless editor's workspace: a few small Python files held in memory, under one folder
URI, that its simulated tools and language features (docs/protocol.md, "Tools and language
features") work on. `main.py` has real problems: an unused import and an undefined name."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from headless_editor.py_analysis import WorkspaceAnalysis

FOLDER_NAME = "sim-workspace"
FOLDER_URI = "file:///sim-workspace"

SHAPES = '''"""Shapes and their areas."""

import math

PRECISION = 5


class Shape:
    """A plane figure."""

    name = "shape"

    def area(self) -> float:
        """The area in square units."""
        return 0.0


class Circle(Shape):
    """A circle of the given radius."""

    name = "circle"

    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        return round(math.pi * self.radius**2, PRECISION)


def total_area(shapes: list[Shape]) -> float:
    """The sum of the shapes' areas."""
    return sum(shape.area() for shape in shapes)


def describe(shape: Shape) -> str:
    return "≈ " + shape.name + " 📐 " + str(shape.area())
'''

MAIN = '''"""The command line: the total area of circles of the radii given."""

import os
import sys

from shapes import Circle, total_area
from util.text import shout


def main(argv: list[str]) -> int:
    circles = [Circle(float(arg)) for arg in argv]
    print(shout("total: " + str(total_area(circles))))
    print(radius_of(circles[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''

TEXT = '''"""Text helpers."""


def shout(text: str) -> str:
    """The text in capitals, with an exclamation mark."""
    return text.upper() + "!"
'''

SAMPLE_FILES = {"shapes.py": SHAPES, "main.py": MAIN, "util/text.py": TEXT}


class SimWorkspace:
    """One workspace folder of text files, by path relative to the folder ("util/text.py")."""

    def __init__(
        self,
        files: Mapping[str, str] | None = None,
        name: str = FOLDER_NAME,
        uri: str = FOLDER_URI,
    ) -> None:
        self.name = name
        self.uri = uri.rstrip("/")
        # A copy: the analysis below is computed once, so the files must not change under it.
        self.files: dict[str, str] = dict(SAMPLE_FILES if files is None else files)

    def uri_of(self, path: str) -> str:
        return f"{self.uri}/{path}"

    def path_of(self, uri: str) -> str | None:
        """The workspace path of a file URI; None when no file of the workspace has it."""
        prefix = self.uri + "/"
        if not uri.startswith(prefix):
            return None
        path = uri[len(prefix) :]
        return path if path in self.files else None

    def find_path(self, name: str) -> str | None:
        """A file named by its workspace path ("./main.py" too) or its URI."""
        if name.startswith("file:"):
            return self.path_of(name)
        path = name.replace("\\", "/").removeprefix("./")
        return path if path in self.files else None

    @cached_property
    def analysis(self) -> WorkspaceAnalysis:
        from headless_editor.py_analysis import WorkspaceAnalysis

        return WorkspaceAnalysis(self.files)
