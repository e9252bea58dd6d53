"""The interview: one question at a time, answers by key or in the user's own words.

A pure-Python state machine shared by the TUI and ``triage ask``. It never
chooses a question itself: after every turn it re-diagnoses the session and
takes the engine's best question (highest expected information gain, ties to
the easier one, :mod:`triage.engine.questions`), skipping facts the user said
they don't know. It stops when the engine says nothing is worth asking.

The diagnosis is the CLI's: the estimator's derived facts join the session
before causes are scored and remedies are ranked by the memory they save on
this run (:mod:`triage.quantify`, the same stage :func:`triage.api.analyse`
runs), so ``triage diagnose`` with the same facts and text gives the same
ranking, remedies and savings. :attr:`Interview.memory` is that run's
estimate and plan.

The state is the list of :class:`Turn` objects; facts and text are replayed
from it, so going back or changing an earlier answer is just editing that
list. Free text goes through :func:`read_text`, the one adapter to the
readers in :mod:`triage.ingest`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from triage.engine.diagnose import Diagnosis, Session
from triage.engine.questions import NUMBERS as NUMBERS  # re-exported for the faces, which do not import the engine
from triage.engine.questions import Question, QuestionPlanner, candidate_values, pending_veto, should_stop
from triage.engine.scoring import Scorer, probabilities
from triage.facts import FALSE_WORDS, TRUE_WORDS, Fact, FactError, FactSet, Source, Value, coerce
from triage.ingest.errors import IngestError
from triage.kb.loader import KnowledgeBase
from triage.kb.models import FactSpec, FactType
from triage.pipeline import Inputs, analyse, merge_questions, read, scorer_for
from triage.quantify import Memory, derive, memory_questions
from triage.render.labels import answer_label as reply_label
from triage.render.labels import fact_value as format_value
from triage.render.strings import t
from triage.similar import Index, Neighbour

LANGS = ("en", "zh")
#: Facts named in the one-line summary of what the readers took (the rest are counted).
SUMMARY_FACTS = 5
#: The key that answers "don't know".
DONT_KNOW_KEY = "0"

_DONT_KNOW = {
    "?",
    "idk",
    "dunno",
    "don't know",
    "dont know",
    "do not know",
    "not sure",
    "unsure",
    "不知道",
    "不清楚",
    "不确定",
}
#: Chinese answers have no spaces: these openings say yes or no ("没开", "开了").
_NO_PREFIXES = ("没", "不", "未", "否", "关", "无")
_YES_PREFIXES = ("是", "对", "开了", "开启了", "开着", "有", "已开")


def number_key(value: Value, position: int) -> str:
    """The key of a number question's quick reply: the digit itself for 1-9, so that pressing "3" answers 3, as
    typing it does; any other value ("0", 12, 2048) a key no number key presses (``#2``), chosen from the list."""
    if (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and float(value).is_integer()
        and 1 <= value <= 9
    ):
        return str(int(value))
    return f"#{position}"


class InterviewError(ValueError):
    """An answer that cannot be used: a bad value, an unknown key, or nothing to answer."""


@dataclass(frozen=True)
class Reply:
    """A quick reply to a question: the key to press, the value it answers, and its label."""

    key: str
    value: Value | None
    """None means "don't know"."""
    label: str


@dataclass(frozen=True)
class Turn:
    """One step of the conversation."""

    kind: Literal["answer", "unknown", "text"]
    fact: str | None = None
    """The fact asked about (answer, unknown; a text turn that replied to a question without answering it)."""
    value: Value | None = None
    """The typed answer (answer)."""
    said: str = ""
    """What the user pressed or typed, as they wrote it."""
    taken: Inputs = field(default_factory=Inputs)
    """What the readers took from it: for text turns, all of it; for an answer typed in words, the facts it gave
    besides the answer ("3090 上 LoRA 微调 LLaMA-7B，第一步就 OOM" answers the phase and names the model)."""

    @property
    def also_taken(self) -> Inputs:
        """The facts taken besides the answer itself (empty for a text turn, whose ``taken`` is all it gave)."""
        if self.kind != "answer":
            return Inputs()
        return replace(self.taken, facts=tuple(f for f in self.taken.facts if f.name != self.fact))


# --------------------------------------------------------------------------- the ingest adapter


def read_text(kb: KnowledgeBase, text: str) -> Inputs:
    """Read what the user typed or pasted into facts and text, as ``triage diagnose`` reads a symptom."""
    try:
        return read(kb, symptoms=[text])
    except IngestError as exc:
        raise InterviewError(str(exc)) from None


# --------------------------------------------------------------------------- answers


def interpret(spec: FactSpec, text: str) -> Value | None:
    """``text`` read as an answer to the question about ``spec``, or None when it is not one."""
    said = text.strip()
    if not said or "\n" in said:
        return None
    if spec.type is FactType.text:
        return said if len(said) <= 200 else None
    try:
        return coerce(spec, said)
    except FactError:
        pass
    low = said.lower().rstrip(".!。！")
    if spec.type is FactType.bool:
        head = low.replace(",", " ").replace("，", " ").split()
        first = head[0] if head else ""
        if first in FALSE_WORDS or low.startswith(_NO_PREFIXES):
            return False
        if first in TRUE_WORDS or low.startswith(_YES_PREFIXES):
            return True
        word = answer_word(spec, low)
        return None if word is None else word == "true"
    if spec.type is FactType.enum:
        word = answer_word(spec, low, whole=True)
        if word is not None:
            return word
        hits = [v for v in spec.values or [] if v.lower().startswith(low) or low.startswith(v.lower())]
        return hits[0] if len(hits) == 1 else answer_word(spec, low)
    return None


_QUOTES = str.maketrans({q: " " for q in "\"'`“”‘’"})
#: A negation left in a reply once the fact's own words are taken out: "no device_map", "没有用 deepspeed".
_NEGATED = re.compile(r"(?<![a-z])(?:no|not|never|without|none)(?![a-z])|n't|没|不|未|无|非")


def _plain(text: str) -> str:
    return " ".join(text.lower().translate(_QUOTES).split())


def _word_at(word: str) -> re.Pattern[str]:
    """``word`` as a whole word where it starts or ends with a letter or digit (CJK has no word boundaries)."""
    head = r"(?<![a-z0-9_])" if word[:1].isascii() and word[:1].isalnum() else ""
    tail = r"(?![a-z0-9_])" if word[-1:].isascii() and word[-1:].isalnum() else ""
    return re.compile(head + re.escape(word) + tail)


def answer_word(spec: FactSpec, text: str, whole: bool = False) -> str | None:
    """The value whose other words (the fact's ``answers``) the reply is, or contains.

    ``whole``: only a reply that is one of the words. Otherwise a reply that contains the words of exactly
    one value, with no negation left once they are taken out ("device_map='auto' over 2 cards" is
    ``model_parallel``; "no device_map" is nothing).
    """
    if not spec.answers:
        return None
    said = _plain(text)
    for value, words in spec.answers.items():
        if said in {_plain(w) for w in words}:
            return value
    if whole:
        return None
    hits: set[str] = set()
    rest = said
    for value, words in spec.answers.items():
        for word in words:
            pattern = _word_at(_plain(word))
            if pattern.search(said):
                hits.add(value)
                rest = pattern.sub(" ", rest)
    if len(hits) != 1 or _NEGATED.search(rest):
        return None
    return hits.pop()


def read_answer(kb: KnowledgeBase, spec: FactSpec, text: str) -> tuple[Value | None, Inputs]:
    """An answer typed in the user's words, read by the same readers as a report.

    Returns the value for the question about ``spec`` (None when the words do not answer it) and
    what the readers took from the words, so "2x3090" to "Which GPU?" answers RTX 3090 and also
    tells two cards, "llama2 13b" tells 13 B parameters and "zero3" to "Distributed how?" answers
    deepspeed with ZeRO stage 3. A plain value of the fact's type ("4", "yes", "fp16") is read as
    that value first; a text fact the readers do not recognise keeps the user's words.
    """
    said = text.strip()
    if not said or "\n" in said:
        return None, Inputs()
    try:
        taken = read(kb, symptoms=[said])
    except IngestError:
        taken = Inputs()
    found = next((f.value for f in taken.facts if f.name == spec.id), None)
    if spec.type is FactType.text:
        return (found if found is not None else interpret(spec, said)), taken
    value = interpret(spec, said)
    return (value if value is not None else found), taken


def describe_taken(kb: KnowledgeBase, taken: Inputs, lang: str = "en") -> list[str]:
    """What the readers took from a text, one line per fact with its source, then their notes."""
    if not taken.facts:
        return [t("ask_kept", lang), *taken.all_notes()]
    lines = [t("ask_took", lang) + ":"]
    for fact in taken.facts:
        value = format_value(kb.facts.get(fact.name), fact.value, lang)
        lines.append(f"  {fact.name} = {value} ({fact.source.describe()})")
    return [*lines, *taken.all_notes()]


def summarize_taken(kb: KnowledgeBase, taken: Inputs, lang: str = "en") -> str:
    """One line for the conversation: "took 3 facts from your text: a=1, b=yes, c=24 GiB"."""
    if not taken.facts:
        return t("ask_kept", lang)
    wheres: list[str] = []
    for fact in taken.facts:
        where = fact.source.path or (t("ask_your_text", lang) if fact.source.kind == "symptom" else fact.source.kind)
        if where not in wheres:
            wheres.append(where)
    n = len(taken.facts)
    head = t("ask_took_1" if n == 1 else "ask_took_n", lang).format(n=n, where=", ".join(wheres))
    shown = [f"{f.name}={format_value(kb.facts.get(f.name), f.value, lang)}" for f in taken.facts[:SUMMARY_FACTS]]
    if n > SUMMARY_FACTS:
        shown.append(t("ask_more_n", lang).format(n=n - SUMMARY_FACTS))
    line = f"{head}: {', '.join(shown)}"
    if taken.all_notes():
        line += f" ({t('ask_notes_n', lang).format(n=len(taken.all_notes()))})"
    return line


# --------------------------------------------------------------------------- the interview


class Interview:
    """The state of one interview: inputs given at the start plus the turns since."""

    def __init__(
        self,
        kb: KnowledgeBase,
        *,
        start: Inputs | None = None,
        facts: Iterable[Fact] = (),
        lang: str = "en",
        similar: Index | None = None,
        exclude: Sequence[str] = (),
    ) -> None:
        self.kb = kb
        self.similar = similar
        """The solved reports that may vote (default: the bundled corpus)."""
        self.exclude = tuple(exclude)
        """Report URLs that never vote (a benchmark's own record)."""
        self.start = start or Inputs()
        self.base_facts = FactSet().with_facts([*self.start.facts, *facts])
        self.lang = lang if lang in LANGS else "en"
        self.turns: list[Turn] = []
        self._reopened: str | None = None
        self._scorer: Scorer | None = None
        self._diagnosis: Diagnosis | None = None
        self._memory: Memory | None = None
        self._questions: list[Question] = []
        self._scorer_text = ""
        self._neighbours: tuple[Neighbour, ...] = ()

    # ---- derived state

    @property
    def text(self) -> str:
        parts = [self.start.text, *(t.taken.text for t in self.turns if t.kind == "text")]
        return "\n".join(p for p in parts if p)

    @property
    def facts(self) -> FactSet:
        facts = self.base_facts
        for turn in self.turns:
            if turn.kind == "text":
                facts = facts.with_facts(turn.taken.facts)
            elif turn.kind == "answer" and turn.fact is not None and turn.value is not None:
                source = Source("answer", excerpt=turn.said)
                # what the readers took from the answer's words besides the question's fact ("2x3090": gpu_count)
                also = [replace(f, source=source) for f in turn.taken.facts if f.name != turn.fact]
                facts = facts.with_facts([*also, Fact(turn.fact, turn.value, source)])
        return facts

    @property
    def similar_reports(self) -> tuple[Neighbour, ...]:
        """The solved public reports most like what the user wrote."""
        self._scorer_for(self.text)
        return self._neighbours

    @property
    def skipped(self) -> frozenset[str]:
        """Facts the user said they don't know (and has not learnt since)."""
        known = self.facts
        # a one-line reply that did not answer ("I'm not fine-tuning, only inference") is not asked again either
        return frozenset(t.fact for t in self.answered if t.kind != "answer" and t.fact and t.fact not in known)

    @property
    def session(self) -> Session:
        """What the user has told us (their facts, without the estimator's derived ones)."""
        takens = [self.start, *(t.taken for t in self.turns if t.kind == "text")]
        return Session(
            facts=self.facts,
            text=self.text,
            lang=self.lang,
            conflicts=tuple(c for t in takens for c in t.conflicts),
            unknown_keys=tuple(k for t in takens for k in t.unknown_keys),
            notes=tuple(n for t in takens for n in t.notes),
            read_as=tuple(r for t in takens for r in t.read_as),
        )

    def _analyse(self, session: Session) -> tuple[Diagnosis, Memory]:
        """:func:`triage.api.analyse`, reusing the text matches of the last turn's scorer."""
        scorer = self._scorer_for(session.text)
        analysis = analyse(self.kb, session, scorer, neighbours=self._neighbours)
        return analysis.diagnosis, analysis.memory

    def _scorer_for(self, text: str) -> Scorer:
        """The scorer of ``text``: built once per text, as the text changes only with free-text turns."""
        if self._scorer is None or self._scorer_text != text:
            self._scorer, self._neighbours = scorer_for(self.kb, text, self.similar, self.exclude)
            self._scorer_text = text
        return self._scorer

    def _refresh(self) -> None:
        diagnosis, memory = self._analyse(self.session)
        session = diagnosis.session
        skipped = self.skipped
        questions = [q for q in diagnosis.questions if q.fact not in skipped]
        if len(questions) < len(diagnosis.questions):
            # some of the engine's best were skipped: ask the engine for its full ranking
            scored = [rc.scored for rc in diagnosis.causes]
            planner = QuestionPlanner(self._scorer_for(session.text), self.kb.facts)
            ranked = planner.rank(session.facts, scored, self.distribution(diagnosis), limit=len(self.kb.facts))
            ranked = merge_questions(ranked, memory_questions(memory, self.kb.facts, session.facts))
            questions = [q for q in ranked if q.fact not in skipped]
        self._diagnosis = diagnosis
        self._memory = memory
        self._questions = questions

    @staticmethod
    def distribution(diagnosis: Diagnosis) -> dict[str, float]:
        """The engine's own distribution, which the question planner and the stop rule reason on (the shown
        probabilities are calibrated for the user: :mod:`triage.engine.calibration`)."""
        return probabilities(rc.scored for rc in diagnosis.causes)

    @property
    def diagnosis(self) -> Diagnosis:
        if self._diagnosis is None:
            self._refresh()
        assert self._diagnosis is not None
        return self._diagnosis

    @property
    def memory(self) -> Memory:
        """The estimate of the run as told so far, each remedy's plan, or what the estimator needs."""
        if self._diagnosis is None or self._memory is None:
            self._refresh()
        assert self._memory is not None
        return self._memory

    @property
    def questions(self) -> list[Question]:
        """The engine's questions, best first, without the ones the user could not answer."""
        if self._diagnosis is None:
            self._refresh()
        return list(self._questions)

    def _veto_question(self) -> Question | None:
        """The engine's question about a fact that could still rule the top cause out, if any."""
        live = [rc for rc in self.diagnosis.causes if not rc.scored.excluded]
        return pending_veto(live[0].scored if live else None, self.questions)

    @property
    def done(self) -> bool:
        """True when no question is worth asking (and no earlier answer is being changed).

        The engine's stop rule (:func:`~triage.engine.questions.should_stop`),
        except that a top cause whose necessary condition is still unknown is
        checked first.
        """
        if self._reopened is not None:
            return False
        if not should_stop(self.distribution(self.diagnosis), self.questions):
            return False
        return self._veto_question() is None

    @property
    def question(self) -> Question | None:
        """The question to ask now: an answer being changed, else the engine's best; None when done."""
        if self._reopened is not None:
            return self._reopened_question(self._reopened)
        if not should_stop(self.distribution(self.diagnosis), self.questions):
            return self.questions[0]
        return self._veto_question()

    def _reopened_question(self, name: str) -> Question:
        scorer = self._scorer_for(self.text)
        planner = QuestionPlanner(scorer, self.kb.facts)
        facts = derive(self.facts.without(name))
        scored = scorer.score(facts)
        dist = {s.cause.id: 0.0 for s in scored}
        dist.update(self.distribution(self.diagnosis))
        found = planner.gain(name, facts, {s.cause.id: s for s in scored}, {k: v for k, v in dist.items() if v > 0})
        if found is not None:
            return found
        spec = self.kb.facts[name]
        return Question(name, 0.0, spec.ease, tuple(candidate_values(spec, planner.tests.get(name, []))))

    @property
    def answered(self) -> list[Turn]:
        """The answer and don't-know turns, and the replies that answered in other words, in order."""
        return [t for t in self.turns if t.kind in ("answer", "unknown") or (t.kind == "text" and t.fact)]

    @property
    def questions_asked(self) -> int:
        return len(self.answered)

    # ---- words

    def question_text(self, question: Question) -> str:
        return self.kb.facts[question.fact].question.get(self.lang)

    def help_text(self, question: Question) -> str:
        return self.kb.facts[question.fact].help.get(self.lang)

    def replies(self, question: Question | None = None) -> list[Reply]:
        """The quick replies of ``question`` (default: the current one): keys 1-9, then 0 = don't know."""
        question = question or self.question
        if question is None:
            return []
        spec = self.kb.facts.get(question.fact)
        values = question.values[:9]
        if spec is not None and spec.type in NUMBERS:
            keys = [number_key(value, i) for i, value in enumerate(values, 1)]
        else:
            keys = [str(i) for i in range(1, len(values) + 1)]
        out = [Reply(key, value, reply_label(spec, value, self.lang)) for key, value in zip(keys, values, strict=True)]
        out.append(Reply(DONT_KNOW_KEY, None, t("ask_dont_know", self.lang)))
        return out

    def answer_label(self, turn: Turn) -> str:
        """How an answer turn reads back in the current language."""
        if turn.kind == "unknown":
            return t("ask_dont_know", self.lang)
        if turn.kind == "answer" and turn.value is not None:
            return reply_label(self.kb.facts.get(turn.fact or ""), turn.value, self.lang)
        return turn.said

    # ---- moves

    def _record(self, turn: Turn) -> Turn:
        fact = turn.fact
        if self._reopened is not None and fact == self._reopened:
            # changing an earlier answer: replace it where it was
            for i, old in enumerate(self.turns):
                if old.kind in ("answer", "unknown", "text") and old.fact == fact:
                    self.turns[i] = turn
                    break
            else:
                self.turns.append(turn)
            self._reopened = None
        else:
            self.turns.append(turn)
        self._diagnosis = None
        return turn

    def _current(self) -> Question:
        question = self.question
        if question is None:
            raise InterviewError("there is no question to answer; type what you see or change an earlier answer")
        return question

    def answer(self, raw: object, said: str | None = None) -> Turn:
        """Answer the current question with ``raw`` (typed by its fact's type)."""
        question = self._current()
        spec = self.kb.facts[question.fact]
        # a quick reply typed out in words ("during training, not sure which step") is that reply
        typed = str(raw).strip().lower()
        raw = next((r.value for r in self.replies(question) if r.value is not None and r.label.lower() == typed), raw)
        taken = Inputs()
        try:
            value = coerce(spec, raw)
        except FactError as exc:
            # words a user would type ("2x3090", "llama2 13b", "zero3"): read as a report is read
            words, taken = read_answer(self.kb, spec, raw) if isinstance(raw, str) else (None, Inputs())
            if words is None:
                raise InterviewError(str(exc)) from None
            value = words
        else:
            if isinstance(raw, str) and spec.type is FactType.text:
                words, taken = read_answer(self.kb, spec, raw)
                value = words if words is not None else value
        said = said if said is not None else str(raw)
        return self._record(Turn("answer", question.fact, value, said, taken=Inputs(facts=taken.facts)))

    def dont_know(self) -> Turn:
        """The user cannot answer the current question; the next best one is asked instead."""
        question = self._current()
        return self._record(Turn("unknown", question.fact, None, t("ask_dont_know", self.lang)))

    def press(self, key: str) -> Turn:
        """Answer with a quick-reply key."""
        self._current()
        for reply in self.replies():
            if reply.key == key:
                if reply.value is None:
                    return self.dont_know()
                return self.answer(reply.value, said=reply.label)
        question = self._current()
        spec = self.kb.facts[question.fact]
        if key.isdigit() and spec.type in NUMBERS:
            # a number key is that number, as typed (batch size "3"), when no quick reply has the key and the number
            # lies among the values offered: "5" to a question about max_length is not 5 tokens
            value, _ = read_answer(self.kb, spec, key)
            offered = [float(v) for v in question.values if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if isinstance(value, (int, float)) and offered and min(offered) <= value <= max(offered):
                return self.answer(value, said=key)
        keys = [r.key for r in self.replies() if r.key.isdigit()]
        raise InterviewError(f"no quick reply {key!r}; choose one of " + ", ".join(keys) + " or type the answer")

    def tell(self, text: str) -> Turn:
        """Free text: an answer to the current question when it reads as one, else read for facts."""
        said = text.strip()
        if not said:
            raise InterviewError("nothing was typed")
        question = self.question
        if question is not None and "\n" not in said:
            if said.lower() in _DONT_KNOW:
                return self.dont_know()
            spec = self.kb.facts[question.fact]
            if (
                said.isdigit()
                and len(said) == 1
                and (spec.type in (FactType.bool, FactType.enum) or not question.values)
            ):
                # a quick-reply key; a question answered in words (which model?) has only 0 = don't know
                return self.press(said)
            value, taken = read_answer(self.kb, spec, said)
            if value is not None:
                return self._record(Turn("answer", question.fact, value, said, taken=Inputs(facts=taken.facts)))
            if said.isdigit() and len(said) == 1:
                # a number typed is the number ("2" GPUs), unless no such value can be: then it is the quick reply
                # shown with that key ("0) don't know" when a run cannot have 0 GPUs)
                return self.press(said)
        taken = read_text(self.kb, said)
        if not taken.text and not taken.facts:
            taken = replace(taken, text=said)
        self._reopened = None
        # a one-line reply to the question that names no value of it but says something else is its reply:
        # the facts it gives are kept and the question is not put again ("I'm not fine-tuning, only inference")
        replied = question.fact if question is not None and "\n" not in said and taken.facts else None
        return self._record(Turn("text", replied, said=said, taken=taken))

    def rollback(self, turns: Sequence[Turn]) -> None:
        """Put the turns back as they were before a move (a reply triage failed to take leaves nothing behind)."""
        self.turns[:] = turns
        self._reopened = None
        self._diagnosis = None

    def back(self) -> Turn | None:
        """Take back the last turn; returns it (None when there is nothing to take back)."""
        self._reopened = None
        if not self.turns:
            return None
        turn = self.turns.pop()
        self._diagnosis = None
        return turn

    def reopen(self, fact: str) -> Question:
        """Ask again about an earlier answer; the next answer replaces it in place."""
        if not any(t.fact == fact for t in self.answered):
            raise InterviewError(f"{fact!r} was not asked in this interview")
        self._reopened = fact
        return self.question or self._reopened_question(fact)

    def cancel_reopen(self) -> None:
        self._reopened = None

    @property
    def reopened(self) -> str | None:
        return self._reopened

    def set_lang(self, lang: str) -> None:
        if lang not in LANGS:
            raise InterviewError(f"language must be one of {', '.join(LANGS)}; got {lang!r}")
        self.lang = lang
        self._diagnosis = None

    def toggle_lang(self) -> str:
        self.set_lang("zh" if self.lang == "en" else "en")
        return self.lang

    # ---- for the report

    def transcript(self) -> list[tuple[str, str]]:
        """(question or "you said", answer) pairs in order, in the current language."""
        out: list[tuple[str, str]] = []
        for turn in self.turns:
            if turn.kind == "text":
                out.append(("", turn.said))
            elif turn.fact is not None:
                out.append((self.kb.facts[turn.fact].question.get(self.lang), self.answer_label(turn)))
        return out

    def pasted(self) -> list[str]:
        """Everything the user typed or pasted as free text, starting inputs first."""
        return [t for t in [self.start.text, *(t.said for t in self.turns if t.kind == "text")] if t]
