"""The pages reach the pipeline through one door: the facade (citetutor.pipeline) and ui/."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
ALLOWED = re.compile(r"^(streamlit(\..*)?|altair|citetutor\.pipeline|citetutor\.ui(\..*)?|time|json|datetime)$")


def test_pages_import_only_the_facade_and_ui():
    for page in PAGES:
        for node in ast.walk(ast.parse(page.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert ALLOWED.match(name), f"{page.name} imports {name}"


def test_pages_never_reach_past_the_facade():
    for page in PAGES:
        text = page.read_text()
        assert not re.search(r"pipeline\.(store|models|settings|gate|tracer)\b", text), page.name
