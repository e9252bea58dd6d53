"""Readings added for real reports, each tested on words from the corpus' development split.

The phrases below are (parts of) first posts of public threads in ``corpus/records``
whose URL hashes into the development split; the held-out split is never used here.
"""

from __future__ import annotations

import functools

import pytest

from triage.corpus import load_corpus
from triage.ingest.text import read_text


def facts(text: str) -> dict[str, object]:
    return {f.name: f.raw for f in read_text(text)}


@functools.cache
def dev_text() -> str:
    """Every development record's title and first post (the held-out split is never read here)."""
    return "\n".join(f"{r.title}\n{r.report}" for r in load_corpus() if r.split == "dev")


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # the phase in plain words
        ("每次对话显存占用都会增加几百Mb，请问除了重启程序有别的解决办法吗？", "phase", "generation"),
        ("我这边报内存不够，应该是显存不够的意思吧。目前测试的是推理。", "phase", "generation"),
        # LLaVA#228: the whole fp16 model was moved to one 16 GB card; the load, meant for inference, failed
        ("I just try to load the 7B model to make CLI inference, but I got OOM Error", "phase", "loading"),
        ("训练时显存还是够用的，但是一到eval_step设置的步数就爆OOM了", "phase", "evaluation"),
        ("Got an OOM error after the training finished, not sure why.", "phase", "saving"),
        ("合并 llama 和 lora 模型的时候，加载模型过程中就断开了", "phase", "merging"),
        ("Generate.py fails on `Loading checkpoint shards: 52%` with message `killed`.", "phase", "loading"),
        ("推理时模型加载Killed了，有人遇到过吗，训练是没问题的", "phase", "loading"),
        # a model named between "加载" and the failure; a start-up that fails
        ("启动app, 加载Qwen-72B-chat LLM model 出现OOM", "phase", "loading"),
        ("但是直接用web页面跑，会oom启动失败", "phase", "loading"),
        # the clause says fine-tuning is what ran out of memory
        ("OOM when fine-tune BART for summarization", "phase", "training"),
        ("Finetune提示out of memory", "phase", "training"),
        ("7b/6b模型 全参数 会溢出。", "phase", "training"),
        ("I fine-tuned llama and now inference runs out of memory", "phase", "generation"),
        ("2张卡训练报错 一直报torch.cuda.OutOfMemoryError: CUDA out of memory", "phase", "training"),
        ("多卡训练一直报OutOfMemoryError: CUDA out of memory.怎么回事", "phase", "training"),
        ("Long data length cause Cuda ouf of memory when DPO training", "phase", "training"),
        ("Can not finetune, OOM on v100 with batchsize 6", "phase", "training"),
        # inference named with what went wrong, or what was inferred
        ("利用4张80G A100，加载10s的视频，推理失败，提示显存不够，是什么原因", "phase", "generation"),
        ("部署后，前两张卡跑满，后两张卡几乎无占用，推理就会报显存溢出。", "phase", "generation"),
        ("MiniCPM-V2.5 推理显存暴涨10多G", "phase", "generation"),
        ("通过swift部署了Qwen2.5_vl之后，模型随着推理次数增加，显存不断增加", "phase", "generation"),
        ("我是用qwen2.5-vl-7b推理一个小时的长视频，使用4张24", "phase", "generation"),
        # host RAM, said in words
        ("进行chatglm2 ptuning时，sh train.sh超内存", "error_kind", "host_oom"),
        ("Generate.py fails on `Loading checkpoint shards: 52%` with message `killed`.", "error_kind", "host_oom"),
        ("使用lora方式微调，利用zero2时会卡住，内存一直升高直到崩溃", "error_kind", "host_oom"),
        # memory that grows
        ("运行chat.sh启动服务之后，在生成结果的时候，显存使用会持续增加，直至最后显存溢出", "memory_growth", "growing"),
        ("其中一张显卡的显存会无限增加直到out of memory", "memory_growth", "growing"),
        # the run trained for a while first
        ("用的是40g A100，总是跑了不到10个steps之后就报显存溢出的错误", "trained_before_oom", True),
        ("单卡（32G），chatglm2微调，微调了几个小时，OOM", "trained_before_oom", True),
        ("我用了4张A10显卡，总是训练一会显存就崩", "trained_before_oom", True),
        # the method, as configs and people say it
        ('"train_mode": "full",', "finetune_method", "full"),
        ("I want to continue pretraining Yi-34 with my domain dataset but I get OOM error", "finetune_method", "full"),
        ("I try to train a full 7B model with the DPO script on 4x4096", "finetune_method", "full"),
    ],
)
def test_reads_what_real_reports_say(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize(
    ("said", "fixed", "not_read"),
    [
        ("It works once I pass torch_dtype=torch.float16", "torch_dtype", "torch_dtype"),
        ("switching to load_in_4bit made it fit", "quantization", "quantization"),
        ("setting gradient_checkpointing=True solved it", "gradient_checkpointing", "gradient_checkpointing"),
        ("改成 batch size 1 就可以了", "batch_size", "batch_size"),
    ],
)
def test_what_fixed_the_run_is_evidence_not_the_failing_setting(said: str, fixed: str, not_read: str) -> None:
    got = facts(said)
    assert fixed in str(got.get("resolved_by", "")).split(",")
    assert not_read not in got


def test_a_setting_that_worked_is_not_the_failing_one() -> None:
    got = facts("Works fine with max_seq_length=2048 but I need long documents, so I set max_seq_length=8192")
    assert got["max_length"] == 8192


def test_a_pretrained_model_is_not_pretraining() -> None:
    assert "finetune_method" not in facts("用预训练模型推理")
    assert "finetune_method" not in facts("we use a pretrained model")


def test_gpu_memory_in_chinese_is_not_host_ram() -> None:
    assert facts("随着提问的问题的增多，GPU内存占用也会增加，内存会溢出").get("error_kind") != "host_oom"


@pytest.mark.parametrize(
    "said",
    [
        # BELLE#311, EAGLE#260: DeepSpeed's engine set-up places and partitions the model
        "基于deepspeed的全参微调时，总是在deepspeed.initialize发生OOM的问题，zero_stage指定为3",
        "已经把优化器和param offload到内存了，但是在deepspeed.initialize阶段还是oom了",
        # axolotl#3374
        "which previously worked with transformers 4.57.6 to OOM upon loading of model weights stage.",
        # Baichuan-7B#96, DeepSeek-V2#74: what loading alone left in use
        "采用官方推理代码，只加载模型后显存占用28G？",
        "为啥实际加载模型后，占用内存将近60多G呢。",
        # trlx#266, LMFlow#310, ChatGLM2-6B#619: where the error was raised, the start of the load
        'And the error is occurred in "rw_model.load_state_dict(torch.load(REWARD_CHECKPOINT_PATH))" line.',
        "I think it used too much memory at the beginning of the load model.",
        "第130行model = model.half()，采用cpu加载，造成超内存报错",
    ],
)
def test_loading_in_the_words_real_reports_use(said: str) -> None:
    assert facts(said).get("phase") == "loading"
    assert said in dev_text()


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        # the call in a pasted script is not where it failed; a failure after loading is in a later phase
        ("model_engine, optimizer, _, _ = deepspeed.initialize(model=model)\nOOM in loss.backward()", "backward"),
        ("加载模型后推理时OOM", "generation"),
        ("OOM on load balancing", None),
        ("the model loads fine; the error occurred in training_step", None),
        ("the OOM depends on loading the whole dataset into memory", None),
    ],
)
def test_loading_words_that_are_not_the_failing_load(said: str, phase: str | None) -> None:
    assert facts(said).get("phase") == phase


def test_the_phrases_above_come_from_the_development_split() -> None:
    """Guard: every report quoted in this file is a development record (the held-out split stays unread)."""
    dev = "\n".join(r.report for r in load_corpus() if r.split == "dev")
    for said in ("每次对话显存占用都会增加几百Mb", "跑了不到10个steps之后", "I want to continue pretraining Yi-34"):
        assert said in dev


@pytest.mark.parametrize(
    "said",
    [
        "memory in nvidia-smi keeps growing every step until it dies at step 1200",
        "显存一点点涨上去，最后 OOM",
    ],
)
def test_memory_growth_in_the_review_s_words(said: str) -> None:
    """Phrasings from the outside review of the first version (../shared/reviews), not from the corpus."""
    assert facts(said).get("memory_growth") == "growing"


def test_evaluation_starting_is_the_evaluation_phase() -> None:
    said = "training runs fine for the whole epoch but as soon as evaluation starts I get CUDA out of memory"
    assert facts(said).get("phase") == "evaluation"


def test_the_predict_method_and_testing_are_the_evaluation_phase() -> None:
    # transformers#30052 (development)
    said = "Trainer predict method throws out of memory error on GPT2 during testing"
    assert said in dev_text()
    assert facts(said).get("phase") == "evaluation"
    assert facts("OOM during testing").get("phase") == "evaluation"


@pytest.mark.parametrize(
    ("said", "count"),
    [
        ("training on 4xA100s", 4),  # the issue's example
        ("My hardware is 8 * A100 80GB and I used flash_attn", 8),
        ("i only have 4 x 4090 cards, but i can not run internvl-v1-5", 4),
        ("目前机器是有四张A100 40G显卡", 4),
        ("V100-32G * 8", 8),
        ("4块A100，160G的显存", 4),
        ("I have two Tesla T4 GPUs, 16 GB / pic.", 2),
    ],
)
def test_gpu_counts_beside_gpu_names(said: str, count: int) -> None:
    assert facts(said).get("gpu_count") == count


@pytest.mark.parametrize("said", ["on a single T4 with 16 GB", "a 3090 at step 4090", "batch 3090/10000"])
def test_a_model_number_is_never_a_gpu_count(said: str) -> None:
    assert facts(said).get("gpu_count") in (None, 1)


#: Phrases from development records that the readings below were written for (checked by the guard).
MORE_DEV_PHRASES = {
    "gpu_4_rtx2080": "我的服务器配置为4块 NVIDIA GeForce RTX 2080，显存为11264MiB",
    "gpu_4_rtx4090": "workstation that has 4 RTX 4090?",
    "llama65b": "单机内存为900G, 8张A100，加载llama65b模型时候，CPU内存溢出了",
    "qwen7b": "I tested qwen7b on single node with 8*A800 80g and 96g memory and got OOM.",
    "mixtral": 'model_id = "mistralai/Mixtral-8x7B-v0.1"',
    "chatglm": "同等参数下，chatglm可以微调，chatglm2就爆显存，是模型优化问题吗？",
    "able_to": "I was able to fine-tune 7B model with one A100-40G GPU but ran into OOM when fine-tuning 13B.",
    "can_use": "I can use deepseek-vl-7b on my RTX 3090 GPU wtih 24GB vRAM, but can't load deepseek-vl2-small model "
    "which only has 2.8b parameters",
    "successfully": "I just successfully ran a 72B model on 8*H800 cards.",
    "loading_base": "However, the job was killed halfway when it was loading the base model.",
    "transfer": "It gave OOM error while attempting to transfer the model on GPU.",
    "load_params": "发现使用8张显卡精调内存会在加载参数阶段爆掉",
    "train_when": "在训练自定义数据集的时候，使用10×A6000 (48G)",
    "trying_to_train": "I was trying to fine tune a LoRA for Gemma 4 E2B on an RTX 4090 (24 GB VRAM).",
    "eval_start": "The training was going fine (~15 GB of VRAM used), until it was hitting OOM all of the sudden when "
    "eval would start.",
    "crash_on_eval": "it was always crashing on eval.",
    "multi_card": "单卡训练的时候是可以正常训练的，相同参数的情况下多卡出现了OOM，"
    "单卡训练时有20GB的显存是盈余的，多卡会炸掉。",
    "two_cards": "单卡部署qwen-7b推理大概需要9g左右的显存，然后给他放到两张8g的卡上跑推理",
    "neicun_is_gpu": "我这边报内存不够，应该是显存不够的意思吧。",
    "spare": "每个卡剩余大概20G+",
}


@pytest.mark.parametrize(
    ("key", "name", "value"),
    [
        # GPU counts and memory, with vendor words and as nvidia-smi prints it
        ("gpu_4_rtx2080", "gpu_count", 4),
        ("gpu_4_rtx2080", "gpu_memory_bytes", 11 * 1024**3),
        ("gpu_4_rtx4090", "gpu_count", 4),
        ("successfully", "gpu_count", 8),
        # model names: glued sizes, mixtures of experts, a family with one size
        ("llama65b", "model_params_b", 65.0),
        ("qwen7b", "model_params_b", 7.0),
        ("mixtral", "model_params_b", 46.7),
        ("chatglm", "model_params_b", 6.0),
        # the model that worked is not the run's
        ("able_to", "model_params_b", 13.0),
        ("able_to", "gpu_name", "A100 40GB"),
        # the model that failed, sized by its card's total (the "2.8b" quoted is the mixture's activated count)
        ("can_use", "model_params_b", 16.1),
        # loading and training in plain words; the part of the run named wins over "training"
        ("llama65b", "phase", "loading"),
        ("loading_base", "phase", "loading"),
        ("transfer", "phase", "loading"),
        ("load_params", "phase", "loading"),
        ("load_params", "error_kind", "host_oom"),
        ("train_when", "phase", "training"),
        ("trying_to_train", "phase", "training"),
        ("eval_start", "phase", "evaluation"),
        ("crash_on_eval", "phase", "evaluation"),
        # several cards: a later count replaces "单卡"
        ("two_cards", "gpu_count", 2),
    ],
)
def test_reads_more_of_what_real_reports_say(key: str, name: str, value: object) -> None:
    assert facts(MORE_DEV_PHRASES[key]).get(name) == value


def test_the_part_of_the_run_named_later_wins_over_training() -> None:
    said = MORE_DEV_PHRASES["trying_to_train"] + "\n\n" + MORE_DEV_PHRASES["eval_start"]
    assert facts(said)["phase"] == "evaluation"


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("successfully", "model_params_b"),  # the 72B ran after the fix
        ("multi_card", "gpu_count"),  # 单卡 worked, 多卡 failed: how many not said
        ("multi_card", "gpu_memory_bytes"),  # 20GB spare, not the card's size
        ("spare", "gpu_memory_bytes"),
    ],
)
def test_does_not_read_what_real_reports_do_not_say(key: str, name: str) -> None:
    assert name not in facts(MORE_DEV_PHRASES[key])


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        ("How can I run llama-65b on 2 A100?", "model_params_b", 65.0),  # a question is not a fix
        ("I could not load llama-13b on a 3090", "model_params_b", 13.0),
        ("I can't run llama-65b on 2 A100", "gpu_count", 2),
        ("CPU内存不够，显存不够", "error_kind", "host_oom"),  # the host named: its 内存 is the host's
        ("显存够，但是内存不足", "error_kind", "host_oom"),
        ("跑的时候显存还有很多，内存不够被kill", "error_kind", "host_oom"),
        # gpt_academic#496 and Firefly#211 (development records): 显存 is what they speak of and no host memory is named
        # or sized, so the 内存 that ran out is the card's
        ("解析python大项目时用chatglm模型几乎全是内存溢出,我是3060 12G显存", "error_kind", "cuda_oom"),
        ("为什么我总是训练到一半告诉我内存不足，我用了4张A10显卡，总是训练一会显存就崩", "error_kind", "cuda_oom"),
        # LlamaFactory#1119 (development): the host's memory is sized, so its 内存 is the host's
        ("保存模型时候出错。内存640G，8卡，单卡显存48G，是内存不够的问题吗？", "error_kind", "host_oom"),
        ("模型加载完成后，开始训练就爆", "phase", "training"),
        ("训练完推理时爆显存", "phase", "generation"),
        ("单卡训练OOM", "gpu_count", 1),
        # ColossalAI#2246 (development): the card's hyphenated model number is not a count of a hundred GPUs
        ("I am using OPT code to try 30B model on 8 A-100 GPUs.", "gpu_count", 8),
        ("I am using OPT code to try 30B model on 8 A-100 GPUs.", "gpu_name", "A100"),
        ("单张4090", "gpu_count", 1),
        ("THUDM/glm-4-9b-chat", "model_params_b", 9.0),
        ("A100, 显存只有40G", "gpu_memory_bytes", 40 * 1024**3),
        ("RTX 3090, 被占用了15G显存", "gpu_memory_bytes", 24 * 1024**3),
    ],
)
def test_new_readings_stay_in_their_lane(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize("said", ["RTX 3090 24GB", "Python 3 and RTX 3090", "batch 3090/10000", "GPU 0 has 24 GiB"])
def test_new_gpu_count_prefixes_read_no_count_from_a_size_or_model_number(said: str) -> None:
    assert facts(said).get("gpu_count") in (None, 1)


def test_the_new_phrases_come_from_the_development_split() -> None:
    dev = "\n".join(r.report for r in load_corpus() if r.split == "dev")
    for said in MORE_DEV_PHRASES.values():
        assert said in dev


def test_what_was_switched_to_and_failed_is_the_run_s_setting() -> None:
    """'换成 X 就爆显存了' names the failing run's X; 'SFT 能正常跑' names what worked (the case in
    knowledge/causes/multi_model/dpo-reference-model-copy.cases.yaml)."""
    got = facts("同一张卡上 SFT 能正常跑，换成 DPO 就爆显存了")
    assert got["trainer_type"] == "dpo"
    assert facts("switching to zero3 still OOMs").get("zero_stage") == "3"
    assert "batch_size" in str(facts("改成 batch size 1 就可以了").get("resolved_by"))


#: More development-record phrases: launchers and configs, model parallel, LoRA flags and scripts, chat.
LAUNCH_DEV_PHRASES = {
    "ds_launcher": "deepspeed --include localhost:2 --master_port=$MASTER_PORT src/train_bash.py \\",
    "ds_config": "deepspeed配置如下：",
    "ds_zh": "所以想着用deepspeed双卡4bit LoRA+FlashAttention2微调的方式",
    "model_parallel": "上面都是在模型并行参数开启下跑的。",
    "lora_script": "CUDA_VISIBLE_DEVICES=4 python baichuan_lora_tuning.py \\",
    "lora_sh": "GPUS=1 BATCH_SIZE=1 PER_DEVICE_BATCH_SIZE=1 sh "
    "internvl2_8b_internlm2_7b_dynamic_res_2nd_finetune_lora.sh",
    "chat": "可以打开但是只要开始聊天就报显存溢出错误",
    "count_size_name": "根据案例尝试在8*80G A100上做全量微调",
    "visible": "设置的是 CUDA_VISIBLE_DEVICES=2,3,4,5，也一直在用 gpu 0， 重启也没效果。",
    "set_then_fails": "如果我设置batch-size为16，一会儿就出现out of memory。",
    "size_times_count": "would cause OOM for a GPU node with 80G*8 VRAM. So decrease it from 0.7 to 0.6.",
    "zh_quant": "并在运行脚本时添加了 --quatization_bit 4 进行量化，可是系统日志显示占用了9个多G的显存",
    "not_a_hub_id": "config mitigations (Ulysses SP, param/optimizer offload, lower `gpu_memory_utilization`",
}


@pytest.mark.parametrize(
    ("key", "name", "value"),
    [
        ("ds_launcher", "distributed", "deepspeed"),
        ("ds_config", "distributed", "deepspeed"),
        ("ds_zh", "distributed", "deepspeed"),
        ("model_parallel", "distributed", "model_parallel"),
        ("lora_script", "finetune_method", "lora"),
        ("lora_sh", "finetune_method", "lora"),
        ("lora_sh", "gpu_count", 1),
        ("chat", "phase", "generation"),
        ("count_size_name", "gpu_count", 8),
        ("visible", "gpu_count", 4),  # '设置的是 X' states the setting; it is not what fixed the run
        ("set_then_fails", "batch_size", "16"),  # as written; typed when it becomes a fact
        ("size_times_count", "gpu_count", 8),
        ("size_times_count", "gpu_memory_bytes", 80 * 1024**3),
        ("zh_quant", "quantization", "4bit"),
    ],
)
def test_reads_launchers_configs_and_scripts(key: str, name: str, value: object) -> None:
    assert facts(LAUNCH_DEV_PHRASES[key]).get(name) == value


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("不用deepspeed", "distributed"),
        ("do I need deepspeed?", "distributed"),
        ("我没有用模型并行", "distributed"),
        ("python generate.py --lora_path ./adapter", "finetune_method"),  # an adapter loaded to generate
        ("聊天记录很长", "phase"),
        ("config mitigations (Ulysses SP, param/optimizer offload", "model_name"),
        ("per_device_train_batch_size 4 量化后", "quantization"),
        ("the dataset is 100G*3 files", "gpu_count"),
    ],
)
def test_launcher_and_script_readings_stay_silent_elsewhere(said: str, name: str) -> None:
    assert name not in facts(said)


def test_the_launcher_phrases_come_from_the_development_split() -> None:
    dev = "\n".join(r.report for r in load_corpus() if r.split == "dev")
    for said in LAUNCH_DEV_PHRASES.values():
        assert said in dev


@pytest.mark.parametrize(
    ("said", "name", "value", "resolved_by"),
    [
        ("-- Increase batch size from 1 to 4", "batch_size", 1, None),  # a dev record (oumi-ai/oumi#854)
        # the same family in the words people use (not corpus quotes): the failing run had the first value
        ("batch size从8改成2就能跑了", "batch_size", 8, "batch_size"),
        ("I reduced max_length from 4096 to 2048 and it works now", "max_length", 4096, "max_length"),
        # ... unless the change did not help: then the latest run had the second
        ("I reduced batch size from 8 to 1 but still OOM", "batch_size", 1, None),
        ("cutoff_len从4096降到2048还是爆显存", "max_length", 2048, None),
    ],
)
def test_a_setting_changed_from_one_value_to_another(said: str, name: str, value: int, resolved_by: str | None) -> None:
    got = facts(said)
    assert got.get(name) == value
    assert got.get("resolved_by") == resolved_by


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        ("只要一评估就爆显存", "phase", "evaluation"),
        ("模型还没加载完就OOM了", "phase", "loading"),
        ("关掉梯度检查点后OOM", "gradient_checkpointing", False),
        ("开启了flash attention", "attn_implementation", "flash_attention_2"),  # a statement, not a fix
    ],
)
def test_more_chinese_phrasings(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize(
    ("said", "fixed"),
    [
        ("开启flash attention后就可以了", "attn_implementation"),
        ("把max_length改成1024之后就不OOM了", "max_length"),
    ],
)
def test_a_setting_followed_by_it_worked_is_still_a_fix(said: str, fixed: str) -> None:
    got = facts(said)
    assert got.get("resolved_by") == fixed
    assert fixed not in got


def test_a_change_said_without_an_outcome_is_not_a_fix() -> None:
    assert "resolved_by" not in facts("batch size从8改成2")
    assert "resolved_by" not in facts("模型加载完成后开始评估")


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # the issue's own illustrations of what reports say (not corpus quotes)
        ("another process is using 10GB on GPU 0", "other_process_bytes", 10 * 1024**3),
        ("it crashes halfway through the first epoch", "trained_before_oom", True),
    ],
)
def test_memory_in_use_and_a_run_that_trained_first(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize(
    "said", ["another process is using 10GB on GPU 0", "24GB used by another process", "only 6GB free on the card"]
)
def test_memory_in_use_or_free_is_not_the_card_s_size(said: str) -> None:
    assert "gpu_memory_bytes" not in facts(said)


#: Dev-record phrases for ZeRO offload in one word and LLaMA-Factory's export (a merge).
OFFLOAD_EXPORT_DEV_PHRASES = {
    "z3_offload_worked": "使用ds_z3_config.json会OOM，但是使用ds_z3_offload_config.json就可以跑起来",
    "export": "llamafactory-cli export  一直在用 gpu 0，并且报错oom",
}


def test_zero_offload_that_worked_is_the_fix_and_export_is_a_merge() -> None:
    got = facts(OFFLOAD_EXPORT_DEV_PHRASES["z3_offload_worked"])
    assert got["zero_stage"] == "3"
    assert got["resolved_by"] == "offload"
    assert facts(OFFLOAD_EXPORT_DEV_PHRASES["export"])["phase"] == "merging"
    dev = "\n".join(r.report for r in load_corpus() if r.split == "dev")
    for said in OFFLOAD_EXPORT_DEV_PHRASES.values():
        assert said in dev


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # the phrasing family in general words (not corpus quotes)
        ("用的zero3+offload还是OOM", "offload", True),
        ("每个step显存都在增长", "memory_growth", "growing"),
        ("训练几百步后OOM", "trained_before_oom", True),
        ("predict的时候OOM", "phase", "evaluation"),
        ("导出模型时爆显存", "phase", "merging"),
        ("不用zero3 offload", "offload", False),
    ],
)
def test_offload_growth_and_phases_in_chinese(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize(("said", "name"), [("每个batch大小为4", "memory_growth"), ("导出的数据集很大", "phase")])
def test_offload_growth_and_phases_stay_silent_elsewhere(said: str, name: str) -> None:
    assert name not in facts(said)


@pytest.mark.parametrize(
    ("said", "fixed"),
    [
        # what made it work, in more of the words people use (the issue's illustrations, not corpus quotes)
        ("enabling gradient checkpointing helped", "gradient_checkpointing"),
        ("After upgrading transformers to 4.40 the OOM is gone", "transformers_version"),
        ("the OOM went away after I set use_cache=False", "use_cache"),
        ("降低cutoff_len到1024之后正常了", "max_length"),
        ("no OOM when I disable packing", "packing"),
    ],
)
def test_what_made_it_work_in_more_words(said: str, fixed: str) -> None:
    assert facts(said).get("resolved_by") == fixed


def test_the_setting_that_worked_is_set_aside_and_the_failing_one_read() -> None:
    assert facts("it works on an A100 but OOMs on my 3090")["gpu_name"] == "RTX 3090"
    assert facts("works with llama-7b, OOM with llama-13b")["model_params_b"] == 13.0
    assert facts("no OOM when I disable packing")["packing"] is True  # the failing run packed
    assert "resolved_by" not in facts("改成 zero3，还是 OOM")


@pytest.mark.parametrize(
    ("said", "count"),
    [
        ("I can train with bs=8 on one GPU but bs=8 on two GPUs OOMs", 2),
        ("8 NVIDIA A100 GPUs", 8),
        ("I have 2 GPUs", 2),
    ],
)
def test_a_batch_size_before_on_one_gpu_is_not_a_gpu_count(said: str, count: int) -> None:
    assert facts(said)["gpu_count"] == count


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # hardware as Chinese reports write it (the phrasing family, not corpus quotes)
        ("RTX3090*2", "gpu_count", 2),
        ("4090两张", "gpu_count", 2),
        ("显卡3090两张", "gpu_count", 2),
        ("T4 16G单卡", "gpu_count", 1),
        ("用deepspeed双卡", "gpu_count", 2),
    ],
)
def test_gpu_counts_after_the_name_and_glued_series(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("昇腾910B上训练", "model_params_b"),
        ("我使用的是8卡910B的机器", "model_params_b"),  # the NPU named alone, no 昇腾 before it
        ("on 910B2 nodes", "model_params_b"),
        ("程序简单卡住了", "gpu_count"),
        ("3090/10000 steps", "gpu_count"),
    ],
)
def test_npu_names_and_stuck_programs_are_not_sizes_or_counts(said: str, name: str) -> None:
    assert name not in facts(said)


@pytest.mark.parametrize(
    "said",
    [
        "gradient checkpointing has no effect on the transformers path",
        "gradient_checkpointing is silently ignored by the trainer",
        "gradient checkpointing 好像没生效",
    ],
)
def test_a_setting_said_to_have_no_effect_is_set_but_inactive(said: str) -> None:
    got = facts(said)
    assert (got.get("gradient_checkpointing"), got.get("gc_active")) == (True, False)


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        # discuss.huggingface.co T0pp thread (development split): the load is the step, inference its purpose
        ("How to load such a big model (42Gb checkpoint) into 40Gb of A100 ram (just for inference)?", "loading"),
        ("after loading the model for inference, generate() runs out of memory", "generation"),
    ],
)
def test_inference_as_the_models_purpose_is_not_the_generation_phase(said: str, phase: str) -> None:
    assert facts(said).get("phase") == phase


@pytest.mark.parametrize(
    ("said", "gib"),
    [
        ("只加载模型后显存占用28G？", 28.0),
        ("我注意到BELLE-7B-2M需要占用24G显存", 24.0),
        ("显存占用达到了 23.5GB", 23.5),
        ("Just loading it, nvidia-smi says it uses about 30GB of VRAM", 30.0),
        ("finetune llama2-7b costs 64GB GPU mem", 64.0),
        # api-for-open-llm#38 (development): "the amount used" (占用量), twice what the 13B model alone takes
        ("服务正常，但是总显存占用量达到了 50 GB 左右，相比单独加载的13B模型，显存占用量翻倍", 50.0),
    ],
)
def test_memory_seen_in_use_is_read_as_used_not_as_the_cards(said: str, gib: float) -> None:
    got = facts(said)
    assert got.get("used_memory_bytes") == int(gib * 2**30)
    assert "gpu_memory_bytes" not in got


@pytest.mark.parametrize(
    "said",
    [
        "another process is using 10GB",
        "被占用了15G显存",
        "it used 60GB of RAM",
        "3090，64G内存",
        "I have a 24GB GPU",
        "我用了24G的显卡跑7B",  # the card used, not memory seen in use
        "using 24GB GPUs for a 7B model",
    ],
)
def test_someone_elses_use_host_memory_and_a_cards_size_are_not_memory_seen_in_use(said: str) -> None:
    assert "used_memory_bytes" not in facts(said)


@pytest.mark.parametrize(
    ("said", "name", "size"),
    [("Qwen2.5vl32B merge lora OOM问题", "qwen2.5vl-32b", 32.0), ("qwen2coder7b 爆显存", "qwen2coder-7b", 7.0)],
)
def test_a_glued_name_with_version_and_variant_gives_the_size(said: str, name: str, size: float) -> None:
    got = facts(said)
    assert (got.get("model_name"), got.get("model_params_b")) == (name, size)


@pytest.mark.parametrize(
    ("said", "values"),
    [
        # the batch already lowered, said as a change of value, with the OOM still there
        (
            "我已经将per_device_train_batch_size和per_device_eval_batch_size调到1了，但仍然提示说显存不够",
            {"batch_size": 1, "eval_batch_size": 1},
        ),
        ("为什么我batch_size调到了1,24g的显存还是不够", {"batch_size": 1}),
        ("I reduced batch size down to 1 and it still OOMs", {"batch_size": 1}),
        ("batch size already set to 1, still out of memory", {"batch_size": 1}),
    ],
)
def test_a_batch_lowered_to_a_value_is_the_runs_setting(said: str, values: dict[str, object]) -> None:
    got = facts(said)
    assert {k: str(got.get(k)) for k in values} == {k: str(v) for k, v in values.items()}


def test_a_batch_lowered_in_a_fix_clause_is_what_made_it_work() -> None:
    got = facts("batch size 改成 1 就能跑了")
    assert got.get("resolved_by") == "batch_size" and "batch_size" not in got


@pytest.mark.parametrize(
    "said",
    [
        "7b/6b模型 全参数 会溢出。batch_size=4 A100-80G",  # a setting's value before a GPU name
        "The processes that were spun up on GPUs 1, 2, and 3 are using almost a GB each of space on GPU0.",
    ],
)
def test_setting_values_and_gpu_ids_are_not_gpu_counts(said: str) -> None:
    assert "gpu_count" not in facts(said)


@pytest.mark.parametrize(("said", "count"), [("GPUS=4 bash run.sh", 4), ("torchrun --nproc_per_node 8 train.py", 8)])
def test_launcher_gpu_counts_still_read(said: str, count: int) -> None:
    assert facts(said)["gpu_count"] == count


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # words of development-split records
        ("推理时模型加载Killed了，有人遇到过吗，训练是没问题的", "error_kind", "host_oom"),
        ("OOM with 64G ram and 13B model", "error_kind", "host_oom"),
        (
            "whenever I try to resume the training from a checkpoint I get the GPU out of memory error",
            "resume_from_checkpoint",
            True,
        ),
        ("I checked the config, the max batch size is already set to 1", "batch_size", "1"),
        ("ppo baichuan-7b的时候显存溢出", "trainer_type", "ppo"),
        ("长度已改成4096，batch改成1，总是训着就爆显存了", "max_length", 4096),
    ],
)
def test_more_phrasings_of_real_reports(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize(
    ("said", "name"), [("the model was not killed", "error_kind"), ("output/dpo/ckpt", "trainer_type")]
)
def test_negations_and_paths_are_not_read(said: str, name: str) -> None:
    assert name not in facts(said)


def test_a_setting_shared_with_the_run_that_worked_is_not_what_changed() -> None:
    # huggingface/accelerate#1786 (development split): one GPU at batch 8 works, two GPUs at the same batch OOM
    got = facts(
        "Why I run my script on one GPU at batch_size 8,nothing happened, I use the accelerate launch my script "
        "on 2 GPU at same batch_size, both process terminate because CUDA out of Memory."
    )
    assert got["gpu_count"] == 2
    assert str(got["batch_size"]) == "8"
    assert got["resolved_by"] == "gpu_count"


@pytest.mark.parametrize(
    ("said", "name"),
    [("对 minicpm-v-2.6 做视频问答微调", "minicpm-v-2.6"), ("InternVL2.5 evaluation OOM", "InternVL2.5")],
)
def test_a_vision_language_model_named_without_its_size(said: str, name: str) -> None:
    # development-split records: modelscope/ms-swift#3849, OpenGVLab/InternVL#974
    assert facts(said)["model_name"] == name


def test_a_source_path_is_not_a_model_name() -> None:
    assert "model_name" not in facts("see llava/train.py")


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("训练时爆显存了", "cuda_oom"),
        ("I tried training the 13B model, and ran out of VRAM on my 24GB card.", "cuda_oom"),
        ("在合并模型的时候出现 Killed 输出", "host_oom"),
    ],
)
def test_the_memory_that_ran_out_said_in_words(said: str, kind: str) -> None:
    # development-split records: tloen/alpaca-lora#28, ymcui/Chinese-LLaMA-Alpaca#70
    assert facts(said)["error_kind"] == kind


def test_a_question_about_vram_is_not_a_statement() -> None:
    assert "error_kind" not in facts("加载模型过程中就断开了，这是什么问题，是我的显存不够吗？")


#: Development-split quotes for the readings of the fourth December session, and the record each is from.
FOURTH_SESSION_QUOTES = {
    "shibing624/MedicalGPT#169": "RTX4090跑不动训练好的医疗百川13B模型在gradio上",
    "SafeAILab/EAGLE#260": "72B的模型单卡80GB无法正常训练是肯定的",
    "zai-org/VisualGLM-6B#80": "运行微调文件，bash finetune/finetune_visualglm.sh，总是报错CUDA out of memory",
    "huggingface/trl#2819": "setting batch_size to 1 etc.",
}


def test_a_card_glued_to_its_series_before_chinese_is_read() -> None:
    # "RTX4090跑不动": in Unicode mode there is no word boundary between "0" and "跑"
    got = facts(FOURTH_SESSION_QUOTES["shibing624/MedicalGPT#169"])
    assert got["gpu_name"] == "RTX 4090"
    assert got["model_params_b"] == 13.0


@pytest.mark.parametrize(
    ("said", "gib"),
    [
        (FOURTH_SESSION_QUOTES["SafeAILab/EAGLE#260"], 80),
        ("每张卡只有24G显存", 24),
        ("4 GPUs with 24GB each", 24),
        ("each GPU has 40GB of memory", 40),
    ],
)
def test_each_card_s_memory_said_with_the_card(said: str, gib: int) -> None:
    assert facts(said)["gpu_memory_bytes"] == gib * 1024**3


def test_a_script_named_after_a_model_is_not_the_model() -> None:
    assert "model_name" not in facts(FOURTH_SESSION_QUOTES["zai-org/VisualGLM-6B#80"])
    assert "model_name" not in facts("python scripts/qwen_finetune.py --lr 1e-4")  # not cut to "scripts/qwen_finetune"
    assert facts("model Qwen/Qwen2.5-7B.")["model_name"] == "Qwen/Qwen2.5-7B"


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (FOURTH_SESSION_QUOTES["huggingface/trl#2819"], {"batch_size": 1}),
        (
            "I already tried reducing the batch size to 1 and enabling gradient checkpointing, still OOM",
            {"batch_size": 1, "gradient_checkpointing": True},
        ),
        ("Tried lowering max_length to 512, still OOM", {"max_length": 512}),
    ],
)
def test_what_was_tried_and_still_failed_is_the_run_s_setting(said: str, values: dict[str, object]) -> None:
    got = facts(said)
    for name, value in values.items():
        assert str(got[name]) == str(value)
    assert "resolved_by" not in got


def test_a_change_that_fixed_it_is_still_not_the_failing_setting() -> None:
    got = facts("reducing batch size to 1 fixed it")
    assert "batch_size" not in got
    assert got["resolved_by"] == "batch_size"


def test_the_fourth_session_quotes_come_from_the_development_split() -> None:
    dev = dev_text()
    for said in FOURTH_SESSION_QUOTES.values():
        assert said in dev


@pytest.mark.parametrize(
    ("name", "fact"),
    [
        ("max sequence length", "max_length"),
        ("max_sequence_len", "max_length"),
        ("Max Seq Length", "max_length"),
        ("cutoff_len", "max_length"),
        ("序列长度", "max_length"),
        ("micro batch size", "batch_size"),
        ("per device train batch size", "batch_size"),
        ("批大小", "batch_size"),
        ("gradient accumulation steps", "grad_accum"),
        ("lora rank", "lora_r"),
    ],
)
def test_every_spelling_of_a_changed_setting_is_read(name: str, fact: str) -> None:
    # an unseen report wrote "max sequence length from ... to ...", which once crashed the reader
    got = facts(f"I changed the {name} from 4096 to 2048 and it still OOMs")
    assert str(got[fact]) == "2048"


def test_inference_at_a_long_context_is_the_generation_phase() -> None:
    # 01-ai/Yi#59 (development split)
    got = facts("请问推理200k上下文需要多大的资源？看模型文件，没看到常规的提升长度手段")
    assert got["phase"] == "generation"
    assert got["max_length"] == 200000
    assert "请问推理200k上下文需要多大的资源" in "\n".join(r.report for r in load_corpus() if r.split == "dev")


@pytest.mark.parametrize(
    ("said", "count"),
    [
        ("deepspeed --include localhost:2 --master_port=$MASTER_PORT src/train_bash.py \\", 1),
        ("deepspeed --include localhost:0,1,2,3 train.py", 4),
    ],
)
def test_deepspeed_include_names_the_gpus_it_uses(said: str, count: int) -> None:
    # the first is hiyouga/LlamaFactory#945 (development split): one GPU, so ZeRO partitions nothing
    assert facts(said)["gpu_count"] == count
    assert "deepspeed --include localhost:2 --master_port=$MASTER_PORT" in "\n".join(
        r.report for r in load_corpus() if r.split == "dev"
    )


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        # baichuan-inc/Baichuan2#119: keyword arguments glued by commas, the value ends at the comma
        (
            'from_pretrained("x", device_map="auto",torch_dtype=torch.bfloat16,trust_remote_code=True)',
            {"torch_dtype": "bf16"},
        ),
        (
            "TrainingArguments(per_device_train_batch_size=4,gradient_accumulation_steps=8)",
            {"batch_size": 4, "grad_accum": 8},
        ),
        # a list value keeps its commas
        ("--lora_target q_proj,v_proj", {"lora_target_modules": "q_proj,v_proj"}),
        # QwenLM/Qwen3-VL#144: "X是Y"
        ("视频推理，GPU型号是V100，torch_dtype是float16", {"torch_dtype": "fp16"}),
        ("torch_dtype是float16的", {"torch_dtype": "fp16"}),
    ],
)
def test_settings_glued_by_commas_or_said_with_shi(said: str, expected: dict[str, object]) -> None:
    got = facts(said)
    assert {k: got.get(k) for k in expected} == expected


def test_a_question_about_a_setting_is_not_its_value() -> None:
    assert "batch_size" not in facts("batch_size是多少合适？")


def test_the_comma_and_shi_phrases_come_from_the_development_split() -> None:
    dev = "\n".join(r.report for r in load_corpus() if r.split == "dev")
    for said in ('device_map="auto",torch_dtype=torch.bfloat16,trust_remote_code=True)', "torch_dtype是float16"):
        assert said in dev


@pytest.mark.parametrize(
    ("said", "tokens"),
    [
        ("OOM with a 4k context", 4096),
        ("128k context on two H100s", 131072),
        ("32K tokens per sample", 32768),
        # THUDM/LongBench#17 and gke-labs/open-rl#99 (development split): counts people round, not windows
        ("length 20k", 20000),
        ("For 13k-token sequences this accumulates", 13000),
    ],
)
def test_thousands_of_tokens_are_1024_only_for_a_power_of_two(said: str, tokens: int) -> None:
    assert facts(said)["max_length"] == tokens


@pytest.mark.parametrize(
    ("said", "count"),
    [
        ("卡：8机*8卡A100", 64),  # modelscope/ms-swift#6966 (development split)
        ("两个8卡A100，memory 1.8T * 2 训llama3-70b（长度8192）", 16),  # hiyouga/LlamaFactory#4156 (development split)
        ("两台8卡机器训练", 16),
        ("2 nodes x 8 GPUs", 16),
        ("4 nodes, 8 H100 each", 32),
        ("单机8卡A100", 8),
        ("1机8卡", 8),
    ],
)
def test_machines_times_their_cards(said: str, count: int) -> None:
    assert facts(said)["gpu_count"] == count


@pytest.mark.parametrize(
    "said",
    [
        "Can I enable gradient checkpointing to fix this?",
        "Should I use gradient checkpointing?",
        "可以开启gradient_checkpointing吗",
        # GanjinZero/RRHF#41 (development split): asking whether to turn it on, so the run had it off or unsaid
        "以及RRHF的训练可以使用两张A100，打开gradient_checkpointing来实现吗？",
        # deepspeedai/DeepSpeed#3355 (development split): a log's suggestion is not the run's setting
        "For all steps, it suggests me to use --gradient_checkpointing to resolve the out of memory error",
        "is it possible to use load_in_4bit here?",
        "Do I need to set batch_size=1?",
        # ChatGLM3#117 (development split): a 4-bit build wanted and not found; the run loaded the 16-bit one
        "按照2的时候的思路，需要一个4Bit版本，但是目前没找到。",
        "I am looking for a 4bit version of this model",
    ],
)
def test_a_setting_asked_about_or_suggested_is_not_the_run_s(said: str) -> None:
    got = facts(said)
    assert not {"gradient_checkpointing", "quantization", "batch_size"} & set(got)


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        ("Why does batch_size=8 OOM on my 4090?", "batch_size", "8"),
        ("batch_size=4，怎么还是爆显存？", "batch_size", "4"),
        ("gradient_checkpointing 已经开启了，为什么还是OOM？", "gradient_checkpointing", True),
        ("I set gradient_checkpointing=True. How can I reduce memory further?", "gradient_checkpointing", True),
        ("Can I fine-tune llama-70b with qlora on one 4090?", "finetune_method", "qlora"),
    ],
)
def test_a_question_that_states_the_run_s_setting_still_reads_it(said: str, name: str, value: object) -> None:
    assert facts(said)[name] == value


def test_the_node_and_question_phrases_come_from_the_development_split() -> None:
    dev = "\n".join(r.report for r in load_corpus() if r.split == "dev")
    for said in (
        "8机*8卡A100",
        "两个8卡A100",
        "打开gradient_checkpointing来实现吗",
        "it suggests me to use --gradient_checkpointing",
    ):
        assert said in dev


@pytest.mark.parametrize(("said", "count"), [("llama2 8卡A100", 8), ("llama 2 8卡A100", 8), ("qwen2.5 8卡A100训练", 8)])
def test_a_model_s_version_before_the_cards_is_not_a_machine_count(said: str, count: int) -> None:
    assert facts(said)["gpu_count"] == count


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        ("How to fix OOM with gradient_checkpointing=True?", "gradient_checkpointing", True),
        ("How can I reduce memory when using batch_size=8?", "batch_size", "8"),
    ],
)
def test_a_setting_the_run_has_inside_a_how_question_is_read(said: str, name: str, value: object) -> None:
    assert facts(said)[name] == value


@pytest.mark.parametrize(
    "said",
    [
        # deepspeedai/DeepSpeed#2797 (development split): prose after the word "optim" is not an optimizer's name
        "I know that's only for weights+grads+optim states, but my assumption would be that with offloading",
        "the optim state is sharded by ZeRO-2",
    ],
)
def test_optim_followed_by_prose_is_not_an_optimizer(said: str) -> None:
    assert "optimizer" not in facts(said)


@pytest.mark.parametrize(
    ("said", "value"),
    [("--optim paged_adamw_8bit", "paged_adamw_8bit"), ("optim: adafactor", "adafactor"), ("optim sgd", "sgd")],
)
def test_an_optimizer_named_after_optim_is_read(said: str, value: str) -> None:
    assert facts(said)["optimizer"] == value


@pytest.mark.parametrize(
    "said",
    [
        # development-split reports whose threads say the failure was in training, not inference
        "我现在的文章稳定在2w字左右，其实这个长度推理是没问题的，但是做微调就立马爆",
        "目前打算在V100 16G 4卡微调，但是报错，推理没有问题。",
    ],
)
def test_inference_said_to_work_is_not_the_phase(said: str) -> None:
    assert facts(said).get("phase") != "generation"


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # a command line's flags, with underscores or hyphens, quoted values and a backquoted key
        ("    --output_dir outputdir \\\n    --batch_size 1 \\\n    --token_batch 10 \\", "batch_size", 1),
        ("- `--batch-size 1`\n- `--lora-layers 16`", "batch_size", 1),
        ('The batch size are: batch_size="1" eval_batch_size="1"', "batch_size", 1),
        ("I've tried to minimize the `per_device_train_batch_size` to 1 but still run into it.", "batch_size", 1),
        ("- global_train_batch_size = 1 - device_train_microbatch_size = 1", "batch_size", 1),
        # Chinese: "all set to", "already is"
        ("MODEL_MAX_Length设置为1024，max_slice_nums设置为1，batch_size都为1。", "batch_size", 1),
        ("没有使用lora和ptv2，training batch size已经是1了，9w条对话", "batch_size", 1),
        # the method said by a flag, a script's name or "全量训练"
        ("python llava/train/train.py \\\n    --lora_enable True \\", "finetune_method", "lora"),
        ("    --tensor_parallel_degree 2 \\\n    --lora True", "finetune_method", "lora"),
        ("    --use_lora 'true'  \\", "finetune_method", "lora"),
        ("按照官方提供的脚本执行：bash finetune_cogagent_lora.sh", "finetune_method", "lora"),
        ("--sft_type lora --tuner_backend peft", "finetune_method", "lora"),
        ("finetune/finetune_qlora_single_gpu.sh: line 39: 2810536 Killed。", "finetune_method", "qlora"),
        ("全量训练的时候修改什么参数，能降低显存的使用", "finetune_method", "full"),
        ("qwen1.5-4b全量训练8*80G显卡batch设为1会爆显存", "finetune_method", "full"),
        # an evaluation harness evaluates; its batch is the evaluation batch
        ("lm_eval --model hf \\\n\t--tasks mmlu \\\n\t--batch_size 32 \\", "eval_batch_size", 32),
        ("lm_eval --model hf \\\n\t--tasks mmlu \\\n\t--batch_size 32 \\", "phase", "evaluation"),
        ("when MMLU eval, num_few_shot=5, more GPU overhead", "phase", "evaluation"),
    ],
)
def test_flags_and_plain_words_of_development_reports(said: str, name: str, value: object) -> None:
    assert str(facts(said)[name]) == str(value)  # as written; typed when it becomes a fact


@pytest.mark.parametrize(
    ("said", "absent"),
    [
        ("--eval-batch-size 8", "batch_size"),
        ("全量数据训练", "finetune_method"),
        ("--lora False", "finetune_method"),
        ("lm_eval --model hf --tasks mmlu --batch_size 32", "batch_size"),
        ("see https://github.com/EleutherAI/lm-evaluation-harness/issues/1", "phase"),
    ],
)
def test_what_those_readings_leave_alone(said: str, absent: str) -> None:
    assert absent not in facts(said)


def test_a_phase_the_post_states_wins_over_the_harness_command() -> None:
    read = facts("lm_eval --model hf --tasks mmlu_pro --batch-size 1\ncrashes during generation:")
    assert read["phase"] == "generation"


@pytest.mark.parametrize(
    "said",
    [
        "Why does the model quantization prompt KILLED at the end?",
        "it seems like using HQQModelForCausalLM.from_pretrained cant load the model using device_map or load in GPU "
        "causing the computer crash due to not enough RAM.",
        "the script just shows Killed",
        "RAM is not enough to load the shards",
    ],
)
def test_host_ram_said_in_words_of_development_reports(said: str) -> None:
    assert facts(said)["error_kind"] == "host_oom"


@pytest.mark.parametrize("said", ["not enough GPU memory for the batch", "the killed processes were restarted"])
def test_gpu_memory_or_a_lowercase_killed_in_prose_is_not_host_ram(said: str) -> None:
    assert facts(said).get("error_kind") != "host_oom"


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        # Chinese "<phase> ... <ran out>" with words between, and the typo 现存 for 显存
        ("使用finetune_chat.py 微调13B 模型，显存爆了，微调13B需要多少显存", "training"),
        ("在微调这总是会因为文章内容太长OOM", "training"),
        ("使用baichuan2-7B-base运行PPO，已经将batch调到最小但是还是爆显存溢出", "training"),
        ("A100x8x80G dpo train yi34b 显示现存不够", "training"),
        ("PPO阶段显存一直增长", "training"),
        ("python finetune.py --test_size 9  训练报错\nOutOfMemoryError", "training"),
        ("用infer.sh脚本推理长视频（>5min）总是报OOM错误", "generation"),
        ("在32G GPU上跑aquila-7B推理的示例代码显示out of memory", "generation"),
        ("本地知识库只能问一个问题，问第二个就出现：torch.cuda.OutOfMemoryError", "generation"),
        ("合并QLoRA权重报Cuda out of memory", "merging"),
        ("代码添加了int8量化，启动的时候还是报错现存不足", "loading"),
        # another phase named first in the sentence is the one that failed
        ("训练正常，推理时显存不足", "generation"),
    ],
)
def test_chinese_phase_with_words_between_of_development_reports(said: str, phase: str) -> None:
    assert facts(said)["phase"] == phase


@pytest.mark.parametrize(
    "said",
    [
        "其实这个长度推理是没问题的，但是做微调就立马爆",  # inference said to work is not the phase
        "再使用full或者lora对这个合并的模型继续训sft就会显存溢出了",  # "the merged model" is trained, not merged
        "模型量化导出报错：torch.cuda.OutOfMemoryError",  # a quantized export calibrates, it does not merge
    ],
)
def test_what_the_chinese_phase_readings_leave_alone(said: str) -> None:
    assert facts(said).get("phase") not in ("generation", "merging")


def test_training_on_and_on_is_a_run_that_trained_first() -> None:
    read = facts("四卡，batch开32，开了gradient_checkpointing，训着训着会突然OOM")
    assert read["phase"] == "training"
    assert read["trained_before_oom"] is True


@pytest.mark.parametrize(
    "said",
    [
        "我在加载了模型问答后，随着我问答的次数增多，GPU的显存会一直慢慢增加",
        "Game starts fine but after my story gets longer I get this error and I'm unable to progress further.",
        "CUDA out of memory - during a conversation",
        "a regular generate script barely fits into L4 with 24 GB, a chat script throws an OOM error.",
        "I tried to enlarge the rollout number, but got OOM error. large rollout.n encounter OOM in training.",
        "loaded a few models available on the standard list and chatted for a bit with the bot",
    ],
)
def test_a_chat_that_goes_on_or_rollouts_are_generation(said: str) -> None:
    assert facts(said)["phase"] == "generation"


def test_chatting_about_something_is_not_generation() -> None:
    assert facts("I chatted with my colleague about the training setup").get("phase") != "generation"


def test_a_couple_of_optimization_steps_is_a_run_that_trained_first() -> None:
    said = "The training happens for a couple of optimization steps, after which I seem to get an OOM."
    assert facts(said)["trained_before_oom"] is True


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        ("While attempting to fine-tune llama-3 70b I ran into an OOM issue in the merge step.", "phase", "merging"),
        ("I was trying to evaluate `sarvamai/sarvam-1` model on MMLU dataset.", "phase", "evaluation"),
        ("使用trainer进行大规模数据evaluation，一段时间后报错out of memory", "phase", "evaluation"),
        ("使用trainer进行大规模数据evaluation，一段时间后报错out of memory", "trained_before_oom", True),
        ("it shows only take 18GB, while 3 hours later, I found it show errors", "trained_before_oom", True),
    ],
)
def test_merge_step_evaluation_and_hours_later_of_development_reports(said: str, name: str, value: object) -> None:
    assert facts(said)[name] == value


@pytest.mark.parametrize(
    "said",
    [
        "您好，我复现您的代码，训练进行到30step左右时，就会OOM",
        "训llama3-70b（长度8192）训到一半的时候OOM了",
        "都是训练了一定的步骤才会出现",
    ],
)
def test_chinese_runs_that_trained_first_of_development_reports(said: str) -> None:
    assert facts(said)["trained_before_oom"] is True


def test_the_more_it_trains_the_more_memory_is_growth() -> None:
    assert facts("DPO越训显存占用越大直到爆显存")["memory_growth"] == "growing"


def test_step_zero_is_not_a_run_that_trained_first() -> None:
    assert "trained_before_oom" not in facts("训练进行到0步就OOM")


@pytest.mark.parametrize(
    "said",
    [
        "I have downloaded the model, but there is a 'killed' error after running it.",
        "`Loading checkpoint shards:   0%|          | 0/3 [00:00<?, ?it/s]`\n`Killed`",
        'After several minutes, I receive the message: "Your session crashed after using all available RAM."',
        "the computer's memory(no cuda memory) keeps increasing, and the program is eventually killed.",
        "The model BlinkDL/rwkv-4-pile-14b runs out of memory on HF with 32 GB RAM CPU",
    ],
)
def test_more_host_ram_kills_of_development_reports(said: str) -> None:
    assert facts(said)["error_kind"] == "host_oom"


@pytest.mark.parametrize("said", ["the process killed by the user was restarted", "a killed process"])
def test_killed_as_an_adjective_is_not_a_host_ram_kill(said: str) -> None:
    assert facts(said).get("error_kind") != "host_oom"


def test_the_phase_named_first_in_a_line_wins() -> None:
    said = (
        "I ran into an OOM issue in the merge step. This left me in the situation where the LoRA adapter was "
        "trained and saved but not merged yet, so I couldn't use the model for inference."
    )
    assert facts(said)["phase"] == "merging"


def test_training_said_with_the_part_that_failed_is_that_part() -> None:
    assert facts("训练的时候，一到eval_step设置的步数就爆OOM了")["phase"] == "evaluation"


@pytest.mark.parametrize(
    ("said", "size"),
    [
        ("internlm2_7b_chat必须要40G显存吗？", 7.0),
        ("llamafactory-cli train examples/train_full/qwen2_7b_full_sft_ds3.yaml", 7.0),
        ("the max batch size is already set to 1, and the model is 'torchtune.models.llama2.llama2_7b'.", 7.0),
        # Qwen#708: the size glued to the family after it
        ("请问lora微调72Bqwen需要多大内存，A800服务器", 72.0),
    ],
)
def test_a_model_size_joined_by_an_underscore_of_development_reports(said: str, size: float) -> None:
    assert facts(said)["model_params_b"] == size


def test_an_optimizer_name_with_bits_is_not_a_model_size() -> None:
    assert "model_params_b" not in facts("--optim paged_adamw_8bit")
    assert "model_params_b" not in facts("a 7bit quantized build")


def test_the_visible_devices_misspelled_still_count_the_gpus() -> None:
    # LlamaFactory#753 (development): the variable without its final S, the three ids still the run's cards
    assert facts("训练代码：CUDA_VISIBLE_DEVICE=0,1,2 Python src/train_bash.py")["gpu_count"] == 3


@pytest.mark.parametrize(
    ("said", "resolved_by", "failing"),
    [
        # development records: a fix's title names the change and what it is for (gke-labs/open-rl#99,
        # foundation-model-stack/fms-hf-tuning#592)
        (
            "Enable gradient checkpointing to prevent OOM on long training sequences\n"
            "Without gradient checkpointing, the backward pass requires retaining all intermediate activation tensors",
            "gradient_checkpointing",
            {"gradient_checkpointing": False},
        ),
        ("fix: Disable caching in transformers via `use_cache` flag to avoid", "use_cache", {"use_cache": True}),
        # the same in Chinese, in our words
        ("开启梯度检查点来减少显存占用", "gradient_checkpointing", {}),
        # a post whose "Solution" part says what fixed it (gke-labs/open-rl#99's layout)
        (
            "### Problem\nTraining crashes with CUDA OOM on A100 80GB\n### Solution\n"
            "Enable gradient checkpointing on the PEFT model in `create_adapter`",
            "gradient_checkpointing",
            {},
        ),
        # ChatGLM3#117 (development): the line before, "改成" on its own, the line after; the after is the fix
        (
            'model = AutoModel.from_pretrained("THUDM/chatglm3-6b", trust_remote_code=True).cuda()\n改成\n'
            'model = AutoModel.from_pretrained("THUDM/chatglm3-6b", trust_remote_code=True).quantize(4).cuda()',
            "quantization",
            {"model_params_b": 6.0, "quantization": None},
        ),
        # the same layout in English, in our words
        ("I changed\nmodel.cuda()\nto:\nmodel.half().cuda()\nand now it loads", "torch_dtype", {}),
    ],
)
def test_a_line_that_tells_the_fix_is_evidence_not_the_run(said: str, resolved_by: str, failing: dict) -> None:
    got = facts(said)
    assert got.get("resolved_by") == resolved_by
    for name, value in failing.items():
        assert got.get(name) == value


@pytest.mark.parametrize(
    "said",
    [
        "I enabled gradient checkpointing to save memory, but it still OOMs",  # the run's own setting, with a purpose
        "我开启了梯度检查点来减少显存，还是爆显存",
        "Use gradient checkpointing with batch size 4 on my 3090, CUDA out of memory",  # no purpose: a statement
    ],
)
def test_a_setting_with_a_purpose_in_the_users_voice_is_the_runs(said: str) -> None:
    got = facts(said)
    assert got.get("gradient_checkpointing") is True
    assert "resolved_by" not in got


def test_colossalai_names_its_zero_stage_in_the_strategy() -> None:
    # a development record (hpcaitech/ColossalAI#3331): the stage, not DeepSpeed
    got = facts("torchrun --nproc_per_node=4 examples/train_sft.py --strategy colossalai_zero2 --lora_rank 4")
    assert got["zero_stage"] == "2"
    assert got.get("distributed") != "deepspeed"


@pytest.mark.parametrize(
    ("said", "resolved_by", "failing"),
    [
        # a development record (facebookresearch/LLM-QAT#16): what it runs only with is the fix
        ("run run_train.sh correctly only when set model_max_length = 256.", "max_length", None),
        ("training works only if I use batch_size=1", "batch_size", None),
        # what it fails only with is the failing run's
        ("It OOMs only when I set max_length=4096", None, 4096),
    ],
)
def test_runs_only_when_names_the_fix(said: str, resolved_by: str | None, failing: int | None) -> None:
    got = facts(said)
    assert got.get("resolved_by") == resolved_by
    assert got.get("max_length") == failing


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        # development records: xtuner's merge command (InternLM/xtuner#482), and a title asking whether a
        # step supports several cards before the post says where it failed (hiyouga/LlamaFactory#2705)
        ("xtuner convert merge出现OOM！ 单卡a100", "merging"),
        # xtuner#715: the merge and the weight conversion said in words
        ("14b进行merge单卡也会oom（这一步可以使用原生transformers库搞定）", "merging"),
        ("微调qwen32b之后进行权重转换，是否有选择多卡的选项呢，默认是单卡，会出现oom", "merging"),
        ("export 能够支持多张卡加载模型，然后合并LORA adapter 导出吗？\n在 export 合并模型阶段报错", "merging"),
        # the question is blanked, not the line: what the line states before it still counts
        ("加载模型的时候就爆显存了，是否支持多卡？", "loading"),
    ],
)
def test_merging_and_a_question_about_support(said: str, phase: str) -> None:
    assert facts(said)["phase"] == phase


@pytest.mark.parametrize(
    "said",
    [
        # vllm-project/llm-compressor#1976 and shibing624/textgen#29, development records
        "Otherwise, PyTorch will capture the grad graph by default, leading to a gradual increase in memory usage.",
        "现在跑到第二个epoch的时候就莫名内存占用变大了。",
    ],
)
def test_growth_named_as_a_noun_or_from_a_later_epoch_on(said: str) -> None:
    assert facts(said)["memory_growth"] == "growing"
    assert said in dev_text()


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("开了gradient checkpointing后显存占用变大了", None),  # a setting compared, not growth over time
        ("到了推理阶段显存占用变大", None),
        ("训练到第3个epoch显存占用突然增加", "spike"),  # one jump, not a steady climb
        ("a slow increase in batch size", None),
    ],
)
def test_more_memory_after_a_change_or_in_one_jump_is_not_a_climb(said: str, value: str | None) -> None:
    assert facts(said).get("memory_growth") == value


def test_increasing_vram_said_as_an_adjective_is_growth() -> None:
    # a development record's title (henk717/KoboldAI#508)
    assert facts("Rapidly Increasing VRAM Use in Chat Mode")["memory_growth"] == "growing"
    assert facts("steadily growing GPU memory during training")["memory_growth"] == "growing"


@pytest.mark.parametrize(
    ("said", "read"),
    [
        # a development record (discuss.huggingface.co T0pp thread): a guess at a tool to try, not the run's
        ("Is there any other method / existing tool? Maybe DeepSpeed Inference mode supports something similar?", {}),
        ("Perhaps FSDP would help here?", {}),
        # a guess at the cause that states the run's own setting is read
        ("Maybe it is because I use deepspeed zero3?", {"distributed": "deepspeed", "zero_stage": 3}),
    ],
)
def test_a_guessed_tool_in_a_question_is_not_the_runs(said: str, read: dict) -> None:
    got = facts(said)
    for name in ("distributed", "zero_stage"):
        assert got.get(name) == read.get(name)


@pytest.mark.parametrize(
    "said",
    [
        MORE_DEV_PHRASES["neicun_is_gpu"],  # "报内存不够，应该是显存不够的意思吧": a development record
        "GPU内存一直涨，最后内存溢出",
        # a development record (zai-org/ChatGLM3#117): a card and its memory named together
        "结果跑web_demo.py的时候提示内存不够(1080Ti，11GB内存)。",
    ],
)
def test_neicun_that_is_the_cards_is_a_cuda_oom_not_the_hosts(said: str) -> None:
    # their 内存 is the card's memory, so what ran out is the card's: a CUDA OOM, and no host RAM size is read
    got = facts(said)
    assert got.get("error_kind") == "cuda_oom"
    assert "host_ram_bytes" not in got


def test_a_quantize_call_said_to_make_it_usable_is_the_fix() -> None:
    # the same record: "把 quantize(4) 加上，没想到真的可用"
    got = facts("只能死马当做活马医，把 quantize(4) 加上，没想到真的可用，哈哈哈。")
    assert got.get("resolved_by") == "quantization"
    assert "quantization" not in got


def test_pretraining_is_full_and_activation_offload_is_not_state_offload() -> None:
    # a development record (mosaicml/llm-foundry#468)
    got = facts(
        "Is it possible to do pretraining of MPT-7B model on single A100 80GB?\n"
        "- activation_checkpointing = true\n- activation_cpu_offload = true"
    )
    assert got["finetune_method"] == "full"
    assert "offload" not in got
    assert facts("ZeRO-3 with cpu offload")["offload"] is True
    assert "finetune_method" not in facts("用预训练模型推理")


def test_a_dataset_size_is_not_the_cards_memory() -> None:
    assert "gpu_memory_bytes" not in facts("my pretraining data is 24GB")
    assert "gpu_memory_bytes" not in facts("训练数据有 16G")


@pytest.mark.parametrize(
    ("said", "read"),
    [
        # a development record (iwiwi/epochraft-hf-fsdp#7): the solution named, passed "in from_pretrained"
        ("The key solution was to set `use_cache=False` in `from_pretrained`.", {"resolved_by": "use_cache"}),
        ("the fix is to enable gradient checkpointing", {"resolved_by": "gradient_checkpointing"}),
        # failing in from_pretrained is the loading phase; a setting passed there is not
        ("OOM in from_pretrained with a 70B model", {"phase": "loading"}),
        ("set use_cache=False in from_pretrained", {"use_cache": False}),
    ],
)
def test_the_solution_named_and_where_a_setting_is_passed(said: str, read: dict) -> None:
    got = facts(said)
    for name, value in read.items():
        assert got.get(name) == value
    if "resolved_by" not in read:
        assert "resolved_by" not in got
    if "phase" not in read:
        assert "phase" not in got


def test_memory_leakage_and_growth_each_time_it_runs() -> None:
    # a development record (TransformerLensOrg/TransformerLens#819)
    got = facts(
        "[Bug Report] Memory Leakage in GEMMA2 -2b\n"
        "Every time I run the model, the allocated memory by CUDA increase by several GB."
    )
    assert got["memory_growth"] == "growing"


@pytest.mark.parametrize(
    ("said", "size"),
    [
        ("In order to successfully funetune 117M model I had to adjust", 0.117),  # minimaxir/gpt-2-simple#63
        ("Model I am using (Bert, XLNet ...): GPT2", 0.124),  # huggingface/transformers#3360
        ("bert-base-uncased on a 8GB GPU", 0.11),
        ("a 350M-parameter model", 0.35),
    ],
)
def test_small_models_are_sized(said: str, size: float) -> None:
    assert facts(said)["model_params_b"] == size


def test_what_happened_to_the_run_is_never_the_fix() -> None:
    # "改成1了还是爆显存": the batch was changed and the run still ran out; the OOM is the run's, not a fix
    got = facts("batch size 改成1了还是爆显存")
    assert str(got["batch_size"]) == "1"
    assert got["error_kind"] == "cuda_oom"
    assert "resolved_by" not in got


def test_a_card_size_next_to_its_name_is_the_cards_but_a_bigger_one_is_the_hosts() -> None:
    assert "host_ram_bytes" not in facts("提示内存不够(1080Ti，11GB内存)")
    assert facts("显卡是 3090，64G内存，加载时被 killed")["host_ram_bytes"] == 64 * 2**30
    # a data-centre card named before its size (transformers#10754): "RAM" there is the card's
    assert "host_ram_bytes" not in facts("this should run on a k80 (24gb of RAM) in about an hour")
    assert "host_ram_bytes" not in facts("V100，32G内存，训练时爆了")
    assert facts("my machine has 32GB RAM and an A100")["host_ram_bytes"] == 32 * 2**30


def test_an_apple_silicon_macs_ram_is_the_accelerators_memory() -> None:
    # ml-explore/mlx-examples#576 (development): on unified memory, the RAM that ran out is the device's
    got = facts(
        "Despite attempts to increase the max-sequence parameter, my M1 Pro Mac with 16GB RAM runs out of memory, "
        "leading to text truncation."
    )
    assert got["error_kind"] == "cuda_oom"
    assert got["gpu_memory_bytes"] == 16 * 2**30
    assert "host_ram_bytes" not in got
    assert facts("mlx_lm.lora on my Mac M2 Max 32GB, the process gets killed")["gpu_memory_bytes"] == 32 * 2**30
    # a Mac named beside an NVIDIA card is not where the run is
    beside = facts("I ssh from my M1 MacBook into a box with an RTX 4090 and 64GB RAM; the process is killed for RAM")
    assert beside["host_ram_bytes"] == 64 * 2**30


#: Development-record words for the phase (loading and generation said in plain words) and the launcher or
#: sharding a run uses (a multi-process launcher, DeepSpeed's and FSDP's own files and flags).
PHASE_AND_LAUNCH_DEV_PHRASES = {
    "trying_to_load": "when i am trying to load this model i am OOM error",  # turboderp-org/exllamav2#665
    "can_not_load": "But I can not load the model with 8 RTX3090",  # InternLM/InternLM#137
    "load_stopped": "8G显存运行 basic_demo 加载到29%退出",  # zai-org/ChatGLM3#1323
    "initialization": "in the initialization of DSPipeline, the cpu memory runs out",  # DeepSpeed#3192
    "load_from_checkpoint": "when I load the model from an existing checkpoint",  # hiyouga/EasyR1#94
    "setup": "I still get a crash during setup saying it is out of memory",  # salesforce/LAVIS#184
    "inference_zh": "从而在inference的时候显存爆炸",  # OpenGVLab/InternVL#191
    "beam_size": "when I increased the beam size, the GPU memory kept increasing",  # Vision-CAIR/MiniGPT-4#11
    "asking": "提问十次有五六次爆显存",  # chatchat-space/Langchain-Chatchat#291
    "generating_text": "使用8G显存的显卡跑生成文本会触发OOM",  # imcaspar/gpt2-ml#22
    "torchrun": 'torchrun --nnodes=1 --nproc_per_node=4 --master_port="12345"',  # ChatGLM-Efficient-Tuning#333
    "nproc_env": "CUDA_VISIBLE_DEVICES=3,4 NPROC_PER_NODE=2 swift sft",  # modelscope/ms-swift#1860
    "enable_fsdp": "torchrun --nnodes 1 --nproc_per_node 8 llama_finetuning.py --enable_fsdp",  # llama-cookbook#142
    "fsdp_path": "torch/distributed/fsdp/fully_sharded_data_parallel.py:2224: UserWarning",  # stanford_alpaca#65
    "fsdp_workers": 'File "/verl/verl/workers/fsdp_workers.py", line 463, in generate_sequences',  # verl#302
    "ds_config_key": "deepspeed_config_file: configs/ds_config_trlx_gptj_summarize.json",  # CarperAI/trlx#266
    "ds_config_zero": "然后使用ds_config_zero3.json，并且offload_optimizer",  # OpenBMB/MiniCPM-V#828
    "ds_yaml": "llamafactory-cli train examples/train_full/qwen2_7b_full_sft_ds3.yaml",  # LlamaFactory#4915
    "ds_frame": 'site-packages/deepspeed/runtime/zero/stage_1_and_2.py", line 1885, in step',  # mwp_ReFT#12
    # s-JoL/Open-Llama#61
    "ds_stage": "accelerate launch --config_file configs/accelerate_configs/ds_stage3.yaml train_lm.py",
}


@pytest.mark.parametrize(
    ("key", "read"),
    [
        ("trying_to_load", {"phase": "loading"}),
        ("can_not_load", {"phase": "loading"}),
        ("load_stopped", {"phase": "loading"}),
        ("initialization", {"phase": "loading"}),
        ("load_from_checkpoint", {"phase": "loading"}),
        ("setup", {"phase": "loading"}),
        ("inference_zh", {"phase": "generation"}),
        ("beam_size", {"phase": "generation"}),
        ("asking", {"phase": "generation"}),
        ("generating_text", {"phase": "generation"}),
        ("torchrun", {"distributed": "ddp", "gpu_count": 4}),
        ("nproc_env", {"distributed": "ddp", "gpu_count": 2}),
        ("enable_fsdp", {"distributed": "fsdp", "gpu_count": 8}),
        ("fsdp_path", {"distributed": "fsdp"}),
        ("fsdp_workers", {"distributed": "fsdp"}),
        ("ds_config_key", {"distributed": "deepspeed"}),
        ("ds_config_zero", {"distributed": "deepspeed", "zero_stage": "3"}),
        ("ds_yaml", {"distributed": "deepspeed", "zero_stage": "3"}),
        ("ds_frame", {"distributed": "deepspeed"}),
        ("ds_stage", {"distributed": "deepspeed", "zero_stage": "3"}),
    ],
)
def test_reads_the_phase_and_the_launcher_as_real_reports_say_them(key: str, read: dict[str, object]) -> None:
    got = facts(PHASE_AND_LAUNCH_DEV_PHRASES[key])
    for name, value in read.items():
        assert got.get(name) == value


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        ("torchrun --nproc_per_node 1 train.py", "distributed", None),  # one process: nothing is data parallel
        ("torchrun --nproc_per_node 4 train.py --deepspeed ds_z3.json", "distributed", "deepspeed"),
        ("should I use ddp?", "distributed", None),  # asked about, not the run's
        ("after loading the model, generate() runs out of memory", "phase", "generation"),
        ("I am trying to load balance requests over two GPUs", "phase", None),
        ("Loading checkpoint shards: 100%|██████████| 2/2, then training OOMs", "phase", "training"),
        ("my_ds3.yaml.bak is an old file", "zero_stage", None),
    ],
)
def test_phase_and_launcher_readings_stay_in_their_lane(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


#: Development-record words where "load" is not the step that failed: a dataset loaded, a load that went fine.
NOT_THE_LOAD_DEV_PHRASES = (
    # huggingface/transformers#28289
    "Motivation is to prevent OOM issues when loading large datasets for inference on resource-constrained",
    # inseq-team/inseq#191
    "When loading inseq with a larger dataset, on a CUDA device, an out-of-memory error is occurring",
    # QwenLM/Qwen3-VL#1019
    "I tried to load 72B model to process some picture it works fine but I can't run the cookbook",
    # defog-ai/sqlcoder#44
    "When loading, it cost 15G Memory, It's OK.",
)


@pytest.mark.parametrize("said", NOT_THE_LOAD_DEV_PHRASES)
def test_a_dataset_loaded_or_a_load_that_went_fine_is_not_the_loading_phase(said: str) -> None:
    assert facts(said).get("phase") != "loading"
    assert said in dev_text()


#: Tracebacks of development records that ran out while the weights were moved to the card, before any step:
#: l294265421/alpaca-rlhf#6 (Module.to() moving the weights) and deepspeedai/DeepSpeed#2497 (ZeRO-3 with offload,
#: in engine.py's _configure_distributed_model; its thread: loading).
MOVED_TO_THE_CARD = {
    "module_to": [
        'File "/opt/conda/envs/mplug_owl/lib/python3.10/site-packages/torch/nn/modules/module.py", line 987, '
        "in convert",
        "    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)",
    ],
    "deepspeed_engine": [
        'File "/usr/lib/python3/dist-packages/deepspeed/runtime/engine.py", line 1056, in _configure_distributed_model',
        "    self.module.to(self.device)",
    ],
}


@pytest.mark.parametrize("frames", MOVED_TO_THE_CARD.values(), ids=list(MOVED_TO_THE_CARD))
def test_weights_moved_to_the_card_in_a_traceback_is_the_load(frames: list[str]) -> None:
    from triage.ingest.phase import phase_from_frames

    found = phase_from_frames(list(enumerate(frames, 1)))
    assert found is not None and found.raw == "loading"


def test_deepspeed_s_code_line_alone_is_the_load() -> None:
    from triage.ingest.phase import phase_from_frames

    found = phase_from_frames([(1, MOVED_TO_THE_CARD["deepspeed_engine"][1])])  # as DeepSpeed#2497 pasted it
    assert found is not None and found.raw == "loading"


#: Tracebacks cut before the step's own frames: only the training loop shows. huggingface/peft#1613 pasted its head and
#: "[traceback trimmed]" (its thread: training, at step 0); the others are the frames such a head shows in
#: transformers' Trainer and PyTorch Lightning.
TRAINING_LOOP_ONLY = {
    "peft_1613": [
        'File "/home/<redacted>/Workspace2/<redacted>/LLM-Pruner/post_training.py", line 262, in <module>',
        "    main(args)",
        "    trainer.train(resume_from_checkpoint=args.resume_from_checkpoint)",
    ],
    "inner_loop": [
        'File "/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", line 1859, in train',
        "    return inner_training_loop(",
    ],
    "lightning": ['File "train.py", line 88, in main', "    trainer.fit(model, datamodule=dm)"],
}


@pytest.mark.parametrize("frames", TRAINING_LOOP_ONLY.values(), ids=list(TRAINING_LOOP_ONLY))
def test_a_traceback_cut_at_the_training_loop_is_training(frames: list[str]) -> None:
    from triage.ingest.phase import phase_from_frames

    found = phase_from_frames(list(enumerate(frames, 1)))
    assert found is not None and found.raw == "training"


def test_the_step_s_own_frames_beat_the_training_loop() -> None:
    from triage.ingest.phase import phase_from_frames

    frames = [
        *TRAINING_LOOP_ONLY["inner_loop"],
        'File "/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", line 3349, in _save_checkpoint',
    ]
    found = phase_from_frames(list(enumerate(frames, 1)))
    assert found is not None and found.raw == "saving"


def test_the_peft_1613_head_reads_as_training_at_step_0() -> None:
    from triage import api

    said = "is out of GPU memory,but the v0.3.0"
    bar = "0%|          | 0/1554 [00:00<?, ?it/s]Traceback (most recent call last):"
    text = "\n".join([said, "```", bar, *(f"  {line}" for line in TRAINING_LOOP_ONLY["peft_1613"]), "```"])
    got = {f.name: f.value for f in api.read(api.knowledge(), symptoms=[text]).facts}
    assert got.get("phase") == "training" and got.get("oom_step") == 0
    assert all(part in dev_text() for part in (said, bar, TRAINING_LOOP_ONLY["peft_1613"][2].strip()))


def _read(text: str) -> dict[str, object]:
    from triage import api

    return {f.name: f.value for f in api.read(api.knowledge(), symptoms=[text]).facts}


#: DeepSpeed-Chat's pipeline stages are not training steps: deepspeedai/DeepSpeed#3208 and
#: deepspeedai/DeepSpeedExamples#432 printed them before their OOM (their threads: the OOM came in the first step's
#: training or while loading, not after a step).
PIPELINE_STAGES = (
    "---=== Running Step 1 ===---",
    "---=== Finished Step 1 in 0:00:09 ===---",
    "RuntimeError: Step 1 model has not been trained. Train it with:",
    "python3 train.py --step 1 --actor-model 1.3b",
)


@pytest.mark.parametrize("line", PIPELINE_STAGES)
def test_a_pipeline_stage_is_not_a_training_step(line: str) -> None:
    got = _read(f"{line}\ntorch.cuda.OutOfMemoryError: CUDA out of memory.")
    assert "oom_step" not in got and "trained_before_oom" not in got
    assert line in dev_text()


@pytest.mark.parametrize(
    ("said", "step"),
    [
        ("OOM during backward on step 1.", 0),  # a person counts the steps from one: the first step
        ("it runs out of memory at step 1", 0),
        ("第1步就OOM了", 0),
        ("CUDA out of memory. Tried to allocate 2.00 GiB at step 0", 0),
        ("OOM at step 1500", 1500),
        ("第3步OOM", 3),
        ("Step 35/1000 loss 1.2\ntorch.cuda.OutOfMemoryError: CUDA out of memory.", 35),  # a logged step: as it is
    ],
)
def test_the_step_a_person_names_is_counted_from_one(said: str, step: int) -> None:
    got = _read(said)
    assert got.get("oom_step") == step
    assert got.get("trained_before_oom") is not (step == 0)


def test_a_batch_or_iteration_named_as_where_it_failed_is_a_step_not_a_batch_size() -> None:
    # NVIDIA-NeMo/Megatron-Bridge#3706 (development): "OOMs at iteration 3 in `optimizer.step"
    said = "(a 68B-param run on 8×H100) OOMs at iteration 3 in `optimizer.step"
    assert said in dev_text()
    assert _read(said).get("oom_step") == 3
    got = _read("CUDA out of memory at batch 1000 of the first epoch, every time")
    assert got.get("oom_step") == 1000 and "batch_size" not in got
    assert _read("batch 16 works, batch 32 OOMs").get("batch_size") == 32


def test_a_hyphenated_gpu_count_is_read() -> None:
    # PrimeIntellect-ai/verifiers#31 (development): the single card is what worked, the 8-GPU run is what failed
    said = "It is possible to load QwQ-32b on a single card, but when using verifiers to start 8-gpu training, it will "
    assert said in dev_text()
    assert facts(said + "OOM").get("gpu_count") == 8
    assert facts("an 8-GPU node runs out of memory").get("gpu_count") == 8
    assert "gpu_count" not in facts("multi-gpu training OOM with A100-80GB cards")


def test_two_kinds_of_cards_are_counted_together() -> None:
    # AnswerDotAI/fsdp_qlora#25 (development; its thread: two GPUs)
    said = "I have 1x3090 and 1x4090 and I'm trying to follow the instructions in README.md to fine tune using HQQ"
    assert said in dev_text()
    assert facts(said + " but running into OOM error").get("gpu_count") == 2
    assert facts("2 x A100 + 2 x A6000, CUDA out of memory").get("gpu_count") == 4
    assert facts("一台机器两张3090加一张4090，训练时OOM").get("gpu_count") == 3
    assert facts("4xA100 OOM").get("gpu_count") == 4


def test_the_phase_and_launcher_phrases_come_from_the_development_split() -> None:
    dev = dev_text()
    for said in PHASE_AND_LAUNCH_DEV_PHRASES.values():
        assert said in dev


#: Development-record words that give the card's memory in other places than right after its name.
CARD_MEMORY_DEV_PHRASES = {
    "use_size_name": ("I use 32G V100 to try to quantize llama-13B ckpt", 32),  # AutoGPTQ/AutoGPTQ#179
    "zh_config": ("我的GPT是32GB配置的V100", 32),  # LianjiaTech/BELLE#281
    "graphics_memory": ("still got OOM for the 24GB graphics memory.", 24),  # BlinkDL/ChatRWKV#21
    "gpu_of_memory": ("with a single A100 GPU of 80GB memory", 80),  # Lightning-AI/litgpt#165
    "with_memory": ("on a Nvidia A100 with 40GB memory", 40),  # QwenLM/Qwen3-Coder#398
    "gibs_of_vram": ("Each has 20 Gibs of Vram memory", 20),  # Vision-CAIR/MiniGPT-4#252
    "slash": ("on a A100/40GB, but it is out of memory", 40),  # GreenBitAI/green-bit-llm#17
    "each": ("I train the alpaca with 4 A100 GPUs (each 80G)", 80),  # tatsu-lab/stanford_alpaca#278
}


@pytest.mark.parametrize("key", sorted(CARD_MEMORY_DEV_PHRASES))
def test_reads_the_cards_memory_where_real_reports_put_it(key: str) -> None:
    said, gb = CARD_MEMORY_DEV_PHRASES[key]
    assert facts(said).get("gpu_memory_bytes") == gb * 2**30


@pytest.mark.parametrize(
    ("said", "gb"),
    [
        ("a 3090 with 64GB memory", 24),  # not one of the 3090's sizes: the host's RAM, the card keeps its own
        ("batch 3090/10000", None),  # a progress count, not a card
        ("it uses 20GB of VRAM", None),  # memory in use, not the card's
        ("被占用了15G显存", None),
    ],
)
def test_card_memory_readings_stay_in_their_lane(said: str, gb: int | None) -> None:
    got = facts(said).get("gpu_memory_bytes")
    assert got == (None if gb is None else gb * 2**30)


def test_the_card_memory_phrases_come_from_the_development_split() -> None:
    dev = dev_text()
    for said, _ in CARD_MEMORY_DEV_PHRASES.values():
        assert said in dev


@pytest.mark.parametrize(
    "said",
    [
        # meta-llama/llama-cookbook#165, a development record: what a change saves is not the card's memory
        "For the LLaMA-7B run, this saves ~4 GB in activation memory and avoids peak memory",
        "the peak drops by 4 GB",
        "it needs 4 GB more than before",
        "显存减少了4G",
    ],
)
def test_a_size_that_is_a_change_is_not_the_cards_memory(said: str) -> None:
    assert "gpu_memory_bytes" not in facts(said)


def test_a_size_said_alone_is_still_the_cards() -> None:
    assert facts("I only have 8GB")["gpu_memory_bytes"] == 8 * 2**30
    assert "For the LLaMA-7B run, this saves ~4 GB in activation memory" in "\n".join(
        r.report for r in load_corpus() if r.split == "dev"
    )


#: Development-record words for training in Chinese reports and in a training script's name.
TRAINING_DEV_PHRASES = (
    "8卡 A100 40G，7B的FT，仍然CUDA oom",  # LianjiaTech/BELLE#329
    "max_target_length=256训到400+samples就OOM了",  # hiyouga/ChatGLM-Efficient-Tuning
    "chatglm3 单卡训练报错了",  # liucongg/ChatGLM-Finetuning#131
    "运行微调文件，bash finetune/finetune_visualglm.sh，总是报错CUDA out of memory",  # zai-org/VisualGLM-6B#80
)


#: Development-record words that say the run is training, in English.
TRAINING_EN_DEV_PHRASES = (
    "I am finetuning a GPT2 on a Causal Language Modeling Task",  # discuss.huggingface.co GPT-2 finetuning peaks
    "configuration to fine-tune 'VL_LLaMA_2_13B_Pretrained.pth' on an A100 80GB",  # DAMO-NLP-SG/Video-LLaMA#90
    "How can I train with a Gpu 3090?",  # lm-sys/FastChat#543
    "OOM error on Pretraining Albert with batch size 8",  # huggingface/transformers#15115
    "I tried to run dpo.py with 7b model but still encounter OOM error",  # huggingface/trl#621
    "run run_train.sh, CUDA out of memory",  # facebookresearch/LLM-QAT#16
    "I am encountering an Out of Memory (OOM) issue while performing RLHF training",  # modelscope/ms-swift#2664
)


@pytest.mark.parametrize("said", TRAINING_DEV_PHRASES + TRAINING_EN_DEV_PHRASES)
def test_training_said_as_real_reports_and_scripts_say_it(said: str) -> None:
    assert facts(said).get("phase") == "training"
    assert said in dev_text()


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        ("python src/train_bash.py --do_predict", "evaluation"),  # the phase named wins over the script
        ("python generate.py --lora_path ./adapter", None),
        ("the ft of the room", None),
    ],
)
def test_training_script_readings_stay_in_their_lane(said: str, phase: str | None) -> None:
    assert facts(said).get("phase") == phase


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        # zai-org/ChatGLM3#117 and InternLM/Tutorial#1239: a demo that fails as it starts failed loading its model
        ("结果跑web_demo.py的时候提示内存不够(1080Ti，11GB内存)。", "loading"),
        ("streamlit run web_demo.py --server.address 127.0.0.1 --server.port 6006", "loading"),
        # chatchat-space/Langchain-Chatchat#784: the demo ran, the second question failed
        ("运行web_ui.py, 本地知识库只能问一个问题，问第二个就出现：torch.cuda.OutOfMemoryError", "generation"),
        (
            "16G显存，跑起webui.py后，本地知识库导入了20k的txt文件，结果就问了一个问题，再问第二个，就报错了",
            "generation",
        ),
    ],
)
def test_a_demo_started_is_the_load_unless_a_later_step_is_named(said: str, phase: str) -> None:
    assert facts(said).get("phase") == phase
    assert said in dev_text()


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        ("the pretrained model loads fine", None),
        ("running the training data through the tokenizer", None),
        ("I am training fine, but inference OOMs", "generation"),  # the part of the run named wins
        ("trying to load the model to train it", "loading"),
    ],
)
def test_english_training_readings_stay_in_their_lane(said: str, phase: str | None) -> None:
    assert facts(said).get("phase") == phase


@pytest.mark.parametrize(
    "said",
    [
        "into 1, I still got CUDA Out of memory.",  # PKU-YuanGroup/Video-LLaVA#32
        "BLOOMZ-1.7B全量参数finetune，cuda out of memory",  # LianjiaTech/BELLE#281
        "Running CUDA OOM with PPO on llama",  # CarperAI/trlx#431
    ],
)
def test_cuda_out_of_memory_said_in_prose_is_a_cuda_oom(said: str) -> None:
    assert facts(said).get("error_kind") == "cuda_oom"
    assert said in dev_text()


def test_a_cuda_oom_denied_is_not_read() -> None:
    assert "error_kind" not in facts("no CUDA OOM anymore")
    assert facts("the process was killed, not a CUDA OOM")["error_kind"] == "host_oom"


#: Development-record words that give the weights' dtype by other names than torch_dtype.
DTYPE_DEV_PHRASES = {
    "trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768": "bf16",  # EleutherAI/lm-evaluation-harness
    "pretrained=huggyllama/llama-13b,dtype=float16": "fp16",  # EleutherAI/lm-evaluation-harness
    "--pure_bf16 --alpaca_dataset": "bf16",  # meta-llama/llama-cookbook#142
    "Transformer(model_args).cuda().half()": "fp16",  # meta-llama/llama#55
    "--precision bf16-true": "bf16",  # Lightning-AI/litgpt#781
    "按理来说7B的模型用bf16加载应该不会爆呀": "bf16",  # Code-kunkun/LamRA#23
    "但是加了float()之后demo直接被kill掉": "fp32",  # zai-org/ChatGLM3#246
}


@pytest.mark.parametrize("said", sorted(DTYPE_DEV_PHRASES))
def test_reads_the_weights_dtype_by_its_other_names(said: str) -> None:
    assert facts(said).get("torch_dtype") == DTYPE_DEV_PHRASES[said]
    assert said in dev_text()


@pytest.mark.parametrize(
    "said", ["bnb_4bit_compute_dtype=torch.bfloat16", "--precision bf16-mixed", "x.dtype is float32"]
)
def test_a_compute_dtype_or_mixed_precision_is_not_the_weights_dtype(said: str) -> None:
    assert "torch_dtype" not in facts(said)


@pytest.mark.parametrize(
    ("said", "method"),
    [
        ("我将batchsize相关的都调成1了，max_seq_len设小了，lora_dim设成了1", "lora"),  # l294265421/alpaca-rlhf#6
        ("（lora_target_modules 设置为'ALL' ）", "lora"),  # modelscope/ms-swift#1934
        ("/root/New/work_dirs/mixtral_8x7b_instruct_qlora_oasst1_e3_2/iter_4000_hf", "qlora"),  # InternLM/xtuner#482
        ("BLOOMZ-1.7B全量参数finetune，cuda out of memory", "full"),  # LianjiaTech/BELLE#281
        ("I am doing full sft with", "full"),  # 2U1/Qwen-VL-Series-Finetune#51
    ],
)
def test_reads_the_method_by_its_settings_and_names(said: str, method: str) -> None:
    assert facts(said).get("finetune_method") == method
    assert said in dev_text()


def test_a_word_ending_in_qlora_is_not_qlora() -> None:
    assert "finetune_method" not in facts("aqlora")


@pytest.mark.parametrize(
    ("said", "growth"),
    [
        ("cuda增加，直到溢出报错", "growing"),  # FlagOpen/FlagEmbedding#789 (its title)
        ("加载gpt oss 120b模型时CPU内存容量异常增长导致OOM", "growing"),  # hiyouga/LlamaFactory#8846
        ("为什么显存在跑了几个epoch后会激增，超过80g导致显存溢出？", "spike"),  # DAMO-NLP-SG/VideoLLaMA3#56
    ],
)
def test_memory_that_grows_or_jumps_in_chinese_words(said: str, growth: str) -> None:
    assert facts(said).get("memory_growth") == growth
    assert said in dev_text()


@pytest.mark.parametrize(
    "said",
    [
        "enable_gradient_checkpointing is not working",  # verl-project/verl#26 (its title)
        "`finetune_gradient_checkpointing` has no effect on the transformers path",  # sam-paech/auto-antislop#3
    ],
)
def test_checkpointing_said_to_have_no_effect_is_set_but_inactive(said: str) -> None:
    got = facts(said)
    assert got.get("gradient_checkpointing") is True and got.get("gc_active") is False
    assert said in dev_text()


def test_qlora_said_with_eight_bits_is_eight_bit() -> None:
    # hiyouga/LlamaFactory#5364, a development record
    said = "Is there a way to do QLORA 8bit for Llama3 70B using 2*A6000?"
    assert facts(said)["quantization"] == "8bit"
    assert facts("we use QLoRA")["quantization"] == "4bit"
    assert said in dev_text()


def test_a_setting_passed_when_loading_is_not_the_loading_phase_unless_the_failure_follows() -> None:
    # QwenLM/Qwen3-VL#1019, a development record: the setting is what differs, the load did not fail
    said = "The only difference is I didn't set flashattention2 when loading the model (V100 not supported)"
    assert facts(said).get("phase") != "loading"
    assert facts("I set device_map when loading the model and it OOMs")["phase"] == "loading"
    # openvla/openvla#208: a model loaded from a checkpoint ran the host out of memory
    loaded = "Loading VLA prism-dinosiglip-224px+7b from Checkpoint"
    assert facts(loaded)["phase"] == "loading"
    dev = dev_text()
    assert said in dev and loaded in dev


@pytest.mark.parametrize(
    ("said", "count"),
    [
        ("I have 32 CPU ram and a 4090 GPU (24 GB) and no luck so far...", 1),  # bigcode-project/starcoder#6
        ("My GPU is RTX4090 24G.", 1),  # VinAIResearch/PhoGPT#28
        ("with a v100 gpu", 1),  # one card, never 100 of them
        ("I have a 3090 and a 4090", None),  # two cards named: no single one
        ("I don't have a 4090", None),
        # several cards said without a count: the article names the kind of card, not how many
        ("I am doing multi-gpu training on an A100 node and it OOMs", None),
    ],
)
def test_one_card_named_with_an_article_is_one_gpu(said: str, count: int | None) -> None:
    assert facts(said).get("gpu_count") == count


def test_one_card_that_made_it_work_is_not_the_failing_runs_count() -> None:
    assert "gpu_count" not in facts("on an A100 it works fine")


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # FastChat#2572 (development): the flag is advice that did not reach the run, not the run's quantization
        (
            "--load-8bit should help but adding this to the docker-compose file shows only the help-message",
            "quantization",
            None,
        ),
        ("开 8bit 应该能省显存吧", "quantization", None),
        # an expectation about the run's own setting is still the run's
        ("zero3 should work but it OOMs", "zero_stage", "3"),  # raw, before the fact registry makes it a number
        ("I use load_in_8bit and it still OOMs", "quantization", "8bit"),
    ],
)
def test_what_a_setting_would_do_is_not_the_runs_setting(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


def test_a_plain_batch_size_beside_a_per_device_one_is_the_global_batch() -> None:
    # lit-llama#381 (development): the script's global batch, then the per-device one the run holds
    said = "devices = 4\nbatch_size = 128 // devices\nmicro_batch_size = 4\n"
    assert said in dev_text()
    assert facts(said)["batch_size"] == 4
    assert facts("--batch_size 16 --per_device_train_batch_size 2")["batch_size"] == 2
    assert facts("batch_size = 8, and it OOMs")["batch_size"] == "8"


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # DeepSpeedExamples#498 and DeepSpeed#3355 (development): DeepSpeed-Chat's LoRA and ZeRO flags
        ("--actor_zero_stage 2 \n--critic_zero_stage 2\n--actor_lora_dim 128", "finetune_method", "lora"),
        ("--actor_zero_stage 2 \n--critic_zero_stage 2\n--actor_lora_dim 128", "zero_stage", "2"),
        ("--actor_zero_stage 2 \n--critic_zero_stage 2\n--actor_lora_dim 128", "lora_r", "128"),
        ("--gradient_accumulation_steps 8 --lora_dim 128 --zero_stage $ZERO_STAGE", "finetune_method", "lora"),
        # LMFlow#213 (development): the switch named without a value
        ("1. add --use_lora parameter", "finetune_method", "lora"),
        ("--use_lora False", "finetune_method", None),
    ],
)
def test_deepspeed_chat_and_switch_flags(said: str, name: str, value: object) -> None:
    got = facts(said).get(name)
    assert (None if got is None else str(got)) == value


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        # development records whose first post says the phase in words the reader did not know
        ("一般情况下个人能搞13B的模型， 34B加载不了， 7B又打不过谁", "loading"),  # Aquila2#58
        ("尝试加载本地firefly-baichuan13b的模型时显存占用翻倍", "loading"),  # api-for-open-llm#38
        ("使用2*RTX 3090部署，报GPU资源不足，第一张卡显存用完了，但第二张卡并没使用", "loading"),  # CogVLM#109
        ("加载了模型，但是却发现占用了31G的显存。和数据中的非量化一样。", "loading"),  # MOSS#352
        ("解决deepseek-coder连续对话token无限增长爆显存的问题", "generation"),  # gpt_academic#1352
        ("传入265kb大小的txt文档，提问后和输出回答时显存在29g。", "generation"),  # GLM-4#359
        # a failure after the load is not the load's
        ("加载了模型之后开始训练，第3步爆显存", "training"),
    ],
)
def test_phase_words_from_development_records(said: str, phase: str) -> None:
    assert facts(said).get("phase") == phase


@pytest.mark.parametrize(
    "said",
    [
        "CUDA out of memory after few messages in the chat?",  # TavernAI-v1#15
        "每多开一个网页或重新刷新网页都会多占一份模型内存，导致爆显存",  # ChuanhuChatGPT#593
        "I can see the logits obtained on the evaluation step are accumulated",  # transformers#12878
        "上述程序是trainer.py中的程序，会累积preds造成OOM。",  # LlamaFactory#1595
        "Why does GPU memory usage increase with the number of training steps during pretraining",  # ms-swift#3461
    ],
)
def test_memory_that_grows_in_development_records_words(said: str) -> None:
    assert said in dev_text()
    assert facts(said).get("memory_growth") == "growing"


def test_steps_before_the_oom_are_not_growth() -> None:
    assert "memory_growth" not in facts("OOM after a few steps")
    assert "memory_growth" not in facts("after 3 epochs it crashed")


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        # development records whose host-RAM kill the reader did not read
        ("每次加载到Loading checkpoint shards:  38%都会Killed。", "host_oom"),  # ChatGLM-6B#918
        ("convertion to hf format of llama2 70b get kill", "host_oom"),  # transformers#24946
        ("killing process when trying to train long video", "host_oom"),  # LLaMA-VID#35
        ("下载pre-train的模型，系统 RAM会炸从而导致程序崩溃。", "host_oom"),  # ChatGLM-Tuning#99
        ("The OOM was for CPU RAM. GPU RAM usage was normal", "host_oom"),  # llm-compressor#1183
        ("加载gpt oss 120b模型时CPU内存容量异常增长导致OOM", "host_oom"),  # LlamaFactory#8846
        ("Excessive CPU memory need for fine-tuning with long context", "host_oom"),  # NeMo Speech#14526
        ("模型加载进程被系统终止", "host_oom"),  # ChatGLM3#107
        # the host's memory said to be fine while the card's ran out
        ("CPU内存够，显存不足", "cuda_oom"),
        ("CPU内存很充足，但是爆显存", "cuda_oom"),
    ],
)
def test_host_ram_kills_in_development_records_words(said: str, kind: str) -> None:
    assert facts(said).get("error_kind") == kind


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # DeepSpeed#2977 and LlamaFactory#4156 (development): a DeepSpeed config pasted as JSON, its stage a line below
        ('  "zero_optimization": {\n    "stage": 2,\n    "offload_param": {', "zero_stage", 2),
        ('  "zero_optimization": {\n    "stage": 2,\n    "offload_param": {', "distributed", "deepspeed"),
        ('"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}', "zero_stage", 3),
        ("stage: sft\n", "zero_stage", None),  # LLaMA-Factory's training stage is not ZeRO's
        # MOSS#262, EAGLE#260 (development): DeepSpeed named by accelerate's flag and by the engine's set-up
        (
            "accelerate launch --config_file ./configs/sft.yaml --deepspeed_multinode_launcher standard",
            "distributed",
            "deepspeed",
        ),
        (
            "目前使用stage3，已经把优化器和param offload到内存了，但是在deepspeed.initialize阶段还是oom了",
            "distributed",
            "deepspeed",
        ),
        # unslothai/unsloth#1326 (development): unsloth's checkpointing is on
        ('    use_gradient_checkpointing="unsloth",', "gradient_checkpointing", True),
        # alpaca-lora#450 and exllama#120 (development): 8-bit by alpaca-lora's switch, 4-bit by a GPTQ checkpoint
        (
            "python generate.py \\\n    --load_8bit \\\n    --base_model 'decapoda-research/llama-7b-hf'",
            "quantization",
            "8bit",
        ),
        ('model_directory = "/root/pulsar/Charybdis-v1.0-GPTQ"', "quantization", "4bit"),
        ("TheBloke/Llama-2-13B-chat-AWQ", "quantization", "4bit"),
    ],
)
def test_settings_said_the_way_development_records_say_them(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


@pytest.mark.parametrize(
    ("said", "count"),
    [
        # development records whose several GPUs the reader did not count
        ("A100x8x80G dpo train yi34b 显示现存不够", 8),  # LlamaFactory#2263
        ("qwen1.5-4b全量训练8*80G显卡batch设为1会爆显存", 8),  # LlamaFactory#2992
        ("I tried to reproduce the 13B rlhf training in A100-80GB * 8.", 8),  # DeepSpeedExamples#410
        (
            '设置os.environ["CUDA_VISIBLE_DEVICES"] = "2, 3, 4" 了多卡训练一直报OutOfMemoryError',
            3,
        ),  # ChatGLM-Finetuning#66
        ('python -m paddle.distributed.launch --gpus "0,2" finetune_generation.py', 2),  # PaddleNLP#5822
        ("I finetuned with 2 card A00 and got error CUDA OOM.", 2),  # finetune-Qwen2-VL#19
        ("fine-tuning a Llama3-70B model using LoRA on a system with 4x80G GPUs", 4),  # llama-cookbook#626
        ("我在微调时使用8块12G显存的GPU，模型并行度为8", 8),  # CPM-2-Finetune#23
        # the hardware asked about in a question is the run's, not a fix
        ("Any ideas to run on 8 V100-32G gpus?", 8),  # R1-V#89
        # not counts
        ("1920x1080 images on a 4090", 1),
        ("A100 x 8GB", None),
    ],
)
def test_gpu_counts_in_development_records_words(said: str, count: int | None) -> None:
    got = facts(said)
    assert got.get("gpu_count") == count
    assert "resolved_by" not in got


def test_weights_loaded_in_32_bits_said_in_words() -> None:
    # codeshell#8 (development): "the demo loads the model in 32 bits"
    assert "提供的demo以32位加载模型" in dev_text()
    assert facts("提供的demo以32位加载模型").get("torch_dtype") == "fp32"
    assert facts("the model is loaded in 32-bit").get("torch_dtype") == "fp32"
    assert facts("loaded in 4-bit").get("torch_dtype") is None


@pytest.mark.parametrize(
    ("said", "method"),
    [
        # AutoGPTQ#179, exllama#120, AutoAWQ#267 and wenda#418 (development): checkpoints quantized by GPTQ, AWQ or
        # the model's own int4 build, where bitsandbytes' compute dtype and matmul bugs have no part
        ('model_directory = "/root/pulsar/Charybdis-v1.0-GPTQ"', "gptq"),
        ("I use 32G V100 to try to quantize llama-13B ckpt with AutoGPTQ", "gptq"),
        ("TheBloke/Llama-2-13B-chat-AWQ", "awq"),
        ("8G显存，可以运行chatglm2-6b-int4模型，但是使用闻达启动器会报显存不足的错误", "other"),
        ("model = AutoModel.from_pretrained(path, trust_remote_code=True).quantize(4).cuda()", "other"),
        ("bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4')", "bitsandbytes"),
        ("model = AutoModelForCausalLM.from_pretrained(name, load_in_8bit=True)", "bitsandbytes"),
    ],
)
def test_the_quantization_method_is_read(said: str, method: str) -> None:
    assert facts(said).get("quant_method") == method


@pytest.mark.parametrize(
    "said",
    [
        "bitsandbytes==0.41.1",  # an environment listing: installed, not used
        "load_in_4bit=False",
        "Qwen2-7B-Instruct, no quantization",
    ],
)
def test_no_quantization_method_without_one_in_use(said: str) -> None:
    assert facts(said).get("quant_method") is None


@pytest.mark.parametrize(
    ("said", "size"),
    [
        # FlagEmbedding#619 and #731 (development): BGE models named without their size
        ("reranker = FlagReranker('BAAI/bge-reranker-large', use_fp16=True)", 0.56),
        ("--model_name_or_path bge-m3 \\", 0.568),
        ("fine-tuning google/flan-t5-large with Seq2SeqTrainer", 0.783),
        ("microsoft/Florence-2-large on a T4", 0.77),
        ("fine tune the XLNET model: --transformer_model=xlnet-base-cased", 0.117),
        ("openai/whisper-large-v3 fine-tuning", 1.55),
        ("GPT-2 medium", 0.355),
        ("gpt2", 0.124),
    ],
)
def test_small_models_named_without_a_size_have_their_published_size(said: str, size: float) -> None:
    assert facts(said).get("model_params_b") == size


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        # FlagEmbedding#731 (development): DeepSpeed and checkpointing commented out of the launch script; torchrun
        # still launches one process per card
        (
            "torchrun --nproc_per_node 8 \\\n-m FlagEmbedding.reranker.run \\\n"
            "# --deepspeed .../examples/finetune/ds_config.json\n# --gradient_checkpointing\n--fp16 \\",
            "distributed",
            "ddp",
        ),
        ("# --gradient_checkpointing\n--fp16 \\", "gradient_checkpointing", None),
        # lit-llama#286 (development): the larger batch commented out above the one in use
        ("# batch_size = 128\nmicro_batch_size = 4", "batch_size", 4),
    ],
)
def test_a_commented_out_setting_is_not_the_runs(said: str, name: str, value: object) -> None:
    assert facts(said).get(name) == value


def test_a_markdown_heading_is_not_a_commented_out_setting() -> None:
    got = facts("# System Info\n## Reproduction: gradient_checkpointing=True, deepspeed zero3 on 8 A100")
    assert got["gradient_checkpointing"] is True and got["zero_stage"] == 3


@pytest.mark.parametrize(
    "said",
    [
        # ChatGLM3#1323 and transformers#16616 (development): the process vanished without a traceback, as the
        # kernel's OOM killer leaves it (a CUDA OOM raises one)
        "8G显存运行 basic_demo 加载到29%退出，无报错",
        "After `Finished initializing model with 11.14B parameters`, it quits without outputting a model response.",
        "程序没有任何报错就直接退出了",
        "the kernel died without any error message while loading checkpoint shards",
    ],
)
def test_a_process_that_vanishes_without_a_traceback_ran_out_of_host_ram(said: str) -> None:
    assert facts(said).get("error_kind") == "host_oom"


@pytest.mark.parametrize(
    "said",
    [
        "training finished and exited without errors",
        "it exits without error when I use a smaller batch",
        "训练完正常退出，无报错",
    ],
)
def test_a_run_that_ends_without_errors_is_not_killed(said: str) -> None:
    assert facts(said).get("error_kind") is None


@pytest.mark.parametrize(
    "said",
    [
        # LlamaFactory#24 and #1846, VeOmni#159 (development): one card worked, several run out
        "用两张4090微调13b的belle出现oom，单卡则不会",
        "我的设备是：4090*4 当我设置为单卡的时候正常运行，但是设置为多卡，则会报错OOM",
        "单卡训练没有问题，多卡情况会OOM",
        "single GPU training works fine, but with 2 GPUs I get OOM",
    ],
)
def test_one_card_working_and_several_failing_is_a_change_of_gpus_not_a_fix(said: str) -> None:
    got = facts(said)
    assert got.get("last_change") == "gpus_or_launch"
    assert got.get("gpu_count") != 1 and got.get("resolved_by") is None


def test_one_card_working_alone_says_nothing_about_a_change() -> None:
    assert facts("单卡推理正常").get("last_change") is None


def test_a_cards_neicun_is_the_cards_memory() -> None:
    # LlamaFactory#3754 (development): "每张卡内存" is each card's memory, so the 内存 that ran out is the card's
    said = "A800 每张卡内存占用在40G以内，但是用自定义数据集（平均每条长度都在7000+），同样的配置训练，直接爆内存了"
    assert facts(said).get("error_kind") == "cuda_oom"
    # a machine's 内存, sized, is the host's
    assert facts("8卡机器，内存512G，直接爆内存了").get("error_kind") == "host_oom"


def test_a_plain_batch_set_in_words_gives_way_to_the_per_device_key() -> None:
    # lit-llama#286 (development): "batch size" said in words then set in code beside micro_batch_size
    said = (
        "I changed batch size to this:\n\n```\n# batch_size = 128\nbatch_size = 6\nmicro_batch_size = 2\n"
        "gradient_accumulation_steps = batch_size // micro_batch_size\n```\n\nstill get OOM, on v100 32GB , why？"
    )
    assert facts(said).get("batch_size") == 2


@pytest.mark.parametrize(
    "said, stage",
    [
        # BELLE#311 (development): the stage set in words, not as a key and a value
        ("基于deepspeed的全参微调时，总是在deepspeed.initialize发生OOM的问题，zero_stage指定为3，batch也比较小", 3),
        ("the ZeRO stage is set to 2 and it still runs out of memory", 2),
        ("zero stage 设置成 1 也会爆显存", 1),
    ],
)
def test_a_zero_stage_set_in_words(said: str, stage: int) -> None:
    got = facts(said)
    assert str(got.get("zero_stage")) == str(stage) and got.get("distributed") == "deepspeed"


def test_a_zero_stage_in_a_sentence_about_something_else_is_not_read() -> None:
    assert facts("the zero stage count is 3 in this table of results").get("zero_stage") is None


@pytest.mark.parametrize(
    "said, fixed",
    [
        # GPT2-Chinese#160 (development): "only at 2 does it not run out" is what made it fit
        ("为啥我12G显存 batch_size 要设置成2才不会oom", "batch_size"),
        ("max_length 设置到1024才没有oom", "max_length"),
    ],
)
def test_only_then_does_it_not_run_out_is_a_fix(said: str, fixed: str) -> None:
    got = facts(said)
    assert got.get("resolved_by") == fixed
    assert fixed not in got


def test_still_running_out_after_a_change_is_not_a_fix() -> None:
    assert facts("batch_size 设置成2还是会oom").get("resolved_by") is None


@pytest.mark.parametrize(
    "said, name, value",
    [
        # FlagEmbedding#690 (development): a batch "opened" at 32
        ("四卡，batch开32，开了gradient_checkpointing", "batch_size", 32),
        ("bs开到8就爆显存", "batch_size", 8),
    ],
)
def test_a_value_opened_at_a_number(said: str, name: str, value: int) -> None:
    assert str(facts(said).get(name)) == str(value)


@pytest.mark.parametrize(
    "said, length",
    [
        # FlagEmbedding#690 (development): two lengths on one line, the longest sizes the activations
        ("query_max_len 512 ，passage_max_len 8192 训着训着会突然OOM", 8192),
        ("--max_source_length 1024 --max_target_length 256", 1024),
    ],
)
def test_the_longest_of_several_lengths_on_a_line(said: str, length: int) -> None:
    assert str(facts(said).get("max_length")) == str(length)


def test_a_length_that_made_it_work_does_not_replace_the_failing_one() -> None:
    assert str(facts("max_length 2048 OOMs; with max_length 512 it works").get("max_length")) == "2048"


@pytest.mark.parametrize(
    "said",
    [
        # Yi#125 (development): a DeepSpeed config pasted over several lines, offload's device a line below
        '"zero_optimization": {\n    "stage": 2,\n    "offload_param": {\n        "device": "cpu"\n    },',
        '"offload_optimizer": { "device": "cpu", "pin_memory": true }',
        "offload_optimizer_device: cpu",
        # MiniCPM-V#828 (development): the same said in words
        "使用ds_config_zero3.json，并且offload_optimizer和offload_param的device都设置了cpu，但是依然训练资源不够",
    ],
)
def test_zero_offload_by_its_device(said: str) -> None:
    assert facts(said).get("offload") is True


@pytest.mark.parametrize(
    "said",
    ['"offload_optimizer": {\n    "device": "none"\n},', "offload_param_device: none"],
)
def test_zero_offload_to_no_device_is_not_offload(said: str) -> None:
    assert facts(said).get("offload") is None


def test_memory_that_rises_step_by_step_grows() -> None:
    # Fengshenbang-LM#294 (development): "逐步上升" with words between the memory and the verb
    assert facts("我在对闻仲进行微调的时候，观察到显存的占用是逐步上升的").get("memory_growth") == "growing"


def test_a_pipeline_stage_that_exited_is_not_a_training_step() -> None:
    # DeepSpeed#3208 (development): DeepSpeed-Chat's own message names its first stage, not step 1 of training
    got = facts("[BUG]RuntimeError: Step 1 exited with non-zero status 1")
    assert got.get("oom_step") is None and got.get("trained_before_oom") is None
    assert str(facts("it crashed at step 35 with OOM").get("oom_step")) == "35"


@pytest.mark.parametrize(
    "said",
    [
        # RRHF#41 (development)
        "用原始脚本用八张A100运行会在训练开始前就报错OOM",
        "it runs out of memory before training even starts",
    ],
)
def test_before_training_starts_is_step_zero(said: str) -> None:
    assert str(facts(said).get("oom_step")) == "0"


@pytest.mark.parametrize(
    "said, fixed",
    [
        # torchforge#278 (development): a length lowered, no value given, and that fixed it
        ("TLDR: GPU memory utilization was at the peak. Reducing seq_len solves it.", "max_length"),
        ("lowering max_seq_length fixed the OOM", "max_length"),
        ("调小max_length就好了", "max_length"),
        ("decreasing the per_device_train_batch_size solved it", "batch_size"),
    ],
)
def test_a_setting_lowered_without_a_value_that_fixed_it(said: str, fixed: str) -> None:
    assert facts(said).get("resolved_by") == fixed


@pytest.mark.parametrize(
    "said",
    [
        "I tried reducing batch size but it didn't work",
        "reducing the max length, it still OOMs",
        "调小max_length还是爆显存",
    ],
)
def test_a_setting_lowered_that_did_not_help_is_not_a_fix(said: str) -> None:
    assert facts(said).get("resolved_by") is None


@pytest.mark.parametrize(
    "said",
    [
        # chatglm_finetuning#154 (development): neither LoRA nor P-tuning v2 is a full fine-tune
        "tesla v100 32G还是爆显存了。没有使用lora和ptv2，training batch size已经是1了",
        "I'm not using LoRA, just plain fine-tuning",
        "I don't use any adapters and it OOMs on the first step",
    ],
)
def test_no_adapter_at_all_is_a_full_fine_tune(said: str) -> None:
    assert facts(said).get("finetune_method") == "full"


@pytest.mark.parametrize(
    "said", ["no LoRA on the embeddings, only on q_proj", "LoRA微调，不用peft库", "不用peft库，自己写的LoRA层"]
)
def test_an_adapter_kept_off_one_part_is_not_a_full_fine_tune(said: str) -> None:
    assert facts(said).get("finetune_method") != "full"


@pytest.mark.parametrize(
    "said, phase",
    [
        # EVA#83 (development): the part that works is not where it failed
        ("运行交互式评测是正常的，但是运行微调报错了", "training"),
        ("微调报CUDA out of memory错误\n运行交互式评测是正常的，但是运行微调报错了，怎么解决呢？", "training"),
        ("inference works fine, but training OOMs", "training"),
        ("训练正常，评估的时候爆显存", "evaluation"),
    ],
)
def test_the_part_said_to_work_is_not_the_phase(said: str, phase: str) -> None:
    assert facts(said).get("phase") == phase


@pytest.mark.parametrize(
    "said, fixed",
    [
        # azureml-assets#2379 (development): a pull request's list of changes, in markdown emphasis, opened by a gerund
        ("1. Limiting _max_seq_length_ to 1536 to avoid OOM issues with ND40 compute.", "max_length"),
        ("Limit max_length to 1024 to avoid OOM", "max_length"),
        ("- Reducing per_device_train_batch_size to 2 to prevent out of memory errors", "batch_size"),
    ],
)
def test_a_change_listed_with_its_purpose_is_the_fix(said: str, fixed: str) -> None:
    got = facts(said)
    assert got.get("resolved_by") == fixed
    assert fixed not in got


def test_a_setting_in_markdown_emphasis_is_read_and_dunder_names_are_left_alone() -> None:
    assert str(facts("_max_seq_length_ = 2048").get("max_length")) == "2048"
    assert str(facts("set *per_device_train_batch_size* to 8").get("batch_size")) == "8"
    assert facts("def __init__(self, max_len): pass").get("max_length") is None


def test_a_run_that_enabled_a_setting_for_memory_is_not_a_fix() -> None:
    got = facts("I enabled gradient checkpointing to save memory but it still OOMs")
    assert got.get("resolved_by") is None and got.get("gradient_checkpointing") is True


@pytest.mark.parametrize(
    "said, fixed",
    [
        # Megatron-Bridge#3706 (development): a fix's title says what it sets, not why
        (
            "fix(perf): set expandable_segments:True for nemotron_3_nano h100 fp8_cs (cuda-oom on 26.04 base)",
            "expandable_segments",
        ),
        ("fix: set `use_cache=False` in from_pretrained", "use_cache"),
    ],
)
def test_a_fix_title_names_the_change(said: str, fixed: str) -> None:
    assert facts(said).get("resolved_by") == fixed


def test_only_the_setting_right_after_a_fix_title_verb_is_the_change() -> None:
    got = facts("fix: enable gradient checkpointing for the 70B recipe")
    assert got.get("resolved_by") == "gradient_checkpointing"
    assert str(got.get("model_params_b")) == "70.0"


@pytest.mark.parametrize(
    "said, phase",
    [
        # development records: a checkpoint converted between formats (Pai-Megatron-Patch#530, #568), an export
        # (Megatron-Bridge#1855), a merge process (unsloth-zoo#266), a save (Chinese-Vicuna#81), a consolidation
        # (optimum-neuron#649)
        (
            "I attempted to convert the DeepSeek V3 model from Hugging Face format to the mcore format with one node, "
            "but the process failed due to insufficient memory.",
            "merging",
        ),
        ("convert ds v3 from megatron to transformers OOM", "merging"),
        ("Infinite CUDA OOM during HF export with Activation Recomputation enabled", "merging"),
        (
            "The 16-bit merge process for large models like `gpt-oss-120b` was consistently running out of memory",
            "merging",
        ),
        ("CUDA OOM while converting the checkpoint to HF format", "merging"),
        ("model saving error", "saving"),
        ("Consolidation was happening on the XLA device if the checkpoint was saved with `xser`.", "saving"),
    ],
)
def test_a_checkpoint_converted_exported_or_consolidated(said: str, phase: str) -> None:
    assert facts(said).get("phase") == phase


@pytest.mark.parametrize(
    "said, phase",
    [
        # litgpt#159 (development): a conversion done before the run that failed
        (
            "I followed the steps to convert the checkpoints to lightning format, downloaded and tokenized the Alpaca "
            "dataset as instructed.",
            None,
        ),
        ("After conversion to gguf the model OOMs when generating", "generation"),
        ("I converted my dataset to HF format and the training OOMs", "training"),
    ],
)
def test_a_conversion_that_is_not_the_failing_step(said: str, phase: str | None) -> None:
    assert facts(said).get("phase") == phase


def test_the_conversion_phrases_come_from_the_development_split() -> None:
    """Guard: the reports quoted above are development records (the held-out split stays unread)."""
    for said in (
        "convert ds v3 from megatron to transformers OOM",
        "model saving error",
        "I followed the steps to convert",
    ):
        assert said in dev_text()


@pytest.mark.parametrize(
    "said",
    [
        # Megatron-Bridge#1748 (development): the save named as what failed
        "Training works fine but checkpointing OOMs out",
        "saving checkpoints OOMs",
        "when the checkpoint is saved it runs out of memory",
        "OOM when it reaches save_steps",
        "每次到save_steps就爆显存",
    ],
)
def test_the_save_named_as_what_failed(said: str) -> None:
    assert facts(said).get("phase") == "saving"


@pytest.mark.parametrize(
    "said",
    ["gradient checkpointing OOMs", "activation checkpointing fails", "enabling checkpointing fails to reduce memory"],
)
def test_gradient_checkpointing_is_not_the_save(said: str) -> None:
    assert facts(said).get("phase") is None


@pytest.mark.parametrize(
    "said",
    [
        # mistral-inference#20 (development): an amount left behind at every step
        "each time I called loss.backward() and enter the next batch, there would be 30mb of gpu memory which could "
        "not be released.",
        "every step leaks 30MB of GPU memory",
        "it leaks about 200MB per iteration",
    ],
)
def test_memory_left_behind_at_every_step_is_growth(said: str) -> None:
    assert facts(said).get("memory_growth") == "growing"


@pytest.mark.parametrize(
    "said", ["each batch is 30MB and memory was released fine", "Every time I load 2GB of data it is not released"]
)
def test_an_amount_per_step_that_is_released_or_not_gpu_memory_is_not_growth(said: str) -> None:
    assert facts(said).get("memory_growth") is None


def test_the_save_and_growth_phrases_come_from_the_development_split() -> None:
    """Guard: the reports quoted above are development records (the held-out split stays unread)."""
    for said in ("Training works fine but checkpointing OOMs out", "there would be 30mb of gpu memory which could not"):
        assert said in dev_text()


def test_a_version_switch_with_cards_later_on_the_line_is_an_upgrade() -> None:
    """ms-swift#7986 (development): the cards named later on the line are where it runs, not what it switched to."""
    said = (
        "I recently switched from version 3.10.3 to version 3.12.3, and I started getting OOM errors using DeepSpeed "
        "Stage 3 on GRPO runs (colocate mode) on a full node of 4 H100s."
    )
    assert said in dev_text()
    read = facts(said)
    assert read["last_change"] == "library_upgrade"
    assert read["gpu_count"] == 4
    # the card named right after "to" is still the card switched to
    assert facts("when I moved from an A100 to a 4090 it OOMs")["last_change"] == "gpus_or_launch"


def test_a_version_in_backticks_after_to_is_the_version_changed_to() -> None:
    """stanford_alpaca#278 (development): "change the transformers version to `4.28.1`, I can run" is the fix."""
    said = "Then I change the transformers version to `4.28.1`, I can run train the alpaca"
    assert said in dev_text()
    assert facts(said + ".")["resolved_by"] == "transformers_version"
    assert facts("I upgraded transformers to `4.38.2` and now it OOMs")["transformers_version"] == "4.38.2"


@pytest.mark.parametrize(
    ("said", "want"),
    [
        # lich99/ChatGLM-finetune-LoRA#3 (development): training went over the card's memory
        ("训练超显存", {"phase": "training", "error_kind": "cuda_oom"}),
        # GPT2-Chinese#96 (development): the card's memory said as the GPU's 内存, after some hundred steps
        (
            "怎么老是报gpu内存溢出。训练几百步后就报。",
            {"phase": "training", "error_kind": "cuda_oom", "trained_before_oom": True},
        ),
        # slime#1951 (development): a range of steps trained, then the OOM
        (
            "在4卡H200上进行训练，20~50步训练后出现",
            {"phase": "training", "trained_before_oom": True},
        ),
        ("推理超显存", {"phase": "generation", "error_kind": "cuda_oom"}),
    ],
)
def test_chinese_ways_to_say_training_ran_over_the_card(said: str, want: dict[str, object]) -> None:
    read = facts(said)
    assert {k: read.get(k) for k in want} == want


@pytest.mark.parametrize(
    ("said", "phase"),
    [
        ("训练后保存模型时OOM", "saving"),  # after training: the save, not a step count
        ("训练完成后合并时显存不足", "merging"),
    ],
)
def test_after_training_without_a_step_count_is_not_training(said: str, phase: str) -> None:
    assert facts(said).get("phase") == phase


def test_zero_steps_trained_is_not_a_run_that_trained() -> None:
    assert "trained_before_oom" not in facts("0步训练后就OOM")


def test_the_chinese_overflow_phrases_come_from_the_development_split() -> None:
    """Guard: the reports quoted above are development records (the held-out split stays unread)."""
    for said in ("训练超显存", "怎么老是报gpu内存溢出。训练几百步后就报。", "在4卡H200上进行训练，20~50步训练后出现"):
        assert said in dev_text()
