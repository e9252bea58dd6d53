from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from triage.ingest.text import read_text

GiB = 1024**3


def facts(text: str) -> dict[str, object]:
    return {f.name: f.raw for f in read_text(text)}


def test_english_fixture_with_lines(fixture_path):
    found = {f.name: (f.raw, f.line) for f in read_text(Path(fixture_path("text/en.txt")).read_text(encoding="utf-8"))}
    assert found["model_name"] == ("Llama-2-13b-hf", 1)
    assert found["gpu_name"] == ("RTX 3090", 1)
    assert found["gpu_memory_bytes"][0] == 24 * GiB
    assert found["transformers_version"][0] == "4.31"
    assert found["torch_version"][0] == "2.1.0"
    assert found["max_length"] == (2048, 2)
    assert found["gradient_checkpointing"] == (False, 2)
    assert found["oom_step"] == ("35", 3)
    assert found["phase"] == ("evaluation", 3)


def test_chinese_fixture(fixture_path):
    found = facts(Path(fixture_path("text/zh.txt")).read_text(encoding="utf-8"))
    assert found["framework"] == "llama_factory"
    assert found["finetune_method"] == "qlora"
    assert found["gpu_memory_bytes"] == 24 * GiB
    assert found["max_length"] == 2048
    assert found["batch_size"] == "2"
    assert found["gradient_checkpointing"] is True
    assert found["oom_step"] == "100"
    assert found["phase"] == "evaluation"


def test_examples_from_the_issue():
    assert facts("cutoff_len=4096")["max_length"] == 4096
    assert facts("bs=4")["batch_size"] == "4"
    assert facts("batch size 1")["batch_size"] == "1"
    assert facts("A100 80GB")["gpu_memory_bytes"] == 80 * GiB
    assert "gpu_memory_bytes" not in facts("A100")  # sold as 40 and 80 GB
    assert facts("7B")["model_params_b"] == 7.0
    assert facts("Qwen2.5-7B")["model_name"] == "Qwen2.5-7B"
    assert facts("24G")["gpu_memory_bytes"] == 24 * GiB
    assert facts("显存24G")["gpu_memory_bytes"] == 24 * GiB
    assert facts("序列长度2048")["max_length"] == 2048
    assert facts("训练到第100步OOM")["oom_step"] == "100"
    assert facts("评估时爆显存")["phase"] == "evaluation"
    assert facts("梯度检查点已开启")["gradient_checkpointing"] is True
    assert facts("没开gradient checkpointing")["gradient_checkpointing"] is False
    assert facts("用的QLoRA")["finetune_method"] == "qlora"
    assert facts("LoRA")["finetune_method"] == "lora"


def test_negations_and_fuzzy_vocabulary():
    assert facts("gradient checkpointing is enabled")["gradient_checkpointing"] is True
    assert facts("without gradient checkpointing")["gradient_checkpointing"] is False
    assert facts("gradient checkpionting is on")["gradient_checkpointing"] is True
    assert "gradient_checkpointing" not in facts("should I try gradient checkpointing?")
    assert facts("I already set expandable_segments:True")["expandable_segments"] is True


def test_numbers_without_context_are_not_facts():
    assert facts("I tried 2048 and 4 and 35 and 100") == {}
    assert "oom_step" not in facts("3090/10000")
    assert "lora_r" not in facts("--local_rank=0")


def test_oom_hint_is_not_a_setting():
    text = (
        "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF="
        "expandable_segments:True to avoid fragmentation."
    )
    assert "expandable_segments" not in facts(text)


def test_ram_is_not_vram():
    for text, size in (("64G RAM", 64), ("内存128G", 128), ("128GB of RAM and a 4090", 128)):
        got = facts(text)
        assert got["host_ram_bytes"] == size * GiB, text
    assert "gpu_memory_bytes" not in facts("64G RAM")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises_and_is_deterministic(text):
    assert read_text(text) == read_text(text)


def test_batch_without_size_or_equals():
    assert facts("batch 4")["batch_size"] == "4"
    assert facts("bs 4")["batch_size"] == "4"
    assert facts("a batch of 8")["batch_size"] == "8"
    issue = facts("LLaMA-7B LoRA on a 3090, max_length 2048, batch 4, no gradient checkpointing, OOM")
    assert issue["batch_size"] == "4" and issue["max_length"] == 2048 and issue["gradient_checkpointing"] is False
    # counts of batches are not a batch size
    assert "batch_size" not in facts("epoch 1 batch 4/100")
    assert "batch_size" not in facts("batch 4 of 100")
    assert "batch_size" not in facts("after batch 4 steps it fails")
    assert "batch_size" not in facts("eval batch 4")
    assert facts("eval batch 4")["eval_batch_size"] == "4"


def test_denied_settings_are_not_facts():
    assert "zero_stage" not in facts("not using deepspeed zero3")
    assert "distributed" not in facts("not using deepspeed zero3")
    assert "distributed" not in facts("we do not use --deepspeed ds_z3.json")
    assert facts("not using deepspeed zero3, fsdp instead")["distributed"] == "fsdp"
    assert facts("using deepspeed zero3")["zero_stage"] == 3
    assert facts("I am not using QLoRA, just LoRA")["finetune_method"] == "lora"
    assert facts("没用QLoRA，用的LoRA")["finetune_method"] == "lora"
    assert "quantization" not in facts("without 4bit")
    assert facts("not bf16 but fp16")["mixed_precision"] == "fp16"
    assert "optimizer" not in facts("no adamw_8bit")


def test_lora_settings_in_a_sentence():
    got = facts("LoRA r=16 on all linear layers")
    assert got["lora_r"] == "16" and got["lora_target_modules"] == "all-linear" and got["finetune_method"] == "lora"
    got = facts("LoRA (r=16, alpha=32, dropout 0.05) on q_proj and v_proj")
    assert got["lora_r"] == "16" and got["lora_dropout"] == "0.05" and got["lora_target_modules"] == "q_proj,v_proj"
    assert facts("rank 16 LoRA")["lora_r"] == "16"
    assert facts("LoRA, 秩为8")["lora_r"] == "8"
    # without LoRA in the sentence, "r", "rank" and module names are not LoRA settings
    assert facts("r=16") == {}
    assert "lora_r" not in facts("rank 16 on the leaderboard")
    assert "lora_target_modules" not in facts("the q_proj weights are large")
    assert "lora_r" not in facts("--local_rank=0 with lora")


def test_gpu_memory_from_the_catalogue_is_nvidia_smis_total():
    # a T4 is sold as 16 GB but nvidia-smi (and so the card) shows 15360 MiB
    t4 = facts("Colab T4")
    assert t4["gpu_name"] == "T4" and t4["gpu_memory_bytes"] == 15360 * 1024**2 and t4["compute_capability"] == 7.5
    assert facts("on a 4090")["gpu_memory_bytes"] == 24564 * 1024**2
    a100 = facts("A100 80GB")
    assert a100["gpu_name"] == "A100 80GB"  # the size picks the card, so the estimator gets the 80 GB preset
    assert facts("A100")["gpu_name"] == "A100" and facts("A100")["compute_capability"] == 8.0
    assert facts("RTX 3090 Ti")["gpu_name"] == "RTX 3090 Ti"


def _facts(text):
    from triage.ingest.inputs import gather
    from triage.kb.loader import load_checked

    return {f.name: f.value for f in gather(load_checked().facts, symptoms=[text]).facts}


def test_an_upgrade_names_the_version_the_run_has_now():
    assert _facts("upgrading transformers from 4.37.2 to 4.38.2 broke it")["transformers_version"] == "4.38.2"
    assert _facts("after upgrading from 4.37.2 to 4.38.2 (transformers) it OOMs")["transformers_version"] == "4.38.2"
    assert _facts("upgraded transformers to 4.38.2")["transformers_version"] == "4.38.2"


def test_words_after_a_bare_oom_phrase_are_read_but_a_pasted_message_is_not():
    assert _facts("CUDA out of memory with transformers 4.38.5")["transformers_version"] == "4.38.5"
    pasted = _facts("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity; 24G vram)")
    assert "gpu_memory_bytes" not in pasted or pasted["gpu_memory_bytes"] != 24 * 1024**3


def test_cannot_is_a_negation():
    assert _facts("V100 cant use flash-attn 2").get("attn_implementation") != "flash_attention_2"
    assert _facts("we cannot use flash_attention_2 here").get("attn_implementation") != "flash_attention_2"


def test_from_package_version_to_version():
    assert _facts("After upgrading from transformers 4.37.2 to 4.38.2 it OOMs")["transformers_version"] == "4.38.2"
    assert _facts("transformers 4.31 to train llama")["transformers_version"] == "4.31"


def test_a_trainer_class_beats_a_word_in_prose():
    text = "SFT of my 7B model worked fine.\nNow trainer = DPOTrainer(model, ref_model=None) OOMs"
    assert _facts(text)["trainer_type"] == "dpo"
    assert _facts("SFT worked; DPO next")["trainer_type"] == "sft"


def test_set_but_not_taking_effect_is_its_own_state():
    for text in (
        "梯度检查点没生效",
        "gradient checkpointing does not take effect",
        "gradient checkpointing is not applied",
    ):
        facts = _facts(text)
        assert facts["gradient_checkpointing"] is True and facts["gc_active"] is False, text
    assert _facts("I removed gradient checkpointing")["gradient_checkpointing"] is False
    assert "gc_active" not in _facts("gradient checkpointing on")


def test_a_source_path_is_not_a_model():
    assert "model_name" not in _facts('  File "/site-packages/torch/optim/adamw.py", line 12, in step')
    assert _facts("meta-llama/Llama-2-7b-hf.")["model_name"] == "meta-llama/Llama-2-7b-hf"


def test_growth_and_host_kills_in_words():
    assert _facts("训练到一半显存一直涨")["memory_growth"] == "growing"
    assert _facts("memory keeps growing every step")["memory_growth"] == "growing"
    assert _facts("被Killed了")["error_kind"] == "host_oom"
    assert _facts("the job died with exit code 137")["error_kind"] == "host_oom"
    assert _facts("memory usage is flat")["memory_growth"] == "steady"


def test_what_fixed_it_is_not_the_failing_run():
    assert "use_cache" not in _facts("use_cache=False 就好了")
    assert _facts("batch size 8 OOMs, batch size 2 it runs")["batch_size"] == 8
    assert _facts("bs=4 works fine, bs=8 OOMs")["batch_size"] == 8
    assert "transformers_version" not in _facts("upgrading to transformers 4.40 fixed it")
    assert _facts("max_length 2048, bs=4, OOM")["batch_size"] == 4


def test_peft_print_trainable_parameters_gives_the_trainable_count_not_the_packed_total():
    lora = facts("trainable params: 4,194,304 || all params: 3,504,607,232 || trainable%: 0.1197")
    assert lora["trainable_params_b"] == 0.004194304
    assert "model_params_b" not in lora  # a 4-bit model's "all params" counts packed weights as half
    everything = facts("trainable params: 6738415616 || all params: 6738415616 || trainable%: 100.0")
    assert everything["trainable_params_b"] == 6.738415616


def test_a_base_left_trainable_is_named_from_the_pasted_parameter_count(kb):
    from triage import api

    text = "LoRA on Llama-2-7B, OOM at the first step\ntrainable params: 6,738,415,616 || all params: 6,738,415,616"
    diagnosis = api.analyse(kb, api.build_session(kb, symptoms=[text]), index=None).diagnosis
    top = diagnosis.causes[0]
    assert top.id == "base-model-not-frozen"
    assert any(i.label == "a billion or more trainable parameters" and i.state == "true" for i in top.scored.items)


def test_a_local_chat_app_beside_a_fine_tune_is_another_process_not_a_server_out_of_scope():
    beside = facts("LLaMA-Factory 训练 Llama-3-8B LoRA 报 CUDA out of memory\n1375 是我后台开着的 ollama，忘了关了")
    assert "out_of_scope" not in beside
    assert beside["finetune_method"] == "lora"
    assert facts("ollama run llama3:70b gives CUDA out of memory on my 4090")["out_of_scope"] == "serving"


def test_a_server_or_image_app_said_to_run_beside_a_fine_tune_is_not_the_run():
    background = facts("Phi-3-mini LoRA on my RTX 3060 OOMs at step 0. I had ComfyUI running in the background.")
    assert "out_of_scope" not in background
    container = facts("Mistral-7B QLoRA OOMs.\nOn this host there is also a TGI container serving a model on GPU 0.")
    assert "out_of_scope" not in container
    # serving the fine-tuned model is still the server's own memory
    assert facts("After LoRA fine-tuning, vllm serve ./merged runs out of memory")["out_of_scope"] == "serving"


def test_a_run_that_trained_first_is_read_from_rough_counts_and_chinese_numerals():
    for said in (
        "It ran fine for about 3000 steps and then crashed with CUDA out of memory",
        "Training runs for a couple of thousand steps and then dies with OOM",
        "Loss looked fine for ~4000 steps, then CUDA OOM",
        "跑了一千二百多步突然 OOM",
        "跑了两三个小时之后 OOM",
        "跑了一晚上，早上起来发现 OOM 了",
        "挂在 2000 多步的时候",
        "跑到三分之二的时候 OOM",
        "1500 步之前都正常，之后就爆显存",
    ):
        assert facts(said).get("trained_before_oom") is True, said
    # a plan is not a run that trained: nothing is read from the number of steps it is set to
    assert "trained_before_oom" not in facts("I set max_steps to 3000 and it OOMs at the first step")


def test_a_value_that_works_then_the_one_that_fails_gives_the_failing_one():
    found = facts("max_length 1024 能跑，调成 4096 就 OOM")
    assert found["max_length"] == 4096
    assert found["resolved_by"] == "max_length"
    assert facts("--max_length 2048 works but 4096 OOMs")["max_length"] == 4096
    assert facts("batch size 2 works fine, but at 8 it runs out of memory")["batch_size"] == 8
    assert facts("per_device_train_batch_size 从 2 改成了 8 就 OOM 了")["batch_size"] == 8
    # a count of cards after it is not the setting's value
    assert str(facts("batch_size 4 works on one card; with 2 GPUs it OOMs")["batch_size"]) == "4"
    assert str(facts("max_length 2048 works")["max_length"]) == "2048"


def test_a_batch_size_set_with_a_bare_chinese_verb():
    assert facts("batch_size 设 32 就爆显存")["batch_size"] == "32"
    assert facts("batch_size 设的 16，还是 OOM")["batch_size"] == "16"


def test_fsdp_said_as_what_the_run_uses():
    for said in (
        "用 FSDP 训练 qwen 7b 爆显存",
        "accelerate + FSDP 全参微调 OOM",
        "distributed_type: FSDP",
        "We moved from DDP to FSDP and now it OOMs",
        "All FSDP jobs start to have OOM",
        "my FSDP2 runs OOM at step 10",
    ):
        assert facts(said).get("distributed") == "fsdp", said
    assert facts("We use DDP and it OOMs").get("distributed") == "ddp"
    assert "distributed" not in facts("没用 FSDP，单卡训练")
    assert "distributed" not in facts("Does FSDP support LoRA?")


def test_a_quantization_flag_set_off_is_not_quantization():
    assert facts("model = FastLanguageModel.from_pretrained(name, load_in_4bit = False)")["quantization"] == "none"
    assert facts("AutoModelForCausalLM.from_pretrained(name, load_in_8bit=False)")["quantization"] == "none"
    assert facts("AutoModelForCausalLM.from_pretrained(name, load_in_4bit=True)")["quantization"] == "4bit"
    # a bit width read first on the line wins: "load_in_8bit=False, load_in_4bit=True" is a 4-bit model
    assert facts("from_pretrained(name, load_in_8bit=False, load_in_4bit=True)")["quantization"] == "4bit"


def test_the_step_that_went_through_is_not_the_phase_that_failed():
    said = "loss.backward() works, but then optimizer.step() crashes with CUDA out of memory"
    assert facts(said)["phase"] == "optimizer"
    assert facts("loss.backward() 之后是 25G，一进 optimizer.step() 就报 OOM")["phase"] == "optimizer"
    assert facts("OOM in loss.backward()")["phase"] == "backward"


def test_gradient_checkpointing_said_to_change_nothing_is_on_but_not_in_effect():
    for said in (
        "gradient checkpointing doesn't seem to do anything, memory is the same",
        "加了 --gradient_checkpointing 显存和不加一样",
        "开了梯度检查点显存还是跟没开一样",
        "TrainingArguments 里设了 gradient_checkpointing=True，可是显存一点没降",
        "print(model.is_gradient_checkpointing) -> False",
    ):
        found = facts(said)
        assert found.get("gradient_checkpointing") is True and found.get("gc_active") is False, said
    assert "gc_active" not in facts("gradient_checkpointing=True")
    assert "gc_active" not in facts("开了梯度检查点显存降了一半")


def test_newer_trainers_switches_pasted_inline():
    # each changes what a cause needs: padding_free and neat_packing leave no padding, pad_to_sequence_len pads every
    # batch to the full length, liger's fused loss never makes the logits, a precomputed reference is not a model
    assert facts("SFTConfig(padding_free=True, max_length=8192)")["padding"] == "none"
    assert facts("pad_to_sequence_len: true")["padding"] == "max_length"
    assert facts("neat_packing: true, cutoff_len: 4096")["packing"] is True
    assert facts("--use_liger_kernel True")["fused_loss"] is True
    assert facts("DPOConfig(precompute_ref_log_probs=True)")["ref_model_separate"] is False
    assert "padding" not in facts("padding_free=False")
    assert "padding" not in facts("what does the padding_free option do?")


def test_another_version_that_worked_is_a_library_upgrade_and_not_the_runs_version():
    # phrasings of development records (ms-swift#7986, transformers#29484, ChatGLM3#866, gensyn-ai/rl-swarm#310,
    # xinference#1712): the same thing ran on another release of a package
    for text in (
        "I recently switched from version 3.10.3 to version 3.12.3, and I started getting OOM errors",
        "The same scripts used to work perfectly well on the older version.",
        "Upgrade from 4.37.2 to 4.38.2 causes CUDA out of memory error with identical configuration.",
        "次新版本正常，最新版本OutOfMemoryError: CUDA out of memory.",
        "Transformers update lead to VRAM OOM and code execution issues",
        "升级到 transformers 4.39.1 后，同样的代码训练 Llama 显存明显变多",
        "The same model loaded in about 9 GB with transformers 4.57.",
        "transformers 4.57 能跑，transformers 5.2 就爆显存",
        "降级到 4.57 就好了",
    ):
        assert _facts(text).get("last_change") == "library_upgrade", text
    # the version that worked is not the failing run's; the other one named on the line is
    assert "transformers_version" not in _facts("The model loaded in 9 GB with transformers 4.57, now it OOMs")
    both = _facts("It loaded in 9 GB with transformers 4.57, now it OOMs with transformers 5.2")
    assert both["transformers_version"] == "5.2"
    # a run that went well for a while, or a setting that worked, is not another version
    for text in (
        "Training worked fine for 2 epochs then OOM",
        "It worked with batch size 4 but OOMs at 8",
        "It loaded in 9.5 GB on 1 GPU",
        "it never worked on the older version either",
    ):
        assert _facts(text).get("last_change") != "library_upgrade", text


def test_a_package_upgrade_that_made_it_work_is_what_resolved_it():
    assert _facts("Upgrading bitsandbytes fixed it")["resolved_by"] == "bitsandbytes_version"
    assert _facts("batch 一加大显存就涨得特别快，升级 bitsandbytes 之后好了")["resolved_by"] == "bitsandbytes_version"
    assert "resolved_by" not in _facts("I upgraded transformers but it still OOMs")


def test_a_mixture_of_experts_named_in_the_text_is_read():
    # axolotl#3374 (development): "GLM-4.5-Air QLoRA" without a size in the name
    assert _facts("QLoRA on GLM-4.5-Air with transformers 5.2 runs out of memory")["moe"] is True
    assert _facts("Mixtral 8x7B QLoRA OOM")["moe"] is True
    assert "moe" not in _facts("Llama-2-7b LoRA OOM on a 3090")


def test_the_only_value_that_fits_is_what_made_it_work_not_the_failing_runs_setting():
    # LlamaFactory#4268 (development): "在zero3下70B训8k只能设bs=1 ... 而设为2会OOM"; the batch that fits is the fix,
    # the larger one said to fail on the same line is the run's
    said = _facts("8*A800，在zero3下70B训8k只能设bs=1，每个卡剩余大概20G+，而设为2会OOM")
    assert said["batch_size"] == 2
    assert said["resolved_by"] == "batch_size"
    assert _facts("I can only use a batch size of 1; with 2 it runs out of memory")["batch_size"] == 2
    for text in ("只能跑batch_size=1", "最大只能开到bs 2", "It only fits with bs=2", "Could only go up to bs 4"):
        said = _facts(text)
        assert "batch_size" not in said, text
        assert said["resolved_by"] == "batch_size", text
    assert _facts("max_length只能设为512")["resolved_by"] == "max_length"
    # the run's own batch named before is kept; "only" with a count of cards or a model size is not a setting
    assert _facts("per_device_train_batch_size 4\nI can only use batch size 1")["batch_size"] == 4
    assert "resolved_by" not in _facts("只能用2张卡训练")
    assert "resolved_by" not in _facts("batch size不能只能设1")


def test_the_cards_switched_from_are_not_the_runs():
    """A card switch names two sets of cards: the run is on the ones switched to."""
    for said, count, name in (
        ("I switched from 2 A100s to a single RTX 4090 and now training runs out of memory", 1, "RTX 4090"),
        ("moved from 8 V100s to 2 A100s and it OOMs", 2, "A100"),
        ("从两张3090换成一张4090之后就爆显存了", 1, "RTX 4090"),
    ):
        read = facts(said)
        assert (read.get("gpu_count"), read.get("gpu_name"), read.get("last_change")) == (count, name, "gpus_or_launch")
