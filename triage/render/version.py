"""The version of the JSON output contract, apart from its models so the text path never builds them."""

SCHEMA_VERSION = "1.3"
"""1.0: the first contract (triage 0.x); 1.1: ``schema_version``, ``evidence_state`` and ``similar_reports``;
1.2: each remedy's ``outcome`` on the run (settings moved, estimate after, verdict), the plan's steps with
theirs, ``memory.alternatives`` (the estimate under each unknown setting that moves it by more than 10 %) and
``memory.doubt`` (the run trained, yet the estimate says it cannot fit at all); 1.3: a remedy's
``unlocked_by`` / ``unlock_label`` (the upgrade that unlocks it), a change's ``assumed`` (the value is the
estimator's assumption), and the estimate's texts (peak detail, formulas, overheads, assumptions, notes,
blockers) in the output's language."""
