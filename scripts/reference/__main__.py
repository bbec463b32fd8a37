"""`python -m scripts.reference [--check]`: write (or check) docs/reference/*.md."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from scripts.reference import cli_page, errors_page, settings_page

ROOT = Path(__file__).resolve().parents[2]
PAGES: dict[str, Callable[[Path], str]] = {
    "docs/reference/settings.md": settings_page.render,
    "docs/reference/cli.md": cli_page.render,
    "docs/reference/errors.md": errors_page.render,
}


def stale(root: Path = ROOT) -> list[str]:
    """The pages whose checked-in text differs from what the code generates now."""
    return [
        name
        for name, render in PAGES.items()
        if not (root / name).is_file() or (root / name).read_text(encoding="utf-8") != render(root)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.reference", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    if args.check:
        old = stale()
        for name in old:
            print(f"{name} is stale: run python -m scripts.reference", file=sys.stderr)
        return 1 if old else 0
    for name, render in PAGES.items():
        path = ROOT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(ROOT), encoding="utf-8", newline="\n")
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
