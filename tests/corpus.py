"""Paths into ../shared/corpus; tests skip with a clear reason only where it is absent."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def corpus_file(folder: str, name: str) -> Path:
    """One corpus PDF, or skip the test if the shared corpus is not checked out beside the repo."""
    path = CORPUS / folder / name
    if not path.exists():
        pytest.skip(f"shared corpus not found at {CORPUS} (clone it beside the project)")
    return path


def manifest() -> list[dict]:
    """The corpus manifest rows."""
    path = CORPUS / "MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open() as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


MIT = ("course", "mit801sc-ch06-circular-motion.pdf")
SLIDES = ("course", "fiset-static-and-dynamic-arrays-slides.pdf")
HANDWRITTEN = ("scanned", "msu-phy481-handwritten-07-energy.pdf")
ONE_PAGE_SCAN = ("scanned", "msu-phy481-handwritten-12-method-of-relaxation.pdf")
