"""The next question is the unknown fact with the highest expected information gain."""

from __future__ import annotations

from builders import cause, spec

from triage.engine.questions import QuestionPlanner, candidate_values, entropy, only_runs_the_model, should_stop
from triage.engine.scoring import Scorer, probabilities
from triage.facts import FactSet
from triage.kb.models import Leaf

SPECS = {
    "gc": spec("gc", "bool"),
    # "stage", not "phase": a fact the corpus measures (questions.ANSWERED) would weigh by the corpus's counts,
    # and this test is about information gain between facts on the same (written ease) scale
    "stage": spec("stage", "enum", ["train", "eval"], ease=0.5),
    "noise": spec("noise", "bool"),
    "derived": spec("derived", "bool", askable=False),
}
# gc separates a from b strongly; noise barely matters; derived can't be asked
CAUSES = {
    "a": cause(
        "a",
        [
            {"test": {"fact": "gc", "op": "eq", "value": False}, "if_true": 3, "if_false": -3},
            {"test": {"fact": "noise", "op": "eq", "value": True}, "if_true": 0.1},
            {"test": {"fact": "derived", "op": "eq", "value": True}, "if_true": 3},
        ],
    ),
    "b": cause(
        "b",
        [
            {"test": {"fact": "gc", "op": "eq", "value": True}, "if_true": 3, "if_false": -3},
            {"test": {"fact": "stage", "op": "eq", "value": "eval"}, "if_true": 1, "if_false": -1},
        ],
    ),
}


def plan(facts=None):
    facts = facts or FactSet()
    scorer = Scorer(CAUSES, "")
    scored = scorer.score(facts)
    dist = probabilities(scored)
    return QuestionPlanner(scorer, SPECS).rank(facts, scored, dist), dist


def test_most_informative_first_and_derived_never_asked():
    questions, _ = plan()
    names = [q.fact for q in questions]
    assert names[0] == "gc"
    assert "derived" not in names
    assert questions[0].gain > questions[-1].gain >= 0


def test_gain_bounded_by_entropy():
    questions, dist = plan()
    assert all(q.gain <= entropy(dist) + 1e-9 for q in questions)


def test_ties_go_to_the_easier_question():
    causes = {
        "a": cause("a", [{"test": {"fact": "x", "op": "eq", "value": True}, "if_true": 2, "if_false": -2}]),
        "b": cause("b", [{"test": {"fact": "y", "op": "eq", "value": True}, "if_true": 2, "if_false": -2}]),
    }
    specs = {"x": spec("x", "bool", ease=0.3), "y": spec("y", "bool", ease=0.9)}
    scorer = Scorer(causes, "")
    scored = scorer.score(FactSet())
    questions = QuestionPlanner(scorer, specs).rank(FactSet(), scored, probabilities(scored))
    assert [q.fact for q in questions] == ["y", "x"]
    assert abs(questions[0].gain - questions[1].gain) < 1e-3


def test_candidate_values_from_thresholds():
    tests = [Leaf(fact="n", op="ge", value=1024), Leaf(fact="n", op="lt", value=4096)]
    values = candidate_values(spec("n", "int"), tests)
    assert min(values) < 1024 and max(values) >= 4096 and any(1024 <= v < 4096 for v in values)


def test_whole_number_answers_are_offered_once_and_never_below_the_facts_minimum(kb):
    # gpu_count is tested "eq 1" and "ge 2": the midpoint 1.5 rounds onto 2, and the point below 1 is 0 GPUs
    tests = [Leaf(fact="gpu_count", op="eq", value=1), Leaf(fact="gpu_count", op="ge", value=2)]
    assert candidate_values(kb.facts["gpu_count"], tests) == [1, 2, 3]
    # without a minimum, 0 stays a value (an OOM at step 0)
    assert candidate_values(spec("n", "int"), [Leaf(fact="n", op="gt", value=0)]) == [0, 1]


def test_the_interview_offers_each_gpu_count_once_and_only_real_zero_stages(kb):
    from triage import api

    iv = api.start_interview(kb, api.read(kb, symptoms=["OOM training qwen-14b with deepspeed on A100"]))
    asked = {q.fact: [r.value for r in iv.replies(q) if r.value is not None] for q in iv.diagnosis.questions}
    assert asked["gpu_count"] == [1, 2, 3]
    # and no ZeRO stage 4: the stages are 0 to 3
    assert asked["zero_stage"] == [0, 1, 2, 3]


def test_stop_when_confident_or_nothing_to_gain():
    assert should_stop({"a": 0.9, "b": 0.1}, plan()[0])
    assert should_stop({"a": 0.5, "b": 0.5}, [])
    assert not should_stop({"a": 0.5, "b": 0.5}, plan()[0])


def test_training_settings_are_not_asked_of_a_user_who_only_runs_the_model():
    from triage import api
    from triage.interview import Interview

    kb = api.knowledge()
    inference = Interview(kb, start=api.read(kb, symptoms=["llama-2-13b runs out of memory while generating"]))
    asked = {q.fact for q in inference.questions}
    assert asked, "the interview still has questions to ask"
    assert not asked & {"trainer_type", "gradient_checkpointing", "zero_stage", "optimizer", "lora_r"}
    assert only_runs_the_model(inference.session.facts)
    # an RL trainer's rollouts are generation too, in a run that trains: its settings are still fair questions
    rollout = Interview(kb, start=api.read(kb, symptoms=["OOM during rollouts while GRPO trains a LoRA adapter"]))
    assert rollout.session.facts.value("phase") == "generation"
    assert not only_runs_the_model(rollout.session.facts)
