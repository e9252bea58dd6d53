from triage.estimate.components.activations import activations, layer_saving, recompute

from .conftest import run_of


def saved(**facts):
    run = run_of(**facts)
    return activations(run, layer_saving(run)).bytes


def test_checkpointing_cuts_the_saved_activations_more_than_tenfold():
    assert saved(gradient_checkpointing=True) * 10 < saved()


def test_checkpointing_keeps_each_layer_input_in_16_bit():
    run = run_of(gradient_checkpointing=True)
    a = run.arch
    final_norm = 4 * a.hidden * run.tokens
    assert activations(run, layer_saving(run)).bytes == a.layers * 2 * a.hidden * run.tokens + final_norm


def test_activations_grow_linearly_with_the_batch_and_with_the_length_under_sdpa():
    assert saved(batch_size=2) == 2 * saved()
    assert saved(max_length=1024) * 2 == saved()


def test_a_full_finetune_saves_more_than_lora_and_freeze_tuning_less():
    assert saved(finetune_method="full") > saved()
    assert saved(finetune_method="freeze") < saved() / 4  # only the two trained layers save


def test_lora_dropout_adds_its_masks():
    assert saved(lora_dropout=0.05) > saved()


def test_the_recompute_of_one_layer_exists_only_with_checkpointing():
    off = run_of()
    assert recompute(off, layer_saving(off)) is None
    on = run_of(gradient_checkpointing=True)
    one_layer = recompute(on, layer_saving(on))
    assert one_layer is not None
    assert one_layer.bytes < saved() / on.arch.layers * 2


def test_a_device_map_split_saves_only_its_share_of_the_layers():
    assert layer_saving(run_of(distributed="model_parallel", gpu_count=4)).layers == 8


def test_bitsandbytes_before_0_43_2_keeps_every_4bit_layer_input():
    from triage.estimate.components.activations import layer_saving

    from .conftest import run_of

    qlora = dict(finetune_method="qlora", quantization="4bit", prepare_kbit_training=False)
    old = layer_saving(run_of(**qlora, bitsandbytes_version="0.42.0"))
    fixed = layer_saving(run_of(**qlora, bitsandbytes_version="0.43.2"))
    a = run_of().arch
    # the four input groups of a Llama layer (q/k/v input, o_proj input, gate/up input, down_proj input), bf16
    assert old.saved - fixed.saved == 2 * (a.hidden + a.q_width + a.hidden + a.intermediate)
    assert layer_saving(run_of(**qlora, bitsandbytes_version="0.38.0")).saved == fixed.saved
    assert layer_saving(run_of(bitsandbytes_version="0.42.0")).saved == layer_saving(run_of()).saved  # not 4-bit


def test_unknown_bitsandbytes_version_is_an_assumption_on_4bit_runs():
    from .conftest import run_of

    taken = {a.fact for a in run_of(finetune_method="qlora", quantization="4bit").assumptions}
    assert "bitsandbytes_version" in taken
    assert "bitsandbytes_version" not in {a.fact for a in run_of().assumptions}
