"""The device side of PyTorch's API on ember's one device, the CPU: predicates, the default device,
`ember.accelerator`, and clear errors for devices ember does not have."""

import pytest

import ember


def test_device_predicates_match_torch():
    torch = pytest.importorskip("torch")
    names = [
        name
        for name in dir(torch.zeros(1))
        if name.startswith("is_")
        and name
        not in (
            "is_coalesced",
            "is_leaf",
            "is_shared",
            "is_floating_point",
            "is_complex",
            "is_signed",
            "is_contiguous",
            "is_nonzero",
            "is_same_size",
            "is_set_to",
        )
    ]
    for name in names:
        expected, actual = getattr(torch.zeros(1), name), getattr(ember.zeros(1), name)
        if callable(expected):
            expected, actual = expected(), actual()
        assert actual == expected, name


def test_is_nonzero_and_same_size():
    assert ember.tensor([1.5]).is_nonzero() and not ember.tensor(0.0).is_nonzero()
    with pytest.raises(RuntimeError, match="more than one value"):
        ember.zeros(2).is_nonzero()
    assert ember.zeros(2, 3).is_same_size(ember.ones(2, 3)) and not ember.zeros(2).is_same_size(ember.zeros(3))


def test_is_set_to_compares_memory():
    base = ember.zeros(4)
    assert base.is_set_to(base.view(4)) and not base.is_set_to(base.clone())


def test_default_device_is_the_cpu():
    ember.set_default_device("cpu")
    ember.set_default_device(None)
    assert ember.get_default_device() == ember.device("cpu")
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        ember.set_default_device("cuda")


def test_accelerator_reports_none():
    assert ember.accelerator.is_available() is False
    assert ember.accelerator.current_accelerator() is None
    assert ember.accelerator.device_count() == 0
    device = ember.accelerator.current_accelerator() if ember.accelerator.is_available() else "cpu"
    assert ember.ones(2, device=device).device.type == "cpu"


def test_accelerator_agrees_with_torch_on_a_cpu_machine():
    torch = pytest.importorskip("torch")
    if torch.accelerator.is_available():
        pytest.skip("torch sees an accelerator here")
    assert torch.accelerator.current_accelerator() is None
    assert torch.accelerator.device_count() == ember.accelerator.device_count()


def test_unknown_device_strings_are_refused_with_pytorchs_messages(torch):
    for text in ["gpu", "cuda:x", "tpu:0"]:
        messages = []
        for library in (ember, torch):
            with pytest.raises(RuntimeError) as caught:
                library.device(text)
            messages.append(str(caught.value))
        assert messages[0] == messages[1]
    assert ember.device("cuda:1").index == 1 and ember.device("cpu:0") == ember.device("cpu", 0)


def test_a_refused_device_draws_no_random_numbers():
    ember.manual_seed(0)
    expected = ember.rand(3)
    ember.manual_seed(0)
    for draw in (ember.rand, ember.randn):
        with pytest.raises(AssertionError):
            draw(1000, device="cuda")
    with pytest.raises(AssertionError):
        ember.randint(5, (1000,), device="cuda")
    assert ember.equal(ember.rand(3), expected)
