"""Generate assets/mechanics-fixture.pdf: a small, known mechanics text for demos and tests."""

from pathlib import Path

import pymupdf

PAGES = [
    ("Uniform circular motion",
     "An object moving in a circle of radius r at constant speed v accelerates toward the "
     "centre. The centripetal acceleration has magnitude a = v^2 / r and points radially "
     "inward. Worked example: a car takes a curve of radius 50 m at 10 m/s, so its "
     "centripetal acceleration is 2.0 m/s^2."),
    ("Newton's second law",
     "The net force on a body equals its mass times its acceleration, F = m a. Worked "
     "example: a 3.0 kg cart pushed with a net force of 12 N accelerates at 4.0 m/s^2. "
     "Near the Earth's surface the gravitational acceleration is g = 9.8 m/s^2."),
    ("Period of circular motion",
     "The period T is the time for one revolution, T = 2 pi r / v. A stone whirled on a "
     "string of radius 0.50 m at 3.14 m/s has a period of 1.0 s."),
]


def build(path: Path) -> Path:
    """Write the fixture PDF, one topic a page."""
    doc = pymupdf.open()
    for title, body in PAGES:
        page = doc.new_page()
        page.insert_text((72, 80), title, fontsize=18)
        page.insert_textbox(pymupdf.Rect(72, 110, 540, 700), body, fontsize=12)
    doc.set_metadata({"title": "CiteTutor mechanics fixture", "author": "CiteTutor"})
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path, garbage=4, deflate=True)
    return path


if __name__ == "__main__":
    print(build(Path(__file__).resolve().parents[1] / "assets" / "mechanics-fixture.pdf"))
