"""DTensor, DeviceMesh, FSDP and DCP names without the features: truthful answers and clear errors."""

import pytest

import ember
from ember.distributed import _functional_collectives, device_mesh, fsdp
from ember.distributed.checkpoint import hf_storage
from ember.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor, zeros
from ember.distributed.tensor import _utils as dtensor_utils
from ember.distributed.tensor.placement_types import _StridedShard


def test_no_tensor_is_a_dtensor():
    assert not isinstance(ember.ones(3), DTensor)
    assert not isinstance(ember.nn.Parameter(ember.ones(3)), DTensor)
    assert issubclass(DTensor, ember.Tensor)


@pytest.mark.parametrize(
    "call",
    [
        lambda: DTensor(),
        lambda: DTensor.from_local(ember.ones(2)),
        lambda: distribute_tensor(ember.ones(2)),
        lambda: zeros(3),
        lambda: device_mesh.init_device_mesh("cpu", (2,)),
        lambda: device_mesh.DeviceMesh("cpu", [0, 1]),
        lambda: dtensor_utils.compute_local_shape_and_global_offset((4,), None, [Shard(0)]),
        lambda: fsdp.fully_shard(ember.nn.Linear(2, 2)),
        lambda: fsdp.FullyShardedDataParallel(ember.nn.Linear(2, 2)),
        lambda: hf_storage.HuggingFaceStorageReader("path"),
    ],
)
def test_building_a_sharded_object_raises_not_implemented(call):
    with pytest.raises(NotImplementedError, match="ember does not implement"):
        call()


def test_placements_describe_layouts():
    assert Shard(1) == Shard(1) and Shard(1) != Shard(0) and hash(Shard(1)) == hash(Shard(1))
    assert Shard(0).is_shard() and Shard(0).is_shard(0) and not Shard(0).is_shard(1)
    assert Replicate().is_replicate() and not Replicate().is_shard()
    assert Partial().is_partial("sum") and not Partial("max").is_partial("sum")
    assert [repr(Shard(2)), str(Shard(2)), repr(Replicate()), str(Partial())] == [
        "Shard(dim=2)",
        "S(2)",
        "Replicate()",
        "P(sum)",
    ]
    assert isinstance(_StridedShard(0, split_factor=2), Shard)


@pytest.mark.parametrize("size,chunks", [(10, 3), (10, 4), (2, 4), (0, 2), (8, 8)])
def test_shard_sizes_and_offsets_follow_chunk(size, chunks):
    """Ceil-sized chunks as `chunk` makes them; ranks past the data get empty shards at the end."""
    pieces = ember.arange(size).chunk(chunks) if size else ()
    for rank in range(chunks):
        length, offset = Shard.local_shard_size_and_offset(size, chunks, rank)
        expected = pieces[rank].tolist() if rank < len(pieces) else []
        assert list(range(offset, offset + length)) == expected


def test_shard_arithmetic_matches_torch():
    torch_placements = pytest.importorskip("torch.distributed.tensor")
    for size, chunks in [(10, 3), (10, 4), (2, 4), (7, 7), (5, 2)]:
        for rank in range(chunks):
            assert Shard.local_shard_size_and_offset(size, chunks, rank) == tuple(
                torch_placements.Shard.local_shard_size_and_offset(size, chunks, rank)
            )


def test_fsdp_policies_hold_their_settings_and_no_module_is_fsdp():
    policy = fsdp.MixedPrecisionPolicy(param_dtype=ember.float16)
    assert policy.param_dtype is ember.float16 and policy.cast_forward_inputs
    assert fsdp.CPUOffloadPolicy().pin_memory and isinstance(fsdp.CPUOffloadPolicy(), fsdp.OffloadPolicy)
    assert not isinstance(ember.nn.Linear(2, 2), (fsdp.FSDPModule, fsdp.FullyShardedDataParallel))


def test_wait_tensor_returns_the_synchronous_result():
    tensor = ember.ones(2)
    assert _functional_collectives.wait_tensor(tensor) is tensor
