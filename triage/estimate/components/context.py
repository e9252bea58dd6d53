"""What several components share: the optimizer's behaviour, what is trained and how it is sharded.

Built once per run by :func:`context`; the component functions read it instead of recomputing
(the formulas behind each field are in the module that computes it).
"""

from __future__ import annotations

from dataclasses import dataclass

from triage.estimate.components.distributed import Sharding, sharding
from triage.estimate.components.trainable import Trainable, trainable
from triage.estimate.optimizers import OptimizerSpec, optimizer_spec
from triage.estimate.run import Run


@dataclass(frozen=True)
class Context:
    """The derived quantities the components of one run share."""

    run: Run
    trainable: Trainable
    spec: OptimizerSpec
    shards: Sharding

    @property
    def in_backward(self) -> bool:
        """The optimizer step happens inside backward (optimizer_in_backward, LOMO, layerwise GaLore)."""
        return self.run.optimizer_in_backward or self.spec.fused_backward


def context(run: Run) -> Context:
    """The shared quantities of ``run`` (raises RunError when no LoRA target matches a module)."""
    return Context(run, trainable(run), optimizer_spec(run.optimizer), sharding(run))
