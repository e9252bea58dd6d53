"""A rule counts evidence for its own mechanism, not the context the mechanism usually comes with.

On the development reports these rules ranked their cause among the first three while it was never the
resolution: an old torch named in an environment dump (most reports of 2023 ran torch 2.0), an old
transformers with a model whose code it does not concern, several processes loading a model that is not
quantized, any OOM while generating for the vision-language cause, memory that grows while a model loads for
the leaks of training steps. Each test gives the context alone (the cause stays out of the top three) and then
the mechanism (it comes in), through the user's path.
"""

from __future__ import annotations

import pytest

from triage import api


@pytest.fixture(scope="module")
def kb():
    return api.knowledge()


def _top3(kb, text: str, *facts: str, lang: str = "en") -> list[str]:
    session = api.build_session(kb, symptoms=[text], facts=api.parse_facts(kb, list(facts)), lang=lang)
    diagnosis = api.analyse(kb, session).diagnosis
    return [rc.id for rc in diagnosis.causes if not rc.scored.excluded][:3]


def _labels(kb, cause_id: str, text: str, *facts: str) -> list[str]:
    session = api.build_session(kb, symptoms=[text], facts=api.parse_facts(kb, list(facts)))
    diagnosis = api.analyse(kb, session).diagnosis
    ranked = next(rc for rc in diagnosis.causes if rc.id == cause_id)
    return [i.label for i in ranked.scored.items if i.weight > 0]


OOM = "torch.cuda.OutOfMemoryError: CUDA out of memory while training"


def test_an_old_torch_alone_does_not_blame_the_sdpa_default(kb):
    assert "sdpa-needs-newer-torch" not in _top3(kb, OOM, "torch_version=2.0.1")
    # the mechanism: a transformers release that defaults to SDPA, switched off by the old torch
    assert "sdpa-needs-newer-torch" in _top3(
        kb, OOM, "torch_version=2.0.1", "transformers_version=4.38.2", "model_name=llama2-7b", "max_length=4096"
    )


def test_old_transformers_counts_for_llama_attention_only(kb):
    version = "a transformers release whose Llama (before 4.36) or Mistral (before 4.37) code had no built-in SDPA"
    chatglm = _labels(kb, "eager-attention-long-sequence", OOM, "transformers_version=4.30.2", "model_name=chatglm2-6b")
    llama = _labels(kb, "eager-attention-long-sequence", OOM, "transformers_version=4.30.2", "model_name=llama2-7b")
    mistral = _labels(kb, "eager-attention-long-sequence", OOM, "transformers_version=4.36.2", "model_name=Mistral-7B")
    llama_436 = _labels(kb, "eager-attention-long-sequence", OOM, "transformers_version=4.36.2", "model_name=llama2-7b")
    assert version not in chatglm
    assert version in llama
    # Mistral's code gained SDPA one release after Llama's
    assert version in mistral
    assert version not in llama_436


def test_several_processes_loading_a_model_is_not_an_unsharded_quantized_load(kb):
    text = "OOM while loading the model"
    assert "kbit-weights-not-sharded" not in _top3(kb, text, "distributed=deepspeed", "gpu_count=4")
    assert "kbit-weights-not-sharded" in _top3(kb, text, "quantization=4bit", "distributed=deepspeed", "gpu_count=4")


def test_generating_text_is_not_evidence_of_image_tokens(kb):
    text = "CUDA out of memory during generation with model.generate()"
    assert "vlm-image-tokens-uncapped" not in _top3(kb, text)
    assert "vlm-image-tokens-uncapped" in _top3(kb, text + " on high resolution images", "model_name=Qwen2-VL-7B")


def test_memory_growing_while_loading_is_not_a_leak_of_training_steps(kb):
    leaks = {"loss-kept-with-graph", "outputs-kept-on-gpu", "trl-activation-offloading-leak"}
    # XVERSE-13B#10's situation: host memory climbs while the model loads
    loading = _top3(kb, "加载模型时内存会一直增加到50g左右，之后才开始加载到显存", lang="zh")
    assert not leaks & set(loading)
    training = _top3(kb, "training loop: GPU memory keeps growing every step until CUDA out of memory at step 3000")
    assert leaks & set(training)


BNB_ONLY = ("bnb-compute-dtype-fp32", "bitsandbytes-4bit-matmul-keeps-input", "bitsandbytes-038-int8-double-memory")


def _live(kb, text: str, *facts: str) -> set[str]:
    session = api.build_session(kb, symptoms=[text], facts=api.parse_facts(kb, list(facts)))
    return {rc.id for rc in api.analyse(kb, session).diagnosis.causes if not rc.scored.excluded}


@pytest.mark.parametrize(
    "text",
    [
        # AutoGPTQ#179 (development): bitsandbytes' compute dtype and 4-bit matmul were ranked second and third
        "OOM in the forward pass of TheBloke/Llama-2-13B-GPTQ with peft LoRA at 2048 tokens on a 3090",
        "OOM in the forward pass of TheBloke/Mistral-7B-Instruct-v0.2-AWQ at 8k context on a 4090",
        # wenda#418 (development): ChatGLM's own int4 build
        "8G显存，可以运行chatglm2-6b-int4模型，但是训练前向时报显存不足",
    ],
    ids=["gptq", "awq", "zh-model-int4"],
)
def test_bitsandbytes_causes_are_ruled_out_for_weights_another_method_quantized(kb, text):
    live = _live(kb, text, "bitsandbytes_version=0.41.1", "bnb_compute_dtype=fp32")
    assert not live & set(BNB_ONLY)
    # the same report with bitsandbytes' 4 bits keeps them
    bnb = text.replace("TheBloke/Llama-2-13B-GPTQ", "Llama-2-13B with load_in_4bit=True")
    bnb = bnb.replace("TheBloke/Mistral-7B-Instruct-v0.2-AWQ", "Mistral-7B with BitsAndBytesConfig(load_in_4bit=True)")
    bnb = bnb.replace("chatglm2-6b-int4模型", "chatglm2-6b模型（load_in_4bit=True）")
    assert {"bnb-compute-dtype-fp32", "bitsandbytes-4bit-matmul-keeps-input"} <= _live(
        kb, bnb, "bitsandbytes_version=0.41.1", "bnb_compute_dtype=fp32"
    )


def test_weights_larger_than_one_card_under_zero2_point_at_the_zero_stage(kb):
    # LongLoRA#97 (development): the weights exceed one card, and ZeRO-2 keeps a whole copy on each of the eight
    text = (
        "70B SFT out of memory? I'm using the 8xa100 GPU(80G) to do the SFT with the exact same parameter as in the "
        "instruction. If I'm using the stage2.json, it shows GPU OOM, but if i change to stage3.json, it works fine "
        "and shows each gpu only use about 11G meomory?"
    )
    assert _top3(kb, text)[0] == "zero-stage-too-low"
    # on one card there is nothing to shard the weights over
    shard = "the weights alone exceed one card and ZeRO 0-2 keeps a whole copy on each; ZeRO-3 would shard them"
    shard += " over the cards"
    one = "Full fine-tuning of Llama-2-70B in bf16 with DeepSpeed ZeRO-2 on one A100 80GB: CUDA out of memory"
    assert shard not in _labels(kb, "zero-stage-too-low", one)
    assert shard in _labels(kb, "zero-stage-too-low", one.replace("one A100 80GB", "8x A100 80GB"))


def test_torch_2_0_alone_does_not_put_its_sdpa_fallback_first(kb):
    # localGPT#293 (development): torch 2.0.1 named, nothing about SDPA or the length; most 2023 reports ran torch 2.0
    text = "torch.cuda.OutOfMemoryError: CUDA out of memory. PyTorch 2.0.1, CUDA 11.8"
    assert _top3(kb, text)[0] != "torch-20-sdpa-mask-math-fallback"
    # SDPA in use and long sequences: the mechanism
    assert "torch-20-sdpa-mask-math-fallback" in _top3(
        kb, text, "attn_implementation=sdpa", "max_length=4096", "phase=forward"
    )


def test_a_full_fine_tune_whose_state_exceeds_every_gpu_points_at_the_state_not_the_zero_stage(kb):
    # LlamaFactory#358 (development): 7B full fine-tune on one A100 80GB; its mixed-precision state (~103 GiB)
    # exceeds the card before any activation: resolved by LoRA or more GPUs, not by a ZeRO stage
    text = "7b/6b模型 全参数 会溢出。\nbatch_size=4\n\nA100-80G\n\nGLM和通义，都会溢出。可能代码问题。"
    assert _top3(kb, text, lang="zh")[0] == "adamw-states-full-finetune"
    exceeds = "the weights, gradients and optimizer states alone exceed the GPUs, even spread evenly over all of them"
    assert exceeds in _labels(kb, "adamw-states-full-finetune", text)
    # on eight such cards the state fits once sharded: the estimate no longer speaks for it
    assert exceeds not in _labels(kb, "adamw-states-full-finetune", text.replace("A100-80G", "8张A100-80G"))
