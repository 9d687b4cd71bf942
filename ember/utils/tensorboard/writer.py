"""SummaryWriter: tensorboardX's writer, taking ember tensors.

tensorboardX recognises PyTorch tensors by their type's name, so ember's would be refused; every
method that takes values converts ember tensors (also inside lists, tuples and dicts) to NumPy
arrays first and is otherwise tensorboardX's, so the event files are exactly what TensorBoard reads.
"""

import tensorboardX

from ..._tensor import Tensor
from . import _graph

__all__ = ["SummaryWriter"]

# The writer's methods whose arguments may hold tensors.
_VALUE_METHODS = (
    "add_scalar",
    "add_scalars",
    "add_histogram",
    "add_histogram_raw",
    "add_image",
    "add_images",
    "add_image_with_boxes",
    "add_video",
    "add_audio",
    "add_text",
    "add_embedding",
    "add_pr_curve",
    "add_pr_curve_raw",
    "add_mesh",
    "add_hparams",
    "add_custom_scalars",
)


def _to_numpy(value):
    if isinstance(value, Tensor):
        return value.detach().numpy()
    if isinstance(value, dict):
        return {key: _to_numpy(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy(item) for item in value)
    return value


def _accepting_tensors(name):
    method = getattr(tensorboardX.SummaryWriter, name)

    def with_tensors_converted(self, *args, **kwargs):
        return method(self, *_to_numpy(args), **_to_numpy(kwargs))

    with_tensors_converted.__name__ = name
    with_tensors_converted.__doc__ = method.__doc__
    return with_tensors_converted


class SummaryWriter(tensorboardX.SummaryWriter):
    """Writes scalars, histograms, images, text, embeddings, hparams and the model's graph to
    `log_dir` (default `runs/<date>_<host>`), for `tensorboard --logdir runs`."""

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Run `model` once on `input_to_model` and write the autograd graph it records (one node per
        backward Function, parameters named as in `model.named_parameters()`)."""
        graph = _graph.graph_def(model, input_to_model)
        if verbose:
            print(graph)
        self._get_file_writer().add_event(tensorboardX.proto.event_pb2.Event(graph_def=graph.SerializeToString()))


for _name in _VALUE_METHODS:  # the same conversion in front of each of tensorboardX's value methods
    setattr(SummaryWriter, _name, _accepting_tensors(_name))
