"""ember.optim: optimizers and learning-rate schedulers, as torch.optim."""

from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adadelta import Adadelta
from .adafactor import Adafactor
from .asgd import ASGD
from .rprop import Rprop
from .lbfgs import LBFGS
from .muon import Muon
from .sparse_adam import SparseAdam
from .swap_in import swap_in_optimizer_params_and_state
from . import lr_scheduler

__all__ = [
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "Adamax",
    "AdamW",
    "ASGD",
    "LBFGS",
    "lr_scheduler",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "SparseAdam",
    "swap_in_optimizer_params_and_state",
    "swa_utils",
]


def __getattr__(name):
    # swa_utils builds on ember.nn; it loads on first use so that importing ember.optim stays light.
    if name == "swa_utils":
        import importlib

        return importlib.import_module(f"{__name__}.swa_utils")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
