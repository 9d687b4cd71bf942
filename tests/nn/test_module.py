"""nn.Module, Parameter and the containers: registration, iteration, state dicts, hooks, conversion, repr."""

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests.conftest import assert_close
from tests.nn.differential import to_ember, to_torch


class Scale(nn.Module):
    """A module built from core ops only (no nn.functional), so these tests depend on Module alone."""

    def __init__(self, size=3):
        super().__init__()
        self.weight = nn.Parameter(ember.arange(1.0, size + 1.0))
        self.register_buffer("calls", ember.zeros(()))

    def forward(self, x):
        return x * self.weight


class Tree(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Scale()
        self.b = nn.Sequential(Scale(), Scale())
        self.shared = self.a  # same module twice
        self.extra = nn.Parameter(ember.zeros(2))

    def forward(self, x):
        return self.b(self.a(x))


# ---------------------------------------------------------------------- Parameter
def test_parameter_is_tensor_requiring_grad_and_shares_memory():
    data = ember.zeros(3)
    param = nn.Parameter(data)
    assert isinstance(param, ember.Tensor) and isinstance(param, nn.Parameter)
    assert param.requires_grad and param.is_leaf
    param.data[0] = 7.0
    assert data[0].item() == 7.0
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    with ember.no_grad():
        assert nn.Parameter(ember.zeros(1)).requires_grad
    assert nn.Parameter().shape == (0,)
    # results of ops on parameters are plain tensors
    assert type(param * 2) is ember.Tensor


def test_parameter_repr_matches_torch(torch):
    values = np.array([[1.0, -2.5], [0.25, 3.0]], dtype=np.float32)
    assert repr(nn.Parameter(ember.from_numpy(values))) == repr(torch.nn.Parameter(torch.from_numpy(values)))
    assert repr(nn.Parameter(ember.ones(2), requires_grad=False)) == repr(
        torch.nn.Parameter(torch.ones(2), requires_grad=False)
    )


def test_parameter_deepcopy_and_pickle_keep_the_class():
    param = nn.Parameter(ember.tensor([1.0, 2.0]))
    clone = copy.deepcopy(param)
    assert type(clone) is nn.Parameter and clone.requires_grad
    assert clone.data_ptr() != param.data_ptr()
    assert_close(clone, param)
    restored = pickle.loads(pickle.dumps(param))
    assert type(restored) is nn.Parameter and restored.requires_grad
    assert_close(restored, param)


def test_buffer_assignment_registers_a_buffer():
    module = nn.Module()
    module.stats = nn.Buffer(ember.ones(2))
    module.scratch = nn.Buffer(ember.zeros(2), persistent=False)
    assert [name for name, _ in module.named_buffers()] == ["stats", "scratch"]
    assert list(module.state_dict()) == ["stats"]
    module.stats = ember.zeros(2)  # plain tensor to a buffer name replaces the buffer
    assert_close(module._buffers["stats"], np.zeros(2, np.float32))


# ---------------------------------------------------------------------- registration and errors
def test_setattr_registers_parameters_modules_and_plain_attributes():
    model = Tree()
    assert list(model._parameters) == ["extra"]
    assert list(model._modules) == ["a", "b", "shared"]
    model.cache = ember.ones(2)  # plain tensors are not parameters
    assert "cache" not in model._parameters and "cache" not in model._buffers
    assert model.cache is model.__dict__["cache"]
    # reassigning a name moves it between the registries
    model.b = nn.Parameter(ember.ones(1))
    assert "b" in model._parameters and "b" not in model._modules
    model.a = None
    assert model.a is None and "a" in model._modules


def test_assignment_before_init_raises():
    class Early(nn.Module):
        def __init__(self):
            self.weight = nn.Parameter(ember.zeros(1))
            super().__init__()

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()

    class EarlyModule(nn.Module):
        def __init__(self):
            self.child = nn.Module()

    with pytest.raises(AttributeError, match=r"cannot assign module before Module.__init__\(\) call"):
        EarlyModule()

    class EarlyBuffer(nn.Module):
        def __init__(self):
            self.register_buffer("b", ember.zeros(1))

    with pytest.raises(AttributeError, match=r"cannot assign buffer before Module.__init__\(\) call"):
        EarlyBuffer()


def test_wrong_types_for_registered_names_raise_type_error():
    model = Scale()
    with pytest.raises(
        TypeError,
        match=r"cannot assign 'torch.FloatTensor' as parameter 'weight' "
        r"\(torch.nn.Parameter or None expected\)",
    ):
        model.weight = ember.zeros(3)
    tree = Tree()
    with pytest.raises(TypeError, match=r"cannot assign 'int' as child module 'a' \(torch.nn.Module or None"):
        tree.a = 3
    with pytest.raises(TypeError, match=r"cannot assign 'str' as buffer 'calls'"):
        model.calls = "x"


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda m: m.register_buffer("a.b", None), KeyError, 'buffer name can.*t contain "\\."'),
        (lambda m: m.register_buffer("", None), KeyError, "buffer name can.*t be empty string"),
        (lambda m: m.register_buffer("weight", None), KeyError, "attribute 'weight' already exists"),
        (lambda m: m.register_buffer(1, None), TypeError, "buffer name should be a string. Got int"),
        (lambda m: m.register_buffer("x", [1.0]), TypeError, "cannot assign 'list' object to buffer 'x'"),
        (lambda m: m.register_parameter("a.b", None), KeyError, 'parameter name can.*t contain "\\."'),
        (lambda m: m.register_parameter("", None), KeyError, "parameter name can.*t be empty string"),
        (lambda m: m.register_parameter("calls", None), KeyError, "attribute 'calls' already exists"),
        (
            lambda m: m.register_parameter("p", ember.zeros(1)),
            TypeError,
            "cannot assign 'torch.FloatTensor' object to parameter 'p' \\(torch.nn.Parameter or None required\\)",
        ),
        (lambda m: m.add_module("c", ember.zeros(1)), TypeError, "torch.FloatTensor is not a Module subclass"),
        (lambda m: m.add_module("a.b", nn.Module()), KeyError, 'module name can.*t contain "\\.", got: a.b'),
        (lambda m: m.add_module("", nn.Module()), KeyError, "module name can.*t be empty string"),
        (lambda m: m.add_module("weight", nn.Module()), KeyError, "attribute 'weight' already exists"),
    ],
)
def test_registration_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(Scale())


def test_registering_a_non_leaf_parameter_raises():
    leaf = nn.Parameter(ember.ones(2))
    non_leaf = leaf * 2
    non_leaf.__class__ = nn.Parameter  # as if someone wrapped a computed tensor
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        nn.Module().register_parameter("w", non_leaf)


def test_getattr_and_delattr():
    model = Scale()
    with pytest.raises(AttributeError, match="'Scale' object has no attribute 'missing'"):
        model.missing
    del model.weight
    assert "weight" not in model._parameters
    del model.calls
    assert "calls" not in model._buffers
    tree = Tree()
    del tree.b
    assert "b" not in tree._modules
    tree.plain = 1
    del tree.plain
    assert not hasattr(tree, "plain")


def test_init_rejects_arguments_and_forward_is_required():
    with pytest.raises(TypeError, match=r"Module.__init__\(\) got an unexpected keyword argument 'x'"):
        nn.Module(x=1)
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        nn.Module(1)
    with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'):
        nn.Module()(ember.zeros(1))


def test_dir_lists_registered_names():
    names = dir(Tree())
    for name in ("a", "b", "extra", "forward", "parameters", "shared"):
        assert name in names


# ---------------------------------------------------------------------- iteration
def test_named_parameters_order_prefix_recurse_and_duplicates():
    tree = Tree()
    assert [name for name, _ in tree.named_parameters()] == ["extra", "a.weight", "b.0.weight", "b.1.weight"]
    assert [name for name, _ in tree.named_parameters(remove_duplicate=False)] == [
        "extra",
        "a.weight",
        "b.0.weight",
        "b.1.weight",
        "shared.weight",
    ]
    assert [name for name, _ in tree.named_parameters(prefix="net")][:2] == ["net.extra", "net.a.weight"]
    assert [name for name, _ in tree.named_parameters(recurse=False)] == ["extra"]
    parameters = tree.parameters()
    assert iter(parameters) is parameters  # a generator, as in PyTorch
    assert len(list(parameters)) == 4


def test_shared_parameter_counts_once():
    first, second = nn.Linear(2, 2), nn.Linear(2, 2)
    second.weight = first.weight
    model = nn.Sequential(first, second)
    assert len(list(model.parameters())) == 3
    assert [name for name, _ in model.named_parameters()] == ["0.weight", "0.bias", "1.bias"]


def test_children_modules_and_buffers():
    tree = Tree()
    assert [name for name, _ in tree.named_children()] == ["a", "b"]  # `shared` is `a` again
    assert [name for name, _ in tree.named_modules()] == ["", "a", "b", "b.0", "b.1"]
    assert len(list(tree.named_modules(remove_duplicate=False))) == 6
    assert list(tree.modules())[0] is tree
    assert [name for name, _ in tree.named_buffers()] == ["a.calls", "b.0.calls", "b.1.calls"]
    assert len(list(tree.buffers(recurse=False))) == 0


def test_get_submodule_parameter_buffer():
    tree = Tree()
    assert tree.get_submodule("b.1") is tree.b[1]
    assert tree.get_submodule("") is tree
    assert tree.get_parameter("b.0.weight") is tree.b[0].weight
    assert tree.get_buffer("a.calls") is tree.a.calls
    with pytest.raises(AttributeError, match="Sequential has no attribute `7`"):
        tree.get_submodule("b.7")
    with pytest.raises(AttributeError, match="`extra` is not an nn.Module"):
        tree.get_submodule("extra.x")
    with pytest.raises(AttributeError, match="`calls` is not an nn.Parameter"):
        tree.get_parameter("a.calls")
    with pytest.raises(AttributeError, match="`weight` is not a buffer"):
        tree.get_buffer("a.weight")
    tree.set_submodule("b.0", nn.Identity())
    assert isinstance(tree.b[0], nn.Identity)


# ---------------------------------------------------------------------- modes, gradients, apply
def test_train_eval_propagate():
    tree = Tree()
    assert tree.eval() is tree
    assert not any(module.training for module in tree.modules())
    tree.train()
    assert all(module.training for module in tree.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        tree.train("no")


def test_zero_grad_and_requires_grad():
    model = Scale()
    model(ember.ones(3)).sum().backward()
    assert_close(model.weight.grad, np.ones(3, np.float32))
    model.zero_grad(set_to_none=False)
    assert_close(model.weight.grad, np.zeros(3, np.float32))
    model.zero_grad()
    assert model.weight.grad is None
    assert model.requires_grad_(False) is model
    assert not model.weight.requires_grad


def test_apply_visits_children_first_and_returns_self():
    tree = Tree()
    seen = []
    assert tree.apply(lambda module: seen.append(type(module).__name__)) is tree
    assert seen == ["Scale", "Scale", "Scale", "Sequential", "Tree"]


def test_to_double_keeps_parameter_identity_and_converts_grads():
    model = nn.BatchNorm1d(3)
    model.weight.grad = ember.ones(3)
    weight = model.weight
    assert model.double() is model
    assert model.weight is weight and model.weight.dtype == ember.float64
    assert model.weight.grad.dtype == ember.float64
    assert model.running_mean.dtype == ember.float64
    assert model.num_batches_tracked.dtype == ember.int64  # integer buffers keep their dtype
    model.to(ember.float32)
    assert model.weight.dtype == ember.float32
    model.to(ember.zeros(1, dtype=ember.float64))
    assert model.weight.dtype == ember.float64
    model.float()
    assert model.weight.dtype == ember.float32
    assert model.to("cpu") is model and model.cpu() is model
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        model.to(ember.int32)
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        model.cuda()
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        model.to("cuda")


# ---------------------------------------------------------------------- state dict
def test_state_dict_is_ordered_detached_and_shares_memory():
    tree = Tree()
    state = tree.state_dict()
    assert isinstance(state, OrderedDict)
    # unlike parameters(), state_dict() lists a shared module under each of its names, as PyTorch does
    assert list(state) == [
        "extra",
        "a.weight",
        "a.calls",
        "b.0.weight",
        "b.0.calls",
        "b.1.weight",
        "b.1.calls",
        "shared.weight",
        "shared.calls",
    ]
    assert not state["a.weight"].requires_grad and type(state["a.weight"]) is ember.Tensor
    assert state["a.weight"].data_ptr() == tree.a.weight.data_ptr()
    assert tree.state_dict(keep_vars=True)["a.weight"] is tree.a.weight
    assert list(tree.state_dict(prefix="m."))[0] == "m.extra"


def test_load_state_dict_copies_in_place():
    source, target = Scale(), Scale()
    with ember.no_grad():
        source.weight.mul_(10)
    weight = target.weight
    result = target.load_state_dict(source.state_dict())
    assert target.weight is weight
    assert_close(target.weight, source.weight)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    assert target.weight.requires_grad


def test_load_state_dict_strict_names_missing_unexpected_and_size_mismatch():
    model = Tree()
    state = model.state_dict()
    del state["a.weight"]
    state["a.bogus"] = ember.zeros(1)
    state["b.0.weight"] = ember.zeros(5)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(state)
    message = str(info.value)
    assert message.startswith("Error(s) in loading state_dict for Tree:")
    assert 'Missing key(s) in state_dict: "a.weight".' in message
    assert 'Unexpected key(s) in state_dict: "a.bogus".' in message
    assert (
        "size mismatch for b.0.weight: copying a param with shape ember.Size([5]) from checkpoint, "
        "the shape in current model is ember.Size([3])." in message.replace("torch.Size", "ember.Size")
    )
    del state["b.0.weight"]
    result = model.load_state_dict(state, strict=False)
    assert result.missing_keys == ["a.weight", "b.0.weight"]
    assert result.unexpected_keys == ["a.bogus"]
    assert result == (["a.weight", "b.0.weight"], ["a.bogus"])
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        model.load_state_dict([1, 2])


def test_load_state_dict_error_messages_match_torch(torch):
    ember_model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    torch_model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Linear(3, 1))
    torch_state = torch_model.state_dict()
    del torch_state["1.bias"]
    torch_state["2.weight"] = torch.zeros(1)
    torch_state["0.weight"] = torch.zeros(4, 2)
    with pytest.raises(RuntimeError) as expected:
        torch_model.load_state_dict(torch_state)
    with pytest.raises(RuntimeError) as actual:
        ember_model.load_state_dict({key: to_ember(value) for key, value in torch_state.items()})
    assert str(actual.value).replace("ember.Size", "torch.Size") == str(expected.value)


def test_load_state_dict_assign_replaces_tensors():
    model = Scale()
    new_weight = ember.tensor([5.0, 6.0, 7.0])
    model.load_state_dict({"weight": new_weight, "calls": ember.zeros(())}, assign=True)
    assert isinstance(model.weight, nn.Parameter) and model.weight.requires_grad
    assert model.weight.data_ptr() == new_weight.data_ptr()


def test_state_dict_hooks():
    model = Scale()
    calls = []
    model.register_state_dict_pre_hook(lambda module, prefix, keep_vars: calls.append(("pre", prefix)))
    model.register_state_dict_post_hook(lambda module, state, prefix, meta: calls.append(("post", len(state))))
    model.state_dict()
    assert calls == [("pre", ""), ("post", 2)]
    model.register_load_state_dict_post_hook(lambda module, keys: keys.missing_keys.clear())
    model.load_state_dict({"weight": ember.zeros(3)})  # missing "calls" forgiven by the hook


def test_state_dict_round_trip_with_torch(torch):
    torch_model = torch.nn.Sequential(
        OrderedDict(
            [
                ("conv", torch.nn.Conv2d(1, 2, 3)),
                ("bn", torch.nn.BatchNorm2d(2)),
                ("flat", torch.nn.Flatten()),
                ("fc", torch.nn.Linear(8, 3)),
                ("ln", torch.nn.LayerNorm(3)),
            ]
        )
    )
    ember_model = nn.Sequential(
        OrderedDict(
            [
                ("conv", nn.Conv2d(1, 2, 3)),
                ("bn", nn.BatchNorm2d(2)),
                ("flat", nn.Flatten()),
                ("fc", nn.Linear(8, 3)),
                ("ln", nn.LayerNorm(3)),
            ]
        )
    )
    torch_state = torch_model.state_dict()
    assert list(ember_model.state_dict()) == list(torch_state)
    ember_model.load_state_dict({key: to_ember(value) for key, value in torch_state.items()})
    for key, value in ember_model.state_dict().items():
        assert value.dtype == to_ember(torch_state[key]).dtype, key
        assert_close(value, torch_state[key], what=key)
    torch_model.load_state_dict({key: to_torch(torch, value) for key, value in ember_model.state_dict().items()})


def test_deepcopy_and_pickle_of_a_module():
    tree = Tree()
    clone = copy.deepcopy(tree)
    assert clone.a is clone.shared  # sharing survives
    assert clone.a.weight is not tree.a.weight
    assert_close(clone.a.weight, tree.a.weight)
    restored = pickle.loads(pickle.dumps(tree))
    assert list(restored.state_dict()) == list(tree.state_dict())
    assert type(restored.a.weight) is nn.Parameter


# ---------------------------------------------------------------------- hooks
def test_forward_pre_hook_and_forward_hook_replace_input_and_output():
    model = Scale()
    pre = model.register_forward_pre_hook(lambda module, args: (args[0] + 1,))
    post = model.register_forward_hook(lambda module, args, output: output * 10)
    assert_close(model(ember.zeros(3)), [10.0, 20.0, 30.0])
    pre.remove()
    assert_close(model(ember.zeros(3)), [0.0, 0.0, 0.0])
    post.remove()
    assert not model._forward_hooks and not model._forward_pre_hooks
    assert_close(model(ember.ones(3)), [1.0, 2.0, 3.0])


def test_hooks_with_kwargs_prepend_and_context_manager():
    class Add(nn.Module):
        def forward(self, x, *, y=0):
            return x + y

    model = Add()
    order = []

    def pre_hook(module, args, kwargs):
        return args, {"y": kwargs.get("y", 0) + 5}

    model.register_forward_pre_hook(pre_hook, with_kwargs=True)
    model.register_forward_hook(
        lambda module, args, kwargs, output: order.append(("kw", kwargs["y"])), with_kwargs=True
    )
    model.register_forward_hook(lambda module, args, output: order.append("first"), prepend=True)
    assert model(ember.tensor(1.0), y=ember.tensor(2.0)).item() == 8.0
    assert order == ["first", ("kw", 7)]
    with model.register_forward_pre_hook(lambda module, args: (args[0] * 0,)):
        assert model(ember.tensor(3.0)).item() == 5.0
    assert model(ember.tensor(3.0)).item() == 8.0
    handle = model.register_forward_hook(lambda *args: None, with_kwargs=True)
    handle.remove()
    assert handle.id not in model._forward_hooks_with_kwargs


def test_bad_pre_hook_result_with_kwargs():
    model = Scale()
    model.register_forward_pre_hook(lambda module, args, kwargs: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of"):
        model(ember.ones(3))


def test_always_call_forward_hook_runs_when_forward_raises():
    class Broken(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    model = Broken()
    seen = []
    model.register_forward_hook(lambda module, args, output: seen.append(output), always_call=True)
    model.register_forward_hook(lambda module, args, output: seen.append("not always"))
    with pytest.raises(ValueError, match="boom"):
        model(ember.ones(1))
    assert seen == [None]


def test_global_forward_hooks():
    seen = []
    handle = nn.register_module_forward_hook(lambda module, args, output: seen.append(type(module).__name__))
    try:
        nn.Sequential(Scale(), Scale())(ember.ones(3))
    finally:
        handle.remove()
    assert seen == ["Scale", "Scale", "Sequential"]
    Scale()(ember.ones(3))
    assert len(seen) == 3


def test_full_backward_hooks_match_torch(torch):
    weight = np.array([1.0, -2.0, 3.0], np.float32)
    x_values = np.array([0.5, 1.5, -1.0], np.float32)

    def run(library, module_class, parameter_class):
        class TorchScale(module_class):
            def __init__(self):
                super().__init__()
                self.weight = parameter_class(library.from_numpy(weight.copy()))

            def forward(self, x, y):
                return x * self.weight * y, x + y

        model = TorchScale()
        record = []

        def pre_hook(module, grad_output):
            record.append(("pre", [g.detach().numpy().copy() for g in grad_output]))
            return (grad_output[0] * 2, grad_output[1])

        def hook(module, grad_input, grad_output):
            record.append(
                (
                    "hook",
                    [None if g is None else g.detach().numpy().copy() for g in grad_input],
                    [g.detach().numpy().copy() for g in grad_output],
                )
            )
            return (grad_input[0] + 1, grad_input[1])

        model.register_full_backward_pre_hook(pre_hook)
        model.register_full_backward_hook(hook)
        x = library.from_numpy(x_values.copy()).requires_grad_()
        y = library.from_numpy(x_values.copy() * 2)  # no gradient wanted for y
        first, second = model(x, y)
        (first.sum() + (second * 3).sum()).backward()
        return record, x.grad.numpy(), model.weight.grad.numpy()

    torch_record, torch_x_grad, torch_w_grad = run(torch, torch.nn.Module, torch.nn.Parameter)
    ember_record, ember_x_grad, ember_w_grad = run(ember, nn.Module, nn.Parameter)
    assert [entry[0] for entry in ember_record] == [entry[0] for entry in torch_record]
    for ember_entry, torch_entry in zip(ember_record, torch_record):
        for ember_part, torch_part in zip(ember_entry[1:], torch_entry[1:]):
            assert len(ember_part) == len(torch_part)
            for ember_grad, torch_grad in zip(ember_part, torch_part):
                if torch_grad is None:
                    assert ember_grad is None
                else:
                    assert_close(ember_grad, torch_grad)
    assert_close(ember_x_grad, torch_x_grad, what="input gradient after the hooks")
    assert_close(ember_w_grad, torch_w_grad, what="weight gradient")


def test_backward_hook_sees_none_when_no_input_requires_grad():
    model = Scale()
    seen = []
    model.register_full_backward_hook(lambda module, grad_input, grad_output: seen.append(grad_input))
    model(ember.ones(3)).sum().backward()
    assert seen == [(None,)]
    assert_close(model.weight.grad, np.ones(3, np.float32))


# ---------------------------------------------------------------------- repr
def test_repr_matches_torch_for_a_nested_model(torch):
    def build(nn_):
        return nn_.Sequential(
            OrderedDict(
                [
                    (
                        "features",
                        nn_.Sequential(
                            nn_.Conv2d(1, 6, 5, padding=2),
                            nn_.ReLU(),
                            nn_.MaxPool2d(2),
                            nn_.Conv2d(6, 16, 5),
                            nn_.BatchNorm2d(16),
                            nn_.Dropout(0.25),
                        ),
                    ),
                    ("flatten", nn_.Flatten()),
                    ("heads", nn_.ModuleDict({"cls": nn_.Linear(400, 10), "reg": nn_.Linear(400, 1, bias=False)})),
                    ("blocks", nn_.ModuleList([nn_.Linear(4, 4) for _ in range(3)] + [nn_.LayerNorm(4)])),
                    ("empty", nn_.ModuleList()),
                    ("params", nn_.ParameterList([nn_.Parameter(nn_.init.zeros_(torch_or_ember(nn_).empty(2, 3)))])),
                    ("rnn", nn_.LSTM(10, 20, num_layers=2, batch_first=True)),
                    ("emb", nn_.Embedding(10, 3, padding_idx=0)),
                    ("loss", nn_.CrossEntropyLoss(label_smoothing=0.1)),
                ]
            )
        )

    def torch_or_ember(nn_):
        return torch if nn_ is torch.nn else ember

    assert repr(build(nn)) == repr(build(torch.nn))


# ---------------------------------------------------------------------- containers
def test_sequential_indexing_slicing_and_editing():
    layers = [Scale(), Scale(), Scale()]
    model = nn.Sequential(*layers)
    assert model[0] is layers[0] and model[-1] is layers[2]
    assert isinstance(model[1:], nn.Sequential) and list(model[1:]) == layers[1:]
    assert len(model) == 3
    with pytest.raises(IndexError, match="index 3 is out of range"):
        model[3]
    del model[0]
    assert list(model._modules) == ["0", "1"] and model[0] is layers[1]
    model.append(Scale())
    model.insert(0, layers[0])
    assert model[0] is layers[0] and len(model) == 4
    assert model.pop(0) is layers[0]
    model[0] = nn.Identity()
    assert isinstance(model[0], nn.Identity)
    assert len(model + nn.Sequential(Scale())) == 4
    named = nn.Sequential(OrderedDict([("first", Scale()), ("second", Scale())]))
    assert list(named._modules) == ["first", "second"]
    assert_close(named(ember.ones(3)), [1.0, 4.0, 9.0])
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        named + [1]


def test_module_list_and_dict():
    blocks = nn.ModuleList([Scale(), Scale()])
    blocks.append(Scale())
    blocks.extend([Scale()])
    blocks.insert(1, nn.Identity())
    assert len(blocks) == 5 and isinstance(blocks[1], nn.Identity)
    assert len(list(blocks.parameters())) == 4
    del blocks[1]
    assert list(blocks._modules) == ["0", "1", "2", "3"]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        blocks[4]
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        blocks.extend(3)
    heads = nn.ModuleDict({"a": Scale()})
    heads["b"] = Scale()
    heads.update([("c", Scale())])
    assert list(heads) == ["a", "b", "c"] and "b" in heads and len(heads) == 3
    assert heads.pop("a") is not None and list(heads.keys()) == ["b", "c"]
    assert [name for name, _ in heads.named_parameters()] == ["b.weight", "c.weight"]
    with pytest.raises(ValueError, match="has length 1; 2 is required"):
        heads.update([("x",)])


def test_parameter_list_and_dict_wrap_tensors(torch):
    params = nn.ParameterList([ember.zeros(2), nn.Parameter(ember.ones(3, 4))])
    params.append(ember.zeros(1, dtype=ember.float64))
    assert all(isinstance(p, nn.Parameter) for p in params)
    assert [name for name, _ in params.named_parameters()] == ["0", "1", "2"]
    torch_params = torch.nn.ParameterList(
        [torch.zeros(2), torch.nn.Parameter(torch.ones(3, 4)), torch.zeros(1, dtype=torch.float64)]
    )
    assert repr(params) == repr(torch_params)
    with pytest.raises(RuntimeError, match="ParameterList should not be called"):
        params(1)
    table = nn.ParameterDict({"b": ember.zeros(1), "a": ember.ones(2)})
    assert list(table) == ["a", "b"]  # a plain dict is sorted, as in PyTorch
    torch_table = torch.nn.ParameterDict({"b": torch.zeros(1), "a": torch.ones(2)})
    assert repr(table) == repr(torch_table)
    assert table.get("zz") is None and "a" in table
