"""`torch.distributed.checkpoint` (DCP): sharded checkpoints of DTensor state. Not in ember.

ember has no DTensor, so there is nothing sharded to save. Save whole state dicts with `ember.save`
(or safetensors). The names libraries import at start-up are in `hf_storage`; using them raises.
"""
