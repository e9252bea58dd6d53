"""Readings of the ways people describe a run in plain words (issue 10, "why it misses" 1 and 2).

Every case is our own wording, in English and Chinese, and each reading has a sentence that
must not produce it.
"""

from __future__ import annotations

import pytest

from triage.ingest.text import read_text


def facts(text: str) -> dict[str, object]:
    return {f.name: f.raw for f in read_text(text)}


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        # where in the run it failed
        ("it dies while running the few-shot evaluation on my eval set", "phase", "evaluation"),
        ("the crash is inside trainer.evaluation_loop", "phase", "evaluation"),
        ("我在跑模型评测的时候爆了", "phase", "evaluation"),
        ("模型在生成回答的时候显存不够", "phase", "generation"),
        ("批量推理的时候OOM", "phase", "generation"),
        ("it runs out of memory during checkpoint saving", "phase", "saving"),
        ("OOM when trying to save the merged model", "phase", "saving"),
        ("the process gets Killed while the shards load", "phase", "loading"),
        ("loading mistral 7b in 4bit on a T4 runs out of memory", "phase", "loading"),
        ("memory usage peaks at 70GB on my A100 80GB", "used_memory_bytes", 70 * 1024**3),
        ("The memory usage stays around 20GB then suddenly jumps to 80GB", "used_memory_bytes", 20 * 1024**3),
        ("训练长度16k就爆显存", "max_length", 16384),
        ("memory went from 20GB to 24GB and then OOM", "memory_growth", "growing"),
        # "it runs out of memory" is a failure, not "it runs"
        ("with batch size 8 it runs out of memory", "batch_size", 8),
        ("on a 4090 it runs out of memory", "gpu_name", "RTX 4090"),
        ("with max_length 4096 training runs out of memory", "max_length", 4096),
        # switched from one model or card to another: the new one is the run's, and it is what changed
        ("after switching from Llama-2-7b to Llama-3-8B it OOMs", "model_name", "Llama-3-8B"),
        ("after switching from Llama-2-7b to Llama-3-8B it OOMs", "last_change", "model"),
        ("从qwen-7b换成qwen-14b就爆显存", "model_name", "qwen-14b"),
        ("when I moved from an A100 to a 4090 it OOMs", "gpu_name", "RTX 4090"),
        ("when I moved from an A100 to a 4090 it OOMs", "last_change", "gpus_or_launch"),
        # what changed since it last worked
        ("It runs out of memory when I use a larger dataset", "last_change", "data"),
        ("换了数据集之后就爆显存", "last_change", "data"),
        ("显存从20G涨到24G然后OOM", "used_memory_bytes", 24 * 1024**3),
        ("输入长度是8192", "max_length", 8192),
        # gradient checkpointing by its other names (JAX/Keras rematerialization, Megatron's recomputation)
        ("without remat the LoRA run OOMs", "gradient_checkpointing", False),
        ("recompute_activations: true", "gradient_checkpointing", True),
        ("没有开重计算", "gradient_checkpointing", False),
        # the phase as the subject with a phrase between it and the failure
        ("Training is fine but generation at the end OOMs", "phase", "generation"),
        ("inference with long prompts runs out of memory", "phase", "generation"),
        ("evaluation at the end of each epoch OOMs", "phase", "evaluation"),
        ("saving at the end of training crashes with OOM", "phase", "saving"),
        ("I cannot load the qwen2-vl-72b model at all", "phase", "loading"),
        ("加载到第5个分片时就爆了", "phase", "loading"),
        # loading for inference: the load is what failed; loading done before what failed is not the phase
        ("推理的时候加载模型就爆显存了", "phase", "loading"),
        ("For inference I load Qwen2-72B; OOM while loading the model", "phase", "loading"),
        ("after loading the model, inference runs out of memory", "phase", "generation"),
        ("loading the model works fine, but inference OOMs", "phase", "generation"),
        ("模型加载完成后推理时爆显存", "phase", "generation"),
        ("it fails in the step function of the optimizer", "phase", "optimizer"),
        ("the error shows up at the end of the first epoch when it runs evaluation", "phase", "evaluation"),
        ("OOM as soon as trainer.train() starts", "phase", "training"),
        # the first step
        ("OOM as soon as trainer.train() starts", "oom_step", 0),
        # a step count said roughly
        ("it crashes after ~300 steps with CUDA OOM", "oom_step", 300),
        ("OOM after about 1200 training steps", "oom_step", 1200),
        ("it OOMs at step ~1500", "oom_step", 1500),
        ("it runs for 200 steps then OOMs", "oom_step", 200),
        ("OOM after 300 iterations", "oom_step", 300),
        ("训练了3000步之后OOM", "oom_step", 3000),
        ("跑了大概500个step以后爆显存", "oom_step", 500),
        ("lora rank设成了64", "lora_r", 64),
        ("评估batch size设为16", "eval_batch_size", 16),
        ("beam size 10", "num_beams", 10),
        ("生成长度设为2048", "max_new_tokens", 2048),
        ("the loop is leaking GPU memory", "memory_growth", "growing"),
        ("70亿参数的模型", "model_params_b", 7.0),
        ("a 7-billion-parameter model", "model_params_b", 7.0),
        ("推理多次之后显存越来越高", "phase", "generation"),
        ("OOM in the first forward pass", "phase", "forward"),
        ("用的是freeze微调", "finetune_method", "freeze"),
        # the stage that failed, when another stage is named first
        ("SFT阶段没问题，DPO阶段OOM", "trainer_type", "dpo"),
        ("两台机器，每台8卡", "gpu_count", 16),
        ("RAM usage goes to 100% and the machine freezes", "error_kind", "host_oom"),
        ("系统内存占用到100%", "error_kind", "host_oom"),
        ("the OOM occurs in accelerator.backward(loss)", "phase", "backward"),
        ("it crashes on the very first forward pass", "oom_step", 0),
        # how memory moved
        ("my ram keeps climbing until the box freezes", "memory_growth", "growing"),
        ("显存占用也在不断增加", "memory_growth", "growing"),
        ("memory usage goes up after each batch", "memory_growth", "growing"),
        ("显存从20G突然飙升到70G", "memory_growth", "spike"),
        ("the memory suddenly jumps at step 40", "memory_growth", "spike"),
        # the subject said another way, an adverb between, a rate per step
        ("mem usage slowly grows until it dies", "memory_growth", "growing"),
        ("the memory footprint grows linearly with the number of batches", "memory_growth", "growing"),
        ("nvidia-smi shows the usage climbing steadily", "memory_growth", "growing"),
        ("memory goes up by ~200MB each step", "memory_growth", "growing"),
        ("显存随着训练步数增加而增加", "memory_growth", "growing"),
        ("显存在每次评估后都上升", "memory_growth", "growing"),
        ("显存缓慢上涨", "memory_growth", "growing"),
        ("推理时显存不断叠加", "memory_growth", "growing"),
        # a leak said as what happens
        ("Memory leak during training", "memory_growth", "growing"),
        ("训练过程中存在内存泄漏", "memory_growth", "growing"),
        ("there seems to be some GPU memory leak", "memory_growth", "growing"),
        # it trained first
        ("训练了没几步就爆显存", "trained_before_oom", True),
        ("it dies after a couple of epochs", "trained_before_oom", True),
        ("fine for 300 iterations, then OOM", "trained_before_oom", True),
        # host RAM in words
        ("Using 2 HF models runs out of GPU ram", "error_kind", "cuda_oom"),
        ("两张3090内存爆满", "error_kind", "cuda_oom"),  # the cards' 内存
        ("A100的内存不够，训练爆了", "error_kind", "cuda_oom"),
        ("服务器内存爆满了，进程被杀", "error_kind", "host_oom"),
        ("3090，内存32G，加载模型时Killed", "error_kind", "host_oom"),
        ("this is a CPU OOM, not the card", "error_kind", "host_oom"),
        ("system RAM keeps filling up", "error_kind", "host_oom"),
        ("it ran out of my 32G RAM", "error_kind", "host_oom"),
        # one card for every process, memory held by others
        ("every rank's weights end up on cuda:0", "all_ranks_on_gpu0", True),
        ("all the processes sit on GPU 0 in nvidia-smi", "all_ranks_on_gpu0", True),
        ("8个进程都挤在0号卡上", "all_ranks_on_gpu0", True),
        ("nvidia-smi lists the eight workers all on GPU 0", "all_ranks_on_gpu0", True),
        ("那张卡被别的任务占了10G", "other_process_bytes", 10 * 2**30),
        ("程序退出后显存还有2G没释放", "other_process_bytes", 2 * 2**30),
        ("12 GB is already used by another job", "other_process_bytes", 12 * 2**30),
        ("another user's job is using 10GB on the same GPU", "other_process_bytes", 10 * 2**30),
        # a setting not turned off is on; the allocator's spare memory and host RAM in prose
        ("训练时没关use_cache，显存占用很高", "use_cache", True),
        ("I forgot to disable packing", "packing", True),
        ("reserved but unallocated memory is 6 GiB", "torch_reserved_unallocated_bytes", 6 * 2**30),
        ("system RAM fills up to 64GB and the kernel kills it", "error_kind", "host_oom"),
        # a setting lowered while the run still failed: the change did not help
        (
            "I tried reducing the batch size and micro_batch size however I still see the issue",
            "tried_without_effect",
            "batch_size",
        ),
        ("reducing the batch size didn't help", "tried_without_effect", "batch_size"),
        ("even after lowering the max_seq_length it OOMs", "tried_without_effect", "max_length"),
        ("调小batch_size还是爆显存", "tried_without_effect", "batch_size"),
        ("max_length 从4096降到2048还是爆显存", "tried_without_effect", "max_length"),
        ("尝试调小batch size", "tried_without_effect", "batch_size"),
        ("batch调小了还是OOM", "tried_without_effect", "batch_size"),  # the setting first, then the verb
        # the failure, then what did not prevent it (santacoder-finetuning#16, a development title)
        ("Cuda OOM even with batch size 1 and lower seq length on 16GB GPU", "tried_without_effect", "max_length"),
        ("It OOMs even with lowered max_length", "tried_without_effect", "max_length"),
        ("max_length改成512也会OOM", "tried_without_effect", "max_length"),
        # "the same error" after a change (LMFlow#229, a development report): it did not help
        ("将 block_size 设置为 1 也是相同的错误", "tried_without_effect", "max_length"),
        ("batch size 改成1也是一样的报错", "tried_without_effect", "batch_size"),
        # the optimizer states or the parameters put on the CPU, in words (MiniCPM-V#286, a development report)
        ("deepspeed zero3配置，并尽可能将所有参数放置在cpu上，仍然显示显存不够", "offload", True),
        ("把优化器放到cpu上", "offload", True),
        ("offload_optimizer到cpu", "offload", True),
        ("I offloaded the optimizer to CPU and it still OOMs", "offload", True),
        # an OOM said without whose memory is the card's
        ("7B model OOM with 4x4096(96GB)", "error_kind", "cuda_oom"),
        ("logits.float()新申请的显存数过大导致oom", "error_kind", "cuda_oom"),
        ("OOM error when training on a 220G Memory machine with 8 V100.", "host_ram_bytes", 220 * 2**30),
        ("even with parameters offloaded to the CPU", "offload", True),
        # DeepSpeed's name for it, lowered from one value to another while the run still fails (bytedance/HLLM#3):
        # the later value is the run's
        (
            "I tried reducing the train_batch_size from 8 to 2, but the error persists.",
            "tried_without_effect",
            "batch_size",
        ),
        ("I tried reducing the train_batch_size from 8 to 2, but the error persists.", "batch_size", 2),
        ("Tried lowering max_length from 4096 to 2048 with no luck", "max_length", 2048),
        ("batch调小就好了", "resolved_by", "batch_size"),
        # asked about a leak they see, not a guess at one
        ("Is there a fix for this memory leak?", "memory_growth", "growing"),
        ("有没有人遇到过显存泄漏", "memory_growth", "growing"),
        # a value that works, then the one that fails, said with 就爆
        ("bs=1能跑，bs=4就爆", "batch_size", 4),
        ("bs=1能跑，bs=4就爆", "resolved_by", "batch_size"),
        ("max_length设成1024就能跑，2048就爆显存", "max_length", 2048),
        # a line that names the model that worked and the one that failed: the failing one is the run's
        ("It works with Qwen2-7B, but Qwen2-72B OOMs", "model_name", "Qwen2-72B"),
        ("It works with Qwen2-7B, but Qwen2-72B OOMs", "resolved_by", "model_name,model_params_b"),
        ("单卡A100上运行GLM-4.5V-FP8会爆，GLM-V4.1-9B-Base可以顺利运行", "model_params_b", 106.0),
        ("max_length设成1024就能跑，2048就爆显存", "resolved_by", "max_length"),
        ("单卡A100上GLM-4.5V会爆，GLM-V4.1-9B-Base可以顺利运行", "resolved_by", "model_name,model_params_b"),
        # a trainer's config class names the trainer
        ("SFTConfig 里开了 activation_offloading=True", "trainer_type", "sft"),
        ("args = GRPOConfig(num_generations=8)", "trainer_type", "grpo"),
        ("someone else's process occupies 8GB of the card", "other_process_bytes", 8 * 2**30),
        # resuming
        ("it only OOMs when I resume from the last checkpoint", "resume_from_checkpoint", True),
        ("断点续训的时候爆显存", "resume_from_checkpoint", True),
        # counts and launchers
        ("CUDA_VISIBLE_DEVICES=0,1 python train.py", "gpu_count", 2),
        ("torchrun --nproc_per_node 8 train.py", "gpu_count", 8),
        ("用两张16G的卡跑", "gpu_count", 2),
        ("我用4块A100，一共320G显存", "gpu_memory_bytes", 80 * 2**30),
        ("8 GPUs with 640GB of VRAM in total", "gpu_memory_bytes", 80 * 2**30),
        ("四台V100，一共128G", "gpu_memory_bytes", 32 * 2**30),  # 128 GB cards exist, but this is a total
        ("四台V100，一共128G", "gpu_count", 4),
        # which trainer, a second model
        ("bash examples/run_grpo_qwen.sh", "trainer_type", "grpo"),
        ("the dpo_trainer eats my memory", "trainer_type", "dpo"),
        ("llamafactory-cli train --stage rm", "trainer_type", "reward"),
        ("the trainer makes a copy of the base model for KL", "ref_model_separate", True),
        ("DPO 还要加载一个参考模型", "ref_model_separate", True),
        # several processes, no other scheme named
        ("same batch size OOMs once I switch to DDP", "distributed", "ddp"),
        ("单卡能跑，多卡训练就爆", "distributed", "ddp"),
        # DeepSpeed as LLaMA-Factory and OpenRLHF write it
        ("deepspeed: examples/deepspeed/ds_z2_config.json", "zero_stage", "2"),
        ("--zero_stage 3 --bf16", "zero_stage", "3"),
        ("--adam_offload --flash_attn", "offload", True),
        # ineffective, in words
        ("activation checkpointing of the Mistral model does not work", "gc_active", False),
        ("梯度检查点好像没有效果", "gc_active", False),
        # evaluation batch, full precision, ChatGLM's quantize, a bare length
        ("training is fine but for evaluation with batch size of 16 it OOMs", "eval_batch_size", 16),
        ("评估时 batch size 设为32就爆", "eval_batch_size", 32),
        ("the weights are kept in float32", "torch_dtype", "fp32"),
        ("模型以全精度加载", "torch_dtype", "fp32"),
        ("model = load(path).half().quantize(8).cuda()", "quantization", "8bit"),
        ("输入 length 设为 8192 时显存不够", "max_length", 8192),
        ('  "train_micro_batch_size_per_gpu": 4,', "batch_size", 4),
        ("4张24G 3090 跑不起来", "gpu_count", 4),
        ("RTX 4090 (24G) * 2", "gpu_count", 2),
        ("我在做 reward 模型训练", "trainer_type", "reward"),
        ("训到第300步就OOM了", "trained_before_oom", True),
        ("加载模型后在训练时OOM", "phase", "training"),  # after loading is not loading
        ("I pass compute_metrics to Trainer", "compute_metrics", True),
        ("OOM during LoRA merging via save_pretrained_merged", "phase", "merging"),
        ("在保存模型参数的时候爆了", "phase", "saving"),
        ("the traceback ends in prepare_model_for_kbit_training(model)", "prepare_kbit_training", True),
        ("swift rlhf --rlhf_type kto", "trainer_type", "kto"),
        ("训练到30%的时候OOM", "trained_before_oom", True),
        ("跑了3个小时后爆显存", "trained_before_oom", True),
        ("it dies 40% into the first epoch", "trained_before_oom", True),
        # at once, or after an epoch
        ("the trainer crashes immediately with OOM", "oom_step", 0),
        ("刚开始训练就爆显存", "oom_step", 0),
        ("OOM at the start of training, before any loss is logged", "oom_step", 0),
        ("it dies during the third epoch", "trained_before_oom", True),
        ("第3个epoch的时候OOM", "trained_before_oom", True),
        # precision, method, card memory in other orders
        ("model = AutoModel.from_pretrained(p).half().cuda()", "torch_dtype", "fp16"),
        ("以半精度加载模型", "torch_dtype", "fp16"),
        ("I fully fine-tune the 7B", "finetune_method", "full"),
        ("on an 80 GB A100", "gpu_memory_bytes", 80 * 2**30),
        ("单张80G的A800", "gpu_memory_bytes", 80 * 2**30),
        # an inference engine, not training
        ("from vllm import LLM and it OOMs on the first prompt", "out_of_scope", "serving"),
        ("llamafactory-cli chat --infer_backend vllm", "out_of_scope", "serving"),
        ("用vllm推理的时候显存不够", "out_of_scope", "serving"),
        # other engines and deployments (development-split threads: lmdeploy#978, #1442, QwenLM/Qwen#782, ms-swift#4407)
        ("from lmdeploy import pipeline\npipe = pipeline('internlm/internlm2-chat-7b')", "out_of_scope", "serving"),
        ("lmdeploy serve api_server ../Qwen1___5-7B-Chat --tp 1", "out_of_scope", "serving"),
        ("A100 80G，vLLM 运行 qwen-7b-chat 报错 OutOfMemoryError", "out_of_scope", "serving"),
        ("llama-3.2-11B-vision run in vllm==0.6.3 OOM error", "out_of_scope", "serving"),
        ("通过swift部署了Qwen2.5_vl之后，显存不断增加", "out_of_scope", "serving"),
        # a deployment that serves requests (ChatGLM3#446, ms-swift#3363, development split)
        ("部署后，单元测试没有问题，但是批量数据（类似for 循环，数据量超过1000）调用接口", "out_of_scope", "serving"),
        ("swift在部署的时候--max_memory没生效", "out_of_scope", "serving"),
        # resuming said with the run's kind and the checkpoint's
        ("Resuming our FSDP run from a sharded checkpoint", "resume_from_checkpoint", True),
        ("restarted with resume_from_checkpoint=output/checkpoint-2000", "resume_from_checkpoint", True),
        ("--resume_from_checkpoint True", "resume_from_checkpoint", True),
        ("resume_from_checkpoint: null", "resume_from_checkpoint", None),
        ("resume_from_checkpoint=None", "resume_from_checkpoint", None),
        # the stage said after the library's name
        ("Full fine-tune on 4x A100 40GB with DeepSpeed stage 3.", "zero_stage", 3),
        # a local demo deployed is the user's own run (Langchain-Chatchat#693): in scope
        ("按照说明部署后，运行webui.py 后显存不足，显示使用的是我3060 6G的显卡", "out_of_scope", None),
        ("examples/finetune_taiyi_stable_diffusion 全精度要显存26G", "out_of_scope", "image_model"),
        ("Dreambooth training on a 3090 runs out of memory", "out_of_scope", "image_model"),
        ("training a resnet50, cuDNN error: CUDNN_STATUS_ALLOC_FAILED", "out_of_scope", "image_model"),
        # host RAM said in other ways (development: NeMo#11784, IndicoDataSolutions/finetune#123, bert_score#80)
        ("NeMo Llama 2 70B Pre-Training 20TB Dataset out-of-memory (CPU memory)", "error_kind", "host_oom"),
        ("Kernel dying when running the SST classification example.", "error_kind", "host_oom"),
        ("after some minutes the jupyter-kernel is forced to restart", "error_kind", "host_oom"),
        ("score() causes kernel restart", "error_kind", "host_oom"),
        # a run that only evaluates: its batch is the evaluation batch (kundajelab/DART-Eval#9, development)
        (
            "I'm running Task 1 zero-shot evaluation on an NVIDIA A100 (80 GB VRAM) using the default batch_size=1024 "
            "in gena_lm.py and encountering CUDA OOM errors.",
            "eval_batch_size",
            1024,
        ),
        # bitsandbytes "quantizes the model" as it loads it: its bits are the weights'
        (
            "I use bitsandbytes load_in_4bit to quantize the model for QLoRA fine-tuning of llama-13b and it OOMs",
            "quantization",
            "4bit",
        ),
        # a quantized model loaded or run keeps its bits (a quantization job's bits are only its target)
        ("想使用8bit量化模型跑，按照说明修改 load_in_8bit=True", "quantization", "8bit"),
        (
            "After quantizing the model to 4-bit I load it with AutoGPTQForCausalLM.from_quantized(path) and "
            "generation runs out of memory",
            "quantization",
            "4bit",
        ),
        # models by family and size
        ("fine-tuning llama 65b with LoRA", "model_name", "llama-65b"),
        ("百川13B 全参微调", "model_name", "baichuan-13b"),
        # a first step that went through: a later one failed
        ("the first step is fine but the second one OOMs", "trained_before_oom", True),
        ("第一步没问题，第二步就爆了", "trained_before_oom", True),
        ("after the first step it crashes", "trained_before_oom", True),
        ("It OOMs on the 3rd step, not the first", "oom_step", "3"),
        ("OOM on the second iteration", "trained_before_oom", True),
        ("at the start of the second epoch it OOMs", "trained_before_oom", True),
        # FSDP and DeepSpeed named bare, as what trains or fails, or in a list of the set-up
        ("FSDP training of llama 7b runs out of memory", "distributed", "fsdp"),
        ("FSDP full shard across 4 A6000s", "distributed", "fsdp"),
        ("FSDP OOM when saving", "distributed", "fsdp"),
        # FSDP2 by its name, and PyTorch's and accelerate's spellings (accelerate#3474, a development title)
        ("FSDP2 - High memory usage with LORA", "distributed", "fsdp"),
        ("using fsdp2 with accelerate", "distributed", "fsdp"),
        ("fsdp_version: 2", "distributed", "fsdp"),
        ("model = FullyShardedDataParallel(model)", "distributed", "fsdp"),
        ("fully_shard(model)", "distributed", "fsdp"),
        ("llama 70b, fsdp, 8xA100, OOM", "distributed", "fsdp"),
        ("llama 70b, deepspeed, 8xA100, OOM", "distributed", "deepspeed"),
        ("deepspeed training OOMs on 2 GPUs", "distributed", "deepspeed"),
        # what changed since it last worked
        ("CUDA OOM after I increased max_length from 1024 to 4096", "max_length", 4096),
        ("CUDA OOM after I increased max_length from 1024 to 4096", "last_change", "batch_or_length"),
        ("I doubled the batch size and now it fails", "last_change", "batch_or_length"),
        ("调大batch size就爆显存", "last_change", "batch_or_length"),
        ("after upgrading transformers it OOMs", "last_change", "library_upgrade"),
        ("After the 1.2.0 release my job OOMs", "last_change", "library_upgrade"),
        ("Reducing max_new_tokens to 256 avoids the OOM", "resolved_by", "max_new_tokens"),
        ("升级transformers之后就开始OOM", "last_change", "library_upgrade"),
        ("Since moving to multi-GPU with accelerate launch it OOMs", "last_change", "gpus_or_launch"),
        ("after adding a second GPU it runs out of memory", "last_change", "gpus_or_launch"),
        ("换成多卡就爆显存", "last_change", "gpus_or_launch"),
        # one set-up that works set against one that fails: the failing one is the run's, the other its fix
        ("zero2 works but zero3 OOMs", "zero_stage", 3),
        ("zero2 works but zero3 OOMs", "resolved_by", "zero_stage"),
        ("LoRA works fine but full fine-tuning OOMs", "finetune_method", "full"),
        ("qlora works, lora OOMs", "finetune_method", "lora"),
        ("mistral-7b worked, llama3-8b OOMs", "model_name", "llama3-8b"),
        ("fine with qlora, OOM with lora", "finetune_method", "lora"),
        ("works with batch size 2 but OOMs with 4", "batch_size", 4),
        ("works fine with max_length 1024, but OOMs with 4096", "max_length", 4096),
        ("lora可以跑，全参就爆", "finetune_method", "full"),
        ("zero3能跑，zero2就爆显存", "zero_stage", 2),
        ("qwen-7b没问题，qwen-14b就爆显存", "model_name", "qwen-14b"),
        ("训练的时候没问题，评估的时候就爆", "phase", "evaluation"),  # phases are not set-ups
        # a list of things tried in vain: the run had them on, and the lowered ones did not help
        (
            "I tried gradient checkpointing, 8-bit adam and a lower batch size but nothing works",
            "gradient_checkpointing",
            True,
        ),
        (
            "I tried gradient checkpointing, 8-bit adam and a lower batch size but nothing works",
            "tried_without_effect",
            "batch_size",
        ),
        # a change that did not help
        ("把batch size改成1也没用", "tried_without_effect", "batch_size"),
        ("set max_length to 512, still OOM", "tried_without_effect", "max_length"),
        # memory over time, said plainly
        ("GPU memory slowly increases over time until OOM", "memory_growth", "growing"),
        ("gpu usage creeps up until it crashes", "memory_growth", "growing"),
        ("vram usage doubles after the first evaluation", "memory_growth", "growing"),
        ("memory is flat at 20 GB", "memory_growth", "steady"),
        ("the memory usage is stable the whole time", "memory_growth", "steady"),
        ("显存一直很稳定，最后一个batch突然爆了", "memory_growth", "steady"),
        ("memory stays constant at 20GB", "used_memory_bytes", 20 * 1024**3),
        ("为啥竟然消耗60G的显存？", "used_memory_bytes", 60 * 1024**3),
        ("Each forward pass sucks up about 1gb of gpu memory", "used_memory_bytes", 1024**3),
        # cards counted besides the one the report is about
        ("OOM only on GPU 0, the other 3 cards are fine", "gpu_count", 4),
        ("0号卡爆了，其他3张卡显存正常", "gpu_count", 4),
        ("I also tried other 2 GPUs", "gpu_count", 2),
        # a process that ends with no error of its own: the OOM killer
        ("It gets to 4/9 on the progress bar and then just exits", "error_kind", "host_oom"),
        ("the process just stops with no error message", "error_kind", "host_oom"),
        ("loading checkpoint shards stops at 3/8 and the process disappears", "error_kind", "host_oom"),
        # Chinese ways of saying a count, a bound and growth
        ("v100 32g四张，跑qwen2.5-14b全参", "gpu_count", 4),
        ("batch_size已经是1了，max_length也只有512", "max_length", "512"),
        ("每次eval之后显存都会增加一点", "memory_growth", "growing"),
        ("rollout阶段OOM", "phase", "generation"),
        ("跑着跑着显存就满了", "memory_growth", "growing"),
        # a count times a card's size, said alone
        ("I have 8 x 80GB and still cannot train 70B", "gpu_count", 8),
        ("4*24G显存", "gpu_count", 4),
        # the validation batch by its other names (verl's val_batch_size)
        ("val_batch_size=64", "eval_batch_size", "64"),
        ("validation_batch_size: 32", "eval_batch_size", "32"),
        # a 16-bit load chosen over fp32, and the next sentence says it fixed the OOM: the failing run loaded fp32
        ("Load the model in bfloat16 instead of fp32. Solves the OOM right away.", "torch_dtype", "fp32"),
        ("Load the model in bfloat16 instead of fp32. Solves the OOM right away.", "resolved_by", "torch_dtype"),
        ("I load it in bf16 instead of fp32 and it still OOMs", "torch_dtype", "bf16"),
        # the save by other words
        ("Training is fine until the first checkpoint is written", "phase", "saving"),
        ("OOM when the trainer saves a checkpoint", "phase", "saving"),
        # an earlier run worked, and what changed since is not said: the interview asks it
        ("CUDA out of memory fine-tuning qwen2.5-7b with lora, it worked yesterday", "last_change", "worked_before"),
        ("This used to work but now it OOMs", "last_change", "worked_before"),
        ("the script was running fine last week and now CUDA OOM", "last_change", "worked_before"),
        ("I haven't changed anything, it ran fine a few days ago", "last_change", "worked_before"),
        ("it trained without any problems last week", "last_change", "worked_before"),
        ("之前可以跑的，现在爆显存", "last_change", "worked_before"),
        ("昨天还能跑，今天就爆显存了", "last_change", "worked_before"),  # days, not two set-ups
        # the failing set-up said only as "but not"
        ("it works for batch size 1 but not 2", "batch_size", 2),
        ("it works for batch size 1 but not 2", "resolved_by", "batch_size"),
        ("runs fine with lora but not with full fine-tuning", "finetune_method", "full"),
        ("It works with max_length 1024 but not 2048.", "max_length", 2048),
        # two dtypes set against each other: the failing one is the weights'
        ("works with fp16 but OOMs with fp32", "torch_dtype", "fp32"),
        ("fp16 works but fp32 OOMs", "torch_dtype", "fp32"),
        ("works with fp16 but not fp32", "torch_dtype", "fp32"),
        ("works in bfloat16 but OOMs in float32", "torch_dtype", "fp32"),
        ("works with half but OOMs with full precision", "torch_dtype", "fp32"),
        ("works fine in training, OOMs in evaluation", "phase", "evaluation"),  # phases, not set-ups
        # more cards since it worked: the run has the new count
        ("going from 2 GPUs to 4 it OOMs", "gpu_count", 4),
        ("going from 2 GPUs to 4 it OOMs", "last_change", "gpus_or_launch"),
        ("I moved from 4 GPUs to 2 and now it OOMs", "gpu_count", 2),
        ("从2卡换到4卡就爆显存了", "gpu_count", 4),
        ("从单卡换成4卡之后OOM", "last_change", "gpus_or_launch"),
        # ... and a change that is named is the finer answer
        ("it worked yesterday, but after upgrading transformers it OOMs", "last_change", "library_upgrade"),
        # the error's own words say the change failed as "it OOMs" does
        ("after upgrading transformers to 4.36 I get CUDA out of memory", "last_change", "library_upgrade"),
        ("scaled from one GPU to 8 GPUs, CUDA out of memory", "last_change", "gpus_or_launch"),
        (
            "after upgrading transformers I get torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2G",
            "last_change",
            "library_upgrade",
        ),
        # a question about the run's own set-up still states it
        ("does my zero3 config work? it OOMs", "zero_stage", 3),
        ("I use deepspeed zero3 and it OOMs, would zero3 offload help?", "zero_stage", 3),
    ],
)
def test_reads(text: str, name: str, value: object) -> None:
    got = facts(text)
    assert str(got.get(name)) == str(value), got


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("evaluation loss looks fine", "phase"),  # no place in the run
        # memory said unsteady; memory in use; a change that made it work
        ("the memory is not stable", "memory_growth"),
        ("memory stays constant at 20GB", "gpu_memory_bytes"),
        ("OOM on first step fine-tuning Mistral-7B with LoRA", "trained_before_oom"),  # "fine-tuning" is not "fine"
        ("CUDA OOM before the first step finishes", "trained_before_oom"),
        ("Loading it in bf16 solves the OOM right away", "oom_step"),  # a fix, not an immediate OOM
        ("the server has 2 x 32GB RAM", "gpu_count"),  # host RAM's sticks, not cards
        ("用 FSDP 训练，显存和单卡一样大，每张卡都 OOM", "gpu_count"),  # one card compared with, not the run's
        ("多卡训练时每张卡的显存比单卡还多", "gpu_count"),
        # memory used or left is not the card's
        ("为啥竟然消耗60G的显存？", "gpu_memory_bytes"),
        ("Each forward pass sucks up about 1gb of gpu memory", "gpu_memory_bytes"),
        ("Only about 1.6 GiB of GPU memory available", "gpu_memory_bytes"),
        ("it stops without any error after I lowered the batch size", "oom_step"),
        ("after upgrading to 4.40 the OOM is gone", "last_change"),
        ("I increased the batch size and it works fine", "last_change"),
        ("after updating the weights in the optimizer step it OOMs", "last_change"),
        ("after moving to multi-GPU it works", "last_change"),
        ("set batch_size to 1 and it works", "tried_without_effect"),
        ("I generated the dataset yesterday", "phase"),
        # the run itself going well before its OOM is not an earlier run that worked
        ("worked fine for 2 epochs then OOM", "last_change"),
        ("之前都正常，跑到第3个epoch就爆了", "last_change"),
        ("worked fine until step 500", "last_change"),
        ("It never used to work", "last_change"),
        ("I trained yesterday and it OOMed", "last_change"),  # a run, not one that worked
        ("I ran it yesterday and got CUDA OOM", "last_change"),
        ("it works, but not always", "batch_size"),
        ("going from 2 GPUs to 4 fixed it", "gpu_count"),  # the fix, not the run
        ("I moved from 4 GPUs to 2 and now it OOMs", "last_change"),  # fewer cards is not "more GPUs"
        ("increased max_length from 2 to 4 and it OOMs", "gpu_count"),  # a count of nothing named
        ("would ZeRO-3 help?", "zero_stage"),  # a change asked about
        ("can zero3 fix this?", "zero_stage"),
        ("Would deepspeed zero3 help here?", "zero_stage"),  # a tool's name between
        ("Would DeepSpeed ZeRO-3 offload fix this?", "offload"),
        ("I save the model after training", "phase"),
        # a lowered setting that made the run work is a fix, not a change that failed
        ("Reducing the batch size fixed it", "tried_without_effect"),
        ("I reduced the batch size to 2 and it works", "tried_without_effect"),
        ("调小batch_size就可以了", "tried_without_effect"),
        ("should I reduce the batch size?", "tried_without_effect"),
        ("I reduced the batch size and it still works, only slower", "tried_without_effect"),
        ("I changed the train_batch_size from 8 to 2 and it works now", "tried_without_effect"),
        # quantizing a model loads it in 16 bits: the bits are the job's target (AutoGPTQ#179, development)
        (
            "I use 32G V100 to try to quantize llama-13B ckpt, but it will report CUDA OUT OF MEMORY.\n"
            "quantize_config = BaseQuantizeConfig(\n    bits=4,  # quantize model to 4-bit\n)",
            "quantization",
        ),
        ("CUDA out of memory when quantizing LLaMA-70b to 4-bit with AutoAWQ", "quantization"),
        # "it runs out of memory" does not say a setting made the run work
        ("with batch size 8 it runs out of memory", "resolved_by"),
        # a change asked about is not the run's setting, nor what made it work
        ("would ZeRO-3 help?", "zero_stage"),
        ("Is 4-bit quantization supported?", "quantization"),
        ("does zero3 work with qlora? I get OOM with zero3", "resolved_by"),
        # the GPU's utilisation is not the host's memory
        ("GPU utilization goes to 100%", "error_kind"),
        # bits are not billions
        ("the 8-bit model OOMs", "model_params_b"),
        # the evaluation's batch is not the training batch
        ("评估batch size设为16", "batch_size"),
        # a tqdm count is not a card
        ("3090it [00:10, 5.2it/s]", "gpu_name"),
        # a dataset the run works with is not a change that broke it
        ("it works with a different dataset", "last_change"),
        # where a rise started is not the card's size
        ("显存从20G涨到24G然后OOM", "gpu_memory_bytes"),
        ("memory went from 20GB to 24GB and then OOM", "gpu_memory_bytes"),
        # memory seen in use is not the card's size
        ("The memory usage stays around 20GB then suddenly jumps to 80GB", "gpu_memory_bytes"),
        # loading data is not loading the model
        ("loading the dataset fails with out of memory", "phase"),
        ("I tried saving memory with LoRA but it fails", "phase"),
        ("evaluation of the model works fine", "phase"),
        # a kernel restart the user makes to free memory is not the kernel dying
        ("only a kernel restart frees the GPU memory", "error_kind"),
        # a path that names mlx is not a Mac
        ("OUTPUT_PATH=/mnt/bn/simple-nas/mlx/users/x/playground and 16GB RAM process killed", "gpu_memory_bytes"),
        ("I restarted the kernel and then it worked", "error_kind"),
        (
            "I'm running Task 1 zero-shot evaluation on an A100 using the default batch_size=1024 and get CUDA OOM.",
            "batch_size",
        ),
        # training named too: the batch may be the training one
        ("Fine-tuning with batch_size=8 goes out of memory during evaluation", "eval_batch_size"),
        ("对Llama-3-70B-Instruct进行量化的时候会出现OOM，w4a16 int4", "quantization"),
        ("llama-7b works fine", "model_name"),  # only the model that worked
        ("Is there a memory leak in the trainer?", "memory_growth"),
        ("有没有显存泄漏的问题", "memory_growth"),
        # a leak guessed at, not seen
        ("Maybe some library causes memory leak", "memory_growth"),
        ("I wonder if there might be some sort of memory leak", "memory_growth"),
        ("Does lora cause a memory leak in transformers?", "memory_growth"),
        ("是否有显存泄露", "memory_growth"),
        ("疑似显存泄露的问题", "memory_growth"),
        ("when it runs the tokenizer", "phase"),  # no phase of the run said
        ("the first forward pass of generation is slow", "trained_before_oom"),
        ("another user's job finished", "other_process_bytes"),
        (
            "If reserved but unallocated memory is large try setting expandable_segments",
            "torch_reserved_unallocated_bytes",
        ),
        ("the GPU memory fills up", "error_kind"),
        ("显存没有增加", "memory_growth"),
        ("VRAM usage increased a lot after the upgrade", "memory_growth"),  # higher than before is not growth over time
        ("memory usage is not growing", "memory_growth"),
        ("显存随着batch size增大而增加吗？", "memory_growth"),
        ("it OOMs at the very first step", "trained_before_oom"),
        ("GPU memory is full", "error_kind"),
        ("rank 0 prints the loss", "all_ranks_on_gpu0"),
        ("显存占用了15G", "other_process_bytes"),
        ("trainer.train(resume_from_checkpoint=args.resume_from_checkpoint)", "resume_from_checkpoint"),
        ("flash-attn does not support V100 GPUs", "gpu_count"),  # a model number is never a count
        ("an 80 GB GPU", "gpu_count"),
        ("一张24G的显卡", "gpu_count"),
        ("a node with 512GB of VRAM", "gpu_memory_bytes"),  # no card has that much
        ("my model is LLaMA2-7B-SFT-FULL", "trainer_type"),
        ("not using ddp, deepspeed zero2", "distributed"),  # a named scheme wins
        ("the lora weights stay on rank 0", "lora_r"),  # a process rank is not a LoRA rank
        ("zero3_init_flag: true", "zero_stage"),
        ("it did not crash immediately, only later", "oom_step"),
        ("on 1xA100 (80GB) it works fine", "gpu_name"),  # the card that works is not the run's
        ("on 1xA100 (80GB) it works fine", "gpu_memory_bytes"),
        ("GPU utilisation sits at 30%", "trained_before_oom"),
        ("memory of epoch 1 is fine", "trained_before_oom"),
        ("GRPO with use_vllm=True; from vllm import LLM happens inside the trainer", "out_of_scope"),
        ("rollout.gpu_memory_utilization=0.5 and the actor OOMs", "out_of_scope"),
        # LMDeploy named as an installed package or its quantization tool; vLLM as lm_eval's backend
        ("Environment: torch 2.1.2, LMDeploy: 0.4.2+, transformers 4.40", "out_of_scope"),
        ("lmdeploy lite auto_awq Meta-Llama-3-70B-Instruct --calib-seqlen 2048", "out_of_scope"),
        ("lm_eval --model vllm --model_args pretrained=x,gpu_memory_utilization=0.8", "out_of_scope"),
        ("fp32 master weights are part of what Adam costs", "torch_dtype"),
        ("git clone https://github.com/tatsu-lab/stanford_alpaca.git", "model_name"),
        ("![shot](https://github.com/user-attachments/assets/1f2e-929b-4c)", "model_params_b"),
        # a model's layers dispatched to the CPU, or a model left on it, is not ZeRO or FSDP offload
        ("some layers are offloaded to the CPU", "offload"),
        ("模型参数在cpu上", "offload"),
        # the host's memory named, or the kernel's OOM killer: not the card's
        ("the process got OOM killed", "error_kind"),
        ("no OOM but slow", "error_kind"),
        ("the training exits with an error: CUDA out of memory", "error_kind"),  # not a silent kill either
        # where host RAM runs out as often as the card's, or where the text speaks of 内存 only
        ("it would load up until it runs out of memory", "error_kind"),
        ("OOMs during checkpointing", "error_kind"),
        ("多进程oom，使用占用2GB内存的json文件时容易出现", "error_kind"),
    ],
)
def test_does_not_read(text: str, name: str) -> None:
    got = facts(text)
    if name == "distributed":
        assert got.get(name) == "deepspeed", got
    else:
        assert name not in got, got


@pytest.mark.parametrize(
    ("text", "changed", "not_a_fact"),
    [
        # the failures lasted until the change (oobabooga/textgen#28, development)
        (
            "I used to get a lot of CUDA out-of-memory errors when generating text, until I added use_cache=False to "
            "the from_pretrained call.",
            "use_cache",
            "use_cache",
        ),
        (
            "it kept running out of memory until I set gradient_checkpointing=True",
            "gradient_checkpointing",
            "gradient_checkpointing",
        ),
        ("bitsandbytes 0.38 OOMs, it doesn't happen when using bitsandbytes==0.37.2", "bitsandbytes_version", None),
        ("需要把cutoff_len降低到1024才能正常训练", "max_length", "max_length"),
        ("ds_z3_config.json 会 OOM，换成 ds_z3_offload_config.json 就可以跑起来", "offload", "offload"),
        ("改成 per_device_train_batch_size=1 之后就不会爆了", "batch_size", "batch_size"),
        ("with gradient_checkpointing=True it started working", "gradient_checkpointing", "gradient_checkpointing"),
        (
            "with bs 2 and gradient checkpointing, training runs fine",
            "gradient_checkpointing",
            "gradient_checkpointing",
        ),
        ("It can only train when max_length=512", "max_length", "max_length"),
        ("单卡跑 per_device_train_batch_size 4，没有问题", "batch_size", "batch_size"),
        ("把 per_device_train_batch_size 改成1之后，可以进行训练", "batch_size", "batch_size"),
    ],
)
def test_a_fix_is_evidence_not_the_run(text: str, changed: str, not_a_fact: str | None) -> None:
    got = facts(text)
    assert changed in str(got.get("resolved_by", "")).split(","), got
    if not_a_fact:
        assert not_a_fact not in got, got


@pytest.mark.parametrize(
    "text", ["if I remove compute_metrics from the trainer, everything is working fine", "去掉 compute_metrics 就好了"]
)
def test_taking_a_setting_away_that_made_it_work_says_the_run_had_it(text: str) -> None:
    got = facts(text)
    assert got["compute_metrics"] is True
    assert got["resolved_by"] == "compute_metrics"


def test_a_setting_the_failing_run_had_is_not_the_change() -> None:
    got = facts("ds_z3_config.json 会 OOM，换成 ds_z3_offload_config.json 就可以跑起来")
    assert got["resolved_by"] == "offload"
    assert got["zero_stage"] == "3"


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        ("I did train with fp16", "mixed_precision", "fp16"),  # a plain setting, not a fix
        ("I reduced max_length to 512 but it still OOMs", "max_length", 512),
        ("how can I full fine-tune rather than lora?", "finetune_method", "full"),
        # training works with the setting and another phase of the same run fails: the phase differs, not the setting
        ("Training runs fine with batch_size=8 but it OOMs during evaluation", "batch_size", "8"),
        ("Training works with per_device_train_batch_size=4, but evaluation runs out of memory", "batch_size", 4),
        ("It runs fine with gradient_checkpointing=True but crashes when saving the checkpoint", "phase", "saving"),
    ],
)
def test_settings_stay_settings(text: str, name: str, value: object) -> None:
    got = facts(text)
    assert got.get(name) == value, got
    assert "resolved_by" not in got


@pytest.mark.parametrize(
    "text",
    [
        "LoRA on Qwen2-VL-7B, RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED",
        "fine-tuning whisper-large-v3 on a 3090: cuDNN error: CUDNN_STATUS_ALLOC_FAILED",
    ],
)
def test_a_cudnn_error_beside_a_language_model_is_in_scope(text: str) -> None:
    # cuDNN also runs a language model's vision tower or audio encoder: the error is that run's, not an image model's
    assert "out_of_scope" not in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "Should I use FSDP or deepspeed?",  # a choice asked about
        "应该用fsdp还是deepspeed？",
        "Is it better to use deepspeed or fsdp?",
        "Should I use FSDP2 or DeepSpeed?",
        "- DeepSpeed version: not installed",  # an environment report names a package, not the run's set-up
        "- DeepSpeed version: 0.14.0",
        "would ZeRO-3 help?",  # a stage asked about says nothing of the run's launcher either
        "can zero3 fix this?",
        "Would deepspeed zero3 help here?",
    ],
)
def test_a_sharding_tool_named_is_not_always_the_runs(text: str) -> None:
    assert "distributed" not in facts(text)
