"""MiniLM on the MIT chapter's chunks: today's float ONNX graph against int8 quantisations of
it and, when git history is at hand, the NumPy forward pass the retrieval issue was filed on.

Prints chunks per second, speed-up over the first row, and how far each variant's vectors
move (lowest chunk cosine to today's vectors, largest change of a question-to-chunk cosine,
the number the relevance floors are calibrated on). Same chunks, same process, side by side.
`CITETUTOR_DATA_DIR=/tmp/ct PYTHONPATH=. .venv/bin/python scripts/bench_minilm.py`
"""

import json
import subprocess
import tempfile
import time
import types
from pathlib import Path

import numpy as np

from citetutor.chunking import chunk_page
from citetutor.config import Settings
from citetutor.models.embedded import MiniLMEmbedder, minilm_dir
from citetutor.models.minilm_onnx import OnnxEncoder
from citetutor.pdf import open_pdf, page_count, read_page

ROOT = Path(__file__).resolve().parents[1]
MIT = ROOT.parent / "shared/corpus/course/mit801sc-ch06-circular-motion.pdf"
NUMPY_COMMIT = "4f1eaa0"  # the NumPy MiniLM when the retrieval issue was filed


def mit_chunks(settings: Settings) -> list[str]:
    doc = open_pdf(MIT.read_bytes(), MIT.name)
    pages = [read_page(doc, i, MIT.name) for i in range(page_count(doc, MIT.name))]
    return [c.text for p in pages for c in chunk_page("mit", p, settings.limits.chunk_chars,
                                                       settings.limits.chunk_overlap)]


def numpy_encoder(folder: Path):
    """The NumPy BERT from NUMPY_COMMIT, or None outside a git checkout that has it."""
    try:
        source = subprocess.run(["git", "show", f"{NUMPY_COMMIT}:citetutor/models/embedded.py"],
                                cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    start, end = source.index("def _erf"), source.index("class MiniLMEmbedder")
    module = types.ModuleType("numpy_minilm")
    exec("import math\nimport numpy as np\n" + source[start:end], module.__dict__)
    from safetensors.numpy import load_file
    config = json.loads((folder / "config.json").read_text())
    return module.BertEncoder(load_file(str(folder / "model.safetensors")), config["num_attention_heads"],
                              config["num_hidden_layers"], config["layer_norm_eps"])


def main() -> None:
    settings = Settings(runtime="embedded")
    cache = settings.data_dir / "models"
    texts = mit_chunks(settings)
    questions = [c["question"] for f in sorted((ROOT / "evals").glob("*.json"))
                 for c in json.loads(f.read_text())["cases"]]
    embedder = MiniLMEmbedder(cache)
    tokenizer, today = embedder._load()
    graph = cache / "all-MiniLM-L6-v2.onnx"
    encoders = {"float ONNX (today)": today}
    old = numpy_encoder(minilm_dir(cache))
    if old is not None:
        encoders = {f"NumPy ({NUMPY_COMMIT})": old, **encoders}
    from onnxruntime.quantization import QuantType, quantize_dynamic
    with tempfile.TemporaryDirectory() as tmp:
        for name, options in {
            "int8 weights, per channel": dict(weight_type=QuantType.QInt8, per_channel=True),
            "uint8 weights, per channel": dict(weight_type=QuantType.QUInt8, per_channel=True),
            "int8 weights, reduced range": dict(weight_type=QuantType.QInt8, per_channel=True, reduce_range=True),
        }.items():
            path = Path(tmp) / f"{len(encoders)}.onnx"
            quantize_dynamic(str(graph), str(path), op_types_to_quantize=["MatMul"],
                             extra_options={"MatMulConstBOnly": True}, **options)
            encoders[name] = OnnxEncoder(path)
        rows = []
        for name, encoder in encoders.items():
            embedder._model = (tokenizer, encoder)
            embedder.embed(texts[:2])  # warm-up
            started = time.perf_counter()
            vectors = embedder.embed(texts)
            rows.append((name, time.perf_counter() - started, vectors, embedder.embed(questions)))
    _, first, _, _ = rows[0]
    ref = next(r for r in rows if r[0] == "float ONNX (today)")
    print(f"{len(texts)} MIT chunks, {len(questions)} eval questions")
    for name, seconds, vectors, asked in rows:
        shift = np.abs(asked @ vectors.T - ref[3] @ ref[2].T).max()
        print(f"{name:28} {len(texts) / seconds:6.1f} chunks/s  {first / seconds:4.2f}x  "
              f"lowest chunk cosine to today {(vectors * ref[2]).sum(1).min():.4f}  "
              f"largest question-chunk cosine change {shift:.4f}")


if __name__ == "__main__":
    main()
