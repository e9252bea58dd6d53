"""``triage kb new``: write a filled-in template for a new cause, remedy or myth.

The template shows every section a reviewer expects, with ``TODO`` blanks and
a comment on each saying what goes there. While a blank remains, lint reports
it (KB020) and nothing else in that file; once every blank is filled the files
validate against the schema (the template is already schema-valid, so editors
with the yaml-language-server comment only flag what is really wrong).
A cause also gets its ``<id>.cases.yaml`` with two cases that must fire (one in
English, one in Chinese) and one that must stay silent.
"""

from __future__ import annotations

import re
from pathlib import Path

from triage.authoring.headers import expected_header
from triage.kb.loader import CASES_SUFFIX, FOLDERS, load_knowledge
from triage.kb.models import Category

KINDS = ("cause", "remedy", "myth")
ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class ScaffoldError(ValueError):
    """The entity cannot be created (bad id, it exists already, wrong options)."""


_CAUSE = """\
kind: cause
id: {id}
category: {category}
# New entities start experimental; `stable` needs >= 2 cases that must fire and solid references (KB017).
status: experimental
title:
  # The condition, not the fix: sentence case, at most 60 characters, no trailing period (KB013).
  en: "TODO: name the condition, e.g. Gradient checkpointing is off"
  zh: "TODO: 中文标题，例如 未开启梯度检查点"
summary:
  en: "TODO: one or two sentences: what happens and why it costs memory"
  zh: "TODO: 一两句话：发生了什么，为什么会占显存"
explanation:
  what:
    en: "TODO: what it is"
    zh: "TODO: 这是什么"
  why:
    en: "TODO: why it happens and why it costs memory"
    zh: "TODO: 为什么会发生，为什么占显存"
  confirm:
    en: "TODO: how the user confirms it on their run (a flag to check, a log line, a command)"
    zh: "TODO: 用户如何在自己的训练上确认"
  known_problems:
    en: "TODO: when it looks like this cause but is not"
    zh: "TODO: 看起来像、其实不是的情况"
# Base rate among fine-tuning OOM reports: common causes 0.08-0.15, rare ones 0.01-0.04.
prior: 0.05
# Conditions over facts (`triage explain --facts` lists them) and the log-odds each adds:
# decisive 2.5-3.5, strong 1.5-2.5, moderate 0.7-1.5, weak 0.2-0.6; negative for evidence against.
# `veto: true` rules the cause out when the condition is false: necessary conditions only.
when:
  - test: {{fact: TODO_fact_name, op: eq, value: "TODO: value"}}
    if_true: 1.5
    if_false: -1.0
    # what the explanation shows beside the weight, in both languages ("gradient checkpointing is off")
    label: {{en: "TODO: what the condition says about the run", zh: "TODO: 条件对这次训练说明了什么"}}
# Version bugs add: affects: [{{package: transformers, specifier: ">=4.38.0,<4.39.0", fixed_in: 4.39.0}}]
# Text matchers over what users write or paste, in English AND Chinese (regexes are case-insensitive).
# Generic text such as "CUDA out of memory" alone must not push a cause (weight <= 0.3 if at all).
signals:
  - type: regex
    lang: en
    patterns: ['TODO: a regex for how users say it in English']
    weight: 1.5
    label: "TODO: what a match means"
  - type: keyword
    lang: zh
    patterns: ["TODO: 中文用户的说法"]
    weight: 1.5
    label: "TODO: 匹配说明"
# Remedy ids, best first (`triage kb new remedy ID` writes one).
remedies:
  - TODO-remedy-id
# At least one real source: official docs, release notes, a PR or an issue (KB008).
references:
  - url: https://TODO.invalid/docs-release-notes-pr-or-issue
    title: "TODO: what the source is, in a few words"
# Typed links to other entities, e.g. [{{id: use-cache-false-saves-memory, type: see-also}}]
related: []
"""

_CASES = """\
cause: {id}
cases:
  # Write cases the way real users write: error text, log lines, config snippets, forum phrasing.
  # fire: the cause must score >= 0; top_k: 3 also requires a top-3 rank across the whole knowledge base.
  - name: fires-en
    expect: fire
    top_k: 3
    symptom: |
      TODO: paste an English report of this cause (error message, log excerpt, config)
    # Facts as --fact would give them, e.g. {{gradient_checkpointing: false}}
    facts: {{}}
  - name: fires-zh
    expect: fire
    symptom: |
      TODO: 一段中文用户的描述（报错、日志、配置）
  # A look-alike that is NOT this cause: it must stay silent.
  - name: look-alike-stays-silent
    expect: silent
    symptom: |
      TODO: a report that looks similar but has another cause
"""

_REMEDY = """\
kind: remedy
id: {id}
status: experimental
title:
  # What to do: sentence case, at most 60 characters, no trailing period (KB013).
  en: "TODO: the change, e.g. Enable gradient checkpointing"
  zh: "TODO: 中文标题，例如 开启梯度检查点"
summary:
  en: "TODO: what the change does and roughly how much it saves"
  zh: "TODO: 这个修改做了什么，大约省多少"
# How to apply it, per framework: keep the ones that apply and delete the others.
steps:
  hf_trainer: "TODO: TrainingArguments / TRL arguments"
  pytorch: "TODO: plain PyTorch code"
  axolotl: "TODO: axolotl YAML keys"
  llama_factory: "TODO: LLaMA-Factory YAML keys"
# The remedy as a change to the run (fact -> new value); the estimator computes the saving from it.
# e.g. {{gradient_checkpointing: true}}, {{batch_size: 1}}, {{quantization: 4bit}}
changes: {{}}
cost:
  speed: none    # none | low | medium | high
  quality: none  # none | low | medium | high
  note:
    en: "TODO: the cost in words"
    zh: "TODO: 代价说明"
# Versions it needs; each must be backed by a reference that names the package (KB015), e.g.
# requires: [{{package: transformers, specifier: ">=4.36.0", reason: attn_implementation arrived in 4.36}}]
requires: []
# Conditions that must hold, e.g. an Ampere GPU for FlashAttention-2 (label them).
prerequisites: []
conflicts: []
references:
  - url: https://TODO.invalid/docs-release-notes-pr-or-issue
    title: "TODO: what the source is, in a few words"
related: []
"""

_MYTH = """\
kind: myth
id: {id}
status: experimental
claim:
  en: "TODO: the claim, as the community says it"
  zh: "TODO: 社区里的原话"
verdict: partly  # false | partly | unverifiable
correction:
  en: "TODO: what is true instead, with versions and numbers"
  zh: "TODO: 实际情况，附版本和数字"
# How to recognise the claim in a user's text, in English AND Chinese.
signals:
  - type: regex
    lang: en
    patterns: ['TODO: a regex for the claim in English']
    weight: 1.0
  - type: keyword
    lang: zh
    patterns: ["TODO: 中文说法"]
    weight: 1.0
# Claim ids in shared/reference/seed-claims.md, if any (e.g. [G3, L7]).
seed_claims: []
references:
  - url: https://TODO.invalid/docs-release-notes-pr-or-issue
    title: "TODO: what the source is, in a few words"
# e.g. [{{id: gradient-checkpointing-off, type: corrects}}]
related: []
"""

_TEMPLATES = {"cause": _CAUSE, "remedy": _REMEDY, "myth": _MYTH}


def target_paths(root: Path, kind: str, entity_id: str, category: str | None = None) -> list[Path]:
    """Where ``triage kb new`` writes: the entity file (and, for a cause, its cases file)."""
    if kind == "cause":
        folder = root / FOLDERS["cause"] / str(category)
        return [folder / f"{entity_id}.yaml", folder / f"{entity_id}{CASES_SUFFIX}"]
    return [root / FOLDERS[kind] / f"{entity_id}.yaml"]


def render_templates(root: Path, kind: str, entity_id: str, category: str | None = None) -> dict[Path, str]:
    """Path -> text of every file the scaffold writes, each starting with its $schema comment."""
    paths = target_paths(root, kind, entity_id, category)
    bodies = [_TEMPLATES[kind].format(id=entity_id, category=category)]
    if kind == "cause":
        bodies.append(_CASES.format(id=entity_id))
    out = {}
    for path, body in zip(paths, bodies, strict=True):
        header = expected_header(root, path, "cases" if path.name.endswith(CASES_SUFFIX) else kind)
        out[path] = f"{header}\n{body}"
    return out


def check_request(kind: str, entity_id: str, category: str | None) -> None:
    """Raise :class:`ScaffoldError` when the kind, id or category is not acceptable."""
    if kind not in KINDS:
        raise ScaffoldError(f"cannot scaffold a {kind!r}; choose one of {', '.join(KINDS)}")
    if not ID_RE.match(entity_id):
        raise ScaffoldError(
            f"id {entity_id!r} is not kebab-case (lower-case words joined by '-', e.g. zero-stage-too-low)"
        )
    if kind == "cause":
        labels = [c.value for c in Category]
        if category is None:
            raise ScaffoldError(f"a cause needs --category, one of: {', '.join(labels)}")
        if category not in labels:
            raise ScaffoldError(f"unknown category {category!r}; choose one of: {', '.join(labels)}")
    elif category is not None:
        raise ScaffoldError(f"only causes have a category; drop --category for a {kind}")


def scaffold(root: Path, kind: str, entity_id: str, category: str | None = None) -> list[Path]:
    """Write the template files for a new entity under ``root``; return the paths written.

    Never overwrites: an id already used by any entity (ids are unique across
    kinds) or an existing target file is an error.
    """
    check_request(kind, entity_id, category)
    kb, _ = load_knowledge(root)
    existing = kb.entity(entity_id)
    if existing is not None:
        keys = [f"{kind}:{entity_id}" for kind in ("cause", "remedy", "myth", "fact")]
        where = next((kb.rel(kb.paths[k]) for k in keys if k in kb.paths), "?")
        raise ScaffoldError(f"id {entity_id!r} is already used by {where}; ids are never reused")
    files = render_templates(kb.root, kind, entity_id, category)
    for path in files:
        if path.exists():
            raise ScaffoldError(f"{path} exists already; not overwriting it")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as fh:
            fh.write(text)
    return list(files)
