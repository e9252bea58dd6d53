"""The memory components of one training step, one module per component.

Each module sizes one part of the allocated memory from a :class:`~triage.estimate.run.Run`
(and the shared :class:`~triage.estimate.components.context.Context`) and says in its
docstring where its formula comes from (shared/reference/memory-formulas.md, the fake-tensor
measurements in shared/reference/exact-measurement.md, or the library source):

* :mod:`.weights`: the model's weights (dtype, NF4/int8, ZeRO-3/FSDP/device_map) and autocast copies;
* :mod:`.trainable`: what the run trains: LoRA adapters, modules_to_save copies, gradients;
* :mod:`.optimizer_memory`: optimizer state, fp32 master weights and the step's temporaries;
* :mod:`.activations`: what autograd saves for backward, and the recompute of checkpointing;
* :mod:`.attention`: eager attention scores, the 4-D mask, transformers 4.38's causal-mask buffer;
* :mod:`.logits`: logits and the cross-entropy loss;
* :mod:`.generation`: evaluation (accumulated logits) and generation (KV cache, prefill);
* :mod:`.distributed`: sharding degrees and communication buckets;
* :mod:`.overhead`: the CUDA context, cuBLAS workspaces, allocator slack and NCCL (the band
  outside PyTorch's allocated counter);
* :mod:`.phases`: which components are live at each moment of the step, and the peak;
* :mod:`.tensors`: the single large tensors the run allocates (for the OOM fingerprint).
"""
