"""`torch.distributed._composable`: where PyTorch first published FSDP2's `fully_shard`."""
