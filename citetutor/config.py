"""Settings: one pydantic-settings class, env prefix CITETUTOR_, nested with '__'."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

NOT_ENOUGH_EVIDENCE = "Not enough evidence in this document"


class ModelRoles(BaseModel):
    """Which model plays each role; a different family verifies than drafts."""

    model_config = ConfigDict(extra="forbid")
    drafter: str = Field("gemma3:4b", description="Drafts explanations and quiz candidates.")
    verifier: str = Field("qwen2.5:3b", description="Blind solve and support checks.")
    embedder: str = Field("nomic-embed-text", description="Chunk and question vectors.")
    ocr: str = Field("glm-ocr:q8_0", description="Scan transcription drafts.")


class Limits(BaseModel):
    """Sizes and bounds of the pipeline."""

    model_config = ConfigDict(extra="forbid")
    chunk_chars: int = Field(1600, description="Maximum characters per chunk.")
    chunk_overlap: int = Field(200, description="Characters shared by neighbouring chunks.")
    top_k: int = Field(6, description="Chunks retrieved per question; their sentences closest to "
                       "the question become the evidence (evidence_sentences), so more chunks "
                       "widen the choice without lengthening the prompt.")
    max_attempts: int = Field(3, description="Drafts tried before the tutor refuses.")
    rrf_k: int = Field(60, description="Reciprocal Rank Fusion constant.")
    min_relevance: float = Field(
        0.15, description="Pre-gate, first half: cosine floor of the best chunk (cheap, at any scale).")
    min_sentence_relevance: float = Field(
        0.35, description="Pre-gate, second half: cosine floor of the best evidence sentence "
        "(all-MiniLM-L6-v2). Asked in students' own words, every answerable question of the "
        "eight tuning sets has a sentence at 0.35 or above, and no unrelated one does; the "
        "near-misses it lets through are the checks' to refuse "
        "(`python -m citetutor relevance evals/*.json`).")
    min_quote_relevance: float = Field(
        0.5, description="The notes' own sentences are shown as a quote only when this close to "
        "the question (cosine): a quote has no model wording for the checks to hold against it.")
    evidence_sentences: int = Field(
        12, description="Most numbered evidence sentences a model reads per question."
    )
    min_claim_overlap: float = Field(
        0.6, description="Share of a quiz answer's content words that its cited sentences must contain."
    )
    min_paraphrase_overlap: float = Field(
        0.4, description="A tutor claim sharing less than this share of its content words with its "
        "cited sentences is refused outright; from here up to all of them, the meaning judge "
        "decides whether the sentences state it (students' words are rarely the notes')."
    )
    min_topic_relevance: float = Field(
        0.45, description="A draft's cited sentences are about the question when one of them is "
        "this close to it in meaning (cosine), whatever words they share. At the sentence floor "
        "(0.35), near-misses passed: 'DNA is copied before a cell divides by replication', 'Sleep "
        "helps lock memories in overnight by improving memory retention over shorter delays'."
    )
    max_upload_mb: int = Field(200, description="Largest PDF accepted, in megabytes.")
    max_pages: int = Field(2000, description="Largest page count accepted.")
    ocr_dpi: int = Field(150, description="Resolution of kept page images.")
    quiz_candidates: int = Field(5, description="Quiz questions asked for by default.")
    quiz_budget_s: float = Field(
        300.0, description="Seconds a quiz keeps trying candidates before it shows what it has.")


class SentrySettings(BaseModel):
    """Optional metadata-only export; blank DSN means off."""

    model_config = ConfigDict(extra="forbid")
    dsn: str = Field("", description="Sentry DSN; blank disables export.")
    environment: str = Field("local", description="Sentry environment tag.")
    traces_sample_rate: float = Field(1.0, description="Share of requests exported.")


class Settings(BaseSettings):
    """All of CiteTutor's configuration."""

    model_config = SettingsConfigDict(
        env_prefix="CITETUTOR_", env_nested_delimiter="__", extra="forbid"
    )
    data_dir: Path = Field(Path.home() / ".citetutor", description="Where all state lives.")
    runtime: Literal["auto", "ollama", "embedded", "openai"] = Field(
        "auto", description="auto (Ollama when it answers and has the models, else embedded), "
        "ollama (a server), embedded (offline models in-process) or openai (an "
        "OpenAI-compatible server such as vLLM or llama.cpp's, e.g. one a class shares)."
    )
    openai_base_url: str = Field("http://127.0.0.1:8000/v1",
                                 description="Base URL of the OpenAI-compatible server (…/v1).")
    openai_api_key: str = Field("", description="Its API key, if it needs one.")
    ollama_host: str = Field("http://127.0.0.1:11434", description="Ollama server URL.")
    request_timeout_s: float = Field(120.0, description="Longest one model call may take, in all.")
    question_deadline_s: float = Field(
        600.0, description="Longest one question may take across all its drafts and checks; "
        "past it the tutor refuses instead of trying again.")
    parallel_blind_solve: bool = Field(
        True, description="Run the blind solve while the draft is being written."
    )
    models: ModelRoles = Field(default_factory=ModelRoles)
    limits: Limits = Field(default_factory=Limits)
    sentry: SentrySettings = Field(default_factory=SentrySettings)

    @field_validator("data_dir")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        """`~/notes` means the home folder, as in a shell, not a folder named '~'."""
        return Path(value).expanduser()

    @property
    def db_path(self) -> Path:
        """The DuckDB file."""
        return self.data_dir / "citetutor.duckdb"

    @property
    def files_dir(self) -> Path:
        """Original PDFs and page images, by content hash."""
        return self.data_dir / "files"
