"""Secrets never leave in an exported report."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from triage.redact import redact, redact_text

HF = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"export HF_TOKEN={HF}", HF, "hf-token"),
        (f"huggingface-cli login --token {HF}", HF, "hf-token"),
        (f"OPENAI_API_KEY='{OPENAI}'", OPENAI, "openai-key"),
        (f"aws_access_key_id = {AWS_ID}", AWS_ID, "aws-access-key"),
        (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "secret"),
        (
            "WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567",
            "0123456789abcdef0123456789abcdef01234567",
            "secret",
        ),
        ('{"api_key": "s3cr3t-value-123"}', "s3cr3t-value-123", "secret"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", "eyJhbGciOiJIUzI1NiJ9", "bearer-token"),
        ("password: hunter2hunter2", "hunter2hunter2", "secret"),
    ],
)
def test_secrets_are_redacted(text, secret, kind):
    out = redact_text(text)
    assert secret not in out.text
    assert f"[REDACTED:{kind}]" in out.text
    assert out.count >= 1


@pytest.mark.parametrize(
    "text",
    [
        "tokenizer.pad_token = tokenizer.eos_token",
        "eos_token: </s>",
        "max_new_tokens=512 num_tokens: 2048",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "gradient_checkpointing: true\nlearning_rate: 2e-4",
        "pad_token_id=0, token=None",
    ],
)
def test_ordinary_config_and_logs_are_left_alone(text):
    assert redact(text) == text


def test_the_words_around_a_secret_stay():
    assert redact(f"export HF_TOKEN={HF} && python train.py") == (
        "export HF_TOKEN=[REDACTED:hf-token] && python train.py"
    )


token_body = st.text(alphabet=string.ascii_letters + string.digits, min_size=34, max_size=40)
prose = st.text(alphabet=string.ascii_lowercase + " \n.:,", max_size=80)


@given(prose, token_body, prose)
def test_an_hf_token_anywhere_is_removed(before, body, after):
    token = "hf_" + body
    out = redact(f"{before} {token} {after}")
    assert token not in out
    assert "[REDACTED:hf-token]" in out


@given(st.text(max_size=200))
def test_redaction_is_idempotent(text):
    once = redact(text)
    assert redact(once) == once


@given(st.text(alphabet=string.ascii_lowercase + " \n.,()", max_size=200))
def test_plain_prose_is_unchanged(text):
    assert redact(text) == text
