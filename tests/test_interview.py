"""The interview state machine: the engine's question, answers by key or text, going back, stopping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from builders import cause, spec

from triage.api import analyse, build_session
from triage.api import read as read_inputs
from triage.engine.questions import CONFIDENT
from triage.interview import Interview, InterviewError, interpret
from triage.kb.loader import KnowledgeBase, load_checked
from triage.kb.models import Cause

FIXTURE_KB = Path(__file__).parent / "fixtures" / "tui" / "knowledge"


def eq(fact, value, if_true, if_false=0.0):
    return {"test": {"fact": fact, "op": "eq", "value": value}, "if_true": if_true, "if_false": if_false}


def small_kb() -> KnowledgeBase:
    """gc separates a from b; noise barely matters; slow is as good as gc but harder to answer."""
    facts = {
        "gc": spec("gc", "bool", ease=0.9),
        "slow": spec("slow", "bool", ease=0.3),
        "noise": spec("noise", "bool"),
        "length": spec("length", "int"),
        "derived": spec("derived", "bool", askable=False),
    }
    causes = {
        "a": cause(
            "a",
            [eq("gc", False, 1.5, -1.5), eq("slow", False, 1.5, -1.5), eq("noise", True, 0.05), eq("derived", True, 3)],
            signals=[{"type": "keyword", "patterns": ["no checkpointing"], "weight": 2.0}],
        ),
        "b": cause("b", [eq("gc", True, 1.5, -1.5), eq("slow", True, 1.5, -1.5), eq("noise", True, 0.05)]),
        "c": cause("c", [{"test": {"fact": "length", "op": "ge", "value": 1024}, "if_true": 2, "if_false": -2}]),
    }
    return KnowledgeBase(root=Path("."), facts=facts, causes=causes)


@pytest.fixture(autouse=True)
def no_similar_reports(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests use small knowledge bases of their own: no corpus votes (or shows) in them."""
    monkeypatch.setenv("TRIAGE_CORPUS", str(tmp_path_factory.mktemp("empty-corpus")))


@pytest.fixture(scope="module")
def fkb() -> KnowledgeBase:
    return load_checked(FIXTURE_KB)


def test_asks_the_discriminating_question_first_and_ties_go_to_the_easier_one():
    iv = Interview(small_kb())
    # gc and slow separate a from b equally well; gc is easier to answer, noise tells almost nothing
    assert iv.question is not None
    assert iv.question.fact == "gc"
    facts_asked = [q.fact for q in iv.questions]
    assert facts_asked.index("slow") > facts_asked.index("gc")
    assert "derived" not in facts_asked
    assert facts_asked[-1] == "noise"


def test_the_question_is_the_engines_choice(fkb):
    iv = Interview(fkb, start=read_inputs(fkb, symptoms=["CUDA out of memory at step 0"]))
    start = read_inputs(fkb, symptoms=["CUDA out of memory at step 0"])
    session = build_session(fkb, symptoms=[start.text], facts=start.facts)
    engine = analyse(fkb, session).diagnosis  # what `triage diagnose` computes for the same inputs
    assert iv.question is not None
    assert iv.question.fact == engine.questions[0].fact
    assert iv.question.gain == pytest.approx(engine.questions[0].gain)


def test_stops_when_the_top_cause_is_confident():
    iv = Interview(small_kb())
    iv.answer(False)  # gc off: cause a
    assert not iv.done
    answers = {"slow": False, "length": 512, "noise": False}  # every answer points at a
    for _ in range(3):
        if iv.done:
            break
        assert iv.question is not None
        iv.answer(answers[iv.question.fact])
    top = iv.diagnosis.causes[0]
    assert top.id == "a"
    # the stop rule reads the engine's own distribution (the user is shown it calibrated on real reports)
    assert Interview.distribution(iv.diagnosis)["a"] >= CONFIDENT
    assert top.probability > 0.7
    assert iv.done
    assert iv.question is None
    with pytest.raises(InterviewError, match="no question"):
        iv.press("1")


def test_stops_when_no_question_would_change_the_ranking():
    kb = small_kb()
    iv = Interview(kb)
    for _ in range(10):
        if iv.done:
            break
        iv.dont_know()
    # every informative question was declined: nothing left worth asking
    assert iv.done
    assert iv.questions_asked <= len([f for f in kb.facts.values() if f.askable])
    assert all(t.kind == "unknown" for t in iv.turns)


def test_dont_know_moves_on_to_the_next_best_question():
    iv = Interview(small_kb())
    first, second = iv.questions[0].fact, iv.questions[1].fact
    iv.press("0")
    assert iv.turns[-1].kind == "unknown"
    assert iv.question is not None
    assert iv.question.fact == second != first


def test_quick_replies_by_number_key():
    iv = Interview(small_kb())
    assert [(r.key, r.label) for r in iv.replies()] == [("1", "yes"), ("2", "no"), ("0", "don't know")]
    iv.press("2")
    assert iv.facts.value("gc") is False
    assert iv.facts["gc"].source.kind == "answer"
    with pytest.raises(InterviewError, match="no quick reply"):
        iv.press("7")


def number_kb() -> KnowledgeBase:
    """Number questions whose offered values are 0-3 (stage), 1, 2, 5, 8, 12 (batch) and around 4096 (length)."""
    facts = {"stage": spec("stage", "int"), "batch": spec("batch", "int"), "length": spec("length", "int")}
    between = [{"test": {"fact": "stage", "op": "eq", "value": v}, "if_true": 1.0 + v} for v in (0, 1, 2, 3)]
    causes = {
        "a": cause("a", between),
        "b": cause("b", [{"test": {"fact": "batch", "op": "in", "value": [1, 2, 5, 8, 12]}, "if_true": 2.0}]),
        "c": cause("c", [{"test": {"fact": "length", "op": "ge", "value": 4096}, "if_true": 2.0, "if_false": -2.0}]),
    }
    return KnowledgeBase(root=Path("."), facts=facts, causes=causes)


def _ask_about(iv: Interview, fact: str) -> None:
    while iv.question is not None and iv.question.fact != fact:
        iv.dont_know()
    assert iv.question is not None, f"{fact} was never asked"


def test_a_number_key_answers_its_number_not_the_nth_value():
    """Pressing "3" to "which ZeRO stage?" is stage 3, as typing 3 is: the n-th quick reply was stage 2."""
    iv = Interview(number_kb())
    _ask_about(iv, "stage")
    replies = {r.key: r.value for r in iv.replies()}
    assert replies["1"] == 1 and replies["3"] == 3 and replies["0"] is None
    assert 0 in replies.values() and "0" not in [k for k, v in replies.items() if v == 0]  # 0 keeps "don't know"
    iv.press("3")
    assert iv.facts.value("stage") == 3


def test_a_number_key_between_the_offered_values_is_that_number():
    iv = Interview(number_kb())
    _ask_about(iv, "batch")
    assert {r.key for r in iv.replies()} >= {"1", "2", "5", "8"}
    iv.press("3")  # no reply has key 3: batch size 3, as typed
    assert iv.facts.value("batch") == 3


def test_a_number_key_outside_the_offered_values_is_refused():
    iv = Interview(number_kb())
    _ask_about(iv, "length")
    with pytest.raises(InterviewError, match="type the answer"):
        iv.press("5")  # not 5 tokens
    assert "length" not in iv.facts
    iv.press("0")
    assert iv.turns[-1].kind == "unknown"


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("no", False),
        ("No, it is off", False),
        ("yes", True),
        ("没开", False),
        ("没有开", False),
        ("是的", True),
        ("开了", True),
    ],
)
def test_free_text_answers_a_yes_no_question(said, value):
    iv = Interview(small_kb())
    iv.tell(said)
    assert iv.turns[-1].kind == "answer"
    assert iv.facts.value("gc") is value


def test_free_text_answers_numbers_and_sizes(fkb):
    assert interpret(fkb.facts["max_length"], "2048") == 2048
    assert interpret(fkb.facts["gpu_memory_bytes"], "24GiB") == 24 * 1024**3
    assert interpret(fkb.facts["phase"], "backw") == "backward"
    assert interpret(fkb.facts["phase"], "what a day") is None


def test_free_text_that_is_not_an_answer_joins_the_evidence():
    iv = Interview(small_kb())
    before = next(rc.probability for rc in iv.diagnosis.causes if rc.id == "a")
    iv.tell("I run with no checkpointing, batch 8")
    turn = iv.turns[-1]
    assert turn.kind == "text"
    assert "no checkpointing" in iv.text
    a = next(rc for rc in iv.diagnosis.causes if rc.id == "a")
    assert any(item.kind == "signal" for item in a.scored.items)
    assert a.probability > before


def test_chinese_free_text_is_read():
    kb = small_kb()
    kb.causes["b"] = cause(
        "b",
        kb.causes["b"].model_dump(mode="json", by_alias=True)["when"],
        signals=[{"type": "keyword", "patterns": ["开了梯度检查点还是爆显存"], "weight": 2.0}],
    )
    iv = Interview(kb, lang="zh")
    iv.tell("我已经开了梯度检查点还是爆显存\n第二行")
    assert iv.turns[-1].kind == "text"
    top = iv.diagnosis.causes[0]
    assert top.id == "b"


def test_going_back_takes_the_last_answer_back():
    iv = Interview(small_kb())
    iv.press("2")
    assert iv.facts.value("gc") is False
    undone = iv.back()
    assert undone is not None and undone.fact == "gc"
    assert iv.facts.value("gc") is None
    assert iv.question is not None and iv.question.fact == "gc"
    assert iv.back() is None


def test_changing_an_earlier_answer_replaces_it_in_place():
    iv = Interview(small_kb())
    iv.press("2")  # gc: no -> cause a
    answers = {"slow": False, "length": 512, "noise": False}  # each points at a, until a is confident
    while not iv.done:
        assert iv.question is not None
        iv.answer(answers[iv.question.fact])
    assert iv.diagnosis.causes[0].id == "a"
    asked = [t.fact for t in iv.answered]
    before = iv.diagnosis.causes[0].probability
    question = iv.reopen("gc")
    assert question.fact == "gc"
    assert not iv.done
    assert iv.question is not None and iv.question.fact == "gc"
    iv.press("1")  # gc: yes after all
    assert [t.fact for t in iv.answered] == asked  # replaced in place, not appended
    assert iv.facts.value("gc") is True
    a = next(rc for rc in iv.diagnosis.causes if rc.id == "a")
    assert a.probability < before - 0.3
    with pytest.raises(InterviewError, match="was not asked"):
        iv.reopen("noise")


def test_language_switch_changes_questions_and_replies():
    iv = Interview(small_kb())
    iv.press("2")
    iv.set_lang("zh")
    assert iv.question is not None
    assert iv.question_text(iv.question).endswith("？")
    assert [r.label for r in iv.replies()][-1] == "不知道"
    assert iv.answer_label(iv.turns[0]) == "否"
    assert iv.session.lang == "zh"
    assert iv.toggle_lang() == "en"
    with pytest.raises(InterviewError):
        iv.set_lang("fr")


def test_bad_answer_is_a_clear_error():
    iv = Interview(small_kb())
    iv.answer(True)
    assert iv.question is not None
    # the next question is numeric (length) or yes/no; a word that is neither is rejected by answer()
    with pytest.raises(InterviewError):
        iv.answer("lots and lots")


def test_unreadable_log_is_a_clear_error(fkb, tmp_path):
    from triage.ingest.errors import IngestError

    with pytest.raises(IngestError, match=r"train\.log"):
        read_inputs(fkb, logs=[str(tmp_path / "train.log")])


def test_a_confident_cause_whose_necessary_condition_is_unknown_is_checked_first():
    kb = small_kb()
    data = kb.causes["a"].model_dump(mode="json", by_alias=True)
    data["when"] = [{**eq("gc", False, 0.5), "veto": True}]
    data["prior"] = 0.3
    data["signals"] = [{"type": "keyword", "patterns": ["no checkpointing"], "weight": 4.0}]
    kb.causes["a"] = Cause.model_validate(data)
    iv = Interview(kb)
    iv.tell("I think there is no checkpointing")
    top = iv.diagnosis.causes[0]
    assert top.id == "a" and top.probability >= 0.8  # confident, yet a necessary condition is unknown
    assert not iv.done
    assert iv.question is not None and iv.question.fact == "gc"
    iv.press("1")  # gc is on: a is ruled out
    assert next(rc for rc in iv.diagnosis.causes if rc.id == "a").scored.excluded


# --------------------------------------------------------------------------- replayed interviews
# A new user reaches the right cause in at most 6 questions, against the shipped knowledge base.
# Each scenario is a user who knows some facts of their run (``truth``) and starts with what they
# would paste; the simulated user answers what they know and says "don't know" to the rest.

MAX_QUESTIONS = 6

SCENARIOS: list[tuple[str, str, str, dict[str, Any]]] = [
    (
        "gradient-checkpointing-off",
        "no_grad_ckpt",
        "LoRA fine-tuning Llama-2-7b on a 4090, max_length 2048.\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB\n  0%|  | 0/1000 [00:04<?, ?it/s]",
        {
            "gradient_checkpointing": False,
            "phase": "backward",
            "oom_step": 0,
            "max_length": 2048,
            "quantization": "none",
            "finetune_method": "lora",
            "batch_size": 4,
            "do_eval": False,
        },
    ),
    (
        "evaluation-logits",
        "eval_on_gpu",
        "Training runs fine for 500 steps, then CUDA out of memory as soon as evaluation starts "
        "(trainer.evaluate -> prediction_step).",
        {
            "phase": "evaluation",
            "oom_step": 500,
            "do_eval": True,
            "compute_metrics": True,
            "preprocess_logits": False,
            "gradient_checkpointing": True,
            "memory_growth": "spike",
        },
    ),
    (
        "fragmentation",
        "fragmentation",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of "
        "23.65 GiB of which 301.06 MiB is free. Including non-PyTorch memory, this process has 23.34 GiB memory in "
        "use. Of the allocated memory 16.20 GiB is allocated by PyTorch, and 6.70 GiB is reserved by PyTorch but "
        "unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
        {
            "expandable_segments": False,
            "oom_step": 250,
            "memory_growth": "steady",
            "gradient_checkpointing": True,
            "phase": "forward",
            "group_by_length": False,
        },
    ),
    (
        "weights-too-big",
        "model_too_big",
        "Trying to LoRA fine-tune Llama-2-13b on my 3090, it runs out of memory while loading checkpoint shards.",
        {
            "phase": "loading",
            "model_params_b": 13,
            "quantization": "none",
            "torch_dtype": "bf16",
            "finetune_method": "lora",
            "gpu_count": 1,
        },
    ),
    (
        "another-process",
        "other_process",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "23.65 GiB of which 20.00 MiB is free. Process 41822 has 14.20 GiB memory in use. Process 41907 has "
        "9.40 GiB memory in use. Of the allocated memory 8.90 GiB is allocated by PyTorch, and 120.00 MiB is "
        "reserved by PyTorch but unallocated.",
        {
            "gradient_checkpointing": True,
            "phase": "forward",
            "oom_step": 0,
            "model_params_b": 1,
            "quantization": "none",
            "gpu_count": 1,
        },
    ),
]


def replay(kb: KnowledgeBase, symptom: str, truth: dict[str, Any]) -> Interview:
    iv = Interview(kb, start=read_inputs(kb, symptoms=[symptom]))
    while iv.question is not None and iv.questions_asked < MAX_QUESTIONS:
        fact = iv.question.fact
        if fact in truth:
            iv.answer(truth[fact])
        else:
            iv.dont_know()
    return iv


@pytest.mark.parametrize(("name", "category", "symptom", "truth"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_new_user_reaches_the_right_cause(kb, name, category, symptom, truth):
    if not any(c.category.value == category for c in kb.causes.values()):
        pytest.skip(f"the knowledge base has no {category} cause yet")
    iv = replay(kb, symptom, truth)
    top = iv.diagnosis.causes[0]
    asked = [(t.fact, iv.answer_label(t)) for t in iv.answered]
    ranking = [(rc.id, round(rc.probability, 2)) for rc in iv.diagnosis.causes[:4]]
    assert top.scored.cause.category.value == category, f"asked {asked}; ranking {ranking}"
    assert iv.questions_asked <= MAX_QUESTIONS


# --------------------------------------------------------------------------- the same pipeline as the CLI


def cli_json(*args: str) -> dict[str, Any]:
    """``triage diagnose ... --format json`` against the fixture knowledge base."""
    import contextlib
    import io
    import json

    from triage.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["diagnose", *args, "--format", "json", "--knowledge", str(FIXTURE_KB), "--top", "10"])
    assert rc == 0
    return json.loads(out.getvalue())


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    """What must agree: the ranking, the remedies with their savings, the estimate and plan, the facts' values."""
    mem = data["memory"]
    return {
        "causes": [(c["id"], c["probability"]) for c in data["causes"]],
        "remedies": [(r["id"], r["saving_gib"], r["applicable"]) for r in data["remedies"]],
        "memory": {k: mem.get(k) for k in ("estimated", "device_total_gib", "components", "fits", "plan", "missing")},
        "facts": {name: f["value"] for name, f in data["facts"].items()},
    }


PARITY_SYMPTOM = "LLaMA-7B LoRA on a 3090, CUDA out of memory at step 0"


def test_interview_ranks_and_saves_exactly_as_the_cli(fkb):
    from triage.facts import Source, parse_assignment
    from triage.render.contract import to_dict

    cli = cli_json("--symptom", PARITY_SYMPTOM, "--fact", "max_length=2048")
    facts = [parse_assignment(fkb.facts, "max_length=2048", Source("cli", excerpt="max_length=2048"))]
    iv = Interview(fkb, start=read_inputs(fkb, symptoms=[PARITY_SYMPTOM], facts=facts))
    mine = to_dict(fkb, iv.diagnosis, top=10, memory=iv.memory)
    assert comparable(mine) == comparable(cli)
    # the estimator is really in the loop: derived facts, savings in GiB and a plan that fits
    assert mine["facts"]["weights_exceed_gpu"]["source"] == "derived"
    saved = dict((r["id"], r["saving_gib"]) for r in mine["remedies"])
    assert saved["enable-gradient-checkpointing"] > 10
    assert mine["memory"]["plan"]["steps"][0]["id"] == "enable-gradient-checkpointing"


def test_answers_rank_as_the_same_facts_given_to_the_cli(fkb):
    from triage.render.contract import to_dict

    iv = Interview(fkb, start=read_inputs(fkb, symptoms=[PARITY_SYMPTOM]))
    answered: list[str] = []
    while iv.question is not None and len(answered) < 4:
        fact = iv.question.fact
        if fact == "gradient_checkpointing":
            iv.answer("true")
        elif fact == "max_length":
            iv.answer("4096")
        else:
            iv.dont_know()
        answered.append(fact)
    assert "gradient_checkpointing" in answered  # the interview asked it
    given = [f"{t.fact}={t.said}" for t in iv.turns if t.kind == "answer"]
    cli = cli_json("--symptom", PARITY_SYMPTOM, *[a for g in given for a in ("--fact", g)])
    mine = to_dict(fkb, iv.diagnosis, top=10, memory=iv.memory)
    assert comparable(mine) == comparable(cli)
    # gradient checkpointing is on now: enabling it saves nothing, so it no longer leads the remedies
    saved = dict((r["id"], r["saving_gib"]) for r in mine["remedies"])
    assert saved.get("enable-gradient-checkpointing") in (None, 0.0)


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "during training, not sure which step"), ("zh", "训练中，不确定是哪一步")]
)
def test_phase_replies_are_what_a_user_can_say_and_typing_one_answers(lang, said):
    kb = load_checked()
    iv = Interview(kb, start=read_inputs(kb, symptoms=["CUDA out of memory"]), lang=lang)
    assert iv.question is not None and iv.question.fact == "phase"
    labels = [r.label for r in iv.replies()]
    assert said in labels and "training" not in labels
    turn = iv.answer(said)
    assert (turn.fact, turn.value) == ("phase", "training")
    assert iv.answer_label(turn) == said


@pytest.mark.parametrize(
    ("lang", "text", "gpu", "model"),
    [
        ("en", "CUDA out of memory while loading the model with from_pretrained", "2x RTX 3060 12GB", "llama2 13b"),
        ("zh", "加载模型的时候就爆显存了 CUDA out of memory", "两张3060 12G", "百川13B"),
    ],
)
def test_a_load_time_oom_asks_the_model_and_gpu_and_reads_the_answers_as_a_report(lang, text, gpu, model):
    kb = load_checked()
    iv = Interview(kb, start=read_inputs(kb, symptoms=[text]), lang=lang)
    asked: list[str] = []
    while iv.question is not None and len(asked) < 8:
        fact = iv.question.fact
        asked.append(fact)
        if fact == "gpu_name":
            iv.tell(gpu)
        elif fact == "model_name":
            iv.tell(model)
        else:
            iv.dont_know()
    # "which model?" and "which GPU?" are asked although no cause tests them directly: together they
    # tell whether the weights alone exceed the card
    assert {"model_name", "gpu_name"} <= set(asked)
    facts = iv.facts
    assert (facts.value("gpu_name"), facts.value("gpu_count")) == ("RTX 3060", 2)
    assert facts.value("model_params_b") == 13.0
    assert all(facts.get(n).source.kind == "answer" for n in ("gpu_count", "model_params_b", "gpu_memory_bytes"))
    assert iv.diagnosis.session.facts.value("weights_exceed_gpu") is True
    assert iv.diagnosis.causes[0].id == "weights-exceed-gpu"


@pytest.mark.parametrize(
    ("fact", "said", "value", "also"),
    [
        ("distributed", "zero3", "deepspeed", {"zero_stage": 3}),
        ("finetune_method", "qlora", "qlora", {"quantization": "4bit"}),
        ("gpu_memory_bytes", "RTX 4090", 25757220864, {"gpu_name": "RTX 4090"}),
        ("model_name", "Yi-34B", "Yi-34B", {"model_params_b": 34.0}),
        ("gpu_count", "4", 4, {}),
        ("quantization", "4bit", "4bit", {}),
    ],
)
def test_an_answer_in_words_is_read_by_the_same_readers_as_a_report(fact, said, value, also):
    from triage.interview import read_answer

    kb = load_checked()
    got, taken = read_answer(kb, kb.facts[fact], said)
    assert got == value
    took = {f.name: f.value for f in taken.facts}
    assert all(took.get(k) == v for k, v in also.items()), took


def test_words_that_do_not_answer_are_not_taken_as_the_answer():
    from triage.interview import read_answer

    kb = load_checked()
    assert read_answer(kb, kb.facts["distributed"], "what a day")[0] is None
    assert read_answer(kb, kb.facts["zero_stage"], "not the slightest idea")[0] is None


def test_how_likely_a_user_can_answer_is_the_corpus_share_and_depends_on_the_context():
    from triage.engine.questions import ANSWERED, ease_of
    from triage.facts import Fact, FactSet, Source

    kb = load_checked()
    # the phase is stated in nearly every thread; whether gradient checkpointing is on, rarely
    assert ease_of(kb.facts["phase"]) > 0.9 > 0.2 > ease_of(kb.facts["gradient_checkpointing"])
    # the ZeRO stage is known to most who said they use DeepSpeed, to few otherwise
    deepspeed = FactSet().with_facts([Fact("distributed", "deepspeed", Source("answer"))])
    assert ease_of(kb.facts["zero_stage"], deepspeed) == ANSWERED["zero_stage|distributed=deepspeed"]
    assert ease_of(kb.facts["zero_stage"], deepspeed) > 2 * ease_of(kb.facts["zero_stage"])


@pytest.mark.parametrize(
    ("lang", "text", "said"),
    [
        ("en", "CUDA out of memory fine-tuning qwen2.5-7b with lora, it worked yesterday", "batch size or max length"),
        ("zh", "用lora微调qwen2.5-7b，昨天还能跑，今天就爆显存了", "batch size 或最大长度"),
    ],
)
def test_a_run_that_worked_before_is_asked_what_changed_and_offered_only_the_changes(lang, text, said):
    kb = load_checked()
    iv = Interview(kb, start=read_inputs(kb, symptoms=[text]), lang=lang)
    asked: list[str] = []
    while iv.question is not None and iv.question.fact != "last_change" and len(asked) < 3:
        asked.append(iv.question.fact)
        iv.dont_know()
    # a user who says it worked yesterday knows what they did since: asked by the fourth question at the latest
    assert iv.question is not None and iv.question.fact == "last_change", asked
    values = [r.value for r in iv.replies() if r.value is not None]
    assert "never_worked" not in values and "worked_before" not in values
    assert {"batch_or_length", "model", "data", "library_upgrade", "nothing"} <= set(values)
    before = {rc.id: rc.probability for rc in iv.diagnosis.causes}
    turn = iv.answer(said)
    assert (turn.fact, turn.value) == ("last_change", "batch_or_length")
    after = {rc.id: rc.probability for rc in iv.diagnosis.causes}
    assert after["max-length-too-long"] > before["max-length-too-long"]
    assert iv.question is None or iv.question.fact != "last_change"


@pytest.mark.parametrize(
    "text",
    [
        "qlora 70b on 2x4090 OOM while loading",
        "加载模型的时候就爆显存了",
        "OOM while loading llama 13b on a 3090 for lora fine-tuning",
        "加载模型的时候就爆显存了，3090，chatglm3-6b",
    ],
)
def test_an_oom_while_loading_is_never_asked_about_steps(text):
    # no step ran: whether it trained first, how memory went from step to step, gradient checkpointing, the batch
    # or the attention kernel cannot explain it (asked until 2026-12-07, by the memory estimate of a later step)
    from triage.engine.questions import STEP_ONLY

    kb = load_checked()
    iv = Interview(kb, start=read_inputs(kb, symptoms=[text]))
    asked = []
    while iv.question is not None and len(asked) < 12:
        asked.append(iv.question.fact)
        iv.dont_know()
    assert not set(asked) & STEP_ONLY, asked
    assert {"gradient_checkpointing", "memory_growth", "batch_size"} <= STEP_ONLY
    assert iv.diagnosis.session.facts.value("trained_before_oom") is False


def test_a_run_said_to_work_before_is_asked_what_changed_at_the_questions_written_ease():
    from triage.engine.questions import ANSWERED, ease_of
    from triage.facts import Fact, FactSet, Source

    kb = load_checked()
    worked = FactSet().with_facts([Fact("last_change", "worked_before", Source("symptom"))])
    assert ease_of(kb.facts["last_change"], worked) == kb.facts["last_change"].ease
    assert ease_of(kb.facts["last_change"]) <= max(0.05, ANSWERED["last_change"])


def test_a_key_typed_to_a_question_answered_in_words_is_a_key_not_a_model_name():
    kb = load_checked()
    iv = Interview(kb, start=read_inputs(kb, symptoms=["CUDA out of memory while loading the model"]))
    while iv.question is not None and iv.question.fact != "model_name":
        iv.dont_know()
    assert iv.question is not None
    with pytest.raises(InterviewError, match="no quick reply"):
        iv.tell("2")
    assert iv.facts.value("model_name") is None
    assert iv.tell("0").kind == "unknown"


def test_zero_typed_to_a_count_that_cannot_be_zero_is_dont_know_and_a_count_typed_is_the_count():
    # the prompt shows "0) don't know"; a run has at least one GPU, so "0" can only be that key
    kb = load_checked()
    iv = Interview(kb, start=read_inputs(kb, symptoms=["CUDA out of memory when loading the model, 24GB card"]))
    _skip_to(iv, "gpu_count")
    assert iv.tell("0").kind == "unknown"
    assert iv.question is None or iv.question.fact != "gpu_count"
    assert iv.facts.value("gpu_count") is None
    iv.reopen("gpu_count")
    assert iv.tell("2").value == 2


def _skip_to(iv: Interview, fact: str, within: int = 8) -> None:
    """Answer "I don't know" until the interview asks about ``fact`` (fails if it does not within ``within``)."""
    for _ in range(within):
        question = iv.question
        assert question is not None
        if question.fact == fact:
            return
        iv.dont_know()
    pytest.fail(f"the interview never asked about {fact}")


def test_a_reply_that_answers_in_other_words_is_not_asked_again() -> None:
    """ "How are you fine-tuning?" -- "I'm not, only inference": the phase is taken and the question moves on."""
    from triage import api

    kb = api.knowledge()
    iv = Interview(kb, start=read_inputs(kb, symptoms=["CUDA out of memory with Llama-2-13b on a 4090"]))
    _skip_to(iv, "finetune_method")
    turn = iv.tell("I'm not fine-tuning, only running inference")
    assert turn.kind == "text" and turn.fact == "finetune_method"
    assert iv.facts.value("phase") == "generation"
    assert iv.question is None or iv.question.fact != "finetune_method"
    assert iv.answer_label(turn) == "I'm not fine-tuning, only running inference"
    assert "finetune_method" in {t.fact for t in iv.answered}


def test_a_reply_that_tells_nothing_keeps_the_question() -> None:
    iv = Interview(small_kb())
    asked = iv.question
    assert asked is not None
    iv.tell("hmm, let me think")
    assert iv.question is not None and iv.question.fact == asked.fact


@pytest.mark.parametrize(
    ("fact", "said", "value"),
    [
        # what a user types to "How is the run distributed?" when the split is device_map's
        ("distributed", "device_map", "model_parallel"),
        ("distributed", "device_map='auto' over 2 cards", "model_parallel"),
        ("distributed", "模型并行", "model_parallel"),
        ("distributed", "torchrun", "ddp"),
        ("distributed", "单卡", "none"),
        ("memory_growth", "it keeps increasing", "growing"),
        ("memory_growth", "显存一直涨", "growing"),
        ("memory_growth", "it does not grow", "steady"),
        ("memory_growth", "sudden jump", "spike"),
        ("torch_dtype", "torch.bfloat16", "bf16"),
        ("torch_dtype", "half", "fp16"),
        ("mixed_precision", "fp32", "no"),
        ("attn_implementation", "flash-attn 2.5.8", "flash_attention_2"),
        ("phase", "during inference", "generation"),
        ("phase", "训练", "training"),
        ("trained_before_oom", "right away", False),
        ("trained_before_oom", "after a while", True),
        ("offload", "cpu", True),
        ("finetune_method", "全参数微调", "full"),
    ],
)
def test_a_value_said_in_other_words_answers_the_question(fact, said, value):
    from triage.interview import read_answer

    kb = load_checked()
    assert read_answer(kb, kb.facts[fact], said)[0] == value


@pytest.mark.parametrize(
    ("fact", "said"),
    [
        ("distributed", "no device_map"),  # a negation left: not an answer
        ("distributed", "torchrun with device_map"),  # two values' words: not an answer
        ("memory_growth", "no leak that I know of"),
        ("memory_growth", "没有泄漏"),
    ],
)
def test_other_words_negated_or_for_two_values_do_not_answer(fact, said):
    from triage.interview import read_answer

    kb = load_checked()
    assert read_answer(kb, kb.facts[fact], said)[0] is None


def test_answer_words_must_name_values_and_stand_for_one_value_only():
    from pydantic import ValidationError

    from triage.kb.models import FactSpec

    base = {"kind": "fact", "id": "distributed", "type": "enum", "values": ["none", "ddp"],
            "question": {"en": "q", "zh": "q"}, "help": {"en": "h", "zh": "h"}}  # fmt: skip
    assert FactSpec.model_validate({**base, "answers": {"ddp": ["torchrun"]}}).answers == {"ddp": ["torchrun"]}
    with pytest.raises(ValidationError, match="not a value"):
        FactSpec.model_validate({**base, "answers": {"fsdp": ["fully sharded"]}})
    with pytest.raises(ValidationError, match="stands for both"):
        FactSpec.model_validate({**base, "answers": {"ddp": ["Torchrun"], "none": ["torchrun"]}})
    with pytest.raises(ValidationError, match="only enum and yes/no"):
        FactSpec.model_validate({**base, "type": "int", "values": None, "answers": {"1": ["one"]}})


def test_device_map_typed_to_the_distribution_question_is_taken_and_not_asked_again() -> None:
    from triage import api

    kb = api.knowledge()
    text = "OOM on several GPUs, the first one is full and the others almost empty"
    iv = Interview(kb, start=read_inputs(kb, symptoms=[text]))
    _skip_to(iv, "distributed")
    turn = iv.tell("device_map='auto'")
    assert turn.kind == "answer" and iv.facts.value("distributed") == "model_parallel"
    assert iv.question is None or iv.question.fact != "distributed"


@pytest.mark.parametrize(("step", "trained"), [("0", False), ("35", True)])
def test_the_step_it_failed_at_answers_whether_it_trained_first(step, trained):
    # the step is said in an answer here, not read from a log: the interview must draw the same conclusion
    kb = load_checked()
    from triage.facts import Fact, Source

    start = read_inputs(kb, symptoms=["CUDA out of memory while fine-tuning llama 7b with lora"])
    iv = Interview(kb, start=start, facts=[Fact("oom_step", int(step), Source("answer"))])
    asked = []
    while iv.question is not None and len(asked) < 8:
        asked.append(iv.question.fact)
        iv.dont_know()
    assert "trained_before_oom" not in asked, asked
    assert iv.diagnosis.session.facts.value("trained_before_oom") is trained
