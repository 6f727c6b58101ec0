"""RapidOCR (PaddleOCR's detection and recognition models as ONNX, inside the PyPI package
rapidocr-onnxruntime), measured beside Tesseract by `python -m citetutor ocr-eval`.

On the hand-transcribed scan pages it tied with Tesseract (mean character error rate 46% at
150 dpi, 49-50% at 220 and 300 dpi) and was slower, so the product keeps Tesseract; this engine
stays a comparison (install it with pip to rerun that)."""

from __future__ import annotations

import threading

from citetutor.errors import ModelUnavailable
from citetutor.models.base import OcrResult


class RapidOcr:
    """An OcrModel over RapidOCR; the engine loads on first use (about a second)."""

    name = "embedded:rapidocr"

    def __init__(self) -> None:
        self._engine = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._engine is None:
                try:
                    from rapidocr_onnxruntime import RapidOCR
                except ImportError as exc:
                    raise ModelUnavailable("Install RapidOCR: pip install rapidocr-onnxruntime") from exc
                self._engine = RapidOCR()
            return self._engine

    def transcribe(self, png: bytes) -> OcrResult:
        """Transcribe one page image as lines in reading order, each with its confidence."""
        boxes, _ = self._load()(png)
        lines = reading_order([(box, text, float(conf)) for box, text, conf in boxes or []])
        return OcrResult(text="\n".join(text for text, _ in lines), model=self.name, lines=lines)


def reading_order(found: list[tuple[list, str, float]]) -> list[tuple[str, float]]:
    """Detected pieces joined into lines, top to bottom then left to right: a piece joins a
    line when it overlaps the line's height by half. A line's confidence is its weakest piece's."""
    pieces = sorted(((min(p[1] for p in box), max(p[1] for p in box), min(p[0] for p in box), text, conf)
                     for box, text, conf in found), key=lambda p: (p[0], p[2]))
    rows: list[list] = []
    for top, bottom, left, text, conf in pieces:
        row = next((r for r in rows if min(bottom, r[1]) - max(top, r[0]) > 0.5 * min(bottom - top, r[1] - r[0])),
                   None)
        if row is None:
            rows.append([top, bottom, [(left, text, conf)]])
        else:
            row[0], row[1] = min(row[0], top), max(row[1], bottom)
            row[2].append((left, text, conf))
    rows.sort(key=lambda r: r[0])
    return [(" ".join(t for _, t, _ in sorted(r[2])), min(c for _, _, c in r[2])) for r in rows]

